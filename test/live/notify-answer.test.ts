// Live: Allow and Deny on a desktop notification answer the real Claude Code's permission dialog. Claude Code (pinned
// in harnesses.json, hooks from `install`) runs in a private tmux server against the synthetic provider; its hook
// starts the real notifier, which shows the notification through a private D-Bus session bus to dunst 1.9 under Xvfb.
// dunst invokes the chosen action through its own context menu (`dunstctl context`); the menu program it runs (its
// `dmenu` setting) is a script that prints the line of the wanted button: the one stand-in, for the user's pick.
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startProvider } from "../../e2e/provider/server.mjs";
import { shellQuote } from "../../src/core/shell-quote.ts";
import { runCliProcess, stopTmuxServer } from "../processes.ts";
import { startClaudeLab, sleep, until } from "./answer-lab.ts";
import { HARNESS_PACKAGES } from "./harnesses.ts";
import { closeNotifyLab, notifyLog, openNotifyLab, waitForLog, type NotifyLab, type NotifyLogEntry } from "./notify-lab.ts";

let lab: NotifyLab;
let provider: Awaited<ReturnType<typeof startProvider>>;
let socket: string;
let choice: string;
let menuInput: string;
beforeEach(async () => {
  lab = await openNotifyLab({ click_wait_seconds: 60 });
  provider = await startProvider({ port: 0, toolCommand: "touch approved" });
  socket = join(lab.sandbox.root, "tmux.sock");
  choice = join(lab.sandbox.root, "menu-choice");
  menuInput = join(lab.sandbox.root, "menu-input");
  const menu = join(lab.sandbox.root, "menu.sh");
  // dunst writes one line per action (`#Allow (<summary>) [<id>,<key>]`) to the menu's stdin and invokes the line it prints.
  writeFileSync(menu, `#!/bin/sh\ncat > ${shellQuote(menuInput)}\ngrep -m1 "^#$(cat ${shellQuote(choice)}) " ${shellQuote(menuInput)}\n`);
  chmodSync(menu, 0o755);
  await lab.desktop.stopDunst();
  await lab.desktop.startDunst({ menu });
});
afterEach(() =>
  closeNotifyLab(lab, async () => {
    await stopTmuxServer(socket);
    await provider.stop();
  }),
);

/** Pick `button` in dunst's context menu, and wait for the notifier's answer number `nth` (from 0). */
async function choose(button: "Allow" | "Deny", nth: number): Promise<ReplyEntry> {
  writeFileSync(choice, button);
  expect(lab.desktop.dunstctl("context").status).toBe(0);
  return until(
    `the notifier's answer ${nth + 1}`,
    () => replies()[nth],
    30_000,
    () => JSON.stringify(notifyLog(lab.sandbox.stateDir)),
  );
}

type ReplyEntry = NotifyLogEntry & { wait?: string; reply?: string; answer?: Record<string, unknown> };
const replies = () => notifyLog(lab.sandbox.stateDir).filter((entry) => entry.result === "reply") as ReplyEntry[];

describe(
  `Claude Code ${HARNESS_PACKAGES.claude.version}: Allow / Deny on a desktop notification (live, dunst 1.9, D-Bus, tmux)`,
  {
    timeout: 300_000,
  },
  () => {
    it("a waiting notification carries Allow and Deny for its wait; each answers that dialog through the answer guards", async () => {
      const { world, project, screen, type, session, asks, toldNotRun } = await startClaudeLab(lab.sandbox, socket, provider.url, {
        held: false,
      });
      const stateDir = lab.sandbox.stateDir;

      // 1. Allow.
      const first = await asks();
      const open = JSON.parse((await runCliProcess(["answer", first.short_id, "show", "--json"], world.env)).stdout) as {
        wait: { id: string };
      };
      const delivered = await waitForLog(
        stateDir,
        (entry) => entry.outcome === "delivered" && (entry.deliveries ?? []).some((delivery) => delivery.channel === "desktop"),
        "the waiting notification",
      );
      expect(delivered.deliveries?.[0]).toMatchObject({
        channel: "desktop",
        outcome: "delivered",
        detail: expect.stringMatching(/^dunst 1\.9\.0 .* showed notification \d+ with 3 action\(s\)$/),
      });
      await choose("Allow", 0);
      expect(readFileSync(menuInput, "utf8")).toMatch(
        new RegExp(`^#Allow \\(Claude Code needs you: project\\) \\[\\d+,allow:${open.wait.id}\\]$`, "m"),
      );
      expect(replies()[0]).toMatchObject({
        wait: open.wait.id,
        reply: "allow",
        answer: { sent: true, option: 1, keys: ["1"], closed: true },
      });
      await until("the approved command's file", () => (existsSync(join(project, "approved")) ? true : undefined), 30_000, screen);
      await until("the end of the turn", async () => ((await session())?.status === "idle" ? true : undefined), 60_000, screen);
      const explained = JSON.parse((await runCliProcess(["explain", first.short_id, "--json"], world.env)).stdout) as {
        entries: { source: string; change: string }[];
      };
      expect(explained.entries.filter((entry) => entry.source === "answer").map((entry) => entry.change)).toEqual([
        `a notification answered wait ${open.wait.id}: allow, option 1 (keys)`,
      ]);

      // 2. Deny, on the next request's notification: its own wait.
      rmSync(join(project, "approved"));
      await type("/clear");
      await until("a cleared conversation", () => (screen().includes("RUNTOOL now") ? undefined : true), 30_000, screen);
      const second = await asks();
      const reopened = JSON.parse((await runCliProcess(["answer", second.short_id, "show", "--json"], world.env)).stdout) as {
        wait: { id: string };
      };
      expect(reopened.wait.id).not.toBe(open.wait.id);
      // The Allow / Deny notifications so far: the first one's, then this one's (a finished turn notifies nothing here).
      const answerable = () =>
        notifyLog(stateDir).filter((entry) =>
          (entry.deliveries ?? []).some((delivery) => delivery.channel === "desktop" && delivery.detail.includes("with 3 action")),
        );
      await until(
        "the second waiting notification",
        () => answerable()[1],
        30_000,
        () => JSON.stringify(notifyLog(stateDir)),
      );
      await choose("Deny", 1);
      expect(readFileSync(menuInput, "utf8")).not.toContain(`allow:${open.wait.id}`);
      expect(replies()[1]).toMatchObject({
        wait: reopened.wait.id,
        reply: "deny",
        answer: { sent: true, option: 4, keys: ["4"], closed: true },
      });
      await toldNotRun();
      await sleep(1000);
      expect(existsSync(join(project, "approved"))).toBe(false);
    });
  },
);
