import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { controlDir, masterArgs, remoteCommand, sshArgs } from "./ssh.ts";

describe("remoteCommand", () => {
  it("quotes every word that needs it (src/core/shell-quote.ts)", () => {
    expect(remoteCommand(["tongs-agents", "focus", "--json", "--", "x'; id"])).toBe(`tongs-agents focus --json -- 'x'\\''; id'`);
  });
});

describe("sshArgs", () => {
  const host = { name: "box", destination: "me@box", command: "tongs-agents" };

  it("adds batch mode and a connect timeout, only uses a shared connection, and puts the destination after --", () => {
    expect(sshArgs(host, ["list", "--json"], { controlDir: "/run/user/1/tongs-agents-ssh" })).toEqual([
      "-T",
      "-o",
      "BatchMode=yes",
      "-o",
      "ConnectTimeout=2",
      "-o",
      "ControlMaster=no",
      "-o",
      "ControlPath=/run/user/1/tongs-agents-ssh/box",
      "--",
      "me@box",
      "tongs-agents list --json",
    ]);
  });

  it("starts the shared connection apart: no command, backgrounded, kept 60 s", () => {
    expect(masterArgs(host, "/d")).toEqual([
      "-T",
      "-N",
      "-f",
      "-o",
      "BatchMode=yes",
      "-o",
      "ConnectTimeout=2",
      "-o",
      "ControlMaster=yes",
      "-o",
      "ControlPath=/d/box",
      "-o",
      "ControlPersist=60",
      "--",
      "me@box",
    ]);
  });

  it("without a private directory, shares no connection", () => {
    expect(sshArgs(host, ["status"], { controlDir: undefined }).join(" ")).not.toContain("Control");
  });
});

describe("controlDir", () => {
  it("creates a private 0700 directory, and skips a place whose path would be too long for a socket", () => {
    const root = mkdtempSync(join(tmpdir(), "tongs-ctl-"));
    try {
      const dir = controlDir({ XDG_RUNTIME_DIR: root }, "/nonexistent/state");
      expect(dir).toBe(join(root, "tongs-agents-ssh"));
      expect(statSync(dir!).mode & 0o777).toBe(0o700);
      const long = join(root, "x".repeat(80));
      expect(controlDir({ XDG_RUNTIME_DIR: long }, join(root, "state"))).toBe(join(root, "state", "ssh"));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
