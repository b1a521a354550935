// The optional status-line wrapper in Claude Code's settings.json (`install --claude-statusline`; docs/limits.md):
// Claude Code states the context window's size and, for subscribers, its quota windows only to a status-line command.
// The wrapper runs in place of the user's command and hands that command the same input, so the status line shows as
// before; the user's command is kept word for word in the wrapper's own command line (`--then '<command>'`), and
// uninstall writes it back byte for byte. A status line that could not be written back exactly (a command spelt with
// JSON escapes JSON.stringify would not reproduce) is left alone, and the plan says why.
import { basename, isAbsolute, join } from "node:path";
import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { shellCommand } from "../../core/shell-quote.ts";
import { isRecord } from "../../core/json-value.ts";
import { removeJsonValue, setJsonValue, type JsonStyle } from "../../install/json-text.ts";
import { note, type Finding } from "../../install/plan.ts";
import { splitShellWords } from "../../install/shell-words.ts";

export const STATUSLINE_OPTION = "claude-statusline";
const WRAPPER = "statusline.cjs";

interface Wrapper {
  readonly node: string;
  readonly script: string;
  /** The user's own command, when there was one. */
  readonly then?: string;
}

/** The parts of our wrapper's command line, or undefined when it is not exactly ours. */
export function parseWrapper(command: string): Wrapper | undefined {
  const words = splitShellWords(command);
  if (!words || (words.length !== 2 && words.length !== 4)) return undefined;
  const [node, script, flag, then] = words as [string, string, string?, string?];
  if (!isAbsolute(node) || !isAbsolute(script) || basename(script) !== WRAPPER) return undefined;
  if (words.length === 2) return { node, script };
  return flag === "--then" && then !== undefined && then !== "" ? { node, script, then } : undefined;
}

export function wrapperCommand(node: string, packageRoot: string, then: string | undefined): string {
  return shellCommand([node, join(packageRoot, "dist", WRAPPER), ...(then === undefined ? [] : ["--then", then])]);
}

/** The command's JSON text in the file, exactly as written (to tell whether setting it again writes the same bytes). */
function rawCommand(text: string): string | undefined {
  const node = findNodeAtLocation(parseTree(text) ?? { type: "null", offset: 0, length: 0 }, ["statusLine", "command"]);
  return node?.type === "string" ? text.slice(node.offset, node.offset + node.length) : undefined;
}

export interface StatuslineEdit {
  readonly text: string;
  readonly why: readonly string[];
}

/**
 * Wrap (install with the option; a wrapper already there is kept, its paths brought up to date) or unwrap (uninstall)
 * the status line in `text` (settings.json, parsed as `data`).
 */
export function editStatusline(
  text: string,
  data: Record<string, unknown>,
  style: JsonStyle,
  { mode, wanted, node, packageRoot }: { mode: "install" | "uninstall"; wanted: boolean; node: string; packageRoot: string },
  findings: Finding[],
): StatuslineEdit {
  const line = data.statusLine;
  const command = isRecord(line) && line.type === "command" && typeof line.command === "string" ? line.command : undefined;
  const ours = command === undefined ? undefined : parseWrapper(command);
  if (mode === "uninstall") {
    if (!ours) return { text, why: [] };
    return ours.then === undefined
      ? { text: removeJsonValue(text, ["statusLine"]), why: ["remove the status-line wrapper"] }
      : { text: setJsonValue(text, ["statusLine", "command"], ours.then, style), why: ["restore your status line command"] };
  }
  if (ours) {
    const current = wrapperCommand(node, packageRoot, ours.then);
    return current === command
      ? { text, why: [] }
      : { text: setJsonValue(text, ["statusLine", "command"], current, style), why: ["update the status-line wrapper (new paths)"] };
  }
  if (!wanted) return { text, why: [] };
  if (line === undefined)
    return {
      text: setJsonValue(text, ["statusLine"], { type: "command", command: wrapperCommand(node, packageRoot, undefined) }, style),
      why: ["add the status-line wrapper: it reads what Claude Code states there (context window, quota) and shows nothing"],
    };
  if (command === undefined) {
    findings.push(
      note(`statusLine is not a command; left as it is, so the quota and context window Claude Code states there are not read`),
    );
    return { text, why: [] };
  }
  if (rawCommand(text) !== JSON.stringify(command)) {
    findings.push(note(`statusLine.command is spelt with JSON escapes that could not be written back byte for byte; left as it is`));
    return { text, why: [] };
  }
  return {
    text: setJsonValue(text, ["statusLine", "command"], wrapperCommand(node, packageRoot, command), style),
    why: [
      "wrap your status line command: it gets the same input and shows the same; uninstall restores it byte for byte. The wrapper reads the context window and quota Claude Code states there",
    ],
  };
}
