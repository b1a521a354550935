// Server-sent events for the streaming wire formats.

export function startStream(res) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
}

/** One event: `event:` line when named (Anthropic, OpenAI Responses), then the JSON data line. */
export function sendEvent(res, data, name) {
  res.write(`${name ? `event: ${name}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function sendJson(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
