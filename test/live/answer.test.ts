// Live: `tongs-agents answer` against the real interactive Claude Code, Qwen Code, Gemini CLI, Copilot CLI and Codex
// (pinned in harnesses.json) with the hooks `tongs-agents install` writes, each in a private tmux server, against the
// synthetic provider asking to run `touch approved` (a command that changes something, so each asks; Codex when the
// model asks to leave its sandbox). Keys into the pane are the channel for all five (docs/answer.md): the reply lands
// on the dialog it was meant for, or nothing is sent and the command says why. Claude Code is answered here without
// its held PermissionRequest hook, so by keys, the fallback (the hook: claude-hold.test.ts); the others' hooks run
// before their dialogs (Gemini CLI's can only deny).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEvidence } from "../../e2e/evidence.ts";
import { installersFor } from "../../src/harnesses/installers.ts";
import { runInstaller } from "../../src/install/installer.ts";
import { ROOT, runCliProcess } from "../processes.ts";
import { eachTest, startAnswerLab, startClaudeLab, sleep, until, type AnswerLab } from "./answer-lab.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { codexConfigToml } from "./codex-config.ts";
import { copilotWorld } from "./copilot-world.ts";
import { liveWorld } from "./live-world.ts";

const evidence = createEvidence(
  "answer",
  "tongs-agents answer: the real interactive CLIs' permission dialogs in tmux on this machine, answered by keys into the pane",
  { containers: false },
);
evidence.addVersions(
  Object.fromEntries(
    (["claude", "qwen", "gemini", "copilot", "codex"] as const).map((id) => [
      `${id} (npm ${HARNESS_PACKAGES[id].package})`,
      HARNESS_PACKAGES[id].version,
    ]),
  ),
);
afterAll(() => void evidence.write());

const each = eachTest();

