import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { configFilePath } from "../core/config-file.ts";
import { loadConfig } from "../notify/config.ts";
import { loadHosts } from "./config.ts";
import { addHost, removeHost } from "./edit.ts";

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.cleanup());

function env(text?: string): NodeJS.ProcessEnv {
  sandbox = makeSandbox();
  if (text !== undefined) {
    mkdirSync(dirname(configFilePath(sandbox.env)), { recursive: true });
    writeFileSync(configFilePath(sandbox.env), text);
  }
  return sandbox.env;
}

describe("hosts in the config file", () => {
  it("adds, lists in file order and removes hosts; the destination defaults to the name", () => {
    const e = env();
    expect(loadHosts(e)).toEqual({ hosts: [], path: configFilePath(e) });
    expect(addHost(e, "devbox", "me@devbox.example")).toEqual({ ok: true, path: configFilePath(e), changed: true });
    expect(addHost(e, "gpu")).toMatchObject({ ok: true, changed: true });
    expect(addHost(e, "gpu")).toMatchObject({ ok: true, changed: false });
    expect(addHost(e, "srv", "ssh://me@srv:2222", "/opt/bin/tongs-agents")).toMatchObject({ ok: true });
    expect(loadHosts(e).hosts).toEqual([
      { name: "devbox", destination: "me@devbox.example", command: "tongs-agents" },
      { name: "gpu", destination: "gpu", command: "tongs-agents" },
      { name: "srv", destination: "ssh://me@srv:2222", command: "/opt/bin/tongs-agents" },
    ]);
    expect(removeHost(e, "gpu")).toMatchObject({ ok: true, changed: true });
    expect(removeHost(e, "gpu")).toMatchObject({ ok: false, reason: "usage" });
    expect(loadHosts(e).hosts.map((host) => host.name)).toEqual(["devbox", "srv"]);
  });

  it("keeps the notification settings and the file's layout, and the notification reader still uses them", () => {
    const before = '{\n    "notifications": { "quiet": true }\n}\n';
    const e = env(before);
    addHost(e, "devbox");
    const text = readFileSync(configFilePath(e), "utf8");
    expect(text).toBe(
      '{\n    "notifications": { "quiet": true },\n    "hosts": {\n        "devbox": {\n            "destination": "devbox"\n        }\n    }\n}\n',
    );
    expect(loadConfig(e)).toMatchObject({ source: "file", config: { quiet: true } });
    removeHost(e, "devbox");
    expect(JSON.parse(readFileSync(configFilePath(e), "utf8"))).toEqual({ notifications: { quiet: true }, hosts: {} });
  });

  it.each([
    ["a destination that ssh would read as an option", "box", "-oProxyCommand=touch /tmp/x"],
    ["a destination with shell characters", "box", "box;rm -rf ~"],
    ["a destination with a space", "box", "me@box other"],
    ["a host name with capitals", "Box", "box"],
    ["a host name with a colon", "a:b", "box"],
  ])("refuses %s", (_what, name, destination) => {
    const e = env();
    expect(addHost(e, name, destination)).toMatchObject({ ok: false, reason: "usage" });
    expect(loadHosts(e).hosts).toEqual([]);
  });

  it("keeps a host's own read bound (timeout_s, 0.5-30 s) and refuses one outside it", () => {
    const e = env();
    expect(addHost(e, "far", "far", undefined, 7.5)).toMatchObject({ ok: true, changed: true });
    expect(JSON.parse(readFileSync(configFilePath(e), "utf8"))).toEqual({ hosts: { far: { destination: "far", timeout_s: 7.5 } } });
    expect(loadHosts(e).hosts).toEqual([{ name: "far", destination: "far", command: "tongs-agents", timeoutMs: 7500 }]);
    for (const seconds of [0.4, 30.5, Number.NaN, Number.POSITIVE_INFINITY, -1])
      expect(addHost(e, "far", "far", undefined, seconds)).toMatchObject({ ok: false, reason: "usage" });
    expect(loadHosts(e).hosts[0]?.timeoutMs).toBe(7500);
  });

  it.each([[0], [31], ["5"], [null]])("reports a timeout_s of %j in the file instead of using the host", (timeout) => {
    const loaded = loadHosts(env(JSON.stringify({ hosts: { box: { destination: "box", timeout_s: timeout } } })));
    expect(loaded.hosts).toEqual([]);
    expect(loaded.problem).toMatch(/hosts: /);
  });

  it("refuses a command with shell characters", () => {
    expect(addHost(env(), "box", "box", "tongs-agents; id")).toMatchObject({ ok: false, reason: "usage" });
  });

  it("reports a hosts entry that does not fit instead of using part of it", () => {
    const e = env(JSON.stringify({ hosts: { box: { destination: "-oProxyCommand=x" } } }));
    const loaded = loadHosts(e);
    expect(loaded.hosts).toEqual([]);
    expect(loaded.problem).toMatch(/hosts: .*not an ssh destination/);
  });

  it("does not edit a file that is not JSON", () => {
    const e = env("{ not json");
    expect(addHost(e, "box")).toMatchObject({ ok: false, reason: "config" });
    expect(readFileSync(configFilePath(e), "utf8")).toBe("{ not json");
  });
});
