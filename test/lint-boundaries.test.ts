// The import boundaries and the no-cycle rule in eslint.config.js, held to failing: each case is a file that would
// import upward or close a circle, linted as if it stood in the tree (ESLint's own API, the project's config).
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { ROOT } from "./processes.ts";

const eslint = new ESLint({ cwd: ROOT });

async function rulesBroken(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${path}` });
  return (result?.messages ?? []).map((message) => message.ruleId ?? "fatal");
}

describe("the layers, as the linter holds them", () => {
  it.each([
    ["src/core/probe.ts", `import { loadFleet } from "../fleet/sessions.ts";`],
    ["src/store/probe.ts", `import { installersFor } from "../harnesses/installers.ts";`],
    ["src/hook/probe.ts", `import { surveyPlaces } from "../notify/survey.ts";`],
    ["src/hook/probe.ts", `import { installer } from "../harnesses/qwen/installer.ts";`],
    ["src/fleet/probe.ts", `import { BACKENDS } from "../../backends/registry.ts";`],
    ["backends/tmux/probe.ts", `import { loadFleet } from "../../src/fleet/sessions.ts";`],
    ["src/focus/probe.ts", `import { USAGE } from "../cli/usage.ts";`],
    ["src/notify/probe.ts", `import { hostsOf } from "../hosts/everywhere.ts";`],
    ["src/picker/probe.ts", `import { formatTable } from "../cli/format.ts";`],
    ["src/harnesses/probe.ts", `import { loadFleet } from "../fleet/sessions.ts";`],
  ])("%s may not `%s`", async (path, line) => {
    expect(await rulesBroken(path, `${line}\nexport const probe = 1;\n`)).toContain("no-restricted-imports");
  });

  it("a circle fails, a dynamic import in it included (serve.ts importing the dispatcher that loads it)", async () => {
    expect(await rulesBroken("src/cli/serve.ts", `import { VERBS } from "./run.ts";\nexport const probe = VERBS;\n`)).toContain(
      "import-x/no-cycle",
    );
  });

  it("the same imports where the layers allow them pass", async () => {
    expect(
      await rulesBroken("src/cli/probe.ts", `import { loadFleet } from "../fleet/sessions.ts";\nexport const probe = loadFleet;\n`),
    ).toEqual([]);
  });
});
