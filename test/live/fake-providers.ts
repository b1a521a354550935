// Tiny model providers on 127.0.0.1 that answer every request with one short text reply, streamed in the wire format
// each harness expects: Anthropic Messages SSE (Claude Code) and OpenAI Responses SSE (Codex). Enough for a harness
// to run a whole turn, and with it the session-start, prompt-submit and stop hooks.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeProvider {
  readonly url: string;
  readonly requests: string[];
  close(): Promise<void>;
}

const sse = (events: [string, unknown][]) => events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");

function anthropicReply(text: string): string {
  return sse([
    ["message_start", { type: "message_start", message: { id: "msg_fake", type: "message", role: "assistant", model: "fake-model", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } }],
    ["message_stop", { type: "message_stop" }],
  ]);
}

function responsesReply(text: string): string {
  const item = { type: "message", id: "msg_fake", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
  return sse([
    ["response.created", { type: "response.created", response: { id: "resp_fake" } }],
    ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] } }],
    ["response.output_text.delta", { type: "response.output_text.delta", item_id: "msg_fake", output_index: 0, content_index: 0, delta: text }],
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    ["response.completed", { type: "response.completed", response: { id: "resp_fake", usage: { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 } } }],
  ]);
}

export async function startFakeProvider(kind: "anthropic" | "responses", text = "Done."): Promise<FakeProvider> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      requests.push(`${request.method} ${request.url}`);
      if (request.method !== "POST") {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      response.end(kind === "anthropic" ? anthropicReply(text) : responsesReply(text));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