describe(`Claude Code ${HARNESS_PACKAGES.claude.version}: answer by keys into its tmux pane (live)`, { timeout: 300_000 }, () => {
  it("allows and denies through the dialog's labels, refuses a wait that moved on, a dialog answered in the pane, a reply not offered", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "Claude Code: `tongs-agents answer` reads its Bash dialog (`Do you want to proceed?`, `1. Yes` … `4. No`); a reply it does not offer (`session`) is refused with the offered ones listed; allow presses 1 (the command runs, the session goes on to idle, `explain` names the answer); the same wait again, an older wait id, and a dialog the user answered in the pane first are refused with nothing typed; deny presses 4 (the command does not run)",
      kind: "live",
      how: `claude ${HARNESS_PACKAGES.claude.version} interactive in a private tmux server ("default" permission mode), hooks from \`tongs-agents install\`, synthetic Anthropic Messages provider asking to run \`touch approved\`; answered with the built CLI`,
    });
    const { world, project, screen, keys, type, session, answer, asks, toldNotRun } = await startClaudeLab(
      each.sandbox,
      each.socket,
      each.provider.url,
      {
        held: false,
      },
    );

    // 1. A reply the dialog does not offer: nothing sent, the offered ones listed.
    const first = await asks();
    const shown = await answer(first.short_id, "show", "--json");
    expect(shown.code).toBe(0);
    const open = JSON.parse(shown.stdout) as {
      wait: { id: string; kind: string; tool: string };
      dialog: { title: string; options: { number: number; label: string; reply?: string }[] };
    };
    expect(open.wait).toMatchObject({ kind: "permission", tool: "Bash" });
    expect(open.dialog.title).toBe("Do you want to proceed?");
    expect(open.dialog.options.map((option) => option.reply ?? null)).toEqual(["allow", "always", null, "deny"]);
    const notOffered = await answer(first.short_id, "session");
    expect(notOffered).toMatchObject({ code: 10, stdout: "" });
    expect(notOffered.stderr).toContain("the dialog does not offer session; it offers: allow = 1. Yes;");
    expect(screen()).toContain("Do you want to proceed?");

    // 2. Allow, tied to that wait: the command runs, the session runs on and finishes.
    const allowed = await answer(first.short_id, "allow", "--wait", open.wait.id);
    expect(allowed.stderr).toBe("");
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^answered allow: pressed 1 \(Yes\) in tmux pane %\d+ .*; the dialog closed$/);
    await until("the approved command's file", () => (existsSync(join(project, "approved")) ? true : undefined), 30_000, screen);
    await until("the end of the turn", async () => ((await session())?.status === "idle" ? true : undefined), 60_000, screen);
    const explained = JSON.parse((await runCliProcess(["explain", first.short_id, "--json"], world.env)).stdout) as {
      entries: { source: string; change: string }[];
    };
    expect(explained.entries.filter((entry) => entry.source === "answer").map((entry) => entry.change)).toEqual([
      `tongs-agents answer answered wait ${open.wait.id}: allow, option 1 (keys)`,
    ]);
    // The same wait again: it is closed; nothing is sent.
    const again = await answer(first.short_id, "allow", "--wait", open.wait.id);
    expect(again).toMatchObject({ code: 10, stdout: "" });
    expect(again.stderr).toContain(`nothing to answer: ${first.short_id} is idle (the wait ${open.wait.id} is closed)`);

    // 3. A new request: the old wait id is refused, named against the new one.
    rmSync(join(project, "approved"));
    await type("/clear");
    await until("a cleared conversation", () => (screen().includes("RUNTOOL now") ? undefined : true), 30_000, screen);
    const second = await asks();
    const reopened = JSON.parse((await answer(second.short_id, "show", "--json")).stdout) as typeof open;
    expect(reopened.wait.id).not.toBe(open.wait.id);
    const moved = await answer(second.short_id, "allow", "--wait", open.wait.id);
    expect(moved).toMatchObject({ code: 10, stdout: "" });
    expect(moved.stderr).toContain(`the wait ${open.wait.id} is no longer open`);
    expect(screen()).toContain("Do you want to proceed?");

    // 4. The user answers in the pane (No) between reading and answering. Claude Code reports it (its Stop hook: the
    // record is idle by now, as seen in every run here), so the record refuses first; had it not, the pane (the prompt
    // input, no dialog) would: either way nothing is typed into it.
    keys("4");
    await until("the dialog gone", () => (screen().includes("Do you want to proceed?") ? undefined : true), 30_000, screen);
    const late = await answer(second.short_id, "allow", "--wait", reopened.wait.id);
    expect(late).toMatchObject({ code: 10, stdout: "" });
    expect(late.stderr).toMatch(/does not show Claude Code's dialog|nothing to answer: .* \(the wait [0-9a-f]{12} is closed\)/);
    await sleep(1000);
    expect(screen()).not.toMatch(/^❯ 1\s*$/m);
    expect(existsSync(join(project, "approved"))).toBe(false);

    // 5. Deny through `answer`: the label "No" (option 4 in this version), the command never runs.
    await type("/clear");
    await until("a cleared conversation", () => (screen().includes("RUNTOOL now") ? undefined : true), 30_000, screen);
    const third = await asks();
    const denied = await answer(third.short_id, "deny");
    expect(denied.stderr).toBe("");
    expect(denied.stdout).toMatch(/^answered deny: pressed 4 \(No\) in tmux pane %\d+ .*; the dialog closed$/);
    await toldNotRun();
    await sleep(1000);
    expect(existsSync(join(project, "approved"))).toBe(false);
  });
});

