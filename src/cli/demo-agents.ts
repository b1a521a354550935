// The demo's scenario (`tongs-agents demo`): simulated agents on a private tmux server with a temporary state dir.
// Each agent is a process named exactly like its harness (a symlink to this Node) that sends real events through the
// real hook binary, so everything a user sees is the real pipeline; only the agents are pretend.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPrivateServer, type PrivateServer } from "../../backends/tmux/demo.ts";

export interface DemoStep {
  /** Milliseconds to wait before this step. */
  readonly after: number;
  readonly alias: string;
  readonly extra?: Record<string, unknown>;
  /** What the agent prints in its pane (so the preview shows something). */
  readonly say: string;
}

export interface DemoAgent {
  readonly harness: "claude" | "codex";
  readonly repo: string;
  readonly branch: string;
  readonly steps: readonly DemoStep[];
  /** Repeat the last step forever at this interval (a busy agent). */
  readonly repeatMs?: number;
  /**
   * After its last step the agent asks (a permission prompt): the key typed in its pane picks what follows, as a real
   * agent goes on working once it is answered. Other keys are ignored; it asks once.
   */
  readonly answers?: Readonly<Record<string, readonly DemoStep[]>>;
}

export const DEMO_AGENTS: readonly DemoAgent[] = [
  {
    harness: "claude",
    repo: "webapp",
    branch: "feature/login",
    steps: [
      { after: 200, alias: "session-start", say: "╭ Claude Code (simulated) in ~/src/webapp" },
      { after: 300, alias: "prompt-submit", say: "> add a login form with validation" },
      { after: 400, alias: "tool-use", extra: { tool_name: "Edit" }, say: "● Edit src/LoginForm.tsx (+84 -3)" },
      { after: 400, alias: "tool-use", extra: { tool_name: "Bash" }, say: "● Bash npm test -- LoginForm" },
      { after: 300, alias: "permission-request", extra: { tool_name: "Bash" }, say: "  Allow `npm test -- LoginForm`?  1. Yes  2. No" },
    ],
    answers: {
      "1": [
        { after: 0, alias: "tool-done", extra: { tool_name: "Bash" }, say: "  ✓ allowed\n  ⎿ 12 passed (LoginForm.test.tsx)" },
        {
          after: 2500,
          alias: "stop",
          extra: { last_assistant_message: "Added the login form with validation; its 12 tests pass." },
          say: "Added the login form with validation; its 12 tests pass.",
        },
      ],
      "2": [
        // The denied tool fails (what ends a permission wait: docs/contract.md, "Waiting"), and the agent goes on.
        { after: 0, alias: "tool-failed", extra: { tool_name: "Bash" }, say: "  ✗ denied" },
        { after: 300, alias: "tool-use", extra: { tool_name: "Read" }, say: "  reading the test output instead\n● Read test-results.json" },
        {
          after: 2500,
          alias: "stop",
          extra: { last_assistant_message: "Added the login form; I did not run the tests (denied)." },
          say: "Added the login form; I did not run the tests (denied).",
        },
      ],
    },
  },
  {
    harness: "codex",
    repo: "api",
    branch: "main",
    steps: [
      { after: 250, alias: "session-start", say: "Codex (simulated) in ~/src/api" },
      { after: 300, alias: "prompt-submit", say: "> refactor the router into modules" },
      { after: 500, alias: "tool-use", extra: { tool_name: "Bash" }, say: "$ npm test" },
      {
        after: 500,
        alias: "stop",
        extra: { last_assistant_message: "Refactored the router into 4 modules; all 42 tests pass." },
        say: "Refactored the router into 4 modules; all 42 tests pass.",
      },
    ],
  },
  {
    harness: "claude",
    repo: "infra",
    branch: "main",
    steps: [
      { after: 300, alias: "session-start", say: "╭ Claude Code (simulated) in ~/src/infra" },
      { after: 300, alias: "prompt-submit", say: "> bump the terraform providers" },
      { after: 600, alias: "stop-failure", say: "⎿ API Error: 529 overloaded" },
    ],
  },
  {
    harness: "codex",
    repo: "docs",
    branch: "rewrite",
    repeatMs: 2500,
    steps: [
      { after: 350, alias: "session-start", say: "Codex (simulated) in ~/src/docs" },
      { after: 300, alias: "prompt-submit", say: "> rewrite the getting-started guide" },
      { after: 400, alias: "tool-use", extra: { tool_name: "apply_patch" }, say: "✎ apply_patch docs/getting-started.md" },
    ],
  },
  {
    harness: "claude",
    repo: "scratch",
    branch: "main",
    steps: [{ after: 400, alias: "session-start", say: "╭ Claude Code (simulated) in ~/src/scratch" }],
  },
];

