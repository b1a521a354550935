// `tongs-agents serve`: the keypress server (src/server/server.ts, docs/server.md): run it, start it in the
// background, stop it, or ask after it.
import { spawn } from "node:child_process";
import { closeSync, openSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { EXIT_CODES } from "../core/errors.ts";
import { BUILD } from "../core/version.ts";
import { findPackageRoot } from "../install/context.ts";
import { ensurePrivateDir, sessionsDirOf } from "../store/paths.ts";
import { watchSessions } from "../store/sessions-watch.ts";
import { serverDirOf, socketPathOf, type ServerStatus } from "../server/protocol.ts";
import { probe, stopServer, until } from "../server/control.ts";
import { startServer } from "../server/server.ts";
import { shellRunner } from "../core/shell-runner.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type VerbIo, type Verb } from "./io.ts";
import { defaultContext, type CliContext } from "./context.ts";
import { appendDebugLog } from "../hook/debug-log.ts";
import { changeReaders } from "../hosts/changes.ts";
import { loadConfig } from "../notify/config.ts";
import { deliverBatch, desktopChannelFor } from "../notify/deliver.ts";
import { startHostWatch, type HostWatchWorld } from "../notify/hosts-watch.ts";
import { webhookChannel } from "../notify/webhook.ts";
import { realWorld } from "../notify/world.ts";
import { NOTIFY_LOG } from "../store/notify-ledger.ts";

const SERVE_HELP: VerbHelp = {
  usage: "serve [--detach | --stop | --status] [--json]",
  summary:
    "The keypress server: it keeps the CLI loaded so that list, status, next, focus, show, explain and pick answer\nwithout starting Node's whole CLI each time (the tmux block starts it). One per state dir, on a private socket;\nevery verb reads the records as it would without it. With no option it runs in the foreground until stopped.",
  options: [
    ["--detach", "start it in the background unless one of this build is running (a server of another build is stopped)"],
    ["--stop", "stop the running server"],
    ["--status", "say whether one is running: its pid, build, uptime, commands served and memory"],
    ["--json", "print the status as JSON"],
  ],
  examples: ["tongs-agents serve --detach", "tongs-agents serve --status"],
};

/** The real path of this install's bin/tongs-agents.js: the server's identity besides its build. */
function installPath(): string {
  return realpathSync(join(findPackageRoot(), "bin", "tongs-agents.js"));
}

/** How long --detach waits for the server it started to answer. */
const START_WAIT_MS = 5000;

function describe(status: ServerStatus): string {
  const uptime = Math.round((Date.now() - Date.parse(status.started_at)) / 1000);
  return `pid ${status.pid}, build ${status.build}, up ${uptime} s, ${status.served} command(s) served (${status.served_shell ?? 0} to the shell client), ${status.terminals} picker(s) open, ${Math.round(status.rss_bytes / 2 ** 20)} MiB resident`;
}

/** `serve --detach`: a detached `serve` whose output goes to the server dir's log, then wait until it answers. */
async function detach(stateDir: string, io: VerbIo): Promise<number> {
  const socketPath = socketPathOf(stateDir);
  const running = await probe(socketPath);
  if (running?.build === BUILD) {
    io.stdout(`tongs-agents: a server is running (${describe(running)})`);
    return EXIT_CODES.ok;
  }
  if (running) await stopServer(socketPath);
  for (const dir of [stateDir, serverDirOf(stateDir)]) {
    const check = ensurePrivateDir(dir);
    if (!check.ok) return fail({ ok: false, reason: "state-dir", detail: check.detail }, io, false);
  }
  const log = join(serverDirOf(stateDir), "log");
  const cli = installPath();
  let fd: number;
  try {
    fd = openSync(log, "w", 0o600);
  } catch (error) {
    return fail({ ok: false, reason: "state-dir", detail: `cannot write ${log}: ${(error as Error).message}` }, io, false);
  }
  // From `/`: the server outlives the directory it was started from, which may be deleted (a worktree).
  const child = spawn(process.execPath, [cli, "serve"], { detached: true, stdio: ["ignore", fd, fd], cwd: "/" });
  closeSync(fd);
  child.unref();
  const started = await until(() => probe(socketPath, 500), START_WAIT_MS);
  if (!started)
    return fail({ ok: false, reason: "state-dir", detail: `the server did not answer within ${START_WAIT_MS} ms; see ${log}` }, io, false);
  io.stdout(`tongs-agents: server started (${describe(started)})`);
  return EXIT_CODES.ok;
}

export const serveVerb: Verb = withHelp(SERVE_HELP, async (args, context, io) => {
  const parsed = parse(
    args,
    { detach: { type: "boolean" }, stop: { type: "boolean" }, status: { type: "boolean" }, json: { type: "boolean" } },
    0,
  );
  if ("ok" in parsed) return fail(parsed, io, false);
  const modes = (["detach", "stop", "status"] as const).filter((mode) => parsed.values[mode] === true);
  if (modes.length > 1)
    return fail(
      {
        ok: false,
        reason: "usage",
        detail: `give one of --detach, --stop, --status, not ${modes.map((mode) => `--${mode}`).join(" and ")}`,
      },
      io,
      false,
    );
  const socketPath = socketPathOf(context.stateDir);
  switch (modes[0]) {
    case "status": {
      const status = await probe(socketPath);
      if (parsed.values.json === true) io.stdout(JSON.stringify(status ? { running: true, ...status } : { running: false }));
      else io.stdout(status ? `tongs-agents: a server is running (${describe(status)})` : "tongs-agents: no server is running");
      return status ? EXIT_CODES.ok : EXIT_CODES["not-found"];
    }
    case "stop": {
      const stopped = await stopServer(socketPath);
      io.stdout(stopped ? `tongs-agents: stopped the server (pid ${stopped.pid})` : "tongs-agents: no server is running");
      return EXIT_CODES.ok;
    }
    case "detach":
      return detach(context.stateDir, io);
  }
  const { dispatch } = context;
  if (!dispatch) throw new Error("serve runs verbs through the dispatcher that runs it (src/cli/run.ts)");
  const log = (line: string) => io.stderr(`${new Date().toISOString()} ${line}`);
  // The programs verbs start (a focus's tmux) come from a resident shell: Node forking this process costs more.
  const shells = shellRunner(join(serverDirOf(context.stateDir), "run"));
  // Listings here take unchanged records on the word of a watch on the sessions dir (no lstat each).
  const watch = watchSessions(sessionsDirOf(context.stateDir));
  const outcome = await startServer({
    stateDir: context.stateDir,
    build: BUILD,
    install: installPath(),
    log,
    // Each verb runs in its caller's world, handed to it: the caller's environment and directory are its context, and
    // every program it starts gets them unless it asks for others.
    run: (argv, { env, cwd }, verbIo) =>
      dispatch(
        argv,
        { ...defaultContext(env, cwd), run: (file, args, options) => shells.run(file, args, { env, cwd, ...options }), watch },
        { ...verbIo, ...(env.HOME ? { home: env.HOME } : {}) },
      ),
  });
  if (outcome.kind !== "serving") {
    shells.close();
    watch.close();
  }
  if (outcome.kind === "refused") return fail({ ok: false, reason: "state-dir", detail: outcome.detail }, io, false);
  if (outcome.kind === "running") {
    io.stdout(`tongs-agents: a server is running (${describe(outcome.status)})`);
    return EXIT_CODES.ok;
  }
  // Agents on SSH hosts notify here too: the server asks each configured host for its changes (docs/notifications.md),
  // unless notifications are off in its environment, as they are for an agent's (the test suites set it).
  const hostWatch = context.env.TONGS_AGENTS_NOTIFY === "off" ? undefined : startHostWatch(hostWatchWorld(context, dispatch));
  const onSignal = (signal: NodeJS.Signals) => outcome.stop(`${signal}`);
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  process.once("SIGHUP", onSignal);
  // A verb's stray rejection is logged; an uncaught exception ends the server (clients then run verbs themselves).
  process.on("unhandledRejection", (reason) => log(`unhandled rejection: ${String(reason)}`));
  process.on("uncaughtException", (error) => {
    log(`uncaught exception: ${error.stack ?? error.message}`);
    outcome.stop("an uncaught exception");
    process.exit(1);
  });
  const stopped = await outcome.stopped;
  hostWatch?.stop();
  shells.close();
  watch.close();
  log(`stopped: ${stopped.why}`);
  // A verb that never finished still holds the process: end it.
  if (stopped.abandoned) process.exit(1);
  return EXIT_CODES.ok;
});

/**
 * The host watch in the server's own world: its environment (ssh's agent and config, the notification settings), the
 * channels that need no pane on this machine (the desktop notification and the webhooks: a host's pane is there), and
 * a click that does what `focus HOST:ID` does.
 */
function hostWatchWorld(context: CliContext, dispatch: NonNullable<CliContext["dispatch"]>): HostWatchWorld {
  const { stateDir, env } = context;
  const channels = [desktopChannelFor(process.platform), webhookChannel];
  return {
    stateDir,
    hosts: () => changeReaders(context),
    config: () => loadConfig(env).config,
    deliver: (sessions, config) => deliverBatch(sessions, config, realWorld(stateDir, { env }), channels),
    focus: async (query) => {
      const said: string[] = [];
      const io = { stdout: (text: string) => said.push(text), stderr: (text: string) => said.push(text), color: false, columns: 200 };
      const code = await dispatch(["focus", "--", query], defaultContext(env, "/"), io);
      return `exit ${code}: ${said.join(" ").slice(0, 300)}`;
    },
    log: (entry) => appendDebugLog(stateDir, { mode: "hosts", ...entry }, NOTIFY_LOG),
  };
}
