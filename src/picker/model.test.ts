import { describe, expect, it } from "vitest";
import type { SessionView } from "../fleet/view.ts";
import { NO_USAGE } from "../fleet/usage.ts";
import type { OpenDialog } from "../answer/service.ts";
import {
  answerDone,
  buildRows,
  decodeKeys,
  handleKey,
  initialModel,
  selectedIndex,
  visibleRows,
  hostRows as hostRowsOf,
  withDialog,
  withRows,
  type Key,
  type PickerModel,
} from "./model.ts";
import { displayWidth, fit, renderFrame } from "./render.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

function session(id: string, status: SessionView["status"], changedSecondsAgo: number, extra: Partial<SessionView> = {}): SessionView {
  return {
    ...NO_USAGE,
    id,
    short_id: id.slice(0, 10),
    harness: "claude",
    harness_name: "Claude Code",
    session_id: `native-${id}`,
    instance_id: "i",
    identity: "process",
    status,
    recorded_status: status,
    stale: false,
    stale_reason: "",
    pid: 100,
    cwd: `/home/u/src/${id}`,
    detail: `${status} detail`,
    tool: "",
    last_event: "",
    created_at: ago(3600),
    updated_at: ago(changedSecondsAgo),
    status_changed_at: ago(changedSecondsAgo),
    launch_id: "",
    profile_id: "",
    terminal: { env: {} },
    state_source: "hook",
    state_age_s: changedSecondsAgo,
    ...extra,
  };
}

const fleet = [
  session("running-a", "running", 5),
  session("idle-seen", "idle", 100),
  session("waiting-b", "waiting", 50, { harness: "codex" }),
  session("idle-new", "idle", 10),
  session("error-c", "error", 20),
  session("ended-d", "ended", 1),
  session("started-e", "started", 1),
];
const seen = { "idle-seen": ago(50) };
const model = (): PickerModel => initialModel(buildRows(fleet, seen, (cwd) => (cwd.endsWith("running-a") ? "main" : undefined)));
const press = (start: PickerModel, ...keys: Key[]) =>
  keys.reduce<{ model: PickerModel; effects: string[] }>(
    (acc, key) => {
      const { model: next, effect } = handleKey(acc.model, key);
      return { model: next, effects: [...acc.effects, effect.kind === "focus" ? `focus:${effect.row.session.id}` : effect.kind] };
    },
    { model: start, effects: [] },
  );
const chars = (text: string): Key[] => [...text].map((char) => ({ char }));
const ids = (m: PickerModel) => visibleRows(m).map((row) => row.session.id);

