// Real Pi releases from the npm registry, installed once per version into a cache outside the repository
// (~/.cache/tongs-agents/pi-live/<package>@<version>/, or $TONGS_AGENTS_CACHE_DIR/pi-live/...). Versions are pinned:
// a test records which Pi it proved, and docs/harness-facts.md names the same versions.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";

export interface PiRelease {
  readonly packageName: string;
  readonly version: string;
  /** The `pi` bin, relative to the package directory. */
  readonly bin: string;
  /** Has agent_settled and ui_prompt_* (the 1.x line). */
  readonly settles: boolean;
}

export const PI_RELEASES = {
  current: { packageName: "@earendil-works/pi-coding-agent", version: "1.6.0", bin: "dist/bundle/cli.js", settles: true },
  legacy: { packageName: "@mariozechner/pi-coding-agent", version: "0.73.1", bin: "dist/cli.js", settles: false },
} as const satisfies Record<string, PiRelease>;

export interface InstalledPi {
  readonly release: PiRelease;
  readonly dir: string;
  /** The script to run with Node.js: `node <cli> ...` is `pi ...`. */
  readonly cli: string;
}

/** The real user's home (test workers point HOME into a sandbox): the cache and npm's own config live there. */
const realHome = () => userInfo().homedir;

export function cacheRoot(): string {
  return process.env.TONGS_AGENTS_CACHE_DIR ?? join(realHome(), ".cache", "tongs-agents");
}

function installedVersion(dir: string, packageName: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, "node_modules", packageName, "package.json"), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

function npmInstall(dir: string, spec: string): Promise<void> {
  // npm runs with the real user's HOME so that their registry settings (~/.npmrc) apply; it writes only into `dir`
  // and npm's own cache. --ignore-scripts: Pi needs none of its dependencies' install scripts.
  const env = { ...process.env, HOME: realHome() };
  const args = ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", "--loglevel=error", spec];
  return new Promise((resolve, reject) => {
    execFile("npm", args, { cwd: dir, env, timeout: 9 * 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`npm ${args.join(" ")} failed in ${dir}: ${error.message}\n${stderr.slice(-4000)}`));
      else resolve();
    });
  });
}

/**
 * The given Pi release, installing it on first use. Throws (so the live test fails, never skips) with npm's reason
 * when it cannot be installed.
 */
export async function ensurePi(release: PiRelease): Promise<InstalledPi> {
  const base = join(cacheRoot(), "pi-live");
  const dir = join(base, `${release.packageName.replace("/", "+")}@${release.version}`);
  const result = { release, dir, cli: join(dir, "node_modules", release.packageName, release.bin) };
  if (installedVersion(dir, release.packageName) === release.version && existsSync(result.cli)) return result;
  // Install beside the target and move it into place: a concurrent run either finds the finished directory or loses
  // the rename and uses the winner's.
  mkdirSync(base, { recursive: true });
  const staging = `${dir}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  writeFileSync(join(staging, "package.json"), '{"private":true}\n');
  try {
    await npmInstall(staging, `${release.packageName}@${release.version}`);
    if (installedVersion(staging, release.packageName) !== release.version)
      throw new Error(`npm installed no ${release.packageName}@${release.version} in ${staging}`);
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (installedVersion(dir, release.packageName) !== release.version) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (!existsSync(result.cli)) throw new Error(`${release.packageName}@${release.version} has no ${release.bin}`);
  return result;
}