describe(`Claude Code ${HARNESS_PACKAGES.claude.version}: answer from the picker (live, tmux)`, { timeout: 300_000 }, () => {
  it("Ctrl-R on the waiting row shows the dialog read from the pane; a digit sends that option; the picker stays open", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "the picker: Ctrl-R on a row not waiting says so and opens nothing; on Claude Code's waiting row it shows the dialog read from the pane, each option with its reply; Esc sends nothing; 1 allows (the command runs), the picker stays open and says what was pressed; `explain` names the picker",
      kind: "live",
      how: `claude ${HARNESS_PACKAGES.claude.version} and \`tongs-agents pick\` in windows of one private tmux server, keys by send-keys; synthetic provider`,
    });
    const { world, project, screen, session, asks, picker } = await startClaudeLab(each.sandbox, each.socket, each.provider.url, {
      held: false,
    });
    const pick = picker();
    const frame = () => pick.screen();
    // Not waiting yet: the picker says so and sends nothing.
    const row = await until("Claude's row in the picker", () => (/^1>. \S+\s+claude/m.test(frame()) ? true : undefined), 30_000, frame);
    expect(row).toBe(true);
    const before = (await session())?.short_id as string;
    pick.keys("C-r");
    await until("the picker's refusal", () => (frame().includes(`nothing to answer: ${before} is`) ? true : undefined), 10_000, frame);

    const waiting = await asks();
    await until("the row waiting", () => (/^1>● waiting\s+claude/m.test(frame()) ? true : undefined), 30_000, frame);
    pick.keys("C-r");
    const panel = await until("the answer panel", () => (frame().includes("4. No   → deny") ? frame() : undefined), 15_000, frame);
    expect(panel).toMatch(new RegExp(`── answer ${waiting.short_id} \\(claude\\) · wait [0-9a-f]{12} · permission: Bash`));
    expect(panel).toContain("  Do you want to proceed?");
    expect(panel).toContain("  1. Yes   → allow");
    expect(panel).toContain("touch approved");
    expect(panel).toContain("1…4 send that reply · esc cancel");
    // Esc closes the panel and sends nothing: the dialog is still there.
    pick.keys("Escape");
    await until("the panel closed", () => (frame().includes("send that reply") ? undefined : true), 10_000, frame);
    await sleep(500);
    expect(screen()).toContain("Do you want to proceed?");
    expect((await session())?.status).toBe("waiting");

    // Again, and 1: the reply goes through the answer service's guards; the picker says what was done and stays.
    pick.keys("C-r");
    await until("the answer panel", () => (frame().includes("1. Yes   → allow") ? true : undefined), 15_000, frame);
    pick.keys("1");
    const said = await until(
      "the picker's report",
      () => /answered option 1: pressed 1 \(Yes\) in tmux pane %\d+.*/.exec(frame())?.[0],
      15_000,
      frame,
    );
    expect(said).toContain("the dialog closed");
    await until("the approved command's file", () => (existsSync(join(project, "approved")) ? true : undefined), 30_000, screen);
    await until("the end of the turn", async () => ((await session())?.status === "idle" ? true : undefined), 60_000, screen);
    expect(frame()).toMatch(/^tongs-agents\s+\d+ session/m);
    const explained = JSON.parse((await runCliProcess(["explain", waiting.short_id, "--json"], world.env)).stdout) as {
      entries: { source: string; change: string }[];
    };
    expect(explained.entries.filter((entry) => entry.source === "answer").map((entry) => entry.change)).toEqual([
      expect.stringMatching(/^the picker answered wait [0-9a-f]{12}: choice, option 1 \(keys\)$/),
    ]);
  });
});

describe(`Qwen Code ${HARNESS_PACKAGES.qwen.version}: answer by keys into its tmux pane (live)`, { timeout: 300_000 }, () => {
  it("allows and denies through the dialog's labels; `always` is refused as ambiguous between its two scopes", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Qwen Code: `tongs-agents answer` reads its shell dialog (`Allow execution of: 'touch'?`); `always` is refused (two options mean it); allow presses 1 (the command runs), deny presses 4 (it does not)",
      kind: "live",
      how: `qwen ${HARNESS_PACKAGES.qwen.version} interactive in a private tmux server ("default" approval mode), hooks from \`tongs-agents install\`, synthetic Chat Completions provider; answered with the built CLI`,
    });
    const world = liveWorld(each.sandbox, ROOT, [harnessBinDir("qwen")], {
      OPENAI_API_KEY: "not-a-key",
      OPENAI_BASE_URL: `${each.provider.url}/v1`,
      OPENAI_MODEL: "fake-model",
    });
    const settingsPath = join(world.env.QWEN_HOME as string, "settings.json");
    mkdirSync(world.env.QWEN_HOME as string, { recursive: true });
    writeFileSync(
      settingsPath,
      JSON.stringify({
        security: { auth: { selectedType: "openai" } },
        model: { name: "fake-model" },
        // "Ask permissions": the real dialog for every shell command (the interactive default is Auto mode).
        tools: { approvalMode: "default" },
        general: { enableAutoUpdate: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }),
    );
    expect((await runInstaller(world, { harnesses: await installersFor(["qwen"]), mode: "install", dryRun: false, options: [] })).ok).toBe(
      true,
    );
    expect(JSON.parse(readFileSync(settingsPath, "utf8")).tools).toEqual({ approvalMode: "default" });
    const project = join(each.sandbox.root, "project");
    mkdirSync(project);
    const { screen, clear, session, answer, asks: asksFor } = startAnswerLab(each.socket, project, world.env, "qwen");
    const asks = () => asksFor("please RUNTOOL", "Allow execution of");
    await until("Qwen's input prompt", () => (screen().includes("Type your message") ? true : undefined), 90_000, screen);

    const first = await asks();
    const open = JSON.parse((await answer(first.short_id, "show", "--json")).stdout) as { wait: { id: string } };
    const always = await answer(first.short_id, "always");
    expect(always).toMatchObject({ code: 10, stdout: "" });
    expect(always.stderr).toContain("2 options mean always; it offers: allow = 1. Yes, allow once;");
    const allowed = await answer(first.short_id, "allow", "--wait", open.wait.id);
    expect(allowed.stderr).toBe("");
    expect(allowed.stdout).toMatch(/^answered allow: pressed 1 \(Yes, allow once\) in tmux pane %\d+ .*; the dialog closed$/);
    await until("the approved command's file", () => (existsSync(join(project, "approved")) ? true : undefined), 30_000, screen);
    await until("the end of the turn", async () => ((await session())?.status === "idle" ? true : undefined), 60_000, screen);
    expect((await answer(first.short_id, "allow", "--wait", open.wait.id)).code).toBe(10);

    rmSync(join(project, "approved"));
    await clear("please RUNTOOL");
    const second = await asks();
    const denied = await answer(second.short_id, "deny");
    expect(denied.stderr).toBe("");
    expect(denied.stdout).toMatch(/^answered deny: pressed 4 \(No, suggest changes \(esc\)\) in tmux pane %\d+ .*; the dialog closed$/);
    await until("the session no longer waiting", async () => ((await session())?.status !== "waiting" ? true : undefined), 60_000, screen);
    await sleep(1000);
    expect(existsSync(join(project, "approved"))).toBe(false);
  });
});