describe("picker model", () => {
  it("sorts by attention with idle-unseen above running and seen idle below started", () => {
    expect(ids(model())).toEqual(["waiting-b", "error-c", "idle-new", "running-a", "started-e", "idle-seen", "ended-d"]);
    expect(model().rows.find((row) => row.session.id === "idle-new")?.rank).toBe("idle-unseen");
  });

  it("filters on every typed word across harness, directory, branch, status and detail", () => {
    expect(ids(press(model(), ...chars("codex")).model)).toEqual(["waiting-b"]);
    expect(ids(press(model(), ...chars("main")).model)).toEqual(["running-a"]);
    expect(ids(press(model(), ...chars("idle src")).model)).toEqual(["idle-new", "idle-seen"]);
    expect(ids(press(model(), ...chars("zzz")).model)).toEqual([]);
    expect(ids(press(model(), ...chars("codex"), "backspace", "clear-query").model)).toHaveLength(7);
  });

  it("moves with arrows, Tab/Shift-Tab, Ctrl-N/Ctrl-P and Ctrl-J/Ctrl-K, wrapping around", () => {
    expect(selectedIndex(press(model(), "down", "down").model)).toBe(2);
    expect(selectedIndex(press(model(), "up").model)).toBe(6);
    expect(decodeKeys("\t\u000e\n\u001b[B")).toEqual(["down", "down", "down", "down"]);
    expect(decodeKeys("\u001b[Z\u0010\u000b\u001b[A\u001bOA")).toEqual(["up", "up", "up", "up", "up"]);
  });

  it("types every printable character into the filter, the letters and digits that used to be keys included", () => {
    // `pi` filters by "pi" (it used to toggle the preview, then filter by "i"); j, k, q and digits are letters too.
    const typed = press(model(), ...chars("pi"));
    expect(typed.model.query).toBe("pi");
    expect(typed.model.preview).toBe(false);
    for (const text of ["j", "k", "q", "p", "3", "/work", "x q"]) {
      const run = press(model(), ...chars(text));
      expect(run.model.query, text).toBe(text);
      expect(
        run.effects.filter((effect) => effect !== "selection-changed"),
        text,
      ).toEqual([]);
    }
    expect(ids(press(model(), ...chars("/home/u/src/codex")).model)).toEqual([]);
    expect(ids(press(model(), ...chars("src/waiting")).model)).toEqual(["waiting-b"]);
    expect(decodeKeys("jkpq1/ é")).toEqual([..."jkpq1/ é"].map((char) => ({ char })));
  });

  it("Enter focuses the selection; Alt-1 .. Alt-9 focus that row of the shown (filtered) list", () => {
    expect(press(model(), "down", "enter").effects.at(-1)).toBe("focus:error-c");
    expect(press(model(), { jump: 3 }).effects).toEqual(["focus:idle-new"]);
    expect(press(model(), ...chars("idle"), { jump: 2 }).effects.at(-1)).toBe("focus:idle-seen");
    expect(press(model(), { jump: 9 }).effects).toEqual(["none"]);
    expect(decodeKeys("\u001b1\u001b9")).toEqual([{ jump: 1 }, { jump: 9 }]);
    // Other Alt keys type nothing and do nothing; a lone Esc is Esc.
    expect(decodeKeys("\u001ba\u001b0\u001b")).toEqual(["escape"]);
  });

  it("Ctrl-U clears the filter, Ctrl-W its last word, Backspace its last character", () => {
    expect(press(model(), ...chars("idle src "), "delete-word").model.query).toBe("idle ");
    expect(press(model(), ...chars("idle src"), "delete-word", "delete-word").model.query).toBe("");
    expect(press(model(), ...chars("idle"), "backspace").model.query).toBe("idl");
    expect(press(model(), ...chars("idle"), "clear-query").model.query).toBe("");
    expect(decodeKeys("\u0015\u0017\u007f\b")).toEqual(["clear-query", "delete-word", "backspace", "backspace"]);
  });

  it("Ctrl-C, Ctrl-D, Ctrl-G and Ctrl-Q close", () => {
    expect(decodeKeys("\u0003\u0004\u0007\u0011")).toEqual(["quit", "quit", "quit", "quit"]);
    expect(press(model(), ...chars("idle"), "quit").effects.at(-1)).toBe("quit");
  });

  it("Esc clears the filter first, then closes", () => {
    expect(press(model(), ...chars("idle"), "escape").effects.at(-1)).toBe("selection-changed");
    expect(press(model(), ...chars("idle"), "escape", "escape").effects.at(-1)).toBe("quit");
  });

  it("keeps the selection on the same session through live updates, and falls back when it disappears", () => {
    const on = press(model(), "down", "down", "down").model; // running-a
    const reordered = withRows(
      on,
      buildRows([...fleet.filter((s) => s.id !== "waiting-b"), session("new-waiting", "waiting", 0)], seen, () => undefined),
    );
    expect(visibleRows(reordered)[selectedIndex(reordered)]?.session.id).toBe("running-a");
    const gone = withRows(
      on,
      buildRows(
        fleet.filter((s) => s.id !== "running-a"),
        seen,
        () => undefined,
      ),
    );
    expect(gone.selectedKey).toBe("waiting-b");
  });

  it("decodes terminal input into keys and never types escape sequences into the filter", () => {
    expect(decodeKeys("\u001b[A\u001b[B\u001bOA\t\u001b[Z\r\u007fab\u0014\u0018\u0003\u001b[1;5C\u001b[15~\u001b")).toEqual([
      "up",
      "down",
      "up",
      "down",
      "up",
      "enter",
      "backspace",
      { char: "a" },
      { char: "b" },
      "toggle-preview",
      "prune",
      "quit",
      "escape",
    ]);
  });
});