/** The simulated agent: runs its steps through the hook, printing as it goes, then stays alive (an open session). */
const AGENT_SCRIPT = `
const { spawnSync } = require("node:child_process");
const [hook, harness, sessionId, stepsJson, repeatMs, answersJson] = process.argv.slice(2);
const answers = JSON.parse(answersJson || "{}");
const send = (step) => {
  const payload = { session_id: sessionId, cwd: process.cwd(), ...(step.extra || {}) };
  spawnSync(process.execPath, [hook, step.alias, "--agent", harness], { input: JSON.stringify(payload) });
  process.stdout.write(step.say.replace(/\\n/g, "\\r\\n") + "\\r\\n");
};
const run = (steps, done) => {
  let at = 0;
  const next = () => {
    const step = steps[at++];
    if (step) return setTimeout(() => { send(step); next(); }, step.after);
    done(steps);
  };
  next();
};
// Asking: the first key that is an answer goes on with its steps (raw keys, no Enter, as in a real agent's prompt).
const ask = () => {
  if (Object.keys(answers).length === 0 || !process.stdin.isTTY) return;
  process.stdin.setRawMode(true);
  const onKey = (data) => {
    const steps = answers[data.toString()];
    if (!steps) return;
    process.stdin.off("data", onKey);
    process.stdin.setRawMode(false);
    process.stdin.pause();
    run(steps, () => {});
  };
  process.stdin.on("data", onKey);
};
run(JSON.parse(stepsJson), (steps) => {
  if (Number(repeatMs) > 0) setInterval(() => send(steps[steps.length - 1]), Number(repeatMs));
  ask();
});
setInterval(() => {}, 1 << 30);
`;

export interface DemoWorld {
  readonly root: string;
  readonly stateDir: string;
  readonly env: NodeJS.ProcessEnv;
  /** The private tmux server the agents run in. */
  readonly server: PrivateServer;
  stop(): void;
}

/** Build the temp world and start the agents in windows of the `demo` session, detached. */
export function startDemo({
  node,
  hook,
  configLines,
  agents = DEMO_AGENTS,
}: {
  node: string;
  hook: string;
  configLines: readonly string[];
  agents?: readonly DemoAgent[];
}): DemoWorld {
  const root = mkdtempSync(join(tmpdir(), "tongs-demo-"));
  const stateDir = join(root, "state");
  const bin = join(root, "bin");
  mkdirSync(bin);
  for (const name of new Set(agents.map((agent) => agent.harness))) symlinkSync(node, join(bin, name));
  writeFileSync(join(root, "agent.cjs"), AGENT_SCRIPT);
  // Discovery off: the demo's picker shows the demo's agents, not harness processes running elsewhere on the machine.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TONGS_AGENTS_STATE_DIR: stateDir,
    TONGS_AGENTS_DISCOVERY: "off",
    HOME: process.env.HOME ?? root,
  };
  for (const name of ["TMUX", "TMUX_PANE", "TONGS_AGENTS_LAUNCH_ID", "TONGS_AGENTS_PROFILE"]) delete env[name];
  const windows = agents.map((agent) => {
    const cwd = join(root, "src", agent.repo);
    // A repository the picker can read a branch from: HEAD is all it needs.
    mkdirSync(join(cwd, ".git"), { recursive: true });
    writeFileSync(join(cwd, ".git", "HEAD"), `ref: refs/heads/${agent.branch}\n`);
    const argv = [
      join(bin, agent.harness),
      join(root, "agent.cjs"),
      hook,
      agent.harness,
      `demo-${agent.repo}-${process.pid}`,
      JSON.stringify(agent.steps),
      String(agent.repeatMs ?? 0),
      JSON.stringify(agent.answers ?? {}),
    ];
    return { name: agent.repo, cwd, argv };
  });
  const server = startPrivateServer({
    dir: root,
    env,
    session: "demo",
    configLines: [
      "set -g status-style bg=colour236,fg=colour250",
      "set -g status-left-length 80",
      `set -g status-left ' tongs-agents demo │ prefix+a picker · prefix+N next · prefix+d leave │ '`,
      "set -g status-right ''",
      ...configLines,
    ],
    windows,
  });
  return {
    root,
    stateDir,
    env,
    server,
    stop() {
      server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
