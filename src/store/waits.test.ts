import { describe, expect, it } from "vitest";
import type { LifecycleEvent, SessionRecord, WaitEffect } from "../core/schema.ts";
import { applyEvent } from "./apply.ts";

const T = (second: number) => `2026-11-29T10:00:${String(second).padStart(2, "0")}.000Z`;

/** A native event as events.ts makes it: status, detail, tool and its wait effect. */
function native(
  eventId: string,
  status: LifecycleEvent["status"],
  detail: string,
  tool: string,
  wait: WaitEffect | undefined,
  toolUseId?: string,
): LifecycleEvent {
  return {
    harness: "claude",
    alias: eventId.split(".")[1] as string,
    eventId,
    canonicalId: `fleet:v1:claude:${"c".repeat(64)}`,
    sessionId: "s",
    instanceId: "pid:1@t",
    identity: "process",
    pid: 1,
    processStart: "t",
    cwd: "/w",
    status,
    detail,
    tool,
    sequence: null,
    startsSession: false,
    mayCreate: true,
    sharedProcess: false,
    terminal: { env: {} },
    ...(wait ? { wait } : {}),
    ...(toolUseId ? { toolUseId } : {}),
  };
}
const prompt = () => native("claude.prompt-submit", "running", "processing prompt", "", "clear");
const start = (tool: string, id?: string) => native("claude.tool-use", "running", tool, tool, "tool-start", id);
const done = (tool: string, id?: string) => native("claude.tool-done", "running", `${tool} finished`, tool, "tool-end", id);
const failed = (tool: string, id?: string) => native("claude.tool-failed", "running", `${tool} failed`, tool, "tool-end", id);
const asks = (tool: string) =>
  native("claude.permission-request", "waiting", tool ? `permission: ${tool}` : "permission requested", tool, "permission");
const notified = () => native("claude.notification", "waiting", "permission requested", "", "permission");
const stop = () => native("claude.stop", "idle", "Done.", "", "clear");

/** Apply events in order; the states after each, as [status, detail, tool]. */
function run(...events: LifecycleEvent[]): { states: [string, string, string][]; record: SessionRecord } {
  let record: SessionRecord | undefined;
  const states: [string, string, string][] = [];
  events.forEach((event, index) => {
    const result = applyEvent(record, event, T(index));
    if (result.action !== "write") throw new Error(`${event.eventId} skipped: ${result.detail}`);
    record = result.record;
    states.push([record.status, record.detail, record.tool]);
  });
  return { states, record: record as SessionRecord };
}

describe("waits: a tool that finishes does not hide a permission still pending for another tool", () => {
  it("the issue's sequence: prompt, PreToolUse(Read), PermissionRequest(Bash), PostToolUse(Read) stays waiting", () => {
    const { states } = run(prompt(), start("Read", "r"), asks("Bash"), done("Read", "r"));
    expect(states.at(-1)).toEqual(["waiting", "permission: Bash", "Bash"]);
  });

  it("links the permission to the running tool of that name, and ends the wait when that tool finishes or fails", () => {
    expect(
      run(prompt(), start("Bash", "b"), start("Read", "r"), asks("Read"), done("Bash", "b"), done("Read", "r")).states.slice(-2),
    ).toEqual([
      ["waiting", "permission: Read", "Read"],
      ["running", "Read finished", "Read"],
    ]);
    expect(run(prompt(), start("Bash", "b"), asks("Bash"), failed("Bash", "b")).states.at(-1)).toEqual(["running", "Bash failed", "Bash"]);
  });

  it("with two running tools of the asking tool's name, waits until both finished (it cannot tell which asked)", () => {
    const { states } = run(prompt(), start("Bash", "a"), start("Bash", "b"), asks("Bash"), done("Bash", "a"), done("Bash", "b"));
    expect(states.slice(-2)).toEqual([
      ["waiting", "permission: Bash", "Bash"],
      ["running", "Bash finished", "Bash"],
    ]);
  });

  it("without tool ids (an older harness) the tool's name decides", () => {
    expect(run(prompt(), start("Read"), asks("Bash"), done("Read")).states.at(-1)).toEqual(["waiting", "permission: Bash", "Bash"]);
    expect(run(prompt(), start("Bash"), asks("Bash"), done("Bash")).states.at(-1)).toEqual(["running", "Bash finished", "Bash"]);
  });

  it("ends every wait when the turn ends, a new prompt arrives, the turn is interrupted or fails", () => {
    for (const end of [
      stop(),
      prompt(),
      native("codex.interrupt", "idle", "turn interrupted", "", "clear"),
      native("claude.stop-failure", "error", "turn failed (API error)", "", "clear"),
    ]) {
      const { record } = run(prompt(), start("Bash", "b"), asks("Bash"), end);
      expect([record.status, record.pending, record.running_tools]).toEqual([end.status, undefined, undefined]);
    }
  });

  it("keeps several waits; the newest is shown, and the older one shows again when the newer closes", () => {
    const { states } = run(
      prompt(),
      start("Read", "r"),
      asks("Read"),
      start("Bash", "b"),
      asks("Bash"),
      done("Bash", "b"),
      done("Read", "r"),
    );
    expect(states.slice(-3)).toEqual([
      ["waiting", "permission: Bash", "Bash"],
      ["waiting", "permission: Read", "Read"],
      ["running", "Read finished", "Read"],
    ]);
  });
});

