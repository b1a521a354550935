// Shared by the adversarial suite (docs/reliability.md): running many things at once with a bound, printing figures,
// and the invariants every attack is checked against (what the state dir may hold, what nothing may write elsewhere).
import { appendFileSync, lstatSync, mkdtempSync, readdirSync, readlinkSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { cpus, tmpdir } from "node:os";
import { buildSync } from "esbuild";
import { listRecords, readRecord } from "../../src/store/records.ts";

/**
 * A fixture the attacks start as a child process hundreds of times, bundled into one file (as the product's own bundles
 * are) in a new temp dir: run from its TypeScript source, each start would strip the types of every module it imports
 * (0.4 CPU-s more per start than the bundle). The code run is the same. The caller removes `dir` when done.
 */
export function bundleFixture(source: string): { path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "tongs-adv-fixture-"));
  const path = join(dir, basename(source).replace(/\.ts$/, ".mjs"));
  buildSync({ entryPoints: [source], outfile: path, bundle: true, platform: "node", format: "esm", target: "node22", logLevel: "error" });
  return { path, dir };
}

/** Run `fn` over `items`, at most `limit` at once; results in input order. */
export async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Print one attack's figures (vitest shows them under the test), and append them as a JSON line to the file named by
 * TONGS_AGENTS_FIGURES when set (docs/reliability.md is written from such a run).
 */
export function printFigures(attack: string, figures: Record<string, string | number | boolean>): void {
  const width = Math.max(...Object.keys(figures).map((key) => key.length));
  console.log([`[adversarial] ${attack}`, ...Object.entries(figures).map(([key, value]) => `  ${key.padEnd(width)}  ${value}`)].join("\n"));
  const file = process.env.TONGS_AGENTS_FIGURES;
  if (file) appendFileSync(file, `${JSON.stringify({ attack, at: new Date().toISOString(), cpus: cpus().length, figures })}\n`);
}

/** Every path under `dir` (not following symlinks), with its kind and size: to show nothing changed outside the state dir. */
export function tree(dir: string, skip: readonly string[] = []): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      if (skip.includes(child)) continue;
      const stats = lstatSync(child);
      const kind = stats.isSymbolicLink()
        ? `link->${readlinkSync(child)}`
        : stats.isDirectory()
          ? "dir"
          : stats.isFile()
            ? `file:${stats.size}:${stats.mtimeMs}`
            : "other";
      entries.set(relative(dir, child), kind);
      if (stats.isDirectory()) walk(child);
    }
  };
  walk(dir);
  return entries;
}

/** Names the hook may leave in a sessions dir: records, pointers, spools and their entries, locks, temp files. */
const SESSION_ENTRY = /^((instance-)?[0-9a-f]{64}\.json|[0-9a-f]{64}\.spool|(instance-)?[0-9a-f]{64}\.json\.lock|\.lock-staging|.+\.tmp)$/;
const SPOOL_ENTRY = /^(\d{20}-\d+-[0-9a-f]{8}\.json|.+\.tmp)$/;
const STATE_ENTRY = /^(sessions|incoming|drainer\.pid|drainer\.log|hook\.log|hook\.log\.1|validated-records\.json|.+\.tmp)$/;

export interface StateCheck {
  readonly records: number;
  readonly tombstones: number;
  readonly problems: string[];
}

/**
 * What the state dir holds after an attack: only the names the store writes, and every record file valid (no torn or
 * corrupt record), none larger than the bound.
 */
export function checkState(stateDir: string, now: number = Date.now()): StateCheck {
  const problems: string[] = [];
  let records = 0;
  let tombstones = 0;
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch {
    return { records, tombstones, problems };
  }
  for (const name of names) if (!STATE_ENTRY.test(name)) problems.push(`unexpected ${name} in the state dir`);
  const sessions = join(stateDir, "sessions");
  for (const name of names.includes("sessions") ? readdirSync(sessions) : []) {
    if (!SESSION_ENTRY.test(name)) problems.push(`unexpected ${name} in the sessions dir`);
    const path = join(sessions, name);
    if (name.endsWith(".spool"))
      for (const entry of readdirSync(path)) if (!SPOOL_ENTRY.test(entry)) problems.push(`unexpected ${entry} in ${name}`);
    if (!/^[0-9a-f]{64}\.json$/.test(name)) continue;
    const read = readRecord(path, now);
    if (read.kind === "record") records++;
    else if (read.kind === "tombstone") tombstones++;
    else problems.push(`${name}: ${read.kind === "invalid" ? `${read.reason} ${read.detail}` : read.kind}`);
  }
  if (names.includes("sessions"))
    for (const invalid of listRecords(sessions, now).invalid) problems.push(`listing: ${invalid.digest} ${invalid.reason}`);
  return { records, tombstones, problems: [...new Set(problems)] };
}

export const max = (values: readonly number[]): number => values.reduce((a, b) => Math.max(a, b), 0);
export const ms = (value: number): string => `${Math.round(value)} ms`;
