// Several agents that become ready together give one notification. Every notifier leaves its session in
// <state dir>/notify/pending/ and tries to become the leader (a lock). The leader waits until no new session arrived for
// a short quiet time (bounded), takes every pending session at once, and releases the lock; the others find their
// session taken and exit. A session that arrives after the leader took the batch is taken by the next leader.
import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { ensurePrivateDir } from "../store/paths.ts";
import { readTextFile, writeFileAtomic } from "../store/records.ts";
import { CANONICAL_ID_PATTERN } from "../core/schema.ts";
import { notifyDirOf } from "../store/notify-ledger.ts";

export interface BurstTiming {
  /** The batch closes once no new session arrived for this long... */
  readonly quietMs: number;
  /** ...or this long after the leader took the lock, whichever comes first. */
  readonly maxMs: number;
  /** A notifier that cannot become leader and still sees its session pending gives up after this (the next one takes it). */
  readonly waitBoundMs: number;
  readonly pollMs: number;
}

// Quiet for 1 s: each notifier is a Node process started at low priority, so on a busy machine the notifiers of agents
// that became ready together arrive spread over more than the 400 ms this was (two notices in a CI run for five agents).
export const BURST_TIMING: BurstTiming = { quietMs: 1000, maxMs: 3000, waitBoundMs: 15_000, pollMs: 50 };

/** A leader holding the lock longer than this is taken over (it crashed): far above quiet + max. */
const STALE_LEADER_MS = 10_000;

export type Joined<T> =
  | { readonly kind: "leader"; readonly value: T }
  | { readonly kind: "taken"; readonly detail: string }
  | { readonly kind: "gave-up"; readonly detail: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function pendingIds(pendingDir: string): string[] {
  try {
    return readdirSync(pendingDir).filter((name) => /^[0-9a-f]{64}$/.test(name));
  } catch {
    return [];
  }
}

function releaseQuietly(release: () => void): void {
  try {
    release();
  } catch {
    // taken over as stale: nothing of ours to remove
  }
}

/** The canonical ids pending now; each entry is removed as it is taken. */
function takePending(pendingDir: string): string[] {
  const taken: string[] = [];
  for (const name of pendingIds(pendingDir)) {
    const path = join(pendingDir, name);
    const file = readTextFile(path, 256);
    try {
      unlinkSync(path);
    } catch {
      continue; // another leader took it first (a stale takeover): its batch has it
    }
    if (file.kind === "text" && CANONICAL_ID_PATTERN.test(file.text)) taken.push(file.text);
  }
  return taken;
}

/**
 * Leave `canonicalId` pending and either lead the burst (run `take` under the lock with every pending id, and return
 * what it returns) or find that another leader took it.
 */
export async function joinBurst<T>(
  stateDir: string,
  canonicalId: string,
  take: (ids: readonly string[]) => T,
  timing: BurstTiming = BURST_TIMING,
): Promise<Joined<T>> {
  const notifyDir = notifyDirOf(stateDir);
  const pendingDir = join(notifyDir, "pending");
  for (const dir of [stateDir, notifyDir, pendingDir, join(notifyDir, "sent")]) {
    const checked = ensurePrivateDir(dir);
    if (!checked.ok) return { kind: "gave-up", detail: checked.detail };
  }
  const digest = CANONICAL_ID_PATTERN.exec(canonicalId)?.[2];
  if (!digest) return { kind: "gave-up", detail: `not a canonical id: ${canonicalId.slice(0, 80)}` };
  const mine = join(pendingDir, digest);
  const written = writeFileAtomic(mine, canonicalId, { maxBytes: 256 });
  if (!written.ok) return { kind: "gave-up", detail: written.detail };
  const started = Date.now();
  for (;;) {
    let release: (() => void) | undefined;
    try {
      release = lockfile.lockSync(join(notifyDir, "leader"), {
        realpath: false,
        lockfilePath: join(notifyDir, "leader.lock"),
        stale: STALE_LEADER_MS,
        onCompromised: () => undefined,
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED")
        return { kind: "gave-up", detail: `leader lock: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
    }
    // Our session may have been taken while we waited for the lock: then there is nothing to lead.
    if (release && readTextFile(mine, 256).kind === "absent") {
      releaseQuietly(release);
      return { kind: "taken", detail: "another notifier took this session into its batch" };
    }
    if (release) {
      try {
        const leading = Date.now();
        let count = pendingIds(pendingDir).length;
        for (;;) {
          await sleep(Math.max(1, Math.min(timing.quietMs, timing.maxMs - (Date.now() - leading))));
          const now = pendingIds(pendingDir).length;
          if (now === count || Date.now() - leading >= timing.maxMs) break;
          count = now;
        }
        return { kind: "leader", value: take(takePending(pendingDir)) };
      } finally {
        releaseQuietly(release);
      }
    }
    if (readTextFile(mine, 256).kind === "absent") return { kind: "taken", detail: "another notifier took this session into its batch" };
    if (Date.now() - started > timing.waitBoundMs)
      return {
        kind: "gave-up",
        detail: `no leader took the session within ${timing.waitBoundMs} ms; it stays pending for the next notifier`,
      };
    await sleep(timing.pollMs);
  }
}
