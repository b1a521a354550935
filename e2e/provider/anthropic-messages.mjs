// Anthropic Messages (`POST /v1/messages`, streaming SSE): what Claude Code sends (and Pi's `anthropic-messages`).
import { chunks } from "./script.mjs";
import { sendEvent, sendJson, sleep, startStream } from "./sse.mjs";

export const api = "anthropic-messages";

/** User turns: text blocks are the prompt; a tool_result block makes the turn a tool result. */
export function conversation(body) {
  return (Array.isArray(body.messages) ? body.messages : []).map((message) => {
    // Claude Code 2.x appends role "system" messages after the user turn: they are not the user speaking.
    if (message?.role !== "user") return { kind: "other", text: "" };
    const content =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : Array.isArray(message.content)
          ? message.content
          : [];
    if (content.some((block) => block?.type === "tool_result")) return { kind: "tool_result", text: "" };
    return {
      kind: "user",
      text: content
        .filter((block) => block?.type === "text" && typeof block.text === "string")
        .map((block) => block.text)
        .join("\n"),
    };
  });
}

export function tools(body) {
  return (Array.isArray(body.tools) ? body.tools : [])
    .filter((tool) => typeof tool?.name === "string")
    .map((tool) => ({ name: tool.name, schema: tool.input_schema }));
}

export function sendError(res, status, message) {
  sendJson(res, status, { type: "error", error: { type: "invalid_request_error", message } });
}

export async function respond(res, body, decision, { ids, slowMs }) {
  const id = `msg_${ids.next()}`;
  const model = body.model ?? "fake-model";
  const toolId = `toolu_${ids.next()}`;
  const stopReason = decision.kind === "tool" ? "tool_use" : "end_turn";
  const usage = { input_tokens: 10, output_tokens: 5 };
  const block =
    decision.kind === "tool"
      ? { type: "tool_use", id: toolId, name: decision.name, input: decision.input }
      : { type: "text", text: decision.text };
  if (!body.stream) {
    sendJson(res, 200, {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [block],
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
    return;
  }
  startStream(res);
  sendEvent(
    res,
    {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
    "message_start",
  );
  if (decision.slow) await sleep(slowMs);
  if (decision.kind === "tool") {
    sendEvent(
      res,
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: toolId, name: decision.name, input: {} } },
      "content_block_start",
    );
    sendEvent(
      res,
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(decision.input) } },
      "content_block_delta",
    );
  } else {
    sendEvent(res, { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start");
    for (const piece of chunks(decision.text))
      sendEvent(res, { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } }, "content_block_delta");
  }
  sendEvent(res, { type: "content_block_stop", index: 0 }, "content_block_stop");
  sendEvent(
    res,
    { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } },
    "message_delta",
  );
  sendEvent(res, { type: "message_stop" }, "message_stop");
  res.end();
}

/** `POST /v1/messages/count_tokens`: a rough count is enough for a client that asks. */
export function countTokens(res, body) {
  sendJson(res, 200, { input_tokens: Math.ceil(JSON.stringify(body.messages ?? []).length / 4) });
}
