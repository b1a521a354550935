// What the synthetic model answers, decided from the conversation alone so that every harness gets the same script:
// - the newest turn is a tool result: a short final text;
// - the newest user text contains FAILAPI: HTTP 400 (drives the harness's API-error path);
// - it contains LIMITHIT: HTTP 429 as the API answers past a usage or rate limit, with its limit headers (limits.mjs);
//   QUOTAHIT: the same, as OpenAI answers an API key out of credit (`insufficient_quota`);
// - it contains RUNTOOL: one call of the request's shell tool (`echo hi` by default);
// - it contains ASKPERM: the same call, asking to run outside the harness's sandbox where the tool's schema has a way
//   to ask (Codex `exec_command` `sandbox_permissions: "require_escalated"`), so the harness asks the user first;
// - it contains FAILTOOL: one call of the shell tool running FAILING_COMMAND, which exits 2 (a tool that fails for
//   real: Qwen Code reports a shell command's exit status >= 2 as the tool's failure);
// - it contains FAILREAD: one call of the harness's file viewer (Copilot CLI's `view`) on MISSING_PATH, a tool whose
//   own call fails (Copilot reports a shell command's non-zero exit as the tool's success);
// - it contains ASKUSER: one call of the harness's question tool (OpenCode's `question`, Copilot CLI's `ask_user`), so
//   the harness shows a question dialog and waits for the user's answer;
// - it contains SUBAGENT: one call of the harness's subagent tool (OpenCode's `task`, agent `general`), whose prompt is
//   SUBAGENT_PROMPT: the subagent's own conversation then runs the shell tool (RUNTOOL) before its final text;
// - otherwise: one text reply. SLOW anywhere in it delays the stream (see `slowMs`), so a test can watch "running".
// HOLD anywhere in it holds every answer of that conversation until the test releases it (`holds`, server.mjs), so a
// test can watch "running" for as long as it needs, without racing the reply.
// Each wire module (openai-chat.mjs, anthropic-messages.mjs, openai-responses.mjs) turns its request into the
// normalized conversation below and the decision back into its own stream format.

export const MARKERS = Object.freeze({
  tool: "RUNTOOL",
  permission: "ASKPERM",
  fail: "FAILAPI",
  slow: "SLOW",
  hold: "HOLD",
  question: "ASKUSER",
  subagent: "SUBAGENT",
  failingTool: "FAILTOOL",
  failingRead: "FAILREAD",
  limit: "LIMITHIT",
  quota: "QUOTAHIT",
});
export const DEFAULT_TEXT = "Hello from the synthetic provider.";
export const FINAL_TEXT = "The tool ran; all done.";
/** The question ASKUSER asks, and its two options (OpenCode 1.18.33's `question` tool schema: questions[] of question,
 * header, options[] of label and description). */
export const QUESTION = Object.freeze({
  question: "Which colour should the synthetic provider paint the shed?",
  header: "Shed colour",
  options: [
    { label: "Blue", description: "Paint it blue" },
    { label: "Green", description: "Paint it green" },
  ],
});
/**
 * The same question as Copilot CLI 1.0.102's interactive `ask_user` tool takes it: a message, and the answer's form as
 * a schema (`requestedSchema.properties`, a single-select string field with `enum`), from the tool's own definition in
 * its requests.
 */
export const ASK_USER_INPUT = Object.freeze({
  message: QUESTION.question,
  requestedSchema: {
    properties: { colour: { type: "string", title: QUESTION.header, enum: QUESTION.options.map((option) => option.label) } },
    required: ["colour"],
  },
});
/** The shell command FAILTOOL runs: `ls` of a path that does not exist exits 2. */
export const MISSING_PATH = "/synthetic-provider-missing-file";
export const FAILING_COMMAND = `ls ${MISSING_PATH}`;
/** What SUBAGENT asks the subagent to do: run the shell tool (its conversation has no SUBAGENT, so it cannot recurse). */
export const SUBAGENT_PROMPT = "Synthetic subagent task: RUNTOOL";

/**
 * Shell tools by harness, in preference order: Pi `bash`, Claude Code `Bash`, Codex `shell`/`exec_command`, Gemini CLI
 * and Qwen Code `run_shell_command`, Cline `run_commands`.
 */
const SHELL_TOOLS = ["bash", "Bash", "shell", "exec_command", "shell_command", "run_shell_command", "run_commands"];

/**
 * @typedef {{ kind: "user" | "tool_result" | "other", text: string }} Turn
 * @typedef {{ name: string, schema: any }} ToolSpec
 * @typedef {{ kind: "text", text: string, slow: boolean }
 *   | { kind: "tool", name: string, input: Record<string, unknown>, slow: boolean }
 *   | { kind: "error", status: number, message: string }
 *   | { kind: "limit", limit: "limit" | "quota" }} Decision
 */

