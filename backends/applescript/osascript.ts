// Running AppleScript through `osascript` (macOS). Every script takes its ids as `on run argv` arguments, never pasted
// into the script text, and its first line names it (`-- tongs-agents <name>`), which keeps logs readable.
// Failures become results a user can act on: a denied Automation permission (-1743) names the System Settings pane.
import type { FocusContext } from "../contract.ts";

export type AppleScriptResult =
  | { readonly ok: true; readonly stdout: string }
  | { readonly ok: false; readonly reason: "no-osascript" | "denied" | "error"; readonly detail: string };

/** What the user must do when macOS refuses to let tongs-agents script `app` (error -1743). */
export function automationHint(app: string): string {
  return `macOS denied permission to control ${app} (error -1743): allow it in System Settings > Privacy & Security > Automation, under the app that runs tongs-agents (your terminal), then try again`;
}

/** Run `script` with `args` as its argv: `osascript -e <script> <arg>...`. Ids are validated by the callers. */
export async function runAppleScript(
  context: Pick<FocusContext, "run">,
  app: string,
  script: string,
  args: readonly string[],
): Promise<AppleScriptResult> {
  const result = await context.run("osascript", ["-e", script, ...args]);
  if (result.ok) return { ok: true, stdout: result.stdout.trim() };
  if (result.failure === "not-found")
    return { ok: false, reason: "no-osascript", detail: "osascript is not available: AppleScript focus works only on macOS" };
  const message = result.stderr.trim() || result.failure || `exit ${result.code}`;
  if (/\(-1743\)/.test(message)) return { ok: false, reason: "denied", detail: automationHint(app) };
  return { ok: false, reason: "error", detail: `osascript failed: ${message}` };
}

/** Bring a process to the front by PID (System Events), for apps without a scripting dictionary (WezTerm). */
export const RAISE_PROCESS = `-- tongs-agents raise-process
on run argv
	set targetPid to (item 1 of argv) as integer
	tell application "System Events"
		set frontmost of (first process whose unix id is targetPid) to true
	end tell
	return "ok"
end run`;

/** The PID of the frontmost process, read in a separate call so the answer reflects the finished activation. */
export const FRONTMOST_PROCESS = `-- tongs-agents frontmost-process
on run argv
	tell application "System Events"
		return (unix id of first process whose frontmost is true) as text
	end tell
end run`;
