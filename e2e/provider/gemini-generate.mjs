// Google's Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, `:generateContent`,
// `:countTokens`): the only API Gemini CLI speaks (GOOGLE_GEMINI_BASE_URL points it here).
import { chunks } from "./script.mjs";
import { sendEvent, sendJson, sleep, startStream } from "./sse.mjs";

export const api = "gemini-generate";

const PATH = /^\/(?:v1beta\/|v1\/)?models\/[^/:]+:(streamGenerateContent|generateContent|countTokens)$/;

/** The method a path names (`streamGenerateContent`, `generateContent`, `countTokens`), or undefined. */
export function methodOf(path) {
  return PATH.exec(path)?.[1];
}

const partsText = (parts) =>
  (Array.isArray(parts) ? parts : [])
    .filter((part) => part && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");

export function conversation(body) {
  return (Array.isArray(body.contents) ? body.contents : []).map((content) => {
    const parts = Array.isArray(content?.parts) ? content.parts : [];
    if (parts.some((part) => part?.functionResponse)) return { kind: "tool_result", text: "" };
    if (content?.role === "user") return { kind: "user", text: partsText(parts) };
    return { kind: "other", text: "" };
  });
}

export function tools(body) {
  return (Array.isArray(body.tools) ? body.tools : [])
    .flatMap((tool) => (Array.isArray(tool?.functionDeclarations) ? tool.functionDeclarations : []))
    .filter((declaration) => typeof declaration?.name === "string")
    .map((declaration) => ({ name: declaration.name, schema: declaration.parametersJsonSchema ?? declaration.parameters }));
}

export function sendError(res, status, message) {
  sendJson(res, status, { error: { code: status, message, status: status === 400 ? "INVALID_ARGUMENT" : "INTERNAL" } });
}

export function countTokens(res) {
  sendJson(res, 200, { totalTokens: 10 });
}

export async function respond(res, _body, decision, { slowMs, path }) {
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const candidate = (parts, finishReason) => ({
    candidates: [{ content: { role: "model", parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    usageMetadata,
  });
  const call = decision.kind === "tool" ? [{ functionCall: { name: decision.name, args: decision.input } }] : undefined;
  if (methodOf(path) !== "streamGenerateContent") {
    sendJson(res, 200, candidate(call ?? [{ text: decision.text }], "STOP"));
    return;
  }
  startStream(res);
  if (decision.slow) await sleep(slowMs);
  if (call) sendEvent(res, candidate(call, "STOP"));
  else {
    const pieces = chunks(decision.text);
    pieces.forEach((piece, index) => sendEvent(res, candidate([{ text: piece }], index === pieces.length - 1 ? "STOP" : undefined)));
  }
  res.end();
}
