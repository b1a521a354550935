// The held Claude Code PermissionRequest hooks `tongs-agents answer` can reply through (docs/answer.md, "Claude
// Code"): each registers itself under `<state dir>/answer-holds/` (src/hook/claude-hold.ts) with its PID, its
// process-start token, the record and the wait it holds. A registration counts only while that very process lives
// (its start token unchanged): one left by a hook that was killed is passed over, and the answer falls back to keys.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import type { ProcessSource } from "../core/proc.ts";
import { readTextFile } from "../store/records.ts";

export const HOLDS_DIR = "answer-holds";

const OptionSchema = z.object({
  number: z.int().check(z.gte(1), z.lte(99)),
  label: z.string().check(z.maxLength(512)),
  reply: z.optional(z.enum(["allow", "always", "deny"])),
});

const HoldSchema = z.object({
  v: z.literal(1),
  id: z.string().check(z.regex(/^hold-[0-9a-f]{16}$/)),
  pid: z.int().check(z.gt(1)),
  start: z.string().check(z.minLength(1), z.maxLength(128)),
  session: z.string().check(z.maxLength(256)),
  wait: z.string().check(z.regex(/^[0-9a-f]{12}$/)),
  options: z.array(OptionSchema).check(z.maxLength(32)),
});
export type Hold = z.infer<typeof HoldSchema>;

/** The live held hook registered for this record's open wait, if there is one. */
export async function liveHold(stateDir: string, session: string, wait: string, processes: ProcessSource): Promise<Hold | undefined> {
  const dir = join(stateDir, HOLDS_DIR);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^hold-[0-9a-f]{16}\.json$/.test(name));
  } catch {
    return undefined;
  }
  for (const name of names) {
    const file = readTextFile(join(dir, name), 16_384);
    if (file.kind !== "text") continue;
    let parsed: ReturnType<typeof HoldSchema.safeParse>;
    try {
      parsed = HoldSchema.safeParse(JSON.parse(file.text));
    } catch {
      continue;
    }
    if (!parsed.success || parsed.data.session !== session || parsed.data.wait !== wait) continue;
    const alive = await processes.basics(parsed.data.pid);
    if (alive?.startToken === parsed.data.start) return parsed.data;
  }
  return undefined;
}
