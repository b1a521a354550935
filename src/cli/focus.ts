import { exitCodeOfFocus } from "../core/errors.ts";
import { focusSession } from "../focus/service.ts";
import { formatFocus } from "./format.ts";
import { fail, parse, type Verb } from "./io.ts";

export const focusVerb: Verb = async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" }, client: { type: "string" } }, 1);
  if ("ok" in parsed) return fail(parsed, io, false);
  const client = typeof parsed.values.client === "string" && parsed.values.client !== "" ? parsed.values.client : undefined;
  const result = await focusSession(parsed.positionals[0] as string, {
    ...context,
    client,
  });
  if (parsed.values.json === true) io.stdout(JSON.stringify(result, null, 2));
  else (result.state === "complete" ? io.stdout : io.stderr)(formatFocus(result));
  return exitCodeOfFocus(result.state);
};
