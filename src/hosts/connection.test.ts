import { describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import { findConnections, parseSshArgv } from "./connection.ts";

describe("parseSshArgv", () => {
  it.each([
    [["ssh", "devbox"], "devbox", [], false],
    [["ssh", "-t", "me@devbox", "tmux", "attach"], "me@devbox", ["tmux", "attach"], false],
    [["ssh", "-p", "2222", "-i", "/k", "devbox"], "devbox", [], false],
    [["ssh", "-p2222", "-tt", "devbox", "tmux"], "devbox", ["tmux"], false],
    [["ssh", "-o", "ControlPath=/x/%C", "--", "devbox", "ls"], "devbox", ["ls"], false],
    [["ssh", "-J", "jump", "devbox"], "devbox", [], false],
    [["ssh", "-vAXt", "devbox"], "devbox", [], false],
    [["ssh", "-N", "-L", "8080:localhost:80", "devbox"], "devbox", [], true],
    [["ssh", "-O", "check", "devbox"], "devbox", [], true],
    [["ssh", "-fN", "devbox"], "devbox", [], true],
  ])("%j names %s", (argv, destination, command, background) => {
    expect(parseSshArgv(argv)).toEqual({ destination, command, background });
  });

  it("finds no destination in options alone", () => {
    expect(parseSshArgv(["ssh", "-p", "22"])).toBeUndefined();
  });
});

describe("findConnections", () => {
  const host = { name: "devbox", destination: "me@devbox", command: "tongs-agents" };
  it("keeps interactive ssh processes to exactly this destination, on a terminal, oldest first", async () => {
    const rows = [
      fakeProcess(30, 1, "ssh", ["ssh", "-t", "me@devbox", "tmux", "attach"]),
      fakeProcess(20, 1, "ssh", ["ssh", "me@devbox"]),
      fakeProcess(40, 1, "ssh", ["ssh", "me@devbox2"]),
      fakeProcess(50, 1, "ssh", ["ssh", "devbox"]),
      fakeProcess(60, 1, "ssh", ["ssh", "-N", "me@devbox"]),
      fakeProcess(70, 1, "ssh", ["ssh", "me@devbox"], { tty: undefined }),
      fakeProcess(80, 1, "sshd", ["sshd", "me@devbox"]),
      fakeProcess(90, 1, "bash", ["bash", "-c", "ssh me@devbox"]),
    ];
    const listProcesses = async () => rows.map((row) => ({ pid: row.pid, name: row.comm }));
    const found = await findConnections(host, { processes: fakeProcessSource(rows), listProcesses });
    expect(found.map((connection) => connection.pid)).toEqual([20, 30]);
  });
});
