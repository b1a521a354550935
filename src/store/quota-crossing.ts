// The opt-in warning before a limit (docs/notifications.md, "Quota"): with `notifications.quota_percent` set, a quota
// window that reaches it notifies once. A crossing is one window of one harness reaching the threshold within one
// period, told apart by the window's stated reset; sessions that share an account all see it, so whoever sees it first
// (Claude Code's status-line wrapper, a reader of Codex's rollout) claims it by creating its mark with O_EXCL, and
// only the claimant starts the notifier. A window whose harness states no reset has no period to tell: it never
// notifies. Marks are removed once their reset has passed (`prune`).
import { closeSync, constants, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { readConfigFile } from "../core/config-file.ts";
import { sha256Hex } from "../core/sha256.ts";
import type { QuotaWindow } from "../core/usage-facts.ts";
import { notifyDirOf } from "./notify-ledger.ts";
import { notifierBundle, startDetached, type StartNotifier } from "./notifier-process.ts";
import { ensurePrivateDir } from "./paths.ts";

/** The threshold the user set (1 to 100), or undefined: no quota notifications (the default). */
export function quotaThreshold(env: NodeJS.ProcessEnv): number | undefined {
  const file = readConfigFile(env);
  if (file.kind !== "ok") return undefined;
  const section = file.sections.notifications;
  const value = typeof section === "object" && section !== null ? (section as Record<string, unknown>).quota_percent : undefined;
  return typeof value === "number" && Number.isFinite(value) && value > 0 && value <= 100 ? value : undefined;
}

function marksDir(stateDir: string): string {
  return join(notifyDirOf(stateDir), "quota");
}

/** Claim the crossing of `window`: true for exactly one caller per harness, window and reset. */
export function claimCrossing(stateDir: string, harness: string, window: QuotaWindow): boolean {
  if (window.resets_at === undefined) return false;
  const dir = marksDir(stateDir);
  if (!ensurePrivateDir(dir).ok) return false;
  const name = sha256Hex(JSON.stringify([harness, window.name, window.resets_at]));
  try {
    const fd = openSync(join(dir, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      // The reset, for prune: once it has passed the mark can go.
      writeSync(fd, window.resets_at);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch {
    return false;
  }
}

export interface CrossingContext {
  readonly stateDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly bundle?: () => string | undefined;
  readonly start?: StartNotifier;
}

/**
 * Windows just stated (`windows`, compared with what was known before): each at or past the threshold that this caller
 * claims starts one notifier. Returns the windows it notified of. Never throws.
 */
export function notifyCrossings(
  session: { readonly harness: string; readonly canonicalId: () => string | undefined },
  windows: readonly QuotaWindow[],
  before: readonly QuotaWindow[],
  context: CrossingContext,
): string[] {
  try {
    const fresh = windows.filter((window) => !before.some((known) => known.name === window.name && known.at === window.at));
    if (fresh.length === 0 || context.env.TONGS_AGENTS_NOTIFY === "off") return [];
    const threshold = quotaThreshold(context.env);
    if (threshold === undefined) return [];
    const now = Date.now();
    // A window read from old lines whose reset has passed is history, not a crossing.
    const crossed = fresh.filter(
      (window) =>
        window.used_percent >= threshold &&
        Date.parse(window.resets_at ?? "") > now &&
        claimCrossing(context.stateDir, session.harness, window),
    );
    const bundle = crossed.length > 0 ? (context.bundle ?? notifierBundle)() : undefined;
    const canonicalId = bundle === undefined ? undefined : session.canonicalId();
    if (bundle === undefined || canonicalId === undefined) return crossed.map((window) => window.name);
    for (const window of crossed)
      (context.start ?? startDetached)(
        bundle,
        ["quota", context.stateDir, canonicalId, window.name, String(window.used_percent), window.resets_at ?? ""],
        context.env,
      );
    return crossed.map((window) => window.name);
  } catch {
    return [];
  }
}

/** Marks whose reset has passed (their crossing can never come again), removed unless `dryRun`: their names. */
export function pruneCrossings(stateDir: string, now: number, dryRun = false): string[] {
  const dir = marksDir(stateDir);
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    try {
      const resetsAt = Date.parse(readFileSync(join(dir, name), "utf8").trim());
      if (Number.isNaN(resetsAt) || resetsAt >= now) continue;
      if (!dryRun) unlinkSync(join(dir, name));
      removed.push(name);
    } catch {
      // gone meanwhile
    }
  }
  return removed;
}
