// A scripted Anthropic Messages model for driving the real Claude Code through tool-call scenarios the main provider
// (server.mjs, one shell call) cannot make: several tool calls in one message, any tool, any input. Node built-ins only.
//   const model = await startScenarioModel({ WORD: () => [{ name: "Read", input: { file_path: "/etc/hostname" } }] });
// The newest user text decides: a marker word (the longest that appears) answers with its tool calls; FAILAPI with HTTP
// 400; HOLD holds the answer until `release()`; anything else, and every tool result, a short text.
import { createServer } from "node:http";
import { sendEvent, sendJson, startStream } from "./sse.mjs";

export const SCENARIO_FINAL_TEXT = "The tools ran; all done.";
export const SCENARIO_TEXT = "Hello from the capture model.";

/**
 * @param {Record<string, () => { name: string, input: Record<string, unknown> }[]>} scenarios
 * @returns {Promise<{ url: string, release(): void, stop(): Promise<void> }>}
 */
export async function startScenarioModel(scenarios) {
  let held = [];
  let ids = 0;
  const markers = Object.keys(scenarios).sort((a, b) => b.length - a.length);
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", async () => {
      const path = (req.url ?? "").split("?")[0];
      if (path.endsWith("/count_tokens")) return sendJson(res, 200, { input_tokens: 10 });
      if (!path.endsWith("/messages")) return sendJson(res, 404, { error: { message: "no route" } });
      const request = JSON.parse(body);
      // Claude Code appends role "system" messages after the user turn: they are not the user speaking.
      const last = (request.messages ?? []).filter((message) => message.role === "user").at(-1);
      const content = typeof last?.content === "string" ? [{ type: "text", text: last.content }] : (last?.content ?? []);
      // A prompt typed after a refused tool comes with that tool's result: the typed text decides then.
      const text = content
        .filter((block) => block.type === "text")
        .map((block) => block.text)
        .join("\n");
      const isResult = text === "" && content.some((block) => block.type === "tool_result");
      if (!isResult && text.includes("FAILAPI"))
        return sendJson(res, 400, { type: "error", error: { type: "invalid_request_error", message: "scripted failure (FAILAPI)" } });
      if (!isResult && text.includes("HOLD")) await new Promise((resolve) => held.push(resolve));
      const marker = isResult ? undefined : markers.find((word) => text.includes(word));
      const blocks = marker
        ? scenarios[marker]().map((call) => ({
            type: "tool_use",
            id: `toolu_cap${(ids++).toString(36)}`,
            name: call.name,
            input: call.input,
          }))
        : [{ type: "text", text: isResult ? SCENARIO_FINAL_TEXT : SCENARIO_TEXT }];
      startStream(res);
      sendEvent(
        res,
        {
          type: "message_start",
          message: {
            id: `msg_cap${(ids++).toString(36)}`,
            type: "message",
            role: "assistant",
            model: request.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 1 },
          },
        },
        "message_start",
      );
      blocks.forEach((block, index) => {
        if (block.type === "tool_use") {
          sendEvent(
            res,
            { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } },
            "content_block_start",
          );
          sendEvent(
            res,
            { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } },
            "content_block_delta",
          );
        } else {
          sendEvent(res, { type: "content_block_start", index, content_block: { type: "text", text: "" } }, "content_block_start");
          sendEvent(res, { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } }, "content_block_delta");
        }
        sendEvent(res, { type: "content_block_stop", index }, "content_block_stop");
      });
      sendEvent(
        res,
        {
          type: "message_delta",
          delta: { stop_reason: marker ? "tool_use" : "end_turn", stop_sequence: null },
          usage: { output_tokens: 5 },
        },
        "message_delta",
      );
      sendEvent(res, { type: "message_stop" }, "message_stop");
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const release = () => {
    held.forEach((resolve) => resolve());
    held = [];
  };
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    release,
    stop: () =>
      new Promise((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
