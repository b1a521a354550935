// The webhook channel: for each session a notice names, one POST to each configured webhook (webhooks.ts), from the
// detached notifier, never the hook. A plain webhook gets a small JSON body (host, session, agent, state, detail,
// directory); an ntfy topic gets the message as text and ntfy's own headers for the title, priority, tags and click
// URL (https://docs.ntfy.sh/publish/). Each request is bounded in time and tried once more after a failure that may
// pass (no answer, a timeout, 429 or 5xx). URLs are shown and logged masked (scheme and host only).
import { hostname } from "node:os";
import type { ChannelId, NotifyState } from "./config.ts";
import type { Delivery, Detection, Notice, NoticeSession, NotifyChannel, NotifyWorld, SessionFacts } from "./contract.ts";
import { cleanLine } from "./sanitize.ts";
import { loadWebhooks, maskUrl, type Webhook } from "./webhooks.ts";

const ID: ChannelId = "webhook";
/** Each request, connection included. */
export const WEBHOOK_TIMEOUT_MS = 5000;
/** Before the one retry. */
const RETRY_AFTER_MS = 1000;

/** What a plain webhook receives. */
export interface WebhookBody {
  readonly host: string;
  readonly session: string;
  readonly agent: string;
  readonly state: NotifyState | "test";
  readonly detail: string;
  readonly directory: string;
}

const NTFY: Record<NotifyState | "test", { priority: string; tag: string; verb: string }> = {
  waiting: { priority: "high", tag: "bell", verb: "needs you" },
  error: { priority: "default", tag: "x", verb: "failed" },
  idle: { priority: "low", tag: "white_check_mark", verb: "finished" },
  test: { priority: "low", tag: "test_tube", verb: "test" },
};

/** A header value ntfy reads as UTF-8: as it is when it is ASCII, else RFC 2047 encoded (ntfy 2.4+). */
function headerText(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, "utf8").toString("base64")}?=`;
}

/** The request for one session's change. */
export function webhookRequest(hook: Webhook, body: WebhookBody): { headers: Record<string, string>; body: string } {
  if (!hook.ntfy) return { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const style = NTFY[body.state];
  const where = cleanLine(body.directory.split("/").filter(Boolean).at(-1) ?? body.directory, 60);
  const title = body.state === "test" ? "tongs-agents test notification" : `${body.agent} ${style.verb}: ${where}`;
  const message = [body.detail, `${body.directory} on ${body.host}`].filter((line) => line !== "").map((line) => cleanLine(line, 300));
  return {
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "X-Title": headerText(cleanLine(title, 120)),
      "X-Priority": style.priority,
      "X-Tags": [style.tag, "tongs-agents"].join(","),
      ...(hook.click ? { "X-Click": hook.click } : {}),
    },
    body: message.join("\n"),
  };
}

type PostOutcome = { ok: true; status: number } | { ok: false; detail: string; retry: boolean };

async function postOnce(
  fetcher: typeof fetch,
  hook: Webhook,
  request: { headers: Record<string, string>; body: string },
): Promise<PostOutcome> {
  try {
    const response = await fetcher(hook.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      redirect: "error", // a redirect could carry the body to a host the user never named
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return { ok: true, status: response.status };
    return { ok: false, detail: `HTTP ${response.status}`, retry: response.status === 429 || response.status >= 500 };
  } catch (error) {
    // Node's words name the cause (ECONNREFUSED, a timeout), never the URL's path: nothing secret reaches the log.
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const name = (error as Error).name;
    return { ok: false, detail: name === "TimeoutError" ? `no answer within ${WEBHOOK_TIMEOUT_MS} ms` : (cause ?? name), retry: true };
  }
}

/** One POST, tried once more after a failure that may pass. */
export async function post(fetcher: typeof fetch, hook: Webhook, body: WebhookBody): Promise<PostOutcome> {
  const request = webhookRequest(hook, body);
  const first = await postOnce(fetcher, hook, request);
  if (first.ok || !first.retry) return first;
  await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
  const second = await postOnce(fetcher, hook, request);
  return second.ok ? second : { ...second, detail: `${first.detail}, then ${second.detail}` };
}

function bodiesOf(notice: Notice): WebhookBody[] {
  const host = hostname();
  if (notice.sessions.length === 0)
    return [{ host, session: "", agent: "", state: "test", detail: notice.lines[0] ?? notice.title, directory: "" }];
  return notice.sessions
    .filter((session): session is NoticeSession & { facts: SessionFacts } => session.facts !== undefined)
    .map((session) => ({ host, session: session.id, ...session.facts }));
}

export const webhookChannel: NotifyChannel = {
  id: ID,
  async detect(_places, world): Promise<Detection> {
    const loaded = loadWebhooks(world.env);
    if (loaded.kind !== "ok") return { channel: ID, available: false, detail: loaded.detail };
    if (loaded.webhooks.length === 0)
      return { channel: ID, available: false, detail: "none configured (tongs-agents notify webhook add URL)" };
    const count = loaded.webhooks.length;
    return { channel: ID, available: true, detail: `${count} webhook${count === 1 ? "" : "s"} configured (listed above)` };
  },
  async deliver(notice, _places, world: NotifyWorld): Promise<Delivery> {
    const loaded = loadWebhooks(world.env);
    if (loaded.kind !== "ok") return { channel: ID, outcome: "failed", detail: loaded.detail };
    if (loaded.webhooks.length === 0) return { channel: ID, outcome: "unavailable", detail: "no webhook configured" };
    const fetcher = world.fetch ?? fetch;
    const bodies = bodiesOf(notice);
    const results = await Promise.all(
      loaded.webhooks.flatMap((hook) => bodies.map(async (body) => ({ hook, outcome: await post(fetcher, hook, body) }))),
    );
    const failed = results.filter((result) => !result.outcome.ok);
    const detail = results
      .map(({ hook, outcome }) => `${maskUrl(hook.url)} ${outcome.ok ? outcome.status : `failed (${outcome.detail})`}`)
      .join(", ");
    return { channel: ID, outcome: failed.length < results.length ? "delivered" : "failed", detail };
  },
};

export function describeWebhook(hook: Webhook, index = -1): string {
  return `${index >= 0 ? `${index + 1}. ` : ""}${maskUrl(hook.url)}${hook.ntfy ? " (ntfy)" : ""}`;
}