/** The dialog the answer service read for the waiting row (the shape `answer show --json` prints). */
const OPEN: OpenDialog = {
  ok: true,
  session: "waiting-b",
  harness: "claude",
  wait: { id: "9c41d0e2aa17", kind: "permission", tool: "Bash", since: ago(50) },
  channel: "keys",
  target: "tmux pane %3",
  evidence: "live",
  dialog: {
    title: "Do you want to proceed?",
    context: ["Bash command", "touch approved"],
    options: [
      { number: 1, label: "Yes", reply: "allow" },
      { number: 2, label: "Yes, and switch to auto mode", reply: undefined },
      { number: 3, label: "No", reply: "deny" },
    ],
  },
};

describe("picker answer panel (Ctrl-R)", () => {
  it("on a waiting row: reads its dialog, then a digit sends that option of the dialog shown, once", () => {
    const opened = handleKey(model(), "answer");
    expect(opened.effect).toMatchObject({ kind: "read-dialog", row: { key: "waiting-b" } });
    expect(opened.model.answering).toEqual({ key: "waiting-b", sending: false });
    // While it is read, a digit sends nothing and types nothing.
    expect(press(opened.model, { char: "1" })).toMatchObject({ effects: ["none"], model: { query: "" } });
    const shown = withDialog(opened.model, "waiting-b", OPEN);
    expect(shown.answering?.open).toBe(OPEN);
    // A number the dialog does not show: said, nothing sent; letters and moves do nothing while the panel is open.
    expect(press(shown, { char: "7" })).toMatchObject({ effects: ["none"], model: { message: "the dialog has no option 7" } });
    expect(press(shown, { char: "y" }, "down", "enter")).toMatchObject({ effects: ["none", "none", "none"], model: { query: "" } });
    const sent = handleKey(shown, { char: "3" });
    expect(sent.effect).toEqual({ kind: "answer", row: expect.objectContaining({ key: "waiting-b" }), open: OPEN, number: 3 });
    expect(sent.model.answering?.sending).toBe(true);
    // Sending: no second reply, and Esc does not hide it.
    expect(press(sent.model, { char: "1" }, "escape")).toMatchObject({ effects: ["none", "none"] });
    const done = answerDone(sent.model, "answered deny: pressed 3 (No) in tmux pane %3; the dialog closed");
    expect(done).toMatchObject({ answering: undefined, message: expect.stringContaining("answered deny") });
  });

  it("on a row that is not waiting, or a host's row: says why and opens nothing", () => {
    const running = press(model(), "down", "down", "down", "answer");
    expect(running.effects.at(-1)).toBe("none");
    expect(running.model.message).toBe("nothing to answer: running-a is running");
    expect(running.model.answering).toBeUndefined();
    const remote = initialModel(hostRowsOf("box", [{ ...session("far", "waiting", 1), attention: "waiting" }]));
    expect(handleKey(remote, "answer")).toMatchObject({
      effect: { kind: "none" },
      model: { message: "answering box's agents from the picker is not possible yet: run tongs-agents answer far on box" },
    });
  });

  it("a dialog that cannot be read closes the panel and says why; Esc closes it; a late read for another row is dropped", () => {
    const opened = handleKey(model(), "answer").model;
    expect(withDialog(opened, "waiting-b", { ok: false, detail: "tmux pane %3 does not show Claude Code's dialog" })).toMatchObject({
      answering: undefined,
      message: "tmux pane %3 does not show Claude Code's dialog",
    });
    expect(withDialog(opened, "other", OPEN)).toBe(opened);
    expect(press(opened, "escape").model.answering).toBeUndefined();
  });

  it("decodes Ctrl-R as the answer key", () => {
    expect(decodeKeys("\u0012")).toEqual(["answer"]);
  });

  it("draws the panel: the wait, the request, the question, each option with the reply it gives, and its keys", () => {
    const shown = withDialog(handleKey(model(), "answer").model, "waiting-b", OPEN);
    const lines = renderFrame(shown, { width: 80, height: 20, now: NOW, color: false, home: "/home/u" }).map((line) => line.trimEnd());
    const at = lines.findIndex((line) => line.startsWith("── answer waiting-b (codex) · wait 9c41d0e2aa17 · permission: Bash"));
    expect(at).toBeGreaterThan(2);
    expect(lines.slice(at + 1, at + 7)).toEqual([
      "  │ Bash command",
      "  │ touch approved",
      "  Do you want to proceed?",
      "  1. Yes   → allow",
      "  2. Yes, and switch to auto mode   → only by its number",
      "  3. No   → deny",
    ]);
    expect(lines.at(-1)).toBe("1…3 send that reply · esc cancel");
    expect(lines).toHaveLength(20);
  });
});

