import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BEGIN, END, blockBody, parseTmuxVersion, withBlock, withoutBlock } from "./setup.ts";

const body = blockBody({
  node: "/usr/bin/node",
  cli: "/opt/tongs/bin/tongs-agents.js",
  pickerKey: "a",
  nextKey: "N",
  status: true,
  server: true,
  tmuxVersion: [3, 3],
});

describe("the tmux.conf block", () => {
  it("writing twice leaves one block, and removing it gives back the file exactly", () => {
    fc.assert(
      fc.property(
        fc.option(
          fc.string({ maxLength: 200 }).filter((text) => !text.includes(BEGIN) && !text.includes(END)),
          { nil: undefined },
        ),
        (original) => {
          const once = withBlock(original, body);
          expect(withBlock(once, body)).toBe(once);
          expect(once.split(BEGIN)).toHaveLength(2);
          expect(withoutBlock(once).text).toBe(original);
        },
      ),
    );
  });

  it("replaces an edited block in place, keeping the user's lines around it", () => {
    const original = "set -g mouse on\n";
    const edited = withBlock(original, body).replace("bind-key a", "bind-key z") + "set -g base-index 1\n";
    const rewritten = withBlock(edited, body);
    expect(rewritten).toContain("bind-key a run-shell");
    expect(rewritten).not.toContain("bind-key z");
    expect(rewritten.endsWith("set -g base-index 1\n")).toBe(true);
    expect(withoutBlock(rewritten).text).toBe("set -g mouse on\nset -g base-index 1\n");
  });

  it("binds the picker through run-shell and popup on tmux 3.2+, a window before that, and starts the keypress server", () => {
    expect(body.find((line) => line.startsWith("bind-key a"))).toContain('popup --client "#{client_tty}"');
    const old = blockBody({ node: "/n", cli: "/c", pickerKey: "a", nextKey: "N", status: false, server: false, tmuxVersion: [3, 1] });
    expect(old.find((line) => line.startsWith("bind-key a"))).toMatch(/new-window -n agents/);
    expect(old.some((line) => line.includes("status-right"))).toBe(false);
    // The keypress server: started in the background whenever tmux reads the block, unless --no-server.
    expect(body).toContain(`run-shell -b '/usr/bin/node /opt/tongs/bin/tongs-agents.js serve --detach >/dev/null 2>&1 || true'`);
    expect(old.some((line) => line.includes("serve"))).toBe(false);
    // With the server, next and the status segment go through the shell client; without it, the Node CLI.
    const key = `/bin/sh /opt/tongs/bin/tongs-agents-key.sh /usr/bin/node`;
    expect(body).toContain(`bind-key N run-shell -b '${key} next --client "#{client_tty}" >/dev/null 2>&1 || true'`);
    expect(body).toContain(`set -g @tongs_agents_status '#(${key} status --format tmux)'`);
    expect(old.find((line) => line.startsWith("bind-key N"))).toContain(`'/n /c next --client`);
    expect(parseTmuxVersion("tmux 3.3a")).toEqual([3, 3]);
    expect(parseTmuxVersion("tmux next-3.5")).toEqual([3, 5]);
  });
});

describe("the status segment", () => {
  it("goes first in status-right once, widening status-right-length on tmux 3.2+ (format arithmetic), only first before", () => {
    const guard = body.find((line) => line.startsWith("if-shell"));
    expect(guard).toBe(
      "if-shell -F '#{m:*tongs_agents_status*,#{status-right}}' '' \"set -gF status-right '##{E:@tongs_agents_status} #{status-right}' ; " +
        "set -gF status-right-length '#{?#{==:#{status-right-length},#{@tongs_agents_length}},#{status-right-length},#{e|+:#{status-right-length},20}}' ; " +
        "set -gF @tongs_agents_length '#{status-right-length}'\"",
    );
    const old = blockBody({ node: "/n", cli: "/c", pickerKey: "a", nextKey: "N", status: true, server: false, tmuxVersion: [3, 1] });
    expect(old.find((line) => line.startsWith("if-shell"))).toBe(
      "if-shell -F '#{m:*tongs_agents_status*,#{status-right}}' '' \"set -gF status-right '##{E:@tongs_agents_status} #{status-right}'\"",
    );
  });
});
