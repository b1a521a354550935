// The package version, injected by the bundler (scripts/build.mjs); "dev" when running from source.
declare const TONGS_AGENTS_VERSION: string | undefined;

export const VERSION: string = typeof TONGS_AGENTS_VERSION === "string" ? TONGS_AGENTS_VERSION : "dev";

// A digest of the sources the bundle was built from (scripts/build.mjs): two builds of one version number (a git
// checkout, `npm i github:...`) differ in it when their code does. "dev" when running from source.
declare const TONGS_AGENTS_BUILD: string | undefined;

export const BUILD: string = typeof TONGS_AGENTS_BUILD === "string" ? TONGS_AGENTS_BUILD : "dev";
