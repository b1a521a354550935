// `tongs-agents demo`: the whole flow without any agent installed. In a terminal it attaches you to a private tmux
// server where simulated agents work, wait and fail, and opens the picker; without a terminal it prints what you
// would see.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { DEMO_AGENTS, startDemo } from "./demo-agents.ts";
import { EXIT_CODES } from "../core/errors.ts";
import { buildRows, initialModel } from "../picker/model.ts";
import { renderFrame } from "../picker/render.ts";
import { defaultProcessSource } from "../core/proc.ts";
import { readSeen } from "../fleet/seen.ts";
import { loadFleet } from "../fleet/sessions.ts";
import type { ViewStatus } from "../fleet/view.ts";
import { blockBody, installedTmuxVersion } from "../../backends/tmux/setup.ts";
import { branchOf } from "../fleet/git-branch.ts";
import { formatTable } from "./format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";
import { cliPath } from "./tmux-setup.ts";

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const DEMO_HELP: VerbHelp = {
  usage: "demo [--no-attach]",
  summary:
    "Simulated agents (processes named claude and codex that send real events through the real hook) on a\nprivate tmux server with a temporary state dir. In a terminal it attaches you and opens the picker; prefix+d\nleaves and removes everything. Without a terminal it prints what you would see.",
  options: [["--no-attach", "print the list and the picker's first screen instead of attaching"]],
  examples: ["tongs-agents demo"],
};

export const demoVerb: Verb = withHelp(DEMO_HELP, async (args, context, io) => {
  const parsed = parse(args, { "no-attach": { type: "boolean" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const version = installedTmuxVersion(context.env);
  if (!version)
    return fail(
      { ok: false, reason: "config", detail: "the demo runs on tmux, which was not found (Debian: apt install tmux)" },
      io,
      false,
    );
  const cli = cliPath();
  const world = startDemo({
    node: process.execPath,
    hook: join(dirname(cli), "tongs-agents-hook.cjs"),
    configLines: blockBody({
      node: process.execPath,
      cli,
      pickerKey: "a",
      nextKey: "N",
      status: true,
      server: false,
      tmuxVersion: version,
    }),
  });
  // Interrupted (Ctrl-C before attaching, a closed terminal): the private server and its files still go.
  const onSignal = () => {
    world.stop();
    process.exit(130);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, onSignal);
  const processes = defaultProcessSource();
  const fleet = () => loadFleet({ stateDir: world.stateDir, processes }, { discover: false });
  try {
    // Wait until every agent has reached its state (a few seconds), so the first look shows all of them.
    const started = Date.now();
    for (;;) {
      const { sessions } = await fleet();
      const states = new Set(sessions.map((session) => session.status));
      const expected: ViewStatus[] = ["waiting", "error", "idle", "running", "started"];
      if ((sessions.length >= DEMO_AGENTS.length && expected.every((state) => states.has(state))) || Date.now() - started > 20_000) break;
      await settle(200);
    }
    // Only asks whether this is a terminal; what the demo prints goes through io.
    // eslint-disable-next-line no-restricted-properties
    const interactive = process.stdin.isTTY && process.stdout.isTTY && parsed.values["no-attach"] !== true;
    if (!interactive) {
      const { sessions } = await fleet();
      io.stdout("Simulated agents on a private tmux server, real hook events. `tongs-agents list`:\n");
      io.stdout(formatTable(sessions, { now: Date.now(), width: 110 }));
      io.stdout("\nThe picker (`tongs-agents pick`, prefix+a in the demo's tmux) shows:\n");
      const branches = new Map<string, string | undefined>();
      const model = initialModel(buildRows(sessions, readSeen(world.stateDir), (cwd) => branchOf(cwd, branches)));
      io.stdout(
        renderFrame(model, { width: 100, height: sessions.length + 4, now: Date.now(), color: false, home: world.root })
          .map((line) => line.trimEnd())
          .join("\n"),
      );
      io.stdout(
        "\nRun `npm run demo` in a terminal to be attached to the demo and try the picker (prefix+a), next (prefix+N) and leave with prefix+d.",
      );
      return EXIT_CODES.ok;
    }
    const { server } = world;
    io.stderr(`tongs-agents demo: private tmux server -S ${server.socket}, state in ${world.stateDir}; prefix+d leaves and removes both`);
    const attach = server.attach();
    const attached = new Promise<void>((resolve) => attach.on("exit", () => resolve()));
    // Open the picker on the client that just attached.
    for (let tries = 0; tries < 50; tries++) {
      const client = server.firstClient();
      if (client) {
        // popup talks to the server named in TMUX, as it does when a key binding runs it.
        spawn(process.execPath, [cli, "popup", "--client", client], { env: { ...world.env, TMUX: server.tmuxEnv() }, stdio: "ignore" });
        break;
      }
      await settle(100);
    }
    await attached;
    return EXIT_CODES.ok;
  } finally {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.off(signal, onSignal);
    world.stop();
  }
});
