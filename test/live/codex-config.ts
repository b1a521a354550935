// Codex's config.toml as the live tests write it: the synthetic provider (OpenAI Responses) as its model provider, no
// retries (what the provider answers shows at once), no update check or analytics, the project trusted (no trust
// question), and the test's own top-level settings.
export function codexConfigToml(providerUrl: string, project: string, settings: readonly string[] = []): string {
  return [
    'model = "fake-model"',
    'model_provider = "fake"',
    "check_for_update_on_startup = false",
    ...settings,
    "",
    "[model_providers.fake]",
    'name = "fake"',
    `base_url = "${providerUrl}/v1"`,
    'env_key = "FAKE_OPENAI_API_KEY"',
    'wire_api = "responses"',
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
    "[analytics]",
    "enabled = false",
    "",
    `[projects."${project}"]`,
    'trust_level = "trusted"',
    "",
  ].join("\n");
}
