// Answering a session on an SSH host (`answer HOST:query <reply>`, docs/answer.md): the host answers it itself, with
// its own `tongs-agents answer --json --local` and every guard that runs there (its records, its panes, read twice
// before the key). This side builds the remote command (each word quoted by the one remote runner, `--` before the
// query and the reply so neither is read as an option) and checks what comes back as strictly as any host answer.
import * as z from "zod/mini";
import { lazySchema } from "../core/lazy-schema.ts";
import { WAIT_KINDS } from "../core/schema.ts";
import type { HostEntry } from "./config.ts";
import { readRemoteJson, short, type HostReport, type RemoteContext } from "./remote.ts";

/** An answer takes longer than a listing: two reads of the pane, the key, then up to 1.5 s watching the dialog close. */
export const ANSWER_TIMEOUT_MS = 20_000;

/** The words run on the host: `answer --json --local [--wait ID] -- QUERY REPLY...`. */
export function answerWords(query: string, reply: readonly string[], waitId: string | undefined): string[] {
  return ["answer", "--json", "--local", ...(waitId === undefined ? [] : ["--wait", waitId]), "--", query, ...reply];
}

const OptionSchema = z.object({
  number: z.int().check(z.gte(1), z.lte(99)),
  label: short(512),
  reply: z.optional(z.nullable(z.enum(["allow", "always", "session", "deny"]))),
});
const WaitSchema = z.object({ id: short(64), kind: z.enum(WAIT_KINDS), tool: short(512), since: short(64) });
/** What the host's `answer --json` printed: an answer sent, the dialog shown (`show`), or why nothing was sent. */
const HostAnswerSchema = lazySchema(() =>
  z.union([
    z.object({
      ok: z.literal(true),
      session: short(512),
      wait: short(64),
      channel: z.enum(["keys", "plugin", "hook"]),
      target: short(512),
      reply: short(128),
      option: OptionSchema,
      keys: z.array(short(8)).check(z.maxLength(4)),
      closed: z.boolean(),
    }),
    z.object({
      ok: z.literal(true),
      session: short(512),
      harness: short(64),
      wait: WaitSchema,
      channel: z.enum(["keys", "plugin", "hook"]),
      target: short(512),
      evidence: short(512),
      dialog: z.object({
        title: short(512),
        context: z.array(short(512)).check(z.maxLength(16)),
        options: z.array(OptionSchema).check(z.maxLength(16)),
      }),
    }),
    z.object({ ok: z.optional(z.literal(false)), reason: short(32), detail: short(2048) }),
  ]),
);

export type HostAnswer =
  | { readonly ok: true; readonly value: z.infer<typeof HostAnswerSchema>; readonly report: HostReport }
  | { readonly ok: false; readonly detail: string; readonly report: HostReport };

/** Ask `host` to answer (or show) its session `query`; a host's answer that fits none of the shapes is a failure. */
export async function answerOnHost(
  host: HostEntry,
  query: string,
  reply: readonly string[],
  waitId: string | undefined,
  context: RemoteContext,
): Promise<HostAnswer> {
  const read = await readRemoteJson(host, answerWords(query, reply, waitId), {
    ...context,
    timeoutMs: Math.max(context.timeoutMs, ANSWER_TIMEOUT_MS),
  });
  if (read.value !== undefined || read.ok) {
    const parsed = HostAnswerSchema.safeParse(read.value);
    if (parsed.success) return { ok: true, value: parsed.data, report: read.report };
    return {
      ok: false,
      detail: `${host.name}: the answer is not one \`answer --json\` gives`,
      report: { ...read.report, state: "failed" },
    };
  }
  // No answer: the command may have run there; say so rather than claim nothing was sent.
  const unknown =
    read.report.state === "unreachable" && read.report.detail.startsWith("no answer within")
      ? `; the reply may have been sent there: look with \`tongs-agents answer ${host.name}:${query} show\``
      : "";
  return { ok: false, detail: `${host.name}: ${read.report.state} (${read.report.detail})${unknown}`, report: read.report };
}