describe(`Gemini CLI ${HARNESS_PACKAGES.gemini.version}: answer by keys into its tmux pane (live)`, { timeout: 300_000 }, () => {
  it("allows and denies its boxed dialog through the labels; `always` is not offered", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Gemini CLI: `tongs-agents answer` reads its boxed shell dialog (`Allow execution of [Shell]?`); `always` is refused as not offered; allow presses 1 (the command runs), deny presses 3 (it does not)",
      kind: "live",
      how: `gemini ${HARNESS_PACKAGES.gemini.version} interactive in a private tmux server, hooks from \`tongs-agents install\`, synthetic Gemini API provider; answered with the built CLI`,
    });
    const world = liveWorld(each.sandbox, ROOT, [harnessBinDir("gemini")], {
      GEMINI_API_KEY: "not-a-key",
      GOOGLE_GEMINI_BASE_URL: each.provider.url,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    });
    expect(
      (await runInstaller(world, { harnesses: await installersFor(["gemini"]), mode: "install", dryRun: false, options: [] })).ok,
    ).toBe(true);
    const settingsPath = join(world.env.GEMINI_CLI_HOME as string, ".gemini", "settings.json");
    const installed = JSON.parse(readFileSync(settingsPath, "utf8")) as Record<string, unknown>;
    writeFileSync(
      settingsPath,
      JSON.stringify({
        // A fixed model: "Auto" first asks a classifier model for JSON, which the synthetic provider does not script.
        security: { auth: { selectedType: "gemini-api-key" } },
        model: { name: "gemini-2.5-flash" },
        general: { enableAutoUpdate: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        ...installed,
      }),
    );
    const project = join(each.sandbox.root, "project");
    mkdirSync(project);
    const { screen, clear, session, answer, asks: asksFor } = startAnswerLab(each.socket, project, world.env, "gemini");
    const asks = () => asksFor("please RUNTOOL", "Allow execution of");
    await until("Gemini's input prompt", () => (screen().includes("Type your message") ? true : undefined), 90_000, screen);

    const first = await asks();
    const always = await answer(first.short_id, "always");
    expect(always).toMatchObject({ code: 10, stdout: "" });
    expect(always.stderr).toContain(
      "the dialog does not offer always; it offers: allow = 1. Allow once; session = 2. Allow for this session;",
    );
    const allowed = await answer(first.short_id, "allow");
    expect(allowed.stderr).toBe("");
    expect(allowed.stdout).toMatch(/^answered allow: pressed 1 \(Allow once\) in tmux pane %\d+ .*; the dialog closed$/);
    await until("the approved command's file", () => (existsSync(join(project, "approved")) ? true : undefined), 30_000, screen);
    await until("the session no longer waiting", async () => ((await session())?.status !== "waiting" ? true : undefined), 60_000, screen);

    rmSync(join(project, "approved"));
    await clear("please RUNTOOL");
    const second = await asks();
    const denied = await answer(second.short_id, "deny");
    expect(denied.stderr).toBe("");
    expect(denied.stdout).toMatch(/^answered deny: pressed 3 \(No, suggest changes \(esc\)\) in tmux pane %\d+ .*; the dialog closed$/);
    await until("Gemini says it was cancelled", () => (screen().includes("Request cancelled") ? true : undefined), 30_000, screen);
    await sleep(1000);
    expect(existsSync(join(project, "approved"))).toBe(false);
  });
});

