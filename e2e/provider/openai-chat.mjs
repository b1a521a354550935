// OpenAI Chat Completions (`POST /v1/chat/completions`): what Pi's `openai-completions` API sends.
import { chunks, contentText } from "./script.mjs";
import { sendEvent, sendJson, sleep, startStream } from "./sse.mjs";

export const api = "openai-chat";

export function conversation(body) {
  return (Array.isArray(body.messages) ? body.messages : []).map((message) => {
    if (message?.role === "user") return { kind: "user", text: contentText(message.content) };
    if (message?.role === "tool") return { kind: "tool_result", text: contentText(message.content) };
    return { kind: "other", text: "" };
  });
}

export function tools(body) {
  return (Array.isArray(body.tools) ? body.tools : [])
    .filter((tool) => tool?.type === "function" && typeof tool.function?.name === "string")
    .map((tool) => ({ name: tool.function.name, schema: tool.function.parameters }));
}

export function sendError(res, status, message) {
  sendJson(res, status, { error: { message, type: "invalid_request_error", param: null, code: null } });
}

export async function respond(res, body, decision, { ids, slowMs }) {
  const id = `chatcmpl-${ids.next()}`;
  const model = body.model ?? "fake-model";
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const callId = `call_${ids.next()}`;
  const finish = decision.kind === "tool" ? "tool_calls" : "stop";
  const argumentsText = decision.kind === "tool" ? JSON.stringify(decision.input) : "";
  if (!body.stream) {
    const message =
      decision.kind === "tool"
        ? {
            role: "assistant",
            content: null,
            tool_calls: [{ id: callId, type: "function", function: { name: decision.name, arguments: argumentsText } }],
          }
        : { role: "assistant", content: decision.text };
    sendJson(res, 200, { id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    return;
  }
  const chunk = (delta, finishReason = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  startStream(res);
  sendEvent(res, chunk({ role: "assistant", content: "" }));
  if (decision.slow) await sleep(slowMs);
  if (decision.kind === "tool") {
    sendEvent(res, chunk({ tool_calls: [{ index: 0, id: callId, type: "function", function: { name: decision.name, arguments: "" } }] }));
    sendEvent(res, chunk({ tool_calls: [{ index: 0, function: { arguments: argumentsText } }] }));
  } else {
    for (const piece of chunks(decision.text)) sendEvent(res, chunk({ content: piece }));
  }
  sendEvent(res, chunk({}, finish));
  sendEvent(res, { id, object: "chat.completion.chunk", created, model, choices: [], usage });
  sendEvent(res, "[DONE]");
  res.end();
}