describe("waits: the later, less specific event keeps the detail", () => {
  it("Claude's permission_prompt notification, 6 s after PermissionRequest, keeps `permission: Bash` and the tool", () => {
    const { states, record } = run(prompt(), start("Bash", "b"), asks("Bash"), notified());
    expect(states.at(-1)).toEqual(["waiting", "permission: Bash", "Bash"]);
    expect(record.pending).toHaveLength(1);
    expect(record.history?.at(-1)?.change).toBe("still waiting; permission wait for Bash still open (claude.notification states it again)");
  });

  it("a notification without any PermissionRequest opens a wait of its own, which a later PermissionRequest names", () => {
    expect(run(prompt(), start("Bash", "b"), notified()).states.at(-1)).toEqual(["waiting", "permission requested", ""]);
    const { states, record } = run(prompt(), start("Bash", "b"), notified(), asks("Bash"), done("Bash", "b"));
    expect(states.slice(-2)).toEqual([
      ["waiting", "permission: Bash", "Bash"],
      ["running", "Bash finished", "Bash"],
    ]);
    expect(record.pending).toBeUndefined();
  });

  it("an emitter's dialog: a tool starting meanwhile keeps it, its end answers it", () => {
    const pi = (eventId: string, status: LifecycleEvent["status"], detail: string, tool: string, wait?: WaitEffect) => ({
      ...native(eventId, status, detail, tool, wait),
      harness: "pi",
      alias: "fleet-event",
    });
    const { states } = run(
      pi("pi.agent-start", "running", "processing prompt", "", "clear"),
      pi("pi.ui-prompt-start", "waiting", "waiting for input: Allow?", "", "input"),
      pi("pi.tool-execution-start", "running", "read", "read"),
      pi("pi.ui-prompt-end", "running", "bash", "bash", "answered"),
    );
    expect(states.slice(-3)).toEqual([
      ["waiting", "waiting for input: Allow?", ""],
      ["waiting", "waiting for input: Allow?", ""],
      ["running", "bash", "bash"],
    ]);
  });

  it("events queued by an older writer (no wait effect) still open and close waits by their state", () => {
    const { states } = run(
      prompt(),
      native("claude.permission-request", "waiting", "permission: Bash", "Bash", undefined),
      native("claude.tool-use", "running", "Read", "Read", undefined),
      native("claude.stop", "idle", "", "", undefined),
    );
    expect(states.slice(1)).toEqual([
      ["waiting", "permission: Bash", "Bash"],
      ["waiting", "permission: Bash", "Bash"],
      ["idle", "", ""],
    ]);
  });
});

describe("a permission asked before the tool starts (Qwen Code 0.24.4: PermissionRequest, then PreToolUse)", () => {
  const approved = (tool: string, id?: string) => native("qwen.tool-approved", "running", tool, tool, "tool-approved", id);
  const gemini = () => native("gemini.notification", "waiting", "permission requested", "", "permission");

  it("waits from the request until the tool starts, then runs the tool until it ends", () => {
    const { states, record } = run(prompt(), asks("run_shell_command"), notified(), approved("run_shell_command", "t1"));
    expect(states.map(([status]) => status)).toEqual(["running", "waiting", "waiting", "running"]);
    expect(record.pending).toBeUndefined();
    expect(record.running_tools).toEqual([{ id: "t1", tool: "run_shell_command" }]);
    expect(record.history?.at(-1)?.change).toContain("closed permission wait for run_shell_command (the tool started)");
  });

  it("another tool starting does not answer the wait", () => {
    const { states } = run(prompt(), asks("run_shell_command"), approved("read_file", "r1"));
    expect(states.at(-1)).toEqual(["waiting", "permission: run_shell_command", "run_shell_command"]);
  });

  it("a tool started without a request leaves other waits alone", () => {
    const { states } = run(prompt(), approved("read_file", "r1"), done("read_file", "r1"), stop());
    expect(states.map(([status]) => status)).toEqual(["running", "running", "running", "idle"]);
  });

  it("Gemini CLI: the dialog's notification names no tool and ends when a tool finishes (BeforeTool came first)", () => {
    const { states } = run(prompt(), start("run_shell_command"), gemini(), done("run_shell_command"));
    expect(states.map(([status]) => status)).toEqual(["running", "running", "waiting", "running"]);
  });
});

describe("history", () => {
  it("keeps the last events, bounded, with source and what each changed", () => {
    const { record } = run(
      prompt(),
      start("Bash", "b"),
      asks("Bash"),
      done("Bash", "b"),
      stop(),
      prompt(),
      stop(),
      prompt(),
      stop(),
      prompt(),
    );
    expect(record.history).toHaveLength(8);
    expect(record.history?.at(-1)).toEqual({
      at: T(9),
      source: "hook",
      event: "claude.prompt-submit",
      status: "running",
      change: 'idle -> running; detail "processing prompt"',
    });
    expect(run(prompt(), start("Bash", "b"), asks("Bash")).record.history?.at(-1)?.change).toBe(
      'running -> waiting; detail "permission: Bash"; opened permission wait for Bash',
    );
  });
});
