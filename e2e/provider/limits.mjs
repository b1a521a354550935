// Each API's own answer to a request past a limit, and the quota headers it sends with ordinary answers, so a harness
// reacts as it would to the real service (shapes as the services document them and as the CLIs were seen to read them:
// ../shared facts "limits"; docs/limits.md):
// - Anthropic Messages: 429 `rate_limit_error`, with `retry-after` and the unified rate-limit headers of a subscription
//   (`anthropic-ratelimit-unified-status: rejected`, its reset in epoch seconds, the window that ran out: `five_hour`);
//   ordinary answers carry the same headers with `allowed` and each window's utilization (0 to 1).
// - OpenAI Responses (Codex): 429 `usage_limit_reached` with `resets_at` and `resets_in_seconds`, and Codex's window
//   headers (`x-codex-primary-*` for the 5-hour window, `x-codex-secondary-*` for the weekly one); QUOTAHIT gives
//   `insufficient_quota` instead (an API key out of credit: no reset). Ordinary answers carry the window headers.
// - OpenAI Chat Completions: 429 `rate_limit_exceeded` with `retry-after` (what OpenAI-compatible providers send).
// - Gemini API: 429 `RESOURCE_EXHAUSTED` with a `QuotaFailure` (a per-day quota) and a `RetryInfo`.

/**
 * The quota a provider reports: how much of each window is used (percent) and when each resets (epoch seconds).
 * `retryAfter` (seconds), when set, is the `retry-after` of a limit's answer instead of the time to the reset.
 * @typedef {{ primaryUsedPercent: number, secondaryUsedPercent: number, primaryResetAt: number, secondaryResetAt: number, retryAfter?: number }} Quota
 */

/** The quota used when a test does not set one: the 5-hour window at 100% once a limit is hit, 40% of the week. */
export function defaultQuota(now = Date.now()) {
  const seconds = Math.floor(now / 1000);
  return { primaryUsedPercent: 42, secondaryUsedPercent: 40, primaryResetAt: seconds + 3600, secondaryResetAt: seconds + 3600 + 86400 };
}

/** Headers every answer carries, in the API's dialect (none where the API sends none). */
export function quotaHeaders(api, quota, { rejected = false } = {}) {
  const used = rejected ? 100 : quota.primaryUsedPercent;
  if (api === "anthropic-messages")
    return {
      "anthropic-ratelimit-unified-status": rejected ? "rejected" : "allowed",
      "anthropic-ratelimit-unified-reset": String(quota.primaryResetAt),
      "anthropic-ratelimit-unified-representative-claim": "five_hour",
      "anthropic-ratelimit-unified-5h-status": rejected ? "rejected" : "allowed",
      "anthropic-ratelimit-unified-5h-reset": String(quota.primaryResetAt),
      "anthropic-ratelimit-unified-5h-utilization": String(used / 100),
      "anthropic-ratelimit-unified-7d-status": "allowed",
      "anthropic-ratelimit-unified-7d-reset": String(quota.secondaryResetAt),
      "anthropic-ratelimit-unified-7d-utilization": String(quota.secondaryUsedPercent / 100),
    };
  if (api === "openai-responses")
    return {
      "x-codex-primary-used-percent": String(used),
      "x-codex-primary-window-minutes": "300",
      "x-codex-primary-reset-at": String(quota.primaryResetAt),
      "x-codex-secondary-used-percent": String(quota.secondaryUsedPercent),
      "x-codex-secondary-window-minutes": "10080",
      "x-codex-secondary-reset-at": String(quota.secondaryResetAt),
    };
  return {};
}

/**
 * The answer to a request past a limit: status, body, headers. `kind` is `limit` (LIMITHIT) or `quota` (QUOTAHIT:
 * OpenAI's `insufficient_quota`; elsewhere the same as `limit`).
 */
export function limitAnswer(api, kind, quota) {
  // What a service sends: the time to the reset. A test whose harness retries 429s by it may shorten it (`retryAfter`).
  const retryAfter = String(quota.retryAfter ?? Math.max(1, quota.primaryResetAt - Math.floor(Date.now() / 1000)));
  const headers = { "retry-after": retryAfter, ...quotaHeaders(api, quota, { rejected: true }) };
  switch (api) {
    case "anthropic-messages":
      return {
        status: 429,
        headers: { ...headers, "request-id": "req_synthetic_limit" },
        body: {
          type: "error",
          error: { type: "rate_limit_error", message: "This request would exceed your account's rate limit. Please try again later." },
        },
      };
    case "openai-responses":
      return kind === "quota"
        ? {
            status: 429,
            headers: { "retry-after": retryAfter },
            body: {
              error: {
                message: "You exceeded your current quota, please check your plan and billing details.",
                type: "insufficient_quota",
                param: null,
                code: "insufficient_quota",
              },
            },
          }
        : {
            status: 429,
            headers,
            body: {
              error: {
                type: "usage_limit_reached",
                message: "The usage limit has been reached",
                plan_type: "plus",
                resets_at: quota.primaryResetAt,
                resets_in_seconds: Number(retryAfter),
              },
            },
          };
    case "gemini-generate":
      return {
        status: 429,
        headers: {},
        body: {
          error: {
            code: 429,
            message: "Resource has been exhausted (e.g. check quota).",
            status: "RESOURCE_EXHAUSTED",
            details: [
              {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                violations: [
                  {
                    quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                    quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                  },
                ],
              },
              { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfter}s` },
            ],
          },
        },
      };
    default:
      return {
        status: 429,
        headers: { "retry-after": retryAfter },
        body: {
          error: {
            message: "Rate limit reached for requests. Please try again later.",
            type: "requests",
            param: null,
            code: "rate_limit_exceeded",
          },
        },
      };
  }
}
