// Live: the real interactive Claude Code, Codex and Qwen Code (pinned in harnesses.json), with the hooks `tongs-agents
// install` writes (and Claude's status-line wrapper), in a private tmux server, offline against the synthetic provider,
// which answers a prompt with LIMITHIT as each API answers past a usage limit (e2e/provider/limits.mjs: Anthropic's 429
// `rate_limit_error` with the unified rate-limit headers of a subscription, OpenAI's `usage_limit_reached` with Codex's
// window headers, Chat Completions' `rate_limit_exceeded`) and every other answer with the quota headers of a window
// 42% used. Proven per harness: the quota windows as the harness states them before the limit (Claude: its status-line
// input through the wrapper; Codex: its rollout's `token_count.rate_limits`), then the limit: `error` with the limit,
// the harness's own words and the reset it states (ISO in `list --json`; `show` and `explain` say it; Qwen states no
// reset), and exactly one notification (a webhook on 127.0.0.1). docs/limits.md says what each harness states; the
// claims go to docs/evidence.md (suite `limits`).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProvider } from "../../e2e/provider/server.mjs";
import { createEvidence } from "../../e2e/evidence.ts";
import { installersFor } from "../../src/harnesses/installers.ts";
import { runInstaller } from "../../src/install/installer.ts";
import type { InstallContext } from "../../src/install/context.ts";
import { ROOT, runCliProcess, stopTmuxServer } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { codexConfigToml } from "./codex-config.ts";
import { listedSessions, liveWorld } from "./live-world.ts";
import { sleep, tmuxUi, until } from "./tmux-ui.ts";

interface Limited {
  id: string;
  short_id: string;
  session_id: string;
  harness: string;
  identity: string;
  status: string;
  detail: string;
  limit: { kind: string; stated: string; message: string; resets_at: string | null; window: string | null; reset_passed: boolean } | null;
  quota: { window: string; used_percent: number; resets_at: string | null; window_minutes: number | null }[];
  model: string | null;
  context: { used: number | null; window: number | null; percent: number | null } | null;
  compacting: boolean;
}
interface Posted {
  session: string;
  state: string;
  detail: string;
}

const CLAUDE = HARNESS_PACKAGES.claude;
const CODEX = HARNESS_PACKAGES.codex;
const QWEN = HARNESS_PACKAGES.qwen;
const evidence = createEvidence(
  "limits",
  `Claude Code ${CLAUDE.version}, Codex CLI ${CODEX.version} and Qwen Code ${QWEN.version}, interactive in tmux on the host, past a usage limit of the synthetic provider`,
  { containers: false },
);
const HOW = (harness: string) =>
  `real ${harness} UI in a private tmux server on the host (send-keys), hooks from this checkout's \`tongs-agents install\`; the synthetic provider on 127.0.0.1 answers LIMITHIT with the API's own 429 and headers (e2e/provider/limits.mjs); notifications to a webhook on 127.0.0.1`;

let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let hook: Server;
const posted: Posted[] = [];
let world: InstallContext;
let socket: string;
let project: string;
/**
 * The quota the provider states (epoch seconds), whole minutes so the harnesses' own words round the same way, and never
 * on the hour: Claude Code says a reset on the hour without its minutes ("resets 8pm", seen live when a run fell in the
 * minute before an hour), which the words checked below spell with them.
 */
const nextMinute = Math.ceil((Date.now() / 1000 + 2 * 3600) / 60) * 60;
const resetAt = nextMinute % 3600 === 0 ? nextMinute + 60 : nextMinute;
const weekResetAt = resetAt + 5 * 86_400;

