// answer across SSH hosts, with the fake ssh of test/fake-hosts.ts (mocked transport; the host's answers are our own
// CLI's, run on its own sandboxed state, after a real sh split the quoted command line). Live: e2e/hosts.e2e.test.ts
// answers the real Claude Code on host B from A.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeMachine, fakeSsh, type FakeMachine, type SshCall } from "../../test/fake-hosts.ts";
import type { Sandbox } from "../../test/sandbox.ts";
import type { SessionRecord } from "../core/schema.ts";
import { answerWords } from "../hosts/answer.ts";
import { addHost } from "../hosts/edit.ts";
import { sshArgs } from "../hosts/ssh.ts";
import type { CliContext } from "./context.ts";
import { runCli, type CliIo } from "./run.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const sandboxes: Sandbox[] = [];
afterEach(() => sandboxes.splice(0).forEach((sandbox) => sandbox.cleanup()));
const machine = (sessions: [string, number, SessionRecord["status"]][]) => fakeMachine(sandboxes, sessions, NOW);

let out: string[];
const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => out.push(text), color: false, columns: 160 };
let calls: SshCall[];
let here: CliContext;
beforeEach(() => {
  out = [];
  calls = [];
  here = machine([["local-run", 100, "running"]]);
});

function withHost(devbox: FakeMachine): CliContext {
  expect(addHost(here.env, "devbox", "me@devbox").ok).toBe(true);
  return { ...here, sshRun: fakeSsh({ "me@devbox": devbox }, calls) };
}

async function cli(context: CliContext, ...args: string[]): Promise<{ code: number; text: string }> {
  out = [];
  const code = await runCli(args, context, io);
  return { code, text: out.join("\n") };
}

const sent = {
  ok: true,
  session: "fleet:v1:claude:abc",
  wait: "9c41d0e2aa17",
  channel: "keys",
  target: "tmux pane %3 (work:1.0)",
  reply: "allow",
  option: { number: 1, label: "Yes", reply: "allow" },
  keys: ["1"],
  closed: true,
};

describe("answer across hosts", () => {
  it("builds one quoted remote command: `--` before the query and the reply, so neither is read as an option or by the shell", () => {
    const words = answerWords("it's; rm -rf ~", ["deny", "no $(touch pwned) `id`"], "9c41d0e2aa17");
    expect(words).toEqual([
      "answer",
      "--json",
      "--local",
      "--wait",
      "9c41d0e2aa17",
      "--",
      "it's; rm -rf ~",
      "deny",
      "no $(touch pwned) `id`",
    ]);
    const args = sshArgs({ name: "devbox", destination: "me@devbox", command: "tongs-agents" } as never, words, { controlDir: undefined });
    // Plain words go as they are; the rest single-quoted (a quote closed, escaped, reopened).
    expect(args.at(-1)).toBe(
      "tongs-agents answer --json --local --wait 9c41d0e2aa17 -- 'it'\\''s; rm -rf ~' deny 'no $(touch pwned) `id`'",
    );
  });

  it("HOST:query is answered by that host's own `answer --json --local`; its words arrive intact", async () => {
    const context = withHost({ context: machine([["remote-run", 200, "running"]]) });
    const refused = await cli(context, "answer", "devbox:it's; $(touch pwned)", "deny", "not `now`", "--wait", "9c41d0e2aa17");
    expect(calls.map((call) => call.words)).toEqual([
      ["tongs-agents", "answer", "--json", "--local", "--wait", "9c41d0e2aa17", "--", "it's; $(touch pwned)", "deny", "not `now`"],
    ]);
    expect(refused).toMatchObject({ code: 3, text: expect.stringMatching(/^tongs-agents: on devbox: /) });
    // The host's own refusal, named with the host: nothing to answer there.
    const running = await cli(context, "answer", "devbox:remote-run", "allow");
    expect(running).toEqual({
      code: 10,
      text: expect.stringMatching(/^tongs-agents: on devbox: nothing to answer: [0-9a-z]+ is running$/),
    });
  });

  it("prints the host's answer as a local one, the pane named with its host; a host's answer of another shape is refused", async () => {
    let answer: unknown = sent;
    const context = withHost({
      context: machine([]),
      answers: (words) => (words[1] === "answer" ? { ok: true, code: 0, stdout: JSON.stringify(answer), stderr: "" } : undefined),
    });
    expect(await cli(context, "answer", "devbox:abc", "allow")).toEqual({
      code: 0,
      text: "answered allow: pressed 1 (Yes) in devbox: tmux pane %3 (work:1.0); the dialog closed",
    });
    const json = await cli(context, "answer", "devbox:abc", "allow", "--json");
    expect(JSON.parse(json.text)).toEqual({ ...sent, host: "devbox" });
    answer = { ...sent, keys: ["1", "\u001b[A"].concat(Array(9).fill("x")) };
    expect(await cli(context, "answer", "devbox:abc", "allow")).toEqual({
      code: 1,
      text: "tongs-agents: devbox: the answer is not one `answer --json` gives",
    });
  });

  it("an unreachable host is said; one that did not answer in time may have answered, and the message says so", async () => {
    expect(
      await cli(
        withHost({ context: machine([]), unreachable: "ssh: connect to host devbox port 22: Connection refused" }),
        "answer",
        "devbox:abc",
        "allow",
      ),
    ).toEqual({
      code: 1,
      text: "tongs-agents: devbox: unreachable (ssh: connect to host devbox port 22: Connection refused)",
    });
    here = machine([]);
    const slow = await cli(
      withHost({ context: machine([]), answer: { ok: false, code: undefined, stdout: "", stderr: "", failure: "timeout" } }),
      "answer",
      "devbox:abc",
      "allow",
    );
    expect(slow.code).toBe(1);
    expect(slow.text).toMatch(
      /^tongs-agents: devbox: unreachable \(no answer within 20000 ms\); the reply may have been sent there: look with `tongs-agents answer devbox:abc show`$/,
    );
  });
});
