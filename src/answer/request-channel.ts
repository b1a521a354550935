// The CLI's side of the request files that carry a reply to a process that can apply it by request (docs/answer.md):
// tongs-agents' plugin inside an OpenCode process ("OpenCode"), a held Claude Code PermissionRequest hook ("Claude
// Code"). The reply goes as a request file into `<state dir>/answer-requests/`, named for the one receiver (its
// address), which claims it by renaming it (opencode-plugin/answer-requests.js, the receivers' shared side). A request
// not claimed within the bound is withdrawn by renaming it too: exactly one rename wins, so a reply is either applied
// once by the receiver or never. No TCP port: the directory is the state dir's (owner-only).
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { REQUESTS_DIR } from "../../opencode-plugin/answer-requests.js";
import { ensurePrivateDir } from "../store/paths.ts";
import { writeFileAtomic } from "../store/records.ts";
import type { Reply } from "./replies.ts";

/** How long a receiver has to claim a request (it watches the directory, and reads it every second besides). */
export const CLAIM_MS = 2_500;
/** How long a claimed request may take to come back (OpenCode's server takes it in-process; the plugin's own bound is 5 s). */
export const OUTCOME_MS = 8_000;

/** Who receives a request: its address (the file name's first part) and, for messages, what it is. */
export interface Receiver {
  /** The OpenCode process's instance token (the record's `instance_id`); a held hook's id. */
  readonly address: string;
  /** "OpenCode's tongs-agents plugin", "the held PermissionRequest hook". */
  readonly name: string;
  /** What to check when it did not claim the request in time. */
  readonly hint: string;
}

const OutcomeSchema = z.union([
  z.object({
    ok: z.literal(true),
    sent: z.string().check(z.maxLength(16)),
    option: z.object({ number: z.int().check(z.gte(1), z.lte(99)), label: z.string().check(z.maxLength(512)) }),
  }),
  z.object({ ok: z.literal(false), reason: z.string().check(z.maxLength(32)), detail: z.string().check(z.maxLength(1024)) }),
]);
export type ReceiverOutcome = z.infer<typeof OutcomeSchema>;

export type Delivery =
  | { readonly ok: true; readonly outcome: ReceiverOutcome }
  /** `sent: false`: nothing reached the agent; `sent: "unknown"`: the receiver took it and did not say what happened. */
  | { readonly ok: false; readonly sent: false | "unknown"; readonly detail: string };

/** tongs-agents' plugin inside the OpenCode process with this instance token (the record's `instance_id`). */
export const openCodePlugin = (instance: string): Receiver => ({
  address: instance,
  name: "OpenCode's tongs-agents plugin",
  hint: "is the plugin installed and OpenCode restarted since? `tongs-agents doctor --agent opencode`",
});

/** A held Claude Code PermissionRequest hook (src/hook/claude-hold.ts), by the id it registered. */
export const heldHook = (id: string): Receiver => ({
  address: id,
  name: "Claude Code's held PermissionRequest hook",
  hint: "it ended meanwhile: the dialog was answered or its bound passed",
});

export interface DeliveryContext {
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly claimMs?: number;
  readonly outcomeMs?: number;
}

const ADDRESS = /^[A-Za-z0-9-]{1,64}$/;

/** Hand `request` (a reply and what ties it to one wait) to its receiver and wait for what it did. */
export async function deliverRequest(
  stateDir: string,
  receiver: Receiver,
  request: { readonly reply: Reply } & Record<string, unknown>,
  context: DeliveryContext = {},
): Promise<Delivery> {
  const { now = Date.now, sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) } = context;
  if (!ADDRESS.test(receiver.address))
    return { ok: false, sent: false, detail: `${receiver.name} has no address a request can be named for` };
  const dir = join(stateDir, REQUESTS_DIR);
  const checked = ensurePrivateDir(dir);
  if (!checked.ok) return { ok: false, sent: false, detail: checked.detail };
  sweep(dir, now());
  const base = join(dir, `${receiver.address}.${randomBytes(8).toString("hex")}`);
  const body = JSON.stringify({ v: 1, at: new Date(now()).toISOString(), ...request });
  const written = writeFileAtomic(`${base}.request`, body, { maxBytes: 16_384 });
  if (!written.ok) return { ok: false, sent: false, detail: written.detail };

  const claimBy = now() + (context.claimMs ?? CLAIM_MS);
  for (;;) {
    if (!existsSync(`${base}.request`)) break; // claimed
    if (now() >= claimBy) {
      try {
        renameSync(`${base}.request`, `${base}.withdrawn`);
        remove(`${base}.withdrawn`);
        return {
          ok: false,
          sent: false,
          detail: `${receiver.name} did not take the reply within ${(context.claimMs ?? CLAIM_MS) / 1000} s (${receiver.hint})`,
        };
      } catch {
        break; // the receiver claimed it meanwhile
      }
    }
    await sleep(50);
  }
  const outcomeBy = now() + (context.outcomeMs ?? OUTCOME_MS);
  for (;;) {
    const outcome = readOutcome(`${base}.outcome`);
    if (outcome !== undefined) {
      remove(`${base}.outcome`);
      return outcome === "invalid"
        ? { ok: false, sent: "unknown", detail: `${receiver.name}'s outcome is not what it writes` }
        : { ok: true, outcome };
    }
    if (now() >= outcomeBy)
      return {
        ok: false,
        sent: "unknown",
        detail: `${receiver.name} took the reply but said nothing within ${(context.outcomeMs ?? OUTCOME_MS) / 1000} s: it may have been applied; look at the pane`,
      };
    await sleep(50);
  }
}

function readOutcome(path: string): ReceiverOutcome | "invalid" | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = OutcomeSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : "invalid";
  } catch {
    return "invalid";
  }
}

/** Files a minute old are no one's any more (an outcome the CLI stopped waiting for, a request no receiver saw). */
const LEFTOVER_MS = 60_000;

function sweep(dir: string, at: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    try {
      if (at - statSync(join(dir, name)).mtimeMs > LEFTOVER_MS) unlinkSync(join(dir, name));
    } catch {
      // Gone already.
    }
  }
}

function remove(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}
