// `tongs-agents launch [--profile NAME] [--window|--here] -- <command...>`: start an agent with a fresh launch id (and
// its profile) in its environment, so its records say which launch started them. A new tmux window by default.
import { spawn } from "node:child_process";
import { newWindow } from "../../backends/tmux/window.ts";
import { randomBytes } from "node:crypto";
import { homedir } from "node:os";
import { EXIT_CODES } from "../core/errors.ts";
import { LAUNCH_ID_ENV, PROFILE_ENV } from "../core/launch.ts";
import { expandHome, loadProfile } from "./profiles.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const LAUNCH_HELP: VerbHelp = {
  usage: "launch [--profile NAME] [--window | --here] [--json] -- <command...>",
  summary:
    "Start an agent with a fresh TONGS_AGENTS_LAUNCH_ID (and TONGS_AGENTS_PROFILE) in its environment, in a new\ntmux window (default) or in this terminal. Profiles: $XDG_CONFIG_HOME/tongs-agents/profiles.json.",
  options: [
    ["--profile NAME", "take command, args, cwd and env from that profile"],
    ["--window", "in a new tmux window (the default; needs tmux)"],
    ["--here", "in this terminal, in the foreground"],
    ["--json", "print the launch id, profile, command and pane as JSON"],
    ["-- <command...>", "the agent's command line (or the profile's command)"],
  ],
  examples: ["tongs-agents launch -- claude", "tongs-agents launch --profile review --here"],
};

export const launchVerb: Verb = withHelp(LAUNCH_HELP, async (args, context, io) => {
  const parsed = parse(
    args,
    { profile: { type: "string" }, window: { type: "boolean" }, here: { type: "boolean" }, json: { type: "boolean" } },
    "any",
  );
  if ("ok" in parsed) return fail(parsed, io, false);
  const { values, positionals } = parsed;
  if (values.window && values.here)
    return fail({ ok: false, reason: "usage", detail: "--window and --here exclude each other" }, io, false);
  const home = context.env.HOME ?? homedir();
  const profileName = typeof values.profile === "string" ? values.profile : undefined;
  const profile = profileName === undefined ? undefined : loadProfile(profileName, context.env);
  if (profile && !profile.ok) return fail({ ok: false, reason: "config", detail: profile.detail }, io, false);
  const chosen = profile?.ok ? profile.profile : undefined;
  const [command, ...commandArgs] = positionals.length > 0 ? positionals : chosen ? [chosen.command, ...(chosen.args ?? [])] : [];
  if (command === undefined)
    return fail(
      { ok: false, reason: "usage", detail: "nothing to launch: give a command after --, or a --profile with a command" },
      io,
      false,
    );

  const launchId = randomBytes(16).toString("hex");
  const env: Record<string, string> = {
    ...(chosen?.env ?? {}),
    [LAUNCH_ID_ENV]: launchId,
    ...(profileName ? { [PROFILE_ENV]: profileName } : {}),
  };
  const cwd = chosen?.cwd ? expandHome(chosen.cwd, home) : context.cwd;
  const report = (where: Record<string, unknown>) => {
    const data = { launch_id: launchId, profile_id: profileName ?? "", command: [command, ...commandArgs], cwd, ...where };
    io.stdout(
      values.json
        ? JSON.stringify(data, null, 2)
        : `launched ${launchId}${profileName ? ` (profile ${profileName})` : ""} ${where.pane ? `in tmux pane ${where.pane}` : "here"}`,
    );
  };

  if (values.here) {
    const child = spawn(command, commandArgs, { stdio: "inherit", cwd, env: { ...context.env, ...env } });
    const ignore = () => undefined; // Ctrl-C belongs to the agent in the foreground
    process.on("SIGINT", ignore);
    const code = await new Promise<number>((resolve) => {
      child.on("error", (error) => {
        io.stderr(`tongs-agents: cannot start ${command}: ${error.message}`);
        resolve(EXIT_CODES.error);
      });
      child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1)));
    });
    process.off("SIGINT", ignore);
    return code;
  }

  if (!context.env.TMUX)
    return fail({ ok: false, reason: "usage", detail: "not inside tmux: run launch from a tmux pane, or use --here" }, io, false);
  const created = newWindow({ argv: [command, ...commandArgs], cwd, vars: env, callerEnv: context.env });
  if (!created.ok) return fail({ ok: false, reason: "io", detail: created.detail }, io, values.json === true);
  report({ where: "tmux-window", pane: created.pane });
  return EXIT_CODES.ok;
});
