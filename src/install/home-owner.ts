// Root installing into another user's HOME (sudo keeping HOME, a provisioning script): the files written keep, or are
// given, that user as owner (replace-file.ts), so their agents can read them. Said in the report, because commands the
// installer runs there write as root, and because it is rarely what was meant.
import { statSync } from "node:fs";
import { relative, isAbsolute } from "node:path";
import { warning, type HarnessPlan } from "./plan.ts";
import type { InstallContext } from "./context.ts";

const inside = (dir: string, path: string) => {
  const rest = relative(dir, path);
  return rest !== "" && !rest.startsWith("..") && !isAbsolute(rest);
};

/** The plan, with a warning added when it writes under a home that belongs to another user than the one running it. */
export function foreignHomeWarning(world: InstallContext, plan: HarnessPlan, uid: number | undefined = process.getuid?.()): HarnessPlan {
  const owner = statSync(world.home, { throwIfNoEntry: false })?.uid;
  if (uid === undefined || owner === undefined || owner === uid) return plan;
  const files = plan.steps.filter((step) => step.kind !== "run" && inside(world.home, step.path));
  const runs = plan.steps.filter((step) => step.kind === "run");
  if (files.length === 0 && runs.length === 0) return plan;
  const commands =
    runs.length > 0 ? `; the commands it runs (${runs.map((step) => step.argv.slice(0, 3).join(" ")).join(", ")}) write as uid ${uid}` : "";
  return {
    ...plan,
    findings: [
      ...plan.findings,
      warning(
        `${world.home} belongs to uid ${owner}, not to uid ${uid} running this: the files written there keep their owner and mode, new ones are given to the owner of their directory${commands}`,
      ),
    ],
  };
}