beforeAll(async () => {
  sandbox = makeSandbox();
  socket = join(sandbox.root, "tmux.sock");
  project = join(sandbox.root, "project");
  mkdirSync(project);
  provider = await startProvider({
    port: 0,
    quota: { primaryUsedPercent: 42, secondaryUsedPercent: 40, primaryResetAt: resetAt, secondaryResetAt: weekResetAt },
  });
  hook = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      posted.push(JSON.parse(body) as Posted);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
  world = liveWorld(sandbox, ROOT, [harnessBinDir("claude"), harnessBinDir("codex"), harnessBinDir("qwen")], {
    // The subscription path: Claude Code states a usage limit ("You've hit your 5-hour limit") and hands its status
    // line the quota windows only to a subscriber. The provider takes any token.
    ANTHROPIC_BASE_URL: provider.url,
    CLAUDE_CODE_OAUTH_TOKEN: "not-a-token",
    FAKE_OPENAI_API_KEY: "not-a-key",
    OPENAI_API_KEY: "not-a-key",
    OPENAI_BASE_URL: `${provider.url}/v1`,
    OPENAI_MODEL: "fake-model",
    TONGS_AGENTS_NOTIFY: "on",
    TONGS_AGENTS_DEBUG: "1",
    TZ: "UTC",
  });
  listed = listedSessions<Limited>(world.env, ["--all"]);
  // The webhook is the one channel: what reached the user is what it received.
  const config = join(world.env.XDG_CONFIG_HOME as string, "tongs-agents");
  mkdirSync(config, { recursive: true });
  const channels = { desktop: false, terminal: false, tmux: false, webhook: true, bell: false };
  writeFileSync(join(config, "config.json"), JSON.stringify({ notifications: { channels } }));
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  writeFileSync(join(config, "webhooks.json"), JSON.stringify({ webhooks: [{ url, ntfy: false }] }), { mode: 0o600 });

  // Claude Code as a user who finished onboarding, with a status line of their own (the wrapper passes it through).
  const claudeConfig = world.env.CLAUDE_CONFIG_DIR as string;
  mkdirSync(claudeConfig, { recursive: true });
  writeFileSync(
    join(claudeConfig, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      hasSeenAutoDefaultNudge: true,
      projects: { [project]: { hasTrustDialogAccepted: true } },
    }),
  );
  writeFileSync(join(claudeConfig, "settings.json"), JSON.stringify({ statusLine: { type: "command", command: "echo my-own-status" } }));
  // Codex on the provider, no retries (the limit shows at once), the project trusted (no trust question).
  const codexHome = world.env.CODEX_HOME as string;
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, "config.toml"), codexConfigToml(provider.url, project));
  const installed = await runInstaller(world, {
    harnesses: await installersFor(["claude", "codex", "qwen"]),
    mode: "install",
    dryRun: false,
    options: ["claude-statusline", "trust-codex-hooks"],
  });
  expect(installed.ok, JSON.stringify(installed)).toBe(true);
  // Qwen Code on the provider (OpenAI Chat Completions), beside the hooks the installer wrote.
  const qwenSettings = join(world.env.QWEN_HOME as string, "settings.json");
  writeFileSync(
    qwenSettings,
    JSON.stringify({
      security: { auth: { selectedType: "openai" } },
      // No retry of a rate-limited turn after its request's own attempts (Qwen's documented `maxRetries`; by default it
      // retries the turn 10 times a minute apart).
      model: { name: "fake-model", generationConfig: { maxRetries: 0 } },
      general: { enableAutoUpdate: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      ...(JSON.parse(readFileSync(qwenSettings, "utf8")) as Record<string, unknown>),
    }),
  );
}, 60_000);

afterAll(async () => {
  await stopTmuxServer(socket);
  await provider?.stop();
  await new Promise((resolve) => hook?.close(resolve));
  // What the installed CLIs say they are, in the sandbox (before it goes).
  evidence.addVersions({
    claude: versionOf("claude"),
    codex: versionOf("codex"),
    qwen: versionOf("qwen"),
    tmux: execFileSync("tmux", ["-V"], { encoding: "utf8" }).trim(),
  });
  sandbox?.cleanup();
  evidence.write();
});

/** What the installed CLI says its version is. */
function versionOf(bin: string): string {
  try {
    return execFileSync(bin, ["--version"], { env: world.env, encoding: "utf8", timeout: 30_000 }).trim();
  } catch (error) {
    return `unknown (${String(error).slice(0, 80)})`;
  }
}

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

let listed: () => Promise<Limited[]>;
async function records(): Promise<Limited[]> {
  return (await listed()).filter((session) => session.identity === "process");
}
const ofHarness = (harness: string, want: (session: Limited) => boolean) => async () =>
  (await records()).find((session) => session.harness === harness && want(session));
/**
 * Type `text` into the UI's input line (the last line that starts with `mark`: sent prompts stay above it with the same
 * mark), then Enter until the input line no longer holds it (a UI drops an Enter that comes too early).
 */
async function submit(ui: ReturnType<typeof tmuxUi>, window: string, mark: string, text: string, explain: () => Promise<string>) {
  const inputLine = () =>
    ui
      .screen(window)
      .split("\n")
      .findLast((line) => line.trimStart().startsWith(mark)) ?? "";
  ui.keys(window, "-l", text);
  await until(`"${text}" typed`, () => (inputLine().includes(text) ? true : undefined), explain, 10_000);
  await until(
    `"${text}" sent`,
    async () => {
      ui.keys(window, "Enter");
      await sleep(1000);
      return inputLine().includes(text) ? undefined : true;
    },
    explain,
    20_000,
  );
}
const cli = async (...args: string[]) => {
  const run = await runCliProcess(args, world.env);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
};

