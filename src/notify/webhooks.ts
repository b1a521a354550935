// Webhooks the notifier posts to (`notify webhook add URL`): a URL with a token or an ntfy topic in it is a password,
// so the list lives apart from config.json (which people keep in dotfile repositories), in
// `$XDG_CONFIG_HOME/tongs-agents/webhooks.json`, mode 0600, and is never printed or logged whole: `maskUrl` shows the
// scheme and host and hides the rest.
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { configDir } from "../core/config-file.ts";
import { readJsonFile, writeFileAtomic } from "../store/records.ts";

/** More than anyone needs; each is a request per state change. */
export const MAX_WEBHOOKS = 8;
const MAX_URL_CHARS = 2048;

const WebhookSchema = z.strictObject({
  url: z.string().check(z.maxLength(MAX_URL_CHARS)),
  /**
   * An ntfy topic: the message as text, ntfy's headers for title, priority, tags and click. Left out of a hand-written
   * entry, what `notify webhook add` would say: an ntfy.sh topic URL is one (looksLikeNtfy).
   */
  ntfy: z.optional(z.boolean()),
  /** ntfy's click URL (opened when the phone's notification is tapped). */
  click: z.optional(z.string().check(z.maxLength(MAX_URL_CHARS))),
});
export type Webhook = Omit<z.infer<typeof WebhookSchema>, "ntfy"> & { readonly ntfy: boolean };

const WebhooksFileSchema = z.strictObject({ webhooks: z.array(WebhookSchema).check(z.maxLength(MAX_WEBHOOKS)) });

export type WebhooksLoad =
  | { readonly kind: "ok"; readonly path: string; readonly webhooks: readonly Webhook[] }
  | { readonly kind: "invalid"; readonly path: string; readonly detail: string };

export function webhooksPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), "webhooks.json");
}

/** The configured webhooks (none when there is no file); a file that does not fit is refused with the reason. */
export function loadWebhooks(env: NodeJS.ProcessEnv): WebhooksLoad {
  const path = webhooksPath(env);
  const file = readJsonFile(path, 64 * 1024);
  if (file.kind === "absent") return { kind: "ok", path, webhooks: [] };
  if (file.kind !== "json") return { kind: "invalid", path, detail: file.detail };
  const parsed = WebhooksFileSchema.safeParse(file.value);
  // Said without the values found: they may be the secret URLs.
  if (!parsed.success)
    return {
      kind: "invalid",
      path,
      detail: `${path}: not {"webhooks": [{"url": ..., "ntfy"?: true|false, "click"?: ...}], at most ${MAX_WEBHOOKS}}`,
    };
  for (const hook of parsed.data.webhooks) {
    const problem = checkUrl(hook.url) ?? (hook.click === undefined ? undefined : checkUrl(hook.click));
    if (problem) return { kind: "invalid", path, detail: `${path}: ${problem}` };
  }
  return { kind: "ok", path, webhooks: parsed.data.webhooks.map((hook) => ({ ...hook, ntfy: hook.ntfy ?? looksLikeNtfy(hook.url) })) };
}

/** Why `text` is not a URL we post to (http or https, no credentials in it, printable ASCII); undefined when it is. */
export function checkUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "not a URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `not an http or https URL (${url.protocol})`;
  if (!/^[\x21-\x7e]+$/.test(text)) return "a URL holds no spaces or control characters";
  return undefined;
}

/** `https://ntfy.sh/…`: the scheme and host (and port), never the path, query or credentials that make it secret. */
export function maskUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}/…`;
  } catch {
    return "(not a URL)";
  }
}

/** Is this an ntfy topic URL? ntfy.sh's own; a self-hosted server is said with `--ntfy`. */
export function looksLikeNtfy(text: string): boolean {
  try {
    const url = new URL(text);
    return url.hostname === "ntfy.sh" && /^\/[-_A-Za-z0-9]{1,64}$/.test(url.pathname);
  } catch {
    return false;
  }
}

function save(path: string, webhooks: readonly Webhook[]): { ok: true } | { ok: false; detail: string } {
  try {
    mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  } catch (error) {
    return { ok: false, detail: `${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  // 0600 on every write, fsync'd: the URLs are secrets, and settings must survive a power loss.
  const written = writeFileAtomic(path, `${JSON.stringify({ webhooks }, null, 2)}\n`, { maxBytes: 64 * 1024, mode: 0o600, sync: true });
  return written.ok ? { ok: true } : { ok: false, detail: written.detail };
}

export function addWebhook(env: NodeJS.ProcessEnv, hook: Webhook): { ok: true; index: number } | { ok: false; detail: string } {
  const problem = checkUrl(hook.url) ?? (hook.click === undefined ? undefined : checkUrl(hook.click));
  if (problem) return { ok: false, detail: problem };
  const loaded = loadWebhooks(env);
  if (loaded.kind !== "ok") return { ok: false, detail: `${loaded.detail}; fix or remove it first` };
  if (loaded.webhooks.some((existing) => existing.url === hook.url)) return { ok: false, detail: `${maskUrl(hook.url)} is already there` };
  if (loaded.webhooks.length >= MAX_WEBHOOKS) return { ok: false, detail: `at most ${MAX_WEBHOOKS} webhooks` };
  const saved = save(loaded.path, [...loaded.webhooks, hook]);
  return saved.ok ? { ok: true, index: loaded.webhooks.length + 1 } : saved;
}

/** Remove the webhook numbered `index` (from 1, as `notify` lists them). */
export function removeWebhook(env: NodeJS.ProcessEnv, index: number): { ok: true; removed: Webhook } | { ok: false; detail: string } {
  const loaded = loadWebhooks(env);
  if (loaded.kind !== "ok") return { ok: false, detail: loaded.detail };
  const removed = loaded.webhooks[index - 1];
  if (!removed) return { ok: false, detail: `there is no webhook ${index} (${loaded.webhooks.length} configured)` };
  const saved = save(
    loaded.path,
    loaded.webhooks.filter((_, at) => at !== index - 1),
  );
  return saved.ok ? { ok: true, removed } : saved;
}

/** The file's mode, when it is open to others (someone chmod'ed it): `notify` says so. */
export function openModeOf(path: string): string | undefined {
  try {
    const mode = statSync(path).mode & 0o777;
    return (mode & 0o077) === 0 ? undefined : mode.toString(8).padStart(4, "0");
  } catch {
    return undefined;
  }
}
