// `tongs-agents tmux-setup [--write | --remove]`: print, write or remove the tmux block (backends/tmux/setup.ts).
import { homedir } from "node:os";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EXIT_CODES } from "../core/errors.ts";
import { blockBody, installedTmuxVersion, popupsSupported, tmuxConfPath, withBlock, withoutBlock } from "../../backends/tmux/setup.ts";
import { deleteConfigFile, writeConfigFile } from "../install/file-edit.ts";
import { socketPathOf } from "../server/protocol.ts";
import { stopServer } from "../server/control.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";
import { quoted } from "../core/terminal-text.ts";

/** bin/tongs-agents.js of this installation: the nearest one above this module (bundled chunks sit in dist/cli/chunks). */
export function cliPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const candidate = join(dir, "bin", "tongs-agents.js");
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return realpathSync(process.argv[1] ?? "tongs-agents");
}

const TMUX_SETUP_HELP: VerbHelp = {
  usage: "tmux-setup [--write | --remove] [--picker-key a] [--next-key N] [--no-status | --status-left] [--no-server] [--file <path>]",
  summary:
    "Print, write or remove a marked block in tmux.conf: prefix+a opens the picker in a popup, prefix+N jumps to\nthe next agent that needs you, a status segment is put first in status-right, and the keypress server is\nstarted. Writing twice changes nothing; removing gives the file back byte for byte (and stops the server).",
  options: [
    ["--write", "write the block into ~/.tmux.conf (or $XDG_CONFIG_HOME/tmux/tmux.conf when that one exists)"],
    ["--remove", "remove the block"],
    ["--picker-key <key>", "the key after the prefix that opens the picker (default a)"],
    ["--next-key <key>", "the key after the prefix that runs next (default N)"],
    ["--no-status", "leave status-right alone"],
    ["--status-left", "put the segment at the end of status-left instead"],
    ["--no-server", "no keypress server: every key starts its own process (`tongs-agents serve --help`)"],
    ["--file <path>", "another tmux.conf"],
  ],
  examples: ["tongs-agents tmux-setup --write && tmux source-file ~/.tmux.conf"],
};

export const tmuxSetupVerb: Verb = withHelp(TMUX_SETUP_HELP, async (args, context, io) => {
  const parsed = parse(
    args,
    {
      write: { type: "boolean" },
      remove: { type: "boolean" },
      "picker-key": { type: "string", default: "a" },
      "next-key": { type: "string", default: "N" },
      "no-status": { type: "boolean" },
      "status-left": { type: "boolean" },
      "no-server": { type: "boolean" },
      file: { type: "string" },
    },
    0,
  );
  if ("ok" in parsed) return fail(parsed, io, false);
  const { values } = parsed;
  if (values.write && values.remove)
    return fail({ ok: false, reason: "usage", detail: "--write and --remove exclude each other" }, io, false);
  if (values["no-status"] && values["status-left"])
    return fail({ ok: false, reason: "usage", detail: "--no-status and --status-left exclude each other" }, io, false);
  const keyPattern = /^(?:[CM]-)*[A-Za-z0-9]$|^F\d{1,2}$/;
  for (const key of [values["picker-key"], values["next-key"]]) {
    if (typeof key !== "string" || !keyPattern.test(key))
      return fail(
        { ok: false, reason: "usage", detail: `not a key tongs-agents binds: ${quoted(key)} (use e.g. a, N, C-a, M-p, F5)` },
        io,
        false,
      );
  }
  const path = typeof values.file === "string" ? values.file : tmuxConfPath(context.env, context.env.HOME ?? homedir());
  const version = installedTmuxVersion(context.env);
  const body = blockBody({
    node: process.execPath,
    cli: cliPath(),
    pickerKey: values["picker-key"] as string,
    nextKey: values["next-key"] as string,
    status: values["no-status"] === true ? false : values["status-left"] === true ? "left" : true,
    server: values["no-server"] !== true,
    tmuxVersion: version,
  });
  const notes = [
    version === undefined
      ? "tmux was not found; the block is written for tmux 3.2 or newer."
      : popupsSupported(version)
        ? ""
        : `tmux ${version.join(".")} has no popups (3.2+): the picker key opens a window instead.`,
  ].filter(Boolean);

  if (values.remove) {
    const original = readIfExists(path);
    const removed = original === undefined ? { text: undefined, found: false } : withoutBlock(original);
    if (!removed.found) {
      io.stdout(`No tongs-agents block in ${path}.`);
      return EXIT_CODES.ok;
    }
    const written = await writeConf(path, original, removed.text);
    if (!written.ok) return fail({ ok: false, reason: "io", detail: written.detail }, io, false);
    // The block started the keypress server; without the block nothing would start it again, so it goes too.
    const stopped = await stopServer(socketPathOf(context.stateDir));
    io.stdout(
      [`Removed the tongs-agents block from ${path}. Reload tmux: tmux source-file ${path}`]
        .concat(stopped ? [`Stopped the keypress server (pid ${stopped.pid}).`] : [])
        .join("\n"),
    );
    return EXIT_CODES.ok;
  }
  if (!values.write) {
    io.stdout(
      ["# Add to your tmux.conf (or run `tongs-agents tmux-setup --write`):", ...body, ...notes.map((note) => `# ${note}`)].join("\n"),
    );
    return EXIT_CODES.ok;
  }
  const original = readIfExists(path);
  const next = withBlock(original, body);
  if (next === original) {
    io.stdout(`${path} already has the current tongs-agents block.`);
    return EXIT_CODES.ok;
  }
  const written = await writeConf(path, original, next);
  if (!written.ok) return fail({ ok: false, reason: "io", detail: written.detail }, io, false);
  io.stdout([`Wrote the tongs-agents block to ${path}. Reload tmux: tmux source-file ${path}`, ...notes].join("\n"));
  return EXIT_CODES.ok;
});

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

/**
 * Write or delete the config file through the installer's safe writer: through a symlink (dotfile managers link
 * tmux.conf), only when the file still holds `before`, atomically, keeping its owner and mode.
 */
export async function writeConf(
  path: string,
  before: string | undefined,
  after: string | undefined,
): Promise<{ ok: true } | { ok: false; detail: string }> {
  if (after === undefined) return before === undefined ? { ok: true } : deleteConfigFile(path, before);
  return writeConfigFile(path, before ?? null, after);
}