describe("a turn stopped by a usage limit (live, interactive in tmux)", { timeout: 240_000 }, () => {
  /** The Claude session the two Claude tests share (one UI, in order). */
  let claudeSession = "";
  it(`Claude Code ${CLAUDE.version}: the quota and model from its status line, a model switched with /model, a compaction shown as compacting`, async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "Claude Code on a subscription: its status-line input, through the installed wrapper (the user's own status line still shown), gives each quota window (`five_hour` 42%, `seven_day` 40%, with their resets), the model and the context fill (tokens used, the window) in `list --json`; after `/model opus` and a reply, the new model; `/compact` (its summary request held by the provider) shows the session `compacting` from PreCompact, and not once PostCompact fired, ending idle",
      kind: "live",
      how: `${HOW(`claude ${CLAUDE.version}`)}; CLAUDE_CODE_OAUTH_TOKEN (the subscription path), \`install --claude-statusline\` over a status line \`echo my-own-status\`; the provider holds every answer of a conversation that says HOLD until the test releases it`,
    });
    const ui = tmuxUi({ socket, project, world, bin: "claude", inputMark: "❯ " });
    ui.start("claude");
    const explain = ui.explain("claude");
    // Ready when the input line and the status line under it (the user's own, through the wrapper) are drawn.
    await until("Claude's input line", () => (/❯[\s\S]*my-own-status/.test(ui.screen("claude")) ? true : undefined), explain, 90_000);
    const { idle, quota } = await replyThenQuota(ui, "claude", "❯", explain);
    claudeSession = idle.session_id;
    expect(quota).toEqual([
      { window: "five_hour", used_percent: 42, resets_at: iso(resetAt), window_minutes: null },
      { window: "seven_day", used_percent: 40, resets_at: iso(weekResetAt), window_minutes: null },
    ]);
    const stated = await modelAndContext("claude", explain);
    expect(stated).toMatchObject({ session_id: claudeSession, model: expect.not.stringMatching(/opus/) });

    await submit(ui, "claude", "❯", "/model opus", explain);
    // Claude asks before switching a conversation it has cached for the current model: "1. Yes, switch to Opus …".
    await until(
      "the switch question",
      () => (/Switch model\?[\s\S]*1\. Yes, switch to/.test(ui.screen("claude")) ? true : undefined),
      explain,
    );
    ui.keys("claude", "1");
    await until("the question answered", () => (/Switch model\?/.test(ui.screen("claude")) ? undefined : true), explain);
    await submit(ui, "claude", "❯", "HOLD hello", explain);
    await until(
      "the held turn",
      ofHarness("claude", (session) => session.status === "running"),
      explain,
    );
    // The prompt's hook fires before its request is sent: let the request go whenever it comes.
    let releasing = setInterval(() => provider.release(), 500);
    const switched = await until(
      "the new model",
      ofHarness("claude", (session) => session.status === "idle" && /opus/.test(session.model ?? "")),
      explain,
    ).finally(() => clearInterval(releasing));
    expect(switched.session_id).toBe(stated.session_id);

    // The summary request carries the conversation, which says HOLD: held, the compaction stays open.
    await submit(ui, "claude", "❯", "/compact", explain);
    const compacting = await until(
      "compacting",
      ofHarness("claude", (session) => session.compacting),
      explain,
    );
    expect(compacting).toMatchObject({ session_id: stated.session_id, status: "running" });
    // PreCompact fires before the summary request is sent: the same.
    releasing = setInterval(() => provider.release(), 500);
    await until(
      "the compaction's end",
      ofHarness("claude", (session) => !session.compacting && session.status === "idle"),
      explain,
    ).finally(() => clearInterval(releasing));
  });

  it(`Claude Code ${CLAUDE.version}: limited with its words and its reset`, async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Claude Code on a subscription, past the limit: StopFailure `rate_limit` makes the session `error` with a limit: Claude's words (`You've hit your 5-hour limit · resets …`) and the reset its transcript states (`resetsAt`, window `five_hour`) as ISO in `list --json`, `show` and `explain --json`, and in words in `show` and `explain`; `list` says `limited` with the reset; one notification, which says when it resets",
      kind: "live",
      how: `${HOW(`claude ${CLAUDE.version}`)}; the session of the test above`,
    });
    const ui = tmuxUi({ socket, project, world, bin: "claude", inputMark: "❯ " });
    const explain = ui.explain("claude");
    // The conversation said HOLD before its compaction: whatever of it the provider still holds is let go.
    const releasing = setInterval(() => provider.release(), 500);
    await submit(ui, "claude", "❯", "LIMITHIT please", explain);
    const limited = await until(
      "the limit with its reset",
      ofHarness("claude", (session) => session.limit?.resets_at != null),
      explain,
    ).finally(() => clearInterval(releasing));
    expect(limited).toMatchObject({
      session_id: claudeSession,
      status: "error",
      limit: { kind: "rate_limit", stated: "rate_limit", resets_at: iso(resetAt), window: "five_hour", reset_passed: false },
    });
    // Claude's words state the reset as a 12-hour clock time in the user's time zone.
    const at = new Date(resetAt * 1000);
    const said = `resets ${((at.getUTCHours() + 11) % 12) + 1}:${String(at.getUTCMinutes()).padStart(2, "0")}${at.getUTCHours() < 12 ? "am" : "pm"} (UTC)`;
    expect(limited.limit?.message).toBe(`You've hit your 5-hour limit · ${said}`);
    await expectShownAndNotified(limited, explain, resetAt, said);
  });

  it(`Codex ${CODEX.version}: the quota, model and context fill from its rollout, then limited with its words and its reset`, async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "Codex: its rollout's `token_count.rate_limits` gives each quota window (primary 42% of 300 min, secondary 40% of 10080 min, with their resets) in `list --json`, its `turn_context` the model (`fake-model`) and its `token_count` the context fill (tokens used, `model_context_window`); past the limit (no hook fires), the rollout's `task_complete` error `usage_limit_exceeded` makes the session `error` with a limit: Codex's words (`You've hit your usage limit …`) and the reset of the window its `token_count` states as used up, as ISO in `list --json`, `show` and `explain --json`, and in words in `show` and `explain`; `list` says `limited` with the reset; one notification, which says when it resets",
      kind: "live",
      how: `${HOW(`codex ${CODEX.version}`)}; \`codex --no-daemon\`, hooks trusted by \`install --trust-codex-hooks\``,
    });
    const ui = tmuxUi({ socket, project, world, bin: "codex", inputMark: "› " });
    ui.start("codex", "--no-daemon");
    const explain = ui.explain("codex");
    await until("Codex's composer", () => (/OpenAI Codex[\s\S]*fake-model/.test(ui.screen("codex")) ? true : undefined), explain, 90_000);
    const { idle, quota } = await replyThenQuota(ui, "codex", "›", explain);
    expect(quota).toEqual([
      { window: "primary", used_percent: 42, resets_at: iso(resetAt), window_minutes: 300 },
      { window: "secondary", used_percent: 40, resets_at: iso(weekResetAt), window_minutes: 10080 },
    ]);
    // The model of the turn (`turn_context`) and the context fill (`token_count`: tokens used, `model_context_window`).
    expect(await modelAndContext("codex", explain)).toMatchObject({ session_id: idle.session_id, model: "fake-model" });

    await submit(ui, "codex", "›", "LIMITHIT please", explain);
    const limited = await until(
      "the limit",
      ofHarness("codex", (session) => session.limit !== null),
      explain,
    );
    expect(limited).toMatchObject({
      session_id: idle.session_id,
      status: "error",
      limit: { kind: "usage_limit", stated: "usage_limit_exceeded", resets_at: iso(resetAt), window: "primary", reset_passed: false },
    });
    expect(limited.limit?.message).toMatch(/^You’ve hit your usage limit/);
    await expectShownAndNotified(limited, explain, resetAt);
  });

  it(`Qwen Code ${QWEN.version}: limited with its words once its retries are spent; no reset stated`, async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Qwen Code: a 429 `rate_limit_exceeded`, once Qwen has sent the request as often as it does (7 times, each after the answer's `retry-after`) and retried the turn as often as its settings allow (`maxRetries` 0), ends the turn with StopFailure `rate_limit`: the session is `error` with a limit (kind `rate_limit`) and Qwen's words; no reset time (Qwen states none: `resets_at` null, `no reset time stated`); one notification",
      kind: "live",
      how: `${HOW(`qwen ${QWEN.version}`)}; Chat Completions with \`retry-after: 1\` (Qwen sends a request 7 times, waiting out each \`retry-after\`; the service's own value is the time to the reset), and \`model.generationConfig.maxRetries: 0\` in its settings (else it retries the turn 10 times a minute apart)`,
    });
    // Qwen Code sends a request 7 times, waiting out each answer's retry-after (uncapped): a real service's hour would
    // hold the turn for hours, so the limit's answers here ask for one second.
    provider.setQuota({ retryAfter: 1 });
    const ui = tmuxUi({ socket, project, world, bin: "qwen", inputMark: "> " });
    ui.start("qwen");
    const explain = ui.explain("qwen");
    const started = await until(
      "SessionStart",
      ofHarness("qwen", (session) => session.status === "started"),
      explain,
      90_000,
    );
    await until("Qwen's input line", () => (/Type your message/.test(ui.screen("qwen")) ? true : undefined), explain);
    await submit(ui, "qwen", ">", "LIMITHIT please", explain);
    const limited = await until(
      "the limit",
      ofHarness("qwen", (session) => session.limit !== null),
      explain,
      120_000,
    );
    expect(limited).toMatchObject({
      session_id: started.session_id,
      status: "error",
      limit: { kind: "rate_limit", stated: "rate_limit", resets_at: null, window: null, reset_passed: false },
    });
    const attempts = provider.requests.filter((request) => request.decision === "limit").length;
    expect(limited.limit?.message, `after ${attempts} answers past the limit`).not.toBe("");
    await expectShownAndNotified(limited, explain, null);
  });
});

