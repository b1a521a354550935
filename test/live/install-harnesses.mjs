#!/usr/bin/env node
// Install the pinned harness CLIs the live tests run, from the npm registry, into a cache outside the repository
// (default ~/.cache/tongs-agents/harnesses; TONGS_AGENTS_HARNESS_CACHE overrides). Skips what is already there.
// Install scripts run: Claude Code's postinstall hard-links its native binary (with --ignore-scripts it is a stub).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";

const harnesses = JSON.parse(readFileSync(new URL("./harnesses.json", import.meta.url), "utf8"));
const cache = process.env.TONGS_AGENTS_HARNESS_CACHE || join(userInfo().homedir, ".cache", "tongs-agents", "harnesses");
// npm's cache is the e2e image builder's (containers/images.ts cacheDirOf): the agents layers of the e2e images install
// the same pinned versions, and find the hundreds of megabytes already downloaded here.
const npmCache = join(
  process.env.TONGS_AGENTS_E2E_CACHE || join(process.env.XDG_CACHE_HOME || join(userInfo().homedir, ".cache"), "tongs-agents", "e2e"),
  "npm-cache",
);
const only = process.argv.slice(2);

for (const [id, { package: name, version, bin }] of Object.entries(harnesses)) {
  if (only.length > 0 && !only.includes(id)) continue;
  const dir = join(cache, `${name.split("/").pop()}-${version}`);
  const installed = join(dir, "node_modules", name, "package.json");
  if (
    existsSync(installed) &&
    JSON.parse(readFileSync(installed, "utf8")).version === version &&
    existsSync(join(dir, "node_modules", ".bin", bin))
  ) {
    console.log(`${name}@${version}: already in ${dir}`);
    continue;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ private: true, description: "tongs-agents live-test harness" })}\n`);
  console.log(`${name}@${version}: installing into ${dir}`);
  execFileSync("npm", ["install", "--cache", npmCache, "--no-audit", "--no-fund", "--save-exact", `${name}@${version}`], {
    cwd: dir,
    stdio: "inherit",
  });
}
