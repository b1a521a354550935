// OpenAI Responses (`POST /v1/responses`, streaming SSE): what Codex sends (and Pi's `openai-responses`).
import { chunks, contentText } from "./script.mjs";
import { sendEvent, sendJson, sleep, startStream } from "./sse.mjs";

export const api = "openai-responses";

export function conversation(body) {
  const input =
    typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : Array.isArray(body.input) ? body.input : [];
  return input.map((item) => {
    if (item?.type === "function_call_output" || item?.type === "custom_tool_call_output" || item?.type === "local_shell_call_output")
      return { kind: "tool_result", text: "" };
    if ((item?.type === "message" || item?.type === undefined) && item?.role === "user")
      return { kind: "user", text: contentText(item.content) };
    return { kind: "other", text: "" };
  });
}

export function tools(body) {
  return (Array.isArray(body.tools) ? body.tools : [])
    .filter((tool) => tool?.type === "function" && typeof tool.name === "string")
    .map((tool) => ({ name: tool.name, schema: tool.parameters }));
}

export function sendError(res, status, message) {
  sendJson(res, status, { error: { message, type: "invalid_request_error", param: null, code: null } });
}

export async function respond(res, body, decision, { ids, slowMs }) {
  const responseId = `resp_${ids.next()}`;
  const model = body.model ?? "fake-model";
  const itemId = `${decision.kind === "tool" ? "fc" : "msg"}_${ids.next()}`;
  const callId = `call_${ids.next()}`;
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const argumentsText = decision.kind === "tool" ? JSON.stringify(decision.input) : "";
  const text = decision.kind === "tool" ? "" : decision.text;
  const done =
    decision.kind === "tool"
      ? { type: "function_call", id: itemId, call_id: callId, name: decision.name, arguments: argumentsText, status: "completed" }
      : { type: "message", id: itemId, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
  const response = (status, output) => ({
    id: responseId,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output,
    usage: status === "completed" ? usage : null,
  });
  if (!body.stream) {
    sendJson(res, 200, response("completed", [done]));
    return;
  }
  let sequence = 0;
  const send = (type, fields) => sendEvent(res, { type, sequence_number: sequence++, ...fields }, type);
  startStream(res);
  send("response.created", { response: response("in_progress", []) });
  send("response.in_progress", { response: response("in_progress", []) });
  if (decision.slow) await sleep(slowMs);
  if (decision.kind === "tool") {
    send("response.output_item.added", { output_index: 0, item: { ...done, arguments: "", status: "in_progress" } });
    send("response.function_call_arguments.delta", { item_id: itemId, output_index: 0, delta: argumentsText });
    send("response.function_call_arguments.done", { item_id: itemId, output_index: 0, arguments: argumentsText });
  } else {
    send("response.output_item.added", { output_index: 0, item: { ...done, status: "in_progress", content: [] } });
    send("response.content_part.added", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    });
    for (const piece of chunks(text))
      send("response.output_text.delta", { item_id: itemId, output_index: 0, content_index: 0, delta: piece });
    send("response.output_text.done", { item_id: itemId, output_index: 0, content_index: 0, text });
    send("response.content_part.done", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text, annotations: [] },
    });
  }
  send("response.output_item.done", { output_index: 0, item: done });
  send("response.completed", { response: response("completed", [done]) });
  res.end();
}