function notifyLog(): string {
  const read = (name: string) => {
    try {
      return readFileSync(join(sandbox.stateDir, name), "utf8");
    } catch (error) {
      return String(error);
    }
  };
  return `${read("notify.log")}\nhook.log: ${read("hook.log").slice(-5000)}\n${execFileSync("find", [sandbox.stateDir], { encoding: "utf8" })}`;
}

/** A first prompt answered (the session idle), then the quota windows the harness states with it. */
async function replyThenQuota(ui: ReturnType<typeof tmuxUi>, harness: string, mark: string, explain: () => Promise<string>) {
  await submit(ui, harness, mark, "say hello", explain);
  const idle = await until(
    "the reply",
    ofHarness(harness, (session) => session.status === "idle"),
    explain,
  );
  // Claude Code runs its status line (the wrapper keeps what it states) after the reply; Codex's rollout states the
  // windows with the answer.
  const quota = await until(
    "the quota windows",
    async () => (await ofHarness(harness, (session) => session.quota.length === 2)())?.quota,
    explain,
  );
  return { idle, quota };
}

/** The session once `list --json` shows the model it runs and its context fill (tokens used and the window). */
const modelAndContext = (harness: string, explain: () => Promise<string>) =>
  until(
    "the model and context fill",
    ofHarness(harness, (session) => session.model !== null && session.context?.used != null && session.context.window != null),
    explain,
  );

