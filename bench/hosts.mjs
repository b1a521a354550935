// npm run bench, part 8: what SSH hosts cost `list --json` and `status` (docs/hosts.md). A private sshd on
// 127.0.0.1 (its own host key, config and authorized key in a temp dir) stands for the hosts; an `ssh` wrapper first on
// PATH adds `-F` with a temp client config, so the user's ~/.ssh is never read or written. The "remote" tongs-agents
// is this checkout's, with its own empty state and config. Cases: no hosts; one host (shared connection warm); three
// hosts, one of them unreachable (192.0.2.1, TEST-NET: no route, or silence until ConnectTimeout). Runs interleaved.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(root, "bin", "tongs-agents.js");
const runs = Number(process.env.BENCH_RUNS ?? 15);
const SSHD = "/usr/sbin/sshd";
if (spawnSync(SSHD, ["-V"]).error) {
  console.log("hosts: skipped (no /usr/sbin/sshd: apt-get install openssh-server)");
  process.exit(0);
}
// sshd refuses to start without its privilege separation directory (created by the package's service, not by apt here).
try {
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
} catch {
  // not root: sshd will say why it cannot start, and every host reads as unreachable
}
const temp = mkdtempSync(join(tmpdir(), "tb-"));
const port = 20000 + (process.pid % 20000);
const user = execFileSync("id", ["-un"]).toString().trim();
execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(temp, "host_key")]);
execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(temp, "client_key")]);
execFileSync("cp", [join(temp, "client_key.pub"), join(temp, "authorized_keys")]);
writeFileSync(
  join(temp, "sshd_config"),
  [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${join(temp, "host_key")}`,
    `AuthorizedKeysFile ${join(temp, "authorized_keys")}`,
    `PidFile ${join(temp, "sshd.pid")}`,
    "StrictModes no",
    "UsePAM no",
    "PasswordAuthentication no",
    "UseDNS no",
    "LogLevel ERROR",
    "",
  ].join("\n"),
);
writeFileSync(
  join(temp, "ssh_config"),
  [
    "Host h1 h2",
    "  HostName 127.0.0.1",
    `  Port ${port}`,
    "Host h3",
    "  HostName 192.0.2.1",
    "Host *",
    `  User ${user}`,
    `  IdentityFile ${join(temp, "client_key")}`,
    `  UserKnownHostsFile ${join(temp, "known_hosts")}`,
    "  StrictHostKeyChecking accept-new",
  ].join("\n"),
);
const bin = join(temp, "bin");
mkdirSync(bin);
writeFileSync(join(bin, "ssh"), `#!/bin/sh\nexec /usr/bin/ssh -F ${join(temp, "ssh_config")} "$@"\n`);
const remoteHome = join(temp, "remote");
mkdirSync(remoteHome);
writeFileSync(
  join(bin, "tongs-agents-remote"),
  `#!/bin/sh\nHOME=${remoteHome} XDG_CONFIG_HOME=${remoteHome}/config TONGS_AGENTS_STATE_DIR=${remoteHome}/state exec ${process.execPath} ${CLI} "$@"\n`,
);
for (const file of ["ssh", "tongs-agents-remote"]) chmodSync(join(bin, file), 0o755);
const sshd = spawn(SSHD, ["-D", "-f", join(temp, "sshd_config")], { stdio: "ignore" });

function env(name) {
  const home = join(temp, name);
  return {
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_RUNTIME_DIR: "",
    TONGS_AGENTS_STATE_DIR: join(home, "state"),
    TONGS_AGENTS_DISCOVERY: "off",
  };
}
const worlds = { none: env("none"), one: env("one"), three: env("three") };
const add = (world, ...args) =>
  execFileSync(process.execPath, [CLI, "hosts", "add", ...args, "--command", join(bin, "tongs-agents-remote")], { env: worlds[world] });
try {
  await new Promise((resolve) => setTimeout(resolve, 500));
  add("one", "h1");
  for (const name of ["h1", "h2", "h3"]) add("three", name);
  // Warm: the first read opens the shared connection (and learns the host key).
  const first = spawnSync(process.execPath, [CLI, "list", "--json"], { env: worlds.three, encoding: "utf8" });
  const hosts = JSON.parse(first.stdout).hosts;
  console.log(`hosts: ${hosts.map((host) => `${host.host} ${host.state}${host.detail ? ` (${host.detail})` : ""}`).join("; ")}`);
  const cases = [];
  for (const world of Object.keys(worlds))
    for (const args of [
      ["list", "--json"],
      ["status", "--format", "tmux"],
    ])
      cases.push({ name: `${args[0]} ${world}`, world, args, times: [] });
  for (let run = 0; run < runs; run++)
    for (const item of cases) {
      const started = process.hrtime.bigint();
      const result = spawnSync(process.execPath, [CLI, ...item.args], { env: worlds[item.world], encoding: "utf8" });
      if (result.status !== 0) throw new Error(`${item.name}: exit ${result.status}: ${result.stderr}`);
      item.times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  const pick = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  console.log(`| command, hosts | median | p90 |  (${runs} runs)`);
  for (const item of cases) {
    const sorted = [...item.times].sort((a, b) => a - b);
    console.log(`| ${item.name} | ${pick(sorted, 0.5).toFixed(1)} ms | ${pick(sorted, 0.9).toFixed(1)} ms |`);
  }
} finally {
  sshd.kill("SIGTERM");
  // The shared connections' masters exit on their own after ControlPersist; end them now (the socket is named after the
  // host entry, src/hosts/ssh.ts controlPath).
  for (const world of ["one", "three"])
    for (const name of ["h1", "h2"])
      spawnSync(join(bin, "ssh"), ["-O", "exit", "-o", `ControlPath=${join(temp, world, "state", "ssh", name)}`, name], {
        stdio: "ignore",
      });
  if (!process.env.BENCH_KEEP) rmSync(temp, { recursive: true, force: true });
}