describe("picker frame", () => {
  it("fits every line to the width, numbers the first nine rows and marks the selection", () => {
    const lines = renderFrame(model(), { width: 60, height: 14, now: NOW, color: false, home: "/home/u" });
    expect(lines).toHaveLength(14);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
    expect(lines[0]).toContain("7 sessions");
    expect(lines[2]).toMatch(/^1>● waiting\s+codex\s+src\/waiting-b\s+50s\s+waiting detail/);
    expect(lines[4]).toMatch(/^3 ◆ done\s+claude/);
    expect(lines.at(-1)).toMatch(/^enter focus · alt-1…9 jump/);
  });

  it("shows the preview below the list when it is on", () => {
    const on = press(model(), "toggle-preview").model;
    const lines = renderFrame(on, {
      width: 50,
      height: 16,
      now: NOW,
      color: false,
      home: "/home/u",
      preview: ["$ make test", "  ok 42 tests"],
    });
    const at = lines.findIndex((line) => line.startsWith("── preview"));
    expect(at).toBeGreaterThan(2);
    expect(lines[at]).toBe(`── preview ${"─".repeat(50 - 11)}`);
    expect(lines.slice(at + 1, at + 3).map((line) => line.trimEnd())).toEqual(["$ make test", "  ok 42 tests"]);
  });

  it("makes record text display-safe and measures wide characters", () => {
    const hostile = initialModel(
      buildRows([session("x", "waiting", 1, { detail: "evil\u001b]0;pwned\u0007 日本語の説明がとても長い" })], {}, () => undefined),
    );
    const lines = renderFrame(hostile, { width: 40, height: 6, now: NOW, color: true, home: "/" });
    expect(lines.join("\n")).not.toContain("\u001b]0");
    expect(displayWidth(fit("日本語", 4))).toBe(4);
    // Every field, a host's rows and notes, the message and the preview: only the picker's own colours are escapes.
    const evil = "\x1b]52;c;ZXZpbA==\x07\x9b31m\x1b]8;;http://x\x1b\\";
    const everywhere = {
      ...withRows(
        initialModel(
          buildRows(
            [session("y", "error", 1, { detail: evil, cwd: `/w/${evil}`, profile_id: evil, stale: true, stale_reason: evil })],
            {},
            () => evil,
          ).map((row) => ({ ...row, host: evil })),
        ),
        [],
        [evil],
      ),
      message: evil,
      preview: true,
    };
    const frame = renderFrame(everywhere, { width: 200, height: 12, now: NOW, color: true, home: "/", preview: [evil], previewNote: evil });
    /* eslint-disable no-control-regex */
    const controls = frame
      .join("\n")
      .replace(/\u001b\[[0-9;]*m/g, "")
      .match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g);
    /* eslint-enable no-control-regex */
    expect(controls).toBeNull();
    expect(fit("日本語", 4)).toBe("日… ");
  });
});