/**
 * Arguments for a shell tool, shaped after its schema: an argv array (Codex `shell`), a list of command lines (Cline
 * `run_commands`), `cmd`, or `command`. With
 * `escalate`, ask to leave the sandbox where the schema offers it (Codex: `sandbox_permissions`, `justification`).
 */
export function shellArguments(tool, command, { escalate = false } = {}) {
  const properties = tool.schema?.properties ?? {};
  const ask =
    escalate && properties.sandbox_permissions?.enum?.includes("require_escalated")
      ? { sandbox_permissions: "require_escalated", justification: "The synthetic provider asks for permission (ASKPERM)." }
      : {};
  if (properties.command?.type === "array") return { command: ["bash", "-lc", command], ...ask };
  if (properties.commands?.type === "array") return { commands: [command], ...ask };
  if ("cmd" in properties && !("command" in properties)) return { cmd: command, ...ask };
  return { command, ...ask };
}

/**
 * A user message that is only the harness's own reminders (Kimi Code 2.1.0 sends `<system-reminder>` user messages
 * after the user's prompt and after tool results): not what the user typed, so never the turn to answer.
 * @param {Turn} turn
 */
const isReminder = (turn) => /^\s*(<system-reminder>[\s\S]*?<\/system-reminder>\s*)+$/.test(turn.text);

/**
 * @param {Turn[]} turns the conversation, oldest first, system and developer messages left out
 * @param {ToolSpec[]} tools
 * @param {{ toolCommand?: string }} [options]
 * @returns {Decision}
 */
export function decide(turns, tools, { toolCommand = "echo hi" } = {}) {
  const last = [...turns].reverse().find((turn) => (turn.kind === "user" && !isReminder(turn)) || turn.kind === "tool_result");
  const slow = turns.some((turn) => turn.kind === "user" && turn.text.includes(MARKERS.slow));
  if (last?.kind === "tool_result") return { kind: "text", text: FINAL_TEXT, slow };
  const text = last?.text ?? "";
  if (text.includes(MARKERS.fail)) return { kind: "error", status: 400, message: `synthetic failure requested by ${MARKERS.fail}` };
  if (text.includes(MARKERS.quota)) return { kind: "limit", limit: "quota" };
  if (text.includes(MARKERS.limit)) return { kind: "limit", limit: "limit" };
  if (text.includes(MARKERS.question) && tools.some((tool) => tool.name === "question"))
    return { kind: "tool", name: "question", input: { questions: [QUESTION] }, slow };
  if (text.includes(MARKERS.question) && tools.some((tool) => tool.name === "ask_user"))
    return { kind: "tool", name: "ask_user", input: ASK_USER_INPUT, slow };
  if (text.includes(MARKERS.subagent) && tools.some((tool) => tool.name === "task"))
    return {
      kind: "tool",
      name: "task",
      input: { description: "Synthetic subtask", prompt: SUBAGENT_PROMPT, subagent_type: "general" },
      slow,
    };
  if (text.includes(MARKERS.failingRead) && tools.some((tool) => tool.name === "view"))
    return { kind: "tool", name: "view", input: { path: MISSING_PATH }, slow };
  if (text.includes(MARKERS.tool) || text.includes(MARKERS.permission) || text.includes(MARKERS.failingTool)) {
    const tool = SHELL_TOOLS.map((name) => tools.find((candidate) => candidate.name === name)).find(Boolean);
    const command = text.includes(MARKERS.failingTool) ? FAILING_COMMAND : toolCommand;
    if (tool)
      return {
        kind: "tool",
        name: tool.name,
        input: shellArguments(tool, command, { escalate: text.includes(MARKERS.permission) }),
        slow,
      };
    return { kind: "text", text: `No shell tool offered (tools: ${tools.map((candidate) => candidate.name).join(", ") || "none"}).`, slow };
  }
  return { kind: "text", text: DEFAULT_TEXT, slow };
}

/** Text of a message's content: a string, or the text parts of an array (`text`, `input_text`, `output_text`). */
export function contentText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

/** Split a text into a few stream chunks, so clients see real incremental deltas. */
export function chunks(text) {
  const words = text.split(/(?<= )/);
  const size = Math.max(1, Math.ceil(words.length / 3));
  const out = [];
  for (let index = 0; index < words.length; index += size) out.push(words.slice(index, index + size).join(""));
  return out;
}

/** Whether the answers to this conversation wait for a release: HOLD in any user text. */
export function holds(turns) {
  return turns.some((turn) => turn.kind === "user" && turn.text.includes(MARKERS.hold));
}
