import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TEXT, FAILING_COMMAND, FINAL_TEXT, MISSING_PATH, QUESTION, SUBAGENT_PROMPT } from "./script.mjs";
import { startProvider } from "./server.mjs";

let provider: Awaited<ReturnType<typeof startProvider>>;
beforeAll(async () => {
  provider = await startProvider({ port: 0, slowMs: 10 });
});
afterAll(() => provider.stop());

interface SseEvent {
  name: string | undefined;
  data: unknown;
}

async function post(path: string, body: unknown): Promise<{ status: number; type: string; events: SseEvent[]; json: unknown }> {
  const response = await fetch(`${provider.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("text/event-stream")) return { status: response.status, type, events: [], json: JSON.parse(text) };
  const events = text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const name = lines.find((line) => line.startsWith("event: "))?.slice(7);
      const data = lines.find((line) => line.startsWith("data: "))?.slice(6) ?? "";
      return { name, data: data === "[DONE]" ? data : JSON.parse(data) };
    });
  return { status: response.status, type, events, json: undefined };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const data = (events: SseEvent[]) => events.map((event) => event.data as any);

describe("OpenAI Chat Completions (Pi openai-completions)", () => {
  const bash = {
    type: "function",
    function: { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } } } },
  };
  const chat = (messages: unknown[], extra: Record<string, unknown> = {}) =>
    post("/v1/chat/completions", { model: "fake-model", stream: true, tools: [bash], messages, ...extra });

  it("streams one text reply", async () => {
    const { status, events } = await chat([
      { role: "system", content: "be brief" },
      { role: "user", content: "say hello" },
    ]);
    expect(status).toBe(200);
    const chunks = data(events);
    expect(chunks.at(-1)).toBe("[DONE]");
    expect(
      chunks.flatMap((chunk) => chunk.choices?.map((choice: { delta: { content?: string } }) => choice.delta.content ?? "") ?? []).join(""),
    ).toBe(DEFAULT_TEXT);
    expect(chunks.find((chunk) => chunk.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe("stop");
    expect(chunks.some((chunk) => chunk.usage?.total_tokens > 0)).toBe(true);
  });

  it("calls the shell tool on RUNTOOL, then answers the tool result with a final text", async () => {
    const call = data((await chat([{ role: "user", content: [{ type: "text", text: "please RUNTOOL now" }] }])).events);
    const deltas = call.flatMap((chunk) => chunk.choices?.[0]?.delta?.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, type: "function", function: { name: "bash" } });
    expect(JSON.parse(deltas.map((delta: { function: { arguments: string } }) => delta.function.arguments).join(""))).toEqual({
      command: "echo hi",
    });
    expect(call.find((chunk) => chunk.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe("tool_calls");
    const id = deltas[0].id;
    const final = data(
      (
        await chat([
          { role: "user", content: "please RUNTOOL now" },
          { role: "assistant", tool_calls: [{ id, type: "function", function: { name: "bash", arguments: "{}" } }] },
          { role: "tool", tool_call_id: id, content: "hi" },
        ])
      ).events,
    );
    expect(
      final.flatMap((chunk) => chunk.choices?.map((choice: { delta: { content?: string } }) => choice.delta.content ?? "") ?? []).join(""),
    ).toBe(FINAL_TEXT);
  });

  it("fails with HTTP 400 on FAILAPI, and answers without streaming when not asked to stream", async () => {
    expect(await chat([{ role: "user", content: "FAILAPI" }])).toMatchObject({
      status: 400,
      json: { error: { type: "invalid_request_error" } },
    });
    const plain = await chat([{ role: "user", content: "hi" }], { stream: false });
    expect(plain.json).toMatchObject({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: DEFAULT_TEXT }, finish_reason: "stop" }],
    });
  });
});

describe("Scripted tool calls: OpenCode's question and task, Copilot's ask_user, a failing shell command (OpenAI Chat Completions)", () => {
  const tool = (name: string) => ({ type: "function", function: { name, parameters: { type: "object", properties: {} } } });
  const calls = async (text: string, tools: unknown[]) => {
    const chunks = data(
      (await post("/v1/chat/completions", { model: "fake-model", stream: true, tools, messages: [{ role: "user", content: text }] }))
        .events,
    );
    const deltas = chunks.flatMap((chunk) => chunk.choices?.[0]?.delta?.tool_calls ?? []);
    const content = chunks.flatMap(
      (chunk) => chunk.choices?.map((choice: { delta: { content?: string } }) => choice.delta.content ?? "") ?? [],
    );
    if (deltas.length === 0) return { text: content.join("") };
    return {
      name: deltas[0].function.name as string,
      input: JSON.parse(deltas.map((delta: { function: { arguments: string } }) => delta.function.arguments).join("")) as unknown,
    };
  };
  const offered = [tool("bash"), tool("question"), tool("task")];

  it("on ASKUSER calls question with one question of two options; on SUBAGENT calls task, whose prompt runs the shell tool; on FAILTOOL runs the failing command", async () => {
    expect(await calls("ASKUSER please", offered)).toEqual({ name: "question", input: { questions: [QUESTION] } });
    expect(await calls("SUBAGENT please", offered)).toEqual({
      name: "task",
      input: { description: "Synthetic subtask", prompt: SUBAGENT_PROMPT, subagent_type: "general" },
    });
    expect(await calls(SUBAGENT_PROMPT, offered)).toEqual({ name: "bash", input: { command: "echo hi" } });
    expect(await calls("FAILTOOL please", offered)).toEqual({ name: "bash", input: { command: FAILING_COMMAND } });
  });

  it("on FAILREAD calls Copilot's view on a path that does not exist", async () => {
    expect(await calls("FAILREAD please", [tool("bash"), tool("view")])).toEqual({ name: "view", input: { path: MISSING_PATH } });
    expect(await calls("FAILREAD please", [tool("bash")])).toEqual({ text: DEFAULT_TEXT });
  });

  it("on ASKUSER calls Copilot's ask_user with the question as a message and a one-field form", async () => {
    expect(await calls("ASKUSER please", [tool("bash"), tool("ask_user")])).toEqual({
      name: "ask_user",
      input: {
        message: QUESTION.question,
        requestedSchema: {
          properties: { colour: { type: "string", title: QUESTION.header, enum: ["Blue", "Green"] } },
          required: ["colour"],
        },
      },
    });
  });

  it("answers with text when the harness offers no such tool", async () => {
    expect(await calls("ASKUSER please", [tool("bash")])).toEqual({ text: DEFAULT_TEXT });
    expect(await calls("SUBAGENT please", [tool("bash")])).toEqual({ text: DEFAULT_TEXT });
  });
});

describe("Anthropic Messages (Claude Code)", () => {
  const bashTool = { name: "Bash", input_schema: { type: "object", properties: { command: { type: "string" } } } };
  const messages = (list: unknown[]) =>
    post("/v1/messages?beta=true", { model: "claude-x", stream: true, max_tokens: 100, tools: [bashTool], messages: list });
  const text = (events: SseEvent[]) =>
    data(events)
      .filter((event) => event.delta?.type === "text_delta")
      .map((event) => event.delta.text)
      .join("");

  it("streams a text reply as named events, skipping the system messages Claude Code appends", async () => {
    const { events } = await messages([
      { role: "user", content: [{ type: "text", text: "RUNTOOL" }] },
      { role: "assistant", content: "ok" },
      { role: "user", content: "hello" },
      { role: "system", content: "reminder: RUNTOOL" },
    ]);
    expect(events.map((event) => event.name)).toEqual([
      "message_start",
      "content_block_start",
      ...Array(events.length - 5).fill("content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(text(events)).toBe(DEFAULT_TEXT);
  });

  it("uses the Bash tool on RUNTOOL and finishes after its tool_result", async () => {
    const call = data((await messages([{ role: "user", content: "RUNTOOL please" }])).events);
    expect(call[1]).toMatchObject({ type: "content_block_start", content_block: { type: "tool_use", name: "Bash" } });
    expect(JSON.parse(call[2].delta.partial_json)).toEqual({ command: "echo hi" });
    expect(call.find((event) => event.type === "message_delta").delta.stop_reason).toBe("tool_use");
    const id = call[1].content_block.id;
    const final = await messages([
      { role: "user", content: "RUNTOOL please" },
      { role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "hi" }] },
    ]);
    expect(text(final.events)).toBe(FINAL_TEXT);
  });

  it("answers the user's prompt, not the <system-reminder> user messages a harness sends after it (Kimi Code)", async () => {
    const reminder = "<system-reminder>\nToday's date is 2026-12-07.\n</system-reminder>";
    const call = data(
      (
        await messages([
          { role: "user", content: "please RUNTOOL" },
          { role: "user", content: reminder },
        ])
      ).events,
    );
    expect(call[1]).toMatchObject({ content_block: { type: "tool_use", name: "Bash" } });
    // A message with the user's own words beside a reminder is the user's.
    expect(
      text(
        (
          await messages([
            { role: "user", content: "RUNTOOL" },
            { role: "user", content: `hello ${reminder}` },
          ])
        ).events,
      ),
    ).toBe(DEFAULT_TEXT);
  });

  it("fails with an Anthropic error body on FAILAPI", async () => {
    expect(await messages([{ role: "user", content: "FAILAPI" }])).toMatchObject({
      status: 400,
      json: { type: "error", error: { type: "invalid_request_error" } },
    });
  });
});

describe("OpenAI Responses (Codex)", () => {
  const shell = {
    type: "function",
    name: "shell",
    parameters: { type: "object", properties: { command: { type: "array", items: { type: "string" } } } },
  };
  const responses = (input: unknown[]) => post("/v1/responses", { model: "fake-model", stream: true, tools: [shell], input });
  const user = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });

  it("streams a text reply with sequence numbers, ending in response.completed", async () => {
    const events = data(
      (await responses([{ type: "message", role: "developer", content: [{ type: "input_text", text: "RUNTOOL" }] }, user("hello")])).events,
    );
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(
      events
        .filter((event) => event.type === "response.output_text.delta")
        .map((event) => event.delta)
        .join(""),
    ).toBe(DEFAULT_TEXT);
    expect(events.at(-1)).toMatchObject({
      type: "response.completed",
      response: { status: "completed", output: [{ type: "message", content: [{ type: "output_text", text: DEFAULT_TEXT }] }] },
    });
  });

  it("calls Codex's shell tool with an argv on RUNTOOL, then finishes after function_call_output", async () => {
    const events = data((await responses([user("RUNTOOL")])).events);
    const item = events.find((event) => event.type === "response.output_item.done").item;
    expect(item).toMatchObject({ type: "function_call", name: "shell" });
    expect(JSON.parse(item.arguments)).toEqual({ command: ["bash", "-lc", "echo hi"] });
    const final = data(
      (await responses([user("RUNTOOL"), item, { type: "function_call_output", call_id: item.call_id, output: "hi" }])).events,
    );
    expect(final.at(-1).response.output[0].content[0].text).toBe(FINAL_TEXT);
  });

  it("on ASKPERM calls Codex 0.171's exec_command asking to leave the sandbox; RUNTOOL does not ask", async () => {
    // The schema as Codex 0.171.0 sends it (trimmed): `cmd`, plus `sandbox_permissions` to ask for an unsandboxed run.
    const execCommand = {
      type: "function",
      name: "exec_command",
      parameters: {
        type: "object",
        properties: {
          cmd: { type: "string" },
          justification: { type: "string" },
          sandbox_permissions: { type: "string", enum: ["use_default", "require_escalated"] },
        },
        required: ["cmd"],
      },
    };
    const call = async (text: string) => {
      const { events } = await post("/v1/responses", {
        model: "fake-model",
        stream: true,
        tools: [{ type: "function", name: "write_stdin", parameters: {} }, execCommand],
        input: [user(text)],
      });
      const item = data(events).find((event) => event.type === "response.output_item.done").item;
      return { name: item.name, args: JSON.parse(item.arguments) };
    };
    expect(await call("please ASKPERM now")).toEqual({
      name: "exec_command",
      args: { cmd: "echo hi", sandbox_permissions: "require_escalated", justification: expect.stringContaining("ASKPERM") },
    });
    expect(await call("please RUNTOOL now")).toEqual({ name: "exec_command", args: { cmd: "echo hi" } });
    // A tool without a way to ask gets the plain call.
    expect(
      JSON.parse(
        data((await responses([user("ASKPERM")])).events).find((event) => event.type === "response.output_item.done").item.arguments,
      ),
    ).toEqual({ command: ["bash", "-lc", "echo hi"] });
  });

  it("fails with HTTP 400 on FAILAPI, delays on SLOW, and lists one model", async () => {
    expect(await responses([user("FAILAPI")])).toMatchObject({ status: 400 });
    expect((await responses([user("SLOW hello")])).status).toBe(200);
    expect(provider.requests.at(-1)).toMatchObject({ api: "openai-responses", decision: "text" });
    expect(await (await fetch(`${provider.url}/v1/models`)).json()).toMatchObject({ data: [{ id: "fake-model" }] });
  });
});

describe("HOLD and the control routes", () => {
  const ask = (text: string) =>
    post("/v1/messages", { model: "claude-x", stream: true, max_tokens: 100, messages: [{ role: "user", content: text }] });
  const control = async (method: "GET" | "POST", route: string) => (await fetch(`${provider.url}/control/${route}`, { method })).json();

  it("holds every answer of a HOLD conversation until released, and lists the requests it saw", async () => {
    let answered = false;
    const pending = ask("HOLD hello").then((reply) => ((answered = true), reply));
    await expect.poll(() => provider.requests.at(-1)).toMatchObject({ held: true, decision: "text" });
    // Still held after other requests came and went: only a release answers it.
    expect((await ask("hello")).status).toBe(200);
    expect(answered).toBe(false);
    expect(await control("GET", "requests")).toMatchObject({
      requests: expect.arrayContaining([expect.objectContaining({ held: true, api: "anthropic-messages" })]),
    });
    expect(await control("POST", "release")).toEqual({ released: 1 });
    expect(data((await pending).events).at(-1)).toEqual({ type: "message_stop" });
    expect(await control("POST", "release")).toEqual({ released: 0 });
    expect(provider.release()).toBe(0);
  });

  it("does not hold an error, and answers 404 on an unknown control route", async () => {
    expect(await ask("HOLD FAILAPI")).toMatchObject({ status: 400 });
    expect(provider.requests.at(-1)).toMatchObject({ decision: "error", held: false });
    expect((await fetch(`${provider.url}/control/nothing`)).status).toBe(404);
  });

  it("lets a forgotten hold go after holdMs", async () => {
    const quick = await startProvider({ port: 0, holdMs: 50 });
    try {
      const response = await fetch(`${quick.url}/v1/messages`, {
        method: "POST",
        body: JSON.stringify({ stream: true, messages: [{ role: "user", content: "HOLD" }] }),
      });
      expect(await response.text()).toContain("message_stop");
    } finally {
      await quick.stop();
    }
  });
});

describe("command line", () => {
  it("listens on the given port, prints its URL, runs --tool-command, and stops on SIGTERM", async () => {
    const server = spawn(
      process.execPath,
      [fileURLToPath(new URL("./server.mjs", import.meta.url)), "--port", "0", "--tool-command", "touch approved"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const exited = new Promise((resolve) => server.on("exit", resolve));
    try {
      const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
      const line = (await lines.next()).value as string | undefined;
      const { url } = JSON.parse(line ?? "{}") as { url: string };
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ ok: true });
      const call = await fetch(`${url}/v1/messages`, {
        method: "POST",
        body: JSON.stringify({
          tools: [{ name: "Bash", input_schema: { properties: { command: { type: "string" } } } }],
          messages: [{ role: "user", content: "RUNTOOL" }],
        }),
      });
      expect(await call.json()).toMatchObject({ content: [{ type: "tool_use", name: "Bash", input: { command: "touch approved" } }] });
    } finally {
      server.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });

  it("runs --tool-command as RUNTOOL's shell command", async () => {
    const server = spawn(
      process.execPath,
      [fileURLToPath(new URL("./server.mjs", import.meta.url)), "--port", "0", "--tool-command", "rm -rf /tmp/x; sleep 3"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const exited = new Promise((resolve) => server.on("exit", resolve));
    try {
      const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
      const line = (await lines.next()).value as string | undefined;
      const { url } = JSON.parse(line ?? "{}") as { url: string };
      const bash = {
        type: "function",
        function: { name: "bash", parameters: { type: "object", properties: { command: { type: "string" } } } },
      };
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "fake-model", stream: false, tools: [bash], messages: [{ role: "user", content: "RUNTOOL" }] }),
      });
      const body = (await response.json()) as {
        choices: { message: { tool_calls: { function: { name: string; arguments: string } }[] } }[];
      };
      const call = body.choices[0]?.message.tool_calls[0]?.function;
      expect(call?.name).toBe("bash");
      expect(JSON.parse(call?.arguments ?? "{}")).toEqual({ command: "rm -rf /tmp/x; sleep 3" });
    } finally {
      server.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});

describe("Gemini API (Gemini CLI)", () => {
  const shell = {
    functionDeclarations: [
      {
        name: "run_shell_command",
        parametersJsonSchema: { type: "object", properties: { command: { type: "string" }, description: { type: "string" } } },
      },
    ],
  };
  const generate = (contents: unknown[], method = "streamGenerateContent?alt=sse") =>
    post(`/v1beta/models/gemini-2.5-flash:${method}`, { contents, tools: [shell], systemInstruction: { parts: [{ text: "x" }] } });
  const user = (text: string) => ({ role: "user", parts: [{ text }] });
  const text = (events: SseEvent[]) =>
    data(events)
      .flatMap((chunk) => chunk.candidates[0].content.parts.map((part: { text?: string }) => part.text ?? ""))
      .join("");

  it("streams a text reply that ends with finishReason STOP", async () => {
    const { status, events } = await generate([user("say hello")]);
    expect(status).toBe(200);
    expect(text(events)).toBe(DEFAULT_TEXT);
    expect(data(events).at(-1).candidates[0].finishReason).toBe("STOP");
  });

  it("calls run_shell_command on RUNTOOL, then answers the function response with the final text", async () => {
    const { events } = await generate([user("please RUNTOOL")]);
    expect(data(events).flatMap((chunk) => chunk.candidates[0].content.parts)).toEqual([
      { functionCall: { name: "run_shell_command", args: { command: "echo hi" } } },
    ]);
    const after = await generate([
      user("please RUNTOOL"),
      { role: "model", parts: [{ functionCall: { name: "run_shell_command", args: { command: "echo hi" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: { output: "hi" } } }] },
    ]);
    expect(text(after.events)).toBe(FINAL_TEXT);
  });

  it("answers generateContent with one body, countTokens with a count, and FAILAPI with Google's 400 error", async () => {
    expect((await generate([user("hi")], "generateContent")).json).toMatchObject({
      candidates: [{ content: { role: "model", parts: [{ text: DEFAULT_TEXT }] }, finishReason: "STOP" }],
    });
    expect((await generate([user("hi")], "countTokens")).json).toEqual({ totalTokens: 10 });
    const failed = await generate([user("FAILAPI")]);
    expect(failed.status).toBe(400);
    expect(failed.json).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
  });
});

describe("limits: each API's own 429 and quota headers (limits.mjs)", () => {
  const at = Math.floor(Date.now() / 1000);
  const ask = async (path: string, body: unknown) => {
    const response = await fetch(`${provider.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, json: (await response.json().catch(() => undefined)) as unknown };
  };
  const anthropic = (text: string) =>
    ask("/v1/messages?beta=true", { model: "m", stream: false, messages: [{ role: "user", content: text }] });
  const responses = (text: string) =>
    ask("/v1/responses", {
      model: "m",
      stream: false,
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text }] }],
    });

  it("Anthropic: rate_limit_error with the unified headers of a subscription past its 5-hour window", async () => {
    provider.setQuota({ primaryResetAt: at + 3600, secondaryResetAt: at + 90_000 });
    const limited = await anthropic("please LIMITHIT");
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect(limited.headers.get("anthropic-ratelimit-unified-status")).toBe("rejected");
    expect(limited.headers.get("anthropic-ratelimit-unified-representative-claim")).toBe("five_hour");
    expect(limited.headers.get("anthropic-ratelimit-unified-reset")).toBe(String(at + 3600));
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(3500);
    // An ordinary answer states how much of each window is used.
    const ok = await anthropic("say hello");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("anthropic-ratelimit-unified-5h-utilization")).toBe("0.42");
    expect(ok.headers.get("anthropic-ratelimit-unified-7d-reset")).toBe(String(at + 90_000));
  });

  it("OpenAI Responses: usage_limit_reached with Codex's window headers; QUOTAHIT: insufficient_quota, no reset", async () => {
    provider.setQuota({ primaryResetAt: at + 3600, secondaryUsedPercent: 40 });
    const limited = await responses("LIMITHIT");
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ error: { type: "usage_limit_reached", resets_at: at + 3600 } });
    expect(limited.headers.get("x-codex-primary-used-percent")).toBe("100");
    expect(limited.headers.get("x-codex-primary-window-minutes")).toBe("300");
    expect(limited.headers.get("x-codex-secondary-used-percent")).toBe("40");
    const quota = await responses("QUOTAHIT");
    expect(quota).toMatchObject({ status: 429, json: { error: { type: "insufficient_quota", code: "insufficient_quota" } } });
    expect(quota.headers.get("x-codex-primary-reset-at")).toBeNull();
    provider.setQuota({ primaryUsedPercent: 93 });
    expect((await responses("say hello")).headers.get("x-codex-primary-used-percent")).toBe("93");
  });

  it("Chat Completions: rate_limit_exceeded; Gemini: RESOURCE_EXHAUSTED with its QuotaFailure; retry-after as set", async () => {
    provider.setQuota({ retryAfter: 2 });
    const chat = await ask("/v1/chat/completions", { model: "m", messages: [{ role: "user", content: "LIMITHIT" }] });
    expect(chat).toMatchObject({ status: 429, json: { error: { code: "rate_limit_exceeded" } } });
    expect(chat.headers.get("retry-after")).toBe("2");
    const gemini = await ask("/v1beta/models/m:generateContent", { contents: [{ role: "user", parts: [{ text: "LIMITHIT" }] }] });
    expect(gemini).toMatchObject({ status: 429, json: { error: { code: 429, status: "RESOURCE_EXHAUSTED" } } });
    provider.setQuota({ retryAfter: undefined });
  });
});
