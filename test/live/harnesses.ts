// Where the live tests find the real harness CLIs (installed by `npm run live:deps`). A missing one fails the test
// with the reason: live tests never skip.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname, join } from "node:path";

interface HarnessPackage {
  readonly package: string;
  readonly version: string;
  readonly bin: string;
}

export const HARNESS_PACKAGES = JSON.parse(readFileSync(new URL("./harnesses.json", import.meta.url), "utf8")) as Record<
  "claude" | "codex" | "pi" | "gemini" | "qwen" | "copilot" | "opencode" | "kimi" | "cline",
  HarnessPackage
>;

/** The directory holding the harness's bin link (put it on PATH), checked to be the pinned version. */
export function harnessBinDir(id: keyof typeof HARNESS_PACKAGES): string {
  const { package: name, version, bin } = HARNESS_PACKAGES[id];
  const cache = process.env.TONGS_AGENTS_HARNESS_CACHE || join(userInfo().homedir, ".cache", "tongs-agents", "harnesses");
  const dir = join(cache, `${name.split("/").pop()}-${version}`);
  const manifest = join(dir, "node_modules", name, "package.json");
  const link = join(dir, "node_modules", ".bin", bin);
  if (!existsSync(manifest) || !existsSync(link) || JSON.parse(readFileSync(manifest, "utf8")).version !== version) {
    throw new Error(`${name}@${version} is not installed in ${dir}: run \`npm run live:deps\` (downloads it from the npm registry)`);
  }
  return dirname(link);
}

/**
 * OpenCode npm-installs @opencode-ai/plugin (its own version) into its config dir at every start-up that lacks it,
 * which takes minutes on a loaded machine (and 71 s to fail offline): put it there first, as a user's earlier run would.
 */
export function seedOpencodePlugin(configDir: string, home: string): void {
  mkdirSync(configDir, { recursive: true });
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--save-exact", `@opencode-ai/plugin@${HARNESS_PACKAGES.opencode.version}`], {
    cwd: configDir,
    env: { ...process.env, HOME: home },
    stdio: "ignore",
    timeout: 300_000,
  });
}
