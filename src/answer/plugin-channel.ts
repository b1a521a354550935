// The CLI's side of the answer channel into an OpenCode process (docs/answer.md, "OpenCode"): the reply goes as a
// request file into `<state dir>/answer-requests/`, named for the process's instance token, for tongs-agents' plugin
// inside that process (opencode-plugin/answer-channel.js) to claim by renaming it. A request not claimed within the
// bound is withdrawn by renaming it too: exactly one rename wins, so a reply is either applied once by the plugin or
// never. No TCP port: the directory is the state dir's (owner-only), and the plugin replies in-process.
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { ensurePrivateDir } from "../store/paths.ts";
import { writeFileAtomic } from "../store/records.ts";
import type { Reply } from "./replies.ts";

/** The directory under the state dir; the plugin's REQUESTS_DIR. */
export const REQUESTS_DIR = "answer-requests";
/** How long the plugin has to claim a request (it watches the directory, and reads it every second besides). */
export const CLAIM_MS = 2_500;
/** How long a claimed request may take to come back (OpenCode's server takes it in-process; the plugin's own bound is 5 s). */
export const OUTCOME_MS = 8_000;

export interface PluginRequest {
  /** The OpenCode process's instance token (the record's `instance_id`). */
  readonly instance: string;
  /** OpenCode's session id (the record's `session_id`). */
  readonly session: string;
  /** The record's emitter sequence: that of the waiting event the wait was opened by. */
  readonly sequence: number;
  readonly kind: "permission" | "input";
  readonly reply: Reply;
}

const OutcomeSchema = z.union([
  z.object({
    ok: z.literal(true),
    sent: z.string().check(z.maxLength(16)),
    option: z.object({ number: z.int().check(z.gte(1), z.lte(99)), label: z.string().check(z.maxLength(512)) }),
  }),
  z.object({ ok: z.literal(false), reason: z.string().check(z.maxLength(32)), detail: z.string().check(z.maxLength(1024)) }),
]);
export type PluginOutcome = z.infer<typeof OutcomeSchema>;

export type Delivery =
  | { readonly ok: true; readonly outcome: PluginOutcome }
  /** `sent: false`: nothing reached OpenCode; `sent: "unknown"`: the plugin took it and did not say what happened. */
  | { readonly ok: false; readonly sent: false | "unknown"; readonly detail: string };

export interface DeliveryContext {
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly claimMs?: number;
  readonly outcomeMs?: number;
}

const INSTANCE = /^[A-Za-z0-9-]{1,64}$/;

/** Hand `request` to the plugin of its OpenCode process and wait for what it did. */
export async function deliverToPlugin(stateDir: string, request: PluginRequest, context: DeliveryContext = {}): Promise<Delivery> {
  const { now = Date.now, sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) } = context;
  if (!INSTANCE.test(request.instance))
    return { ok: false, sent: false, detail: "the record's instance token is not one the plugin writes" };
  const dir = join(stateDir, REQUESTS_DIR);
  const checked = ensurePrivateDir(dir);
  if (!checked.ok) return { ok: false, sent: false, detail: checked.detail };
  sweep(dir, now());
  const base = join(dir, `${request.instance}.${randomBytes(8).toString("hex")}`);
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
          detail: `OpenCode's tongs-agents plugin did not take the reply within ${(context.claimMs ?? CLAIM_MS) / 1000} s (is the plugin installed and OpenCode restarted since? \`tongs-agents doctor --agent opencode\`)`,
        };
      } catch {
        break; // the plugin claimed it meanwhile
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
        ? { ok: false, sent: "unknown", detail: "the plugin's outcome is not what it writes" }
        : { ok: true, outcome };
    }
    if (now() >= outcomeBy)
      return {
        ok: false,
        sent: "unknown",
        detail: `OpenCode's plugin took the reply but said nothing within ${(context.outcomeMs ?? OUTCOME_MS) / 1000} s: it may have been applied; look at the pane`,
      };
    await sleep(50);
  }
}

function readOutcome(path: string): PluginOutcome | "invalid" | undefined {
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

/** Files a minute old are no one's any more (an outcome the CLI stopped waiting for, a request the plugin never saw). */
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
