// `tongs-agents popup --client <tty>`: open the picker in a tmux popup on that client. Bound through run-shell (which
// expands #{client_tty}); the picker's command line is built here, so no quoting passes through tmux.conf twice.
import { openPopup } from "../../backends/tmux/popup.ts";
import { shellCommand } from "../core/shell-quote.ts";
import { EXIT_CODES } from "../core/errors.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";
import { cliPath } from "./tmux-setup.ts";
import { quoted } from "../core/terminal-text.ts";

const POPUP_HELP: VerbHelp = {
  usage: "popup --client <tty> [--width 80%] [--height 70%]",
  summary: "Open the picker in a tmux popup on that client (tmux 3.2 or newer). This is what the picker key that\ntmux-setup binds runs.",
  options: [
    ["--client <tty>", "the client to open it on (required; bind it with #{client_tty})"],
    ["--width <size>", "columns or a percentage (default 80%)"],
    ["--height <size>", "lines or a percentage (default 70%)"],
  ],
  examples: ["tmux run-shell -b 'tongs-agents popup --client \"#{client_tty}\"'"],
};

export const popupVerb: Verb = withHelp(POPUP_HELP, async (args, context, io) => {
  const parsed = parse(
    args,
    { client: { type: "string" }, width: { type: "string", default: "80%" }, height: { type: "string", default: "70%" } },
    0,
  );
  if ("ok" in parsed) return fail(parsed, io, false);
  const client = parsed.values.client;
  if (typeof client !== "string" || !client.startsWith("/dev/"))
    return fail(
      {
        ok: false,
        reason: "usage",
        detail: `--client takes the client's terminal, /dev/... (bind it with '#{client_tty}'), not ${client === undefined ? "nothing" : quoted(client)}`,
      },
      io,
      false,
    );
  const size = /^\d{1,3}%?$/;
  if (!size.test(String(parsed.values.width)) || !size.test(String(parsed.values.height)))
    return fail(
      {
        ok: false,
        reason: "usage",
        detail: `--width and --height take a number of cells or a percentage (80, 70%), not ${quoted(size.test(String(parsed.values.width)) ? parsed.values.height : parsed.values.width)}`,
      },
      io,
      false,
    );
  const picker = shellCommand([process.execPath, cliPath(), "pick", "--client", client]);
  const result = openPopup({
    client,
    width: String(parsed.values.width),
    height: String(parsed.values.height),
    command: picker,
    env: context.env,
  });
  if (!result.ok)
    io.stderr(
      `tongs-agents: tmux display-popup failed (${result.detail ?? `exit ${result.code}`}); tmux 3.2 or newer is needed for popups`,
    );
  return result.ok ? EXIT_CODES.ok : EXIT_CODES.error;
});
