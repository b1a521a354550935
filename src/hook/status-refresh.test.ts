import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import type { RefreshOutcome } from "../../backends/tmux/refresh.ts";
import { canonicalId, digestOf } from "../core/identity.ts";
import type { SessionRecord } from "../core/schema.ts";
import { ensureStateDirs } from "../store/paths.ts";
import { writeRecord } from "../store/records.ts";
import { noteStatusServer, STATUS_SERVERS_DIR, statusServers } from "../store/status-servers.ts";
import { statusRefresher } from "./status-refresh.ts";

let sandbox: Sandbox;
let sessionsDir: string;
beforeEach(() => {
  sandbox = makeSandbox();
  sessionsDir = ensureStateDirs(sandbox.stateDir).sessionsDir;
});
afterEach(() => sandbox.cleanup());

const ID = canonicalId("claude", "s1", "pid:100");
const DIGEST = digestOf(ID) as string;
function put(status: SessionRecord["status"], changedAt: string): void {
  writeRecord(sessionsDir, DIGEST, {
    schema_version: 1,
    canonical_id: ID,
    harness: "claude",
    session_id: "s1",
    instance_id: "pid:100",
    identity: "process",
    pid: 100,
    process_start: null,
    cwd: "/w",
    status,
    detail: "",
    tool: "",
    sequence: null,
    arrival_sequence: 1,
    last_event: "claude.x",
    created_at: "2026-12-01T00:00:00.000Z",
    updated_at: changedAt,
    status_changed_at: changedAt,
    terminal: { env: {} },
  });
}

describe("the status segments redraw after a change of state", () => {
  it("asks each server noted by the segment, once per change; the same state again asks none", async () => {
    noteStatusServer(sandbox.stateDir, "/tmp/tmux-0/default");
    noteStatusServer(sandbox.stateDir, "/tmp/tmux-0/other");
    noteStatusServer(sandbox.stateDir, "/tmp/tmux-0/default"); // noted once
    expect(statusServers(sandbox.stateDir).sort()).toEqual(["/tmp/tmux-0/default", "/tmp/tmux-0/other"]);
    const asked: string[] = [];
    const refresher = statusRefresher(sandbox.stateDir, {
      refresh: async (socket): Promise<RefreshOutcome> => (asked.push(socket), { kind: "refreshed", clients: 1 }),
    });
    put("running", "2026-12-01T00:00:01.000Z");
    refresher.afterApply(sessionsDir, DIGEST);
    await refresher.idle();
    expect(asked.sort()).toEqual(["/tmp/tmux-0/default", "/tmp/tmux-0/other"]);
    refresher.afterApply(sessionsDir, DIGEST); // the same state (another tool started): nothing to redraw
    await refresher.idle();
    expect(asked).toHaveLength(2);
    put("waiting", "2026-12-01T00:00:02.000Z");
    refresher.afterApply(sessionsDir, DIGEST);
    await refresher.idle();
    expect(asked).toHaveLength(4);
  });

  it("coalesces: changes while a redraw is under way ask for one more, not one each", async () => {
    noteStatusServer(sandbox.stateDir, "/tmp/tmux-0/default");
    let release: () => void = () => undefined;
    let calls = 0;
    const refresher = statusRefresher(sandbox.stateDir, {
      refresh: async (): Promise<RefreshOutcome> => {
        calls++;
        if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
        return { kind: "refreshed", clients: 1 };
      },
    });
    const states: SessionRecord["status"][] = ["running", "waiting", "running", "idle", "running"];
    for (const [index, status] of states.entries()) {
      put(status, `2026-12-01T00:00:0${index}.000Z`);
      refresher.afterApply(sessionsDir, DIGEST);
    }
    release();
    await refresher.idle();
    expect(calls).toBe(2);
  });

  it("forgets a server that is gone; the segment notes it again when it draws", async () => {
    noteStatusServer(sandbox.stateDir, "/tmp/tmux-0/gone");
    const refresher = statusRefresher(sandbox.stateDir, {
      refresh: async (): Promise<RefreshOutcome> => ({ kind: "gone", detail: "no server running on /tmp/tmux-0/gone" }),
    });
    put("waiting", "2026-12-01T00:00:01.000Z");
    refresher.afterApply(sessionsDir, DIGEST);
    await refresher.idle();
    expect(readdirSync(join(sandbox.stateDir, STATUS_SERVERS_DIR))).toEqual([]);
  });

  it("notes nothing for a state dir that does not exist, and no socket that is not an absolute path", () => {
    noteStatusServer(join(sandbox.root, "no-such-state"), "/tmp/tmux-0/default");
    noteStatusServer(sandbox.stateDir, "relative/socket");
    expect(statusServers(join(sandbox.root, "no-such-state"))).toEqual([]);
    expect(statusServers(sandbox.stateDir)).toEqual([]);
  });
});
