// What one desktop notification costs the notifier, by the way it talks to D-Bus (docs/notifications.md, "The D-Bus
// client"): the hand-written client (src/notify/dbus-connection.ts), a maintained library (@homebridge/dbus-native, from
// the install BENCH_DBUS_LIBRARY names: `npm install @homebridge/dbus-native` in a directory of your own), and gdbus, the
// desktop's own command-line client. Each notification is what the notifier does: connect, GetServerInformation,
// GetCapabilities, Notify with a default action, CloseNotification; against dunst on a private session bus under Xvfb.
// Cold: a new Node process that loads the client and notifies once (what the detached notifier pays). Warm: the calls
// alone, the client already loaded. Contenders interleaved; medians and p90.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 20);
const library = process.env.BENCH_DBUS_LIBRARY; // a directory whose node_modules holds @homebridge/dbus-native
const SERVER = {
  destination: "org.freedesktop.Notifications",
  path: "/org/freedesktop/Notifications",
  interface: "org.freedesktop.Notifications",
};
const NOTIFY_BODY = ["bench", 0, "", "tongs-agents", "one notification", ["default", "Focus"]] as const;

const dir = mkdtempSync(join(tmpdir(), "tongs-bench-dbus-"));
const children: ChildProcess[] = [];
const started = (file: string, args: string[], env: NodeJS.ProcessEnv) => {
  const child = spawn(file, args, { env, stdio: "ignore" });
  children.push(child);
  return child;
};
const until = (check: () => boolean, what: string) => {
  for (let tries = 0; tries < 200; tries++) {
    if (check()) return;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  throw new Error(`timed out waiting for ${what}`);
};
const display = `:${90 + (process.pid % 9)}`;
const address = `unix:path=${join(dir, "bus")}`;
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, DISPLAY: display, DBUS_SESSION_BUS_ADDRESS: address };
writeFileSync(
  join(dir, "bus.conf"),
  `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>${address}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>\n`,
);
started("Xvfb", [display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"], env);
until(() => existsSync(`/tmp/.X11-unix/X${display.slice(1)}`), "Xvfb");
started("dbus-daemon", ["--nofork", `--config-file=${join(dir, "bus.conf")}`], env);
until(() => existsSync(join(dir, "bus")), "dbus-daemon");
started("dunst", [], env);
until(() => spawnSync("dunstctl", ["count"], { env }).status === 0, "dunst");

// The hand-written client as the notifier carries it: bundled (esbuild, as scripts/build.mjs bundles dist/notify.cjs).
await build({
  entryPoints: [join(root, "src/notify/dbus-connection.ts")],
  outfile: join(dir, "hand-client.mjs"),
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node22",
  logLevel: "warning",
});
/** One notification through the hand-written client. */
const handScript = `
const { connectBus, sessionBusAddresses } = await import(${JSON.stringify(join(dir, "hand-client.mjs"))});
const SERVER = ${JSON.stringify(SERVER)};
export async function notifyOnce() {
  const lookup = sessionBusAddresses(process.env);
  const connected = await connectBus(lookup.addresses, 1500);
  const c = connected.connection;
  await c.call({ ...SERVER, member: "GetServerInformation" }, 2000);
  await c.call({ ...SERVER, member: "GetCapabilities" }, 2000);
  const sent = await c.call({ ...SERVER, member: "Notify", signature: "susssasa{sv}i", body: [...${JSON.stringify(NOTIFY_BODY)}, [["urgency", { signature: "y", value: 1 }]], 5000] }, 2000);
  await c.call({ ...SERVER, member: "CloseNotification", signature: "u", body: [sent.body[0]] }, 2000);
  c.close();
}`;
/** One notification through the library. */
const libraryScript = (dir: string) => `
const { createRequire } = await import("node:module");
const dbus = createRequire(${JSON.stringify(join(dir, "package.json"))})("@homebridge/dbus-native");
const SERVER = ${JSON.stringify(SERVER)};
export async function notifyOnce() {
  const bus = dbus.sessionBus({ busAddress: process.env.DBUS_SESSION_BUS_ADDRESS });
  const call = (member, signature, body) => new Promise((resolve, reject) => bus.invoke({ ...SERVER, member, signature, body }, (error, ...result) => (error ? reject(error) : resolve(result))));
  await call("GetServerInformation");
  await call("GetCapabilities");
  const [id] = await call("Notify", "susssasa{sv}i", [...${JSON.stringify(NOTIFY_BODY)}, [["urgency", ["y", 1]]], 5000]);
  await call("CloseNotification", "u", [id]);
  bus.connection.end();
}`;
/** One notification through gdbus: a process per call. */
const gdbusScript = `
const { spawnSync } = await import("node:child_process");
const base = ["call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications", "--method"];
const gdbus = (...args) => { const r = spawnSync("gdbus", [...base, ...args], { encoding: "utf8" }); if (r.status !== 0) throw new Error(r.stderr); return r.stdout; };
export async function notifyOnce() {
  gdbus("org.freedesktop.Notifications.GetServerInformation");
  gdbus("org.freedesktop.Notifications.GetCapabilities");
  const out = gdbus("org.freedesktop.Notifications.Notify", "bench", "0", "", "tongs-agents", "one notification", "['default', 'Focus']", "{'urgency': <byte 1>}", "5000");
  gdbus("org.freedesktop.Notifications.CloseNotification", /uint32 (\\d+)/.exec(out)[1]);
}`;

const contenders: [string, string][] = [
  ["hand-written (src/notify/dbus-connection.ts)", handScript],
  ...(library ? ([["@homebridge/dbus-native 0.7.9", libraryScript(library)]] as [string, string][]) : []),
  ...(spawnSync("gdbus", ["help"]).status === 0 ? ([["gdbus (a process per call)", gdbusScript]] as [string, string][]) : []),
];
const files = contenders.map(([, script], index) => {
  const file = join(dir, `contender-${index}.mjs`);
  writeFileSync(file, `${script}\nif (process.argv[2] === "once") await notifyOnce();\n`);
  return file;
});
// The warm runs are in this process: it is on the private bus too.
process.env.DBUS_SESSION_BUS_ADDRESS = address;
const modules = await Promise.all(files.map((file) => import(file) as Promise<{ notifyOnce: () => Promise<void> }>));

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
const p90 = (list: number[]) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * 0.9))] as number;
const cold = contenders.map(() => [] as number[]);
const warm = contenders.map(() => [] as number[]);
for (const module of modules) await module.notifyOnce(); // each loaded and connected once before timing
for (let run = 0; run < runs; run++) {
  const order = contenders.map((_, index) => index);
  if (run % 2 === 1) order.reverse();
  for (const index of order) {
    let at = performance.now();
    await (modules[index] as { notifyOnce: () => Promise<void> }).notifyOnce();
    warm[index]?.push(performance.now() - at);
    at = performance.now();
    const result = spawnSync(process.execPath, [files[index] as string, "once"], { env, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${contenders[index]?.[0]}: ${result.stderr}`);
    cold[index]?.push(performance.now() - at);
  }
}
for (const child of children.reverse()) child.kill();
rmSync(dir, { recursive: true, force: true });

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
console.log(`Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}; ${runs} runs each, interleaved.\n`);
console.log("| client | cold (new Node process): median | p90 | warm (calls only): median | p90 |");
console.log("|---|---|---|---|---|");
contenders.forEach(([name], index) =>
  console.log(
    `| ${name} | ${fmt(median(cold[index] ?? []))} | ${fmt(p90(cold[index] ?? []))} | ${fmt(median(warm[index] ?? []))} | ${fmt(p90(warm[index] ?? []))} |`,
  ),
);
