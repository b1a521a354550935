// Live: the MCP server entry `tongs-agents install` writes for Gemini CLI, Qwen Code, Copilot CLI and OpenCode (pinned
// in harnesses.json) is read by each real CLI's own `mcp list` (Copilot: `mcp get`), in a sandboxed home; after
// `uninstall` it is gone. Gemini, Qwen and OpenCode also start the server to list it, but whether it answers within
// their connect timeouts (Qwen: 10 s) depends on the machine's load, so "Connected" is not asserted. One CLI at a time.
// Gemini's, Qwen's and OpenCode's files start with a user's comments (OpenCode's with trailing commas too), which the
// installer keeps: each CLI reading its edited file proves the edit is still in the dialect it reads.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInstaller } from "../../src/install/installer.ts";
import type { InstallContext } from "../../src/install/context.ts";
import { installersFor } from "../../src/harnesses/installers.ts";
import { ROOT } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir, seedOpencodePlugin } from "./harnesses.ts";
import { liveWorld } from "./live-world.ts";

// Each CLI's own listing names our server with the exact command line install wrote: the CLI read our entry.
const CLIS = [
  { id: "gemini", argv: ["gemini", "mcp", "list"], listed: (command: string) => `tongs-agents: ${command} (stdio)` },
  { id: "qwen", argv: ["qwen", "mcp", "list"], listed: (command: string) => `tongs-agents: ${command} (stdio)` },
  { id: "copilot", argv: ["copilot", "mcp", "get", "tongs-agents"], listed: (command: string) => `Command: ${command}` },
  { id: "opencode", argv: ["opencode", "mcp", "list"], listed: (command: string) => command },
] as const;

let sandbox: Sandbox;
let world: InstallContext;
/** The user's own files before install, with comments: each CLI must read them with our entry, which uninstall removes. */
let seeded: Record<string, string>;
beforeAll(() => {
  sandbox = makeSandbox();
  world = liveWorld(
    sandbox,
    ROOT,
    CLIS.map((cli) => harnessBinDir(cli.id)),
    {
      // Gemini disables every MCP server, user-level too, in a folder it does not trust (0.61.0 says so in `mcp list`).
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      COPILOT_OFFLINE: "true",
      COPILOT_AUTO_UPDATE: "false",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_SHARE: "1",
      NO_COLOR: "1",
    },
  );
  seedOpencodePlugin(join(sandbox.env.XDG_CONFIG_HOME as string, "opencode"), sandbox.home);
  const commented = '{\n  // the user\'s own\n  "ui": {"hideTips": true} /* keep */\n}\n';
  seeded = {
    [join(sandbox.env.GEMINI_CLI_HOME as string, ".gemini", "settings.json")]: commented,
    [join(sandbox.env.QWEN_HOME as string, "settings.json")]: commented,
    [join(sandbox.env.XDG_CONFIG_HOME as string, "opencode", "opencode.json")]:
      '{\n  // the user\'s own\n  "share": "disabled",\n  "autoupdate": false,\n}\n',
  };
  for (const [path, text] of Object.entries(seeded)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
});
afterAll(() => sandbox.cleanup());

const install = async (mode: "install" | "uninstall") =>
  runInstaller(world, { harnesses: await installersFor(CLIS.map((cli) => cli.id)), mode, dryRun: false, options: [] });

/** Each CLI's own listing, one CLI at a time (each is a whole CLI start-up). */
async function listings(): Promise<{ id: string; out: string; listed: boolean }[]> {
  const outs = [];
  for (const cli of CLIS) {
    const result = await execa(cli.argv[0], cli.argv.slice(1), {
      // OpenCode (a Bun binary) leaves its native libraries in TMPDIR at every start: the sandbox's, not /tmp.
      env: { ...world.env, TMPDIR: sandbox.root },
      extendEnv: false,
      cwd: sandbox.home,
      input: "",
      timeout: 240_000,
      reject: false,
    });
    // Colours stripped: some CLIs ignore NO_COLOR. A timeout shows as such in the failure message.
    outs.push({
      id: cli.id,
      out: stripVTControlCharacters(`${result.stdout}\n${result.stderr}${result.timedOut ? "\n(timed out)" : ""}`),
      listed: !result.timedOut && (result.exitCode === 0 || cli.id === "copilot"),
    });
  }
  return outs;
}

describe(
  `MCP registration read by the real CLIs (${CLIS.map((cli) => `${cli.id} ${HARNESS_PACKAGES[cli.id].version}`).join(", ")})`,
  {
    timeout: 900_000,
  },
  () => {
    it("each CLI lists our server with the command install wrote, and not after uninstall", async () => {
      expect((await install("install")).ok).toBe(true);
      const command = `${process.execPath} ${join(ROOT, "bin", "tongs-agents.js")} mcp`;
      for (const { id, out } of await listings()) expect.soft(out, id).toContain(CLIS.find((cli) => cli.id === id)!.listed(command));
      for (const path of Object.keys(seeded)) expect.soft(readFileSync(path, "utf8"), path).toContain("// the user's own");
      expect((await install("uninstall")).ok).toBe(true);
      // Not byte for byte here: each CLI rewrites its own file when it runs (seen with these versions: Gemini and Qwen
      // drop a /* */ comment, Qwen adds "$version": 4, OpenCode adds "$schema"). The unit tests prove the bytes.
      for (const path of Object.keys(seeded)) {
        const text = readFileSync(path, "utf8");
        expect.soft(text, path).toContain("// the user's own");
        expect.soft(text, path).not.toContain("tongs-agents");
      }
      // A listing that timed out or failed proves no absence.
      for (const { id, out, listed } of await listings())
        if (!listed) expect.soft(listed, `${id}: ${out}`).toBe(true);
        else if (id === "copilot") expect.soft(out, id).toContain('Server "tongs-agents" not found');
        else expect.soft(out, id).not.toContain("tongs-agents");
    });
  },
);
