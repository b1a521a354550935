#!/usr/bin/env node
// A synthetic model provider for driving real agent CLIs in tests, on 127.0.0.1 only. Node built-ins only.
//
//   node e2e/provider/server.mjs --port 8787          # prints {"url":"http://127.0.0.1:8787"} once listening
//     [--slow-ms 2000] [--tool-command "echo hi"]       # SLOW's delay; the command RUNTOOL and ASKPERM ask to run
//   import { startProvider } from "./e2e/provider/server.mjs"; const provider = await startProvider({ port: 0 });
//
// Wire APIs (each streams when the request asks, else answers with one JSON body):
//   POST /v1/chat/completions   OpenAI Chat Completions   Pi `api: "openai-completions"`
//   POST /v1/messages           Anthropic Messages        Claude Code (ANTHROPIC_BASE_URL), Pi `anthropic-messages`
//   POST /v1/responses          OpenAI Responses          Codex (`wire_api = "responses"`), Pi `openai-responses`
//   POST /v1beta/models/<m>:streamGenerateContent, :generateContent, :countTokens   Gemini API   Gemini CLI
// Paths are matched with or without the `/v1` prefix and with any query string (Claude Code adds `?beta=true`).
// What the model says is scripted by marker words in the prompt: see script.mjs.
// Control, for a test that cannot reach the in-process object (the provider runs inside a container):
//   GET  /control/requests      every request so far: method, path, api, decision, held
//   POST /control/release       answer every request held by HOLD now; {"released": n}
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import * as anthropicMessages from "./anthropic-messages.mjs";
import * as geminiGenerate from "./gemini-generate.mjs";
import * as openaiChat from "./openai-chat.mjs";
import * as openaiResponses from "./openai-responses.mjs";
import { decide, holds } from "./script.mjs";
import { defaultQuota, limitAnswer, quotaHeaders } from "./limits.mjs";
import { sendJson } from "./sse.mjs";

const ROUTES = new Map([
  ["/chat/completions", openaiChat],
  ["/messages", anthropicMessages],
  ["/responses", openaiResponses],
]);
const MAX_BODY_BYTES = 32 * 1024 * 1024;

function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error("request body too large"));
      else parts.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

/** Requests held by HOLD wait here until released, or until `holdMs` passed (a forgotten hold never hangs a run). */
function gate(holdMs) {
  const waiting = new Set();
  return {
    hold: () =>
      new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiting.delete(done);
          resolve();
        };
        const timer = setTimeout(done, holdMs);
        waiting.add(done);
      }),
    release() {
      const released = [...waiting];
      released.forEach((done) => done());
      return released.length;
    },
  };
}

function counter() {
  let value = 0;
  return { next: () => `${Date.now().toString(36)}${(value++).toString(36)}` };
}

/**
 * Start the provider. Resolves once it listens.
 * `toolCommand` is what the shell tool call runs: `echo hi` by default; Claude Code runs read-only commands like it
 * without asking, so a test that wants a real permission dialog passes a command that changes something.
 * `quota` is what the answers report of the quota windows (limits.mjs): LIMITHIT's reset is the 5-hour window's.
 * @param {{ port?: number, host?: string, slowMs?: number, holdMs?: number, toolCommand?: string, quota?: Partial<import("./limits.mjs").Quota> }} [options]
 * @returns {Promise<{ url: string, port: number, requests: Array<{ method: string, path: string, api: string, decision: string, held: boolean }>, release(): number, setQuota(next: Partial<import("./limits.mjs").Quota>): void, stop(): Promise<void> }>}
 */
export async function startProvider({
  port = 0,
  host = "127.0.0.1",
  slowMs = 2000,
  holdMs = 300_000,
  toolCommand = "echo hi",
  quota = undefined,
} = {}) {
  const requests = [];
  let setQuota = quota;
  /** The quota the answers report: the one set (`quota`, `setQuota`), else 42% of 5 hours and 40% of a week. */
  const currentQuota = () => ({ ...defaultQuota(), ...setQuota });
  const ids = counter();
  const held = gate(holdMs);
  const server = createServer(async (req, res) => {
    const fullPath = (req.url ?? "/").split("?")[0];
    const path = fullPath.replace(/^\/v1(?=\/)/, "");
    const entry = { method: req.method ?? "", path: req.url ?? "", api: "", decision: "", held: false };
    try {
      if (path.startsWith("/control/")) {
        if (req.method === "GET" && path === "/control/requests") sendJson(res, 200, { requests });
        else if (req.method === "POST" && path === "/control/release") sendJson(res, 200, { released: held.release() });
        else sendJson(res, 404, { error: { message: `no control route for ${req.method} ${path}`, type: "not_found" } });
        return;
      }
      requests.push(entry);
      if (req.method === "GET" && (path === "/models" || path === "/health")) {
        sendJson(
          res,
          200,
          path === "/health" ? { ok: true } : { object: "list", data: [{ id: "fake-model", object: "model", owned_by: "synthetic" }] },
        );
        return;
      }
      if (req.method === "POST" && path === "/messages/count_tokens") {
        entry.api = anthropicMessages.api;
        anthropicMessages.countTokens(res, JSON.parse(await readBody(req)));
        return;
      }
      if (req.method === "POST" && geminiGenerate.methodOf(fullPath) === "countTokens") {
        entry.api = geminiGenerate.api;
        geminiGenerate.countTokens(res);
        return;
      }
      const wire =
        req.method === "POST" ? (ROUTES.get(path) ?? (geminiGenerate.methodOf(fullPath) ? geminiGenerate : undefined)) : undefined;
      if (!wire) {
        sendJson(res, 404, { error: { message: `no route for ${req.method} ${path}`, type: "not_found" } });
        return;
      }
      entry.api = wire.api;
      let body;
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        wire.sendError(res, 400, "request body is not JSON");
        return;
      }
      const turns = wire.conversation(body);
      const decision = decide(turns, wire.tools(body), { toolCommand });
      entry.decision = decision.kind === "tool" ? `tool:${decision.name}` : decision.kind;
      if (decision.kind === "error") {
        wire.sendError(res, decision.status, decision.message);
        return;
      }
      const quota = currentQuota();
      if (decision.kind === "limit") {
        const answer = limitAnswer(wire.api, decision.limit, quota);
        sendJson(res, answer.status, answer.body, answer.headers);
        return;
      }
      // Every answer says how much of the quota is used, as the real service does (limits.mjs).
      for (const [name, value] of Object.entries(quotaHeaders(wire.api, quota))) res.setHeader(name, value);
      if (holds(turns)) {
        entry.held = true;
        await held.hold();
      }
      await wire.respond(res, body, decision, { ids, slowMs, path: fullPath });
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: "server_error" } });
      else res.destroy();
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  return {
    url: `http://${host}:${actualPort}`,
    port: actualPort,
    requests,
    release: () => held.release(),
    /** Change the quota later answers report (limits.mjs, Quota): a test drives a window past a threshold. */
    setQuota: (next) => {
      setQuota = { ...setQuota, ...next };
    },
    stop: () =>
      new Promise((resolve) => {
        held.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      host: { type: "string", default: "127.0.0.1" },
      "slow-ms": { type: "string", default: "2000" },
      "tool-command": { type: "string", default: "echo hi" },
    },
  });
  const provider = await startProvider({
    port: Number(values.port),
    host: values.host,
    slowMs: Number(values["slow-ms"]),
    toolCommand: values["tool-command"],
  });
  process.stdout.write(`${JSON.stringify({ url: provider.url, port: provider.port })}\n`);
  const stop = () => void provider.stop().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
