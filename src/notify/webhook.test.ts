import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkUrl, loadWebhooks, looksLikeNtfy, maskUrl } from "./webhooks.ts";
import { post, webhookRequest, type WebhookBody } from "./webhook.ts";

const BODY: WebhookBody = {
  host: "devbox",
  session: "fleet:v1:claude:abc",
  agent: "Claude Code",
  state: "waiting",
  detail: "permission: Bash",
  directory: "/home/me/api",
};

/** A fetch that answers each call with the next of `answers` (a status, or an error thrown). */
function scripted(answers: (number | Error)[]): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  const fake = (async () => {
    const answer = answers[calls++] ?? 200;
    if (answer instanceof Error) throw answer;
    return new Response("", { status: answer });
  }) as unknown as typeof fetch;
  return { fetch: fake, calls: () => calls };
}

describe("post", () => {
  const hook = { url: "https://example.org/hook/T0K3N", ntfy: false };
  it("is tried once more after a failure that may pass (5xx, 429, no answer), and never more", async () => {
    const twice = scripted([503, 503]);
    expect(await post(twice.fetch, hook, BODY)).toEqual({ ok: false, detail: "HTTP 503, then HTTP 503", retry: true });
    expect(twice.calls()).toBe(2);
    const recovered = scripted([Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } }), 200]);
    expect(await post(recovered.fetch, hook, BODY)).toEqual({ ok: true, status: 200 });
    const timedOut = scripted([new DOMException("timed out", "TimeoutError"), 429]);
    expect(await post(timedOut.fetch, hook, BODY)).toMatchObject({ ok: false, detail: "no answer within 5000 ms, then HTTP 429" });
  });

  it("is not tried again after a refusal that will not pass (4xx)", async () => {
    const refused = scripted([404]);
    expect(await post(refused.fetch, hook, BODY)).toEqual({ ok: false, detail: "HTTP 404", retry: false });
    expect(refused.calls()).toBe(1);
  });
});

describe("what is sent", () => {
  it("a plain webhook gets the JSON body; an ntfy topic the text and ntfy's headers", () => {
    expect(webhookRequest({ url: "https://example.org/x", ntfy: false }, BODY)).toEqual({
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(BODY),
    });
    const ntfy = webhookRequest({ url: "https://ntfy.sh/t", ntfy: true, click: "https://example.org/term" }, { ...BODY, state: "error" });
    expect(ntfy.headers).toEqual({
      "Content-Type": "text/plain; charset=utf-8",
      "X-Title": "Claude Code failed: api",
      "X-Priority": "default",
      "X-Tags": "x,tongs-agents",
      "X-Click": "https://example.org/term",
    });
    expect(ntfy.body).toBe("permission: Bash\n/home/me/api on devbox");
  });

  it("agent text cannot break a header or the message (controls made visible, one line)", () => {
    const hostile = webhookRequest(
      { url: "https://ntfy.sh/t", ntfy: true },
      { ...BODY, directory: "/x/a\r\nX-Evil: 1", detail: "\u001b[31mred" },
    );
    expect(hostile.headers["X-Title"]).not.toMatch(/[\r\n]/);
    expect(hostile.body).not.toContain("\u001b");
  });
});

describe("URLs", () => {
  it("are shown by scheme and host only, checked, and ntfy.sh topics are known", () => {
    expect(maskUrl("https://user:pw@ntfy.sh:8443/secret?token=1")).toBe("https://ntfy.sh:8443/…");
    expect(checkUrl("https://ntfy.sh/x")).toBeUndefined();
    expect(checkUrl("file:///etc/passwd")).toBe("not an http or https URL (file:)");
    expect(checkUrl("not a url")).toBe("not a URL");
    expect(looksLikeNtfy("https://ntfy.sh/my-topic_1")).toBe(true);
    expect(looksLikeNtfy("https://ntfy.sh/a/b")).toBe(false);
    expect(looksLikeNtfy("https://example.org/my-topic")).toBe(false);
  });
});

describe("webhooks.json written by hand", () => {
  it("an entry without ntfy: an ntfy.sh topic is one, another URL is a plain webhook; a wrong type is refused", () => {
    const home = mkdtempSync(join(tmpdir(), "webhooks-"));
    try {
      const env = { XDG_CONFIG_HOME: home };
      mkdirSync(join(home, "tongs-agents"), { mode: 0o700 });
      const write = (value: unknown) => writeFileSync(join(home, "tongs-agents", "webhooks.json"), JSON.stringify(value), { mode: 0o600 });
      write({
        webhooks: [{ url: "https://ntfy.sh/my-topic" }, { url: "https://example.org/hook" }, { url: "https://example.org/n", ntfy: true }],
      });
      expect(loadWebhooks(env)).toMatchObject({
        kind: "ok",
        webhooks: [
          { url: "https://ntfy.sh/my-topic", ntfy: true },
          { url: "https://example.org/hook", ntfy: false },
          { url: "https://example.org/n", ntfy: true },
        ],
      });
      write({ webhooks: [{ url: "https://example.org/hook", ntfy: "yes" }] });
      expect(loadWebhooks(env)).toMatchObject({ kind: "invalid" });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
