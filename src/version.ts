// The package version, injected by the bundler (scripts/build.mjs); "dev" when running from source.
declare const TONGS_AGENTS_VERSION: string | undefined;

export const VERSION: string = typeof TONGS_AGENTS_VERSION === "string" ? TONGS_AGENTS_VERSION : "dev";