/**
 * After `allow` (option 1) on a session's first wait: the command ran, the turn ended, and `explain` shows the answer,
 * then the agent running again, then idle (the record went waiting -> running -> idle).
 */
async function ranOnceAllowed(
  { screen, session }: Pick<AnswerLab, "screen" | "session">,
  env: NodeJS.ProcessEnv,
  project: string,
  shortId: string,
  waitId: string,
): Promise<void> {
  await until("the approved command's file", () => (existsSync(join(project, "approved")) ? true : undefined), 30_000, screen);
  await until("the end of the turn", async () => ((await session())?.status === "idle" ? true : undefined), 60_000, screen);
  const { entries } = JSON.parse((await runCliProcess(["explain", shortId, "--json"], env)).stdout) as {
    entries: { source: string; status: string; change: string }[];
  };
  const at = entries.findIndex((entry) => entry.source === "answer");
  expect(entries[at]?.change).toBe(`tongs-agents answer answered wait ${waitId}: allow, option 1 (keys)`);
  const after = entries.slice(at + 1).map((entry) => entry.status);
  expect(after[0]).toBe("running");
  expect(after.at(-1)).toBe("idle");
}

describe(`Copilot CLI ${HARNESS_PACKAGES.copilot.version}: answer by keys into its tmux pane (live)`, { timeout: 300_000 }, () => {
  it("allows by its digit (the command runs, waiting -> running) and denies by Esc (it does not run)", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Copilot CLI: `tongs-agents answer` reads its boxed shell-command dialog (`Do you want to run this command?`, `1. Yes`, `2. Yes, and don't ask again …`, `3. No, and tell Copilot what to do differently (Esc to stop)`); allow presses 1: the command runs, the record goes waiting -> running -> idle; deny presses Esc (a digit only moves to that option): the command does not run, the record leaves waiting",
      kind: "live",
      how: `copilot ${HARNESS_PACKAGES.copilot.version} interactive in a private tmux server, hooks from \`tongs-agents install --agent copilot\`, synthetic provider (COPILOT_PROVIDER_BASE_URL, offline) asking to run \`touch approved\`; answered with the built CLI; states read with list and explain --json`,
    });
    const { world, project } = await copilotWorld(each.sandbox, each.provider.url);
    const { screen, session, answer, asks: asksFor } = startAnswerLab(each.socket, project, world.env, "copilot");
    const asks = () => asksFor("please RUNTOOL", "Do you want to run this command?");
    await until("Copilot's input line", () => (/Manual Approval[\s\S]*fake-model/.test(screen()) ? true : undefined), 120_000, screen);

    const first = await asks();
    const shown = JSON.parse((await answer(first.short_id, "show", "--json")).stdout) as {
      wait: { id: string };
      dialog: { title: string; options: { number: number; label: string; reply?: string }[] };
    };
    expect(shown.dialog.title).toBe("Do you want to run this command?");
    expect(shown.dialog.options.map((option) => option.reply ?? null)).toEqual(["allow", "always", "deny"]);
    const allowed = await answer(first.short_id, "allow", "--wait", shown.wait.id);
    expect(allowed.stderr).toBe("");
    expect(allowed.stdout).toMatch(/^answered allow: pressed 1 \(Yes\) in tmux pane %\d+ .*; the dialog closed$/);
    await ranOnceAllowed({ screen, session }, world.env, project, first.short_id, shown.wait.id);

    rmSync(join(project, "approved"));
    const second = await asks();
    const denied = await answer(second.short_id, "deny");
    expect(denied.stderr).toBe("");
    expect(denied.stdout).toMatch(
      /^answered deny: pressed Escape \(No, and tell Copilot what to do differently \(Esc to stop\)\) in tmux pane %\d+ .*; the dialog closed$/,
    );
    // Its words for the stop vary (both seen live): "Operation cancelled by user", "Operation aborted by user".
    await until(
      "Copilot says it was cancelled",
      () => (/Operation (cancelled|aborted) by user/.test(screen()) ? true : undefined),
      30_000,
      screen,
    );
    await until("the session no longer waiting", async () => ((await session())?.status !== "waiting" ? true : undefined), 60_000, screen);
    await sleep(1000);
    expect(existsSync(join(project, "approved"))).toBe(false);
  });
});

