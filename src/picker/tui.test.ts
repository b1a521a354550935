// runPicker over fake terminal streams: what it does when focus or prune throws instead of reporting.
import { PassThrough, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeLiveRecord } from "../../test/records.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { linuxProcessSource } from "../core/proc.ts";
import { sessionsDirOf } from "../store/paths.ts";
import { watchSessions, type SessionsWatch } from "../store/sessions-watch.ts";
import { runPicker, type PickerContext, type PickerTerminal } from "./tui.ts";

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => sandbox.cleanup());

function fakeTerminal() {
  let written = "";
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
  const output = Object.assign(new Writable({ write: (chunk, _encoding, next) => ((written += String(chunk)), next()) }), {
    isTTY: true,
    columns: 100,
    rows: 20,
  });
  return { terminal: { input, output } as unknown as PickerTerminal, input, screen: () => written };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 5000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("runPicker", () => {
  it("shows a focus or prune that throws, and stays open", async () => {
    await writeLiveRecord(sandbox.stateDir, "tui-session", { env: {} });
    const { terminal, input, screen } = fakeTerminal();
    const deps: PickerContext = {
      stateDir: sandbox.stateDir,
      processes: linuxProcessSource(),
      listProcesses: async () => [],
      focus: async () => {
        throw new Error("the focus module is missing");
      },
      prune: async () => {
        throw new Error("the prune module is missing");
      },
      capture: async () => ({ note: "no preview" }),
      readDialog: async () => ({ ok: false, detail: "no dialog here" }),
      answer: async () => "nothing sent",
      now: Date.now,
      home: sandbox.home,
      color: false,
    };
    const exit = runPicker(terminal, deps);
    await until(() => screen().includes("1 sessions") || screen().includes("1 session"), "the first screen");
    input.write("\r");
    await until(() => screen().includes("focus failed: the focus module is missing"), "the focus failure");
    input.write("\u0018");
    await until(() => screen().includes("clearing ended sessions failed: the prune module is missing"), "the prune failure");
    input.write("q"); // typed into the filter: the picker stays open
    await until(() => screen().includes("> q"), "q in the filter");
    input.write("\u0003");
    expect(await exit).toEqual({ kind: "cancelled" });
  });

  it("in the keypress server, reloads on a change to a record, not on the settle markers of its own listings", async () => {
    await writeLiveRecord(sandbox.stateDir, "tui-session", { env: {} });
    const watch = watchSessions(sessionsDirOf(sandbox.stateDir), { settleFrom: 1 }); // its listings settle, with markers
    let listings = 0;
    const counted: SessionsWatch = {
      ...watch,
      forListing: () => {
        listings++;
        return watch.forListing();
      },
    };
    const { terminal, input, screen } = fakeTerminal();
    const exit = runPicker(terminal, {
      stateDir: sandbox.stateDir,
      processes: linuxProcessSource(),
      listProcesses: async () => [],
      watch: counted,
      focus: async () => ({ state: "failed", detail: "not here" }) as never,
      prune: async () => 0,
      capture: async () => ({ note: "no preview" }),
      readDialog: async () => ({ ok: false, detail: "no dialog here" }),
      answer: async () => "nothing sent",
      now: Date.now,
      home: sandbox.home,
      color: false,
      refreshMs: 60_000,
      discoverMs: 60_000,
    });
    await until(() => screen().includes("1 session"), "the first screen");
    await new Promise((resolve) => setTimeout(resolve, 800));
    const quiet = listings;
    expect(quiet).toBeLessThanOrEqual(2);
    await writeLiveRecord(sandbox.stateDir, "tui-session-2", { env: {} });
    await until(() => screen().includes("2 sessions"), "the second session");
    expect(listings).toBeGreaterThan(quiet);
    input.write("\u0003");
    expect(await exit).toEqual({ kind: "cancelled" });
    watch.close();
  });
});