/**
 * `list`, `show` and `explain` say the limit and its reset (`reset`, epoch seconds; null where the harness states none);
 * the webhook got one notification for it, which says the same.
 */
async function expectShownAndNotified(limited: Limited, explain: () => Promise<string>, reset: number | null, said?: string) {
  const resets = reset === null ? "no reset time stated" : `resets ${new Date(reset * 1000).toISOString().slice(11, 16)}`;
  const listed = (await cli("list")).split("\n").find((line) => line.startsWith(limited.short_id));
  expect(listed).toMatch(/limited/);
  expect(listed).toContain(resets);
  const shown = await cli("show", limited.session_id);
  if (reset !== null) expect(shown).toContain(iso(reset));
  expect(shown).toContain(resets);
  const explained = JSON.parse(await cli("explain", limited.session_id, "--json")) as { session: Limited };
  expect(explained.session.limit).toEqual(limited.limit);
  expect(await cli("explain", limited.session_id)).toContain(resets);
  const notified = await until(
    "the notification",
    () => {
      const sent = posted.filter((post) => post.session === limited.id);
      return sent.length > 0 ? sent : undefined;
    },
    async () => `posted: ${JSON.stringify(posted)}\nnotify.log: ${notifyLog()}\n${await explain()}`,
  );
  expect(notified).toHaveLength(1);
  expect(notified[0]).toMatchObject({ state: "error" });
  // The notifier may run before a reader took the reset from what the harness wrote beside the hook (Claude's transcript):
  // then the harness's own words say when (`resets 7:10am (UTC)`).
  expect(notified[0]?.detail).toSatisfy((detail: string) => detail.includes(resets) || (said !== undefined && detail.includes(said)));
}
