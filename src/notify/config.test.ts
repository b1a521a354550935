import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeSandbox } from "../../test/sandbox.ts";
import { configFilePath } from "../core/config-file.ts";
import { CHANNEL_IDS, DEFAULT_CONFIG, loadConfig } from "./config.ts";

function withConfig(text: string | undefined) {
  const sandbox = makeSandbox();
  if (text !== undefined) {
    mkdirSync(join(sandbox.env.XDG_CONFIG_HOME as string, "tongs-agents"), { recursive: true });
    writeFileSync(configFilePath(sandbox.env), text);
  }
  const loaded = loadConfig(sandbox.env);
  sandbox.cleanup();
  return loaded;
}

describe("notification config", () => {
  it("lives in $XDG_CONFIG_HOME/tongs-agents/config.json; without it, waiting and error notify everywhere, idle nowhere", () => {
    expect(configFilePath({ XDG_CONFIG_HOME: "/cfg", HOME: "/home/u" })).toBe("/cfg/tongs-agents/config.json");
    expect(configFilePath({ HOME: "/home/u" })).toBe("/home/u/.config/tongs-agents/config.json");
    expect(withConfig(undefined)).toMatchObject({
      source: "defaults",
      config: { quiet: false, states: { waiting: CHANNEL_IDS, error: CHANNEL_IDS, idle: [] }, clickWaitMs: 600_000 },
    });
  });

  it("per state (true, false or a list of channels), per channel, quiet, and the click wait", () => {
    const loaded = withConfig(
      JSON.stringify({
        notifications: {
          quiet: true,
          states: { idle: ["tmux", "desktop"], error: false },
          channels: { bell: false, desktop: false },
          click_wait_seconds: 30,
        },
      }),
    );
    expect(loaded).toMatchObject({
      source: "file",
      config: { quiet: true, states: { waiting: ["terminal", "tmux", "webhook"], error: [], idle: ["tmux"] }, clickWaitMs: 30_000 },
    });
    expect(loaded.problem).toBeUndefined();
  });

  it.each([
    ["not JSON", "{", "is not JSON"],
    ["a typo in a key", JSON.stringify({ notifications: { quite: true } }), "notifications"],
    ["an unknown channel", JSON.stringify({ notifications: { states: { waiting: ["email"] } } }), "notifications.states.waiting"],
    ["an unknown top-level key", JSON.stringify({ notification: {} }), ""],
    ["a negative wait", JSON.stringify({ notifications: { click_wait_seconds: -1 } }), "click_wait_seconds"],
  ])("%s: the defaults, and the problem named", (_what, text, where) => {
    const loaded = withConfig(text);
    expect(loaded.config).toEqual(DEFAULT_CONFIG);
    expect(loaded.source).toBe("defaults");
    expect(loaded.problem).toContain(where);
    expect(loaded.problem).toContain("using the defaults");
  });
});