describe(`Codex ${HARNESS_PACKAGES.codex.version}: answer by keys into its tmux pane (live)`, { timeout: 300_000 }, () => {
  it("allows and denies its command dialog by the options' digits (the command runs, waiting -> running; or it does not)", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "Codex: `tongs-agents answer` reads its command dialog (`Would you like to run the following command?`, the request below it, `1. Yes, proceed (y)`, `2. Yes, and don't ask again for commands that start with …`, `3. No, and tell Codex what to do differently (esc)`); allow presses 1: the command runs, the record goes waiting -> running -> idle; deny presses 3: the command does not run, the record leaves waiting",
      kind: "live",
      how: `codex ${HARNESS_PACKAGES.codex.version} (\`codex --no-daemon\`, approval policy on-request) in a private tmux server, hooks written and trusted by \`tongs-agents install --agent codex --trust-codex-hooks\`; synthetic OpenAI Responses provider whose ASKPERM asks to run \`touch approved\` outside the sandbox (\`sandbox_permissions: require_escalated\`), so Codex asks; answered with the built CLI`,
    });
    const world = liveWorld(each.sandbox, ROOT, [harnessBinDir("codex")], { FAKE_OPENAI_API_KEY: "not-a-key" });
    const project = join(each.sandbox.root, "project");
    mkdirSync(project);
    const codexHome = world.env.CODEX_HOME as string;
    mkdirSync(codexHome, { recursive: true });
    // Ask when the model asks to leave the sandbox (0.171.0 no longer takes "untrusted").
    writeFileSync(join(codexHome, "config.toml"), codexConfigToml(each.provider.url, project, ['approval_policy = "on-request"']));
    const installed = await runInstaller(world, {
      harnesses: await installersFor(["codex"]),
      mode: "install",
      dryRun: false,
      options: ["trust-codex-hooks"],
    });
    expect(installed.ok, JSON.stringify(installed)).toBe(true);
    const { screen, session, answer, asks: asksFor } = startAnswerLab(each.socket, project, world.env, "codex --no-daemon");
    await until("Codex's composer", () => (/OpenAI Codex[\s\S]*fake-model/.test(screen()) ? true : undefined), 90_000, screen);
    const title = "Would you like to run the following command?";
    // Each prompt its own words: the input check must not find an earlier one in the history or the status line.
    const asks = (prompt: string) => asksFor(prompt, title);
    const first = await asks("ASKPERM first");
    const shown = JSON.parse((await answer(first.short_id, "show", "--json")).stdout) as {
      wait: { id: string; kind: string; tool: string };
      dialog: { title: string; context: string[]; options: { number: number; label: string; reply?: string }[] };
    };
    expect(shown.wait).toMatchObject({ kind: "permission", tool: "Bash" });
    expect(shown.dialog.title).toBe(title);
    expect(shown.dialog.context).toContain("$ touch approved");
    expect(shown.dialog.options.map((option) => option.reply ?? null)).toEqual(["allow", "always", "deny"]);
    const allowed = await answer(first.short_id, "allow", "--wait", shown.wait.id);
    expect(allowed.stderr).toBe("");
    expect(allowed.stdout).toMatch(/^answered allow: pressed 1 \(Yes, proceed \(y\)\) in tmux pane %\d+ .*; the dialog closed$/);
    await ranOnceAllowed({ screen, session }, world.env, project, first.short_id, shown.wait.id);

    rmSync(join(project, "approved"));
    const second = await asks("ASKPERM second");
    const denied = await answer(second.short_id, "deny");
    expect(denied.stderr).toBe("");
    expect(denied.stdout).toMatch(
      /^answered deny: pressed 3 \(No, and tell Codex what to do differently \(esc\)\) in tmux pane %\d+ .*; the dialog closed$/,
    );
    await until("Codex says it was not run", () => (screen().includes("You canceled the request") ? true : undefined), 30_000, screen);
    await until("the session no longer waiting", async () => ((await session())?.status !== "waiting" ? true : undefined), 60_000, screen);
    await sleep(1000);
    expect(existsSync(join(project, "approved"))).toBe(false);
  });
});
