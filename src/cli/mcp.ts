import { EXIT_CODES } from "../core/errors.ts";
import { serveMcp } from "../mcp/stdio.ts";
import { fail, parse, type Verb } from "./io.ts";

export const mcpVerb: Verb = async (args, context, io) => {
  const parsed = parse(args, {}, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  await serveMcp({ stateDir: context.stateDir, processes: context.processes, env: context.env });
  return EXIT_CODES.ok;
};
