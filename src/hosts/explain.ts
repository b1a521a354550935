// Why a session on a host shows its state: `tongs-agents explain --json --local -- QUERY` run there (src/hosts/show.ts
// askHost), its answer checked field by field as a listed row is (bounded lists, bounded strings, known states), the
// session tagged with the host asked.
import * as z from "zod/mini";
import { lazySchema } from "../core/lazy-schema.ts";
import type { Explanation } from "../fleet/explain.ts";
import type { HostEntry } from "./config.ts";
import { rowOf, short, stamp, VIEW_STATUSES, type HostedSession, type RemoteContext } from "./remote.ts";
import { askHost, type HostShow } from "./show.ts";

/** The host's explanation, with its session as every remote row is. */
export type HostExplanation = Omit<Explanation, "session"> & { readonly session: HostedSession };

// The record keeps a bounded history (src/fleet/explain.ts); the caps here are generous bounds, not that bound.
const ExplanationSchema = lazySchema(() =>
  z.object({
    session: z.unknown(),
    pending: z.array(z.object({ kind: short(64), tool: short(512), detail: short(2048), since: stamp })).check(z.maxLength(64)),
    entries: z
      .array(
        z.object({
          at: stamp,
          source: short(32),
          event: short(128),
          status: z.enum(VIEW_STATUSES),
          change: short(2048),
          recorded: z.boolean(),
        }),
      )
      .check(z.maxLength(64)),
    unwritten: z.int().check(z.gte(0), z.lte(100_000)),
    note: short(2048),
  }),
);

export async function explainOnHost(
  host: HostEntry,
  query: string,
  context: RemoteContext,
): Promise<{ ok: true; explanation: HostExplanation } | Exclude<HostShow, { ok: true }>> {
  const answer = await askHost(host, "explain", query, context, (value) => {
    const parsed = ExplanationSchema.safeParse(value);
    if (!parsed.success) return undefined;
    const session = rowOf(host, parsed.data.session);
    return session ? { ...parsed.data, session } : undefined;
  });
  return answer.ok ? { ok: true, explanation: answer.value as HostExplanation } : answer;
}
