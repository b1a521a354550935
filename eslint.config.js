import js from "@eslint/js";
import tseslint from "typescript-eslint";

const nodeGlobals = Object.fromEntries(
  [
    "process",
    "console",
    "setTimeout",
    "clearTimeout",
    "setInterval",
    "clearInterval",
    "setImmediate",
    "clearImmediate",
    "Buffer",
    "URL",
    "AbortController",
    "AbortSignal",
    "TextEncoder",
    "TextDecoder",
    "structuredClone",
    "queueMicrotask",
    "performance",
  ].map((name) => [name, "readonly"]),
);

// The node: protocol everywhere, and the import boundaries between the layers (docs/architecture.md). Each rule names
// the folders a layer must not reach; imports are matched on their (relative) specifiers.
const nodeProtocol = {
  regex: "^(fs|path|os|child_process|crypto|util|net|stream|events|url|module|process|tty|readline|assert|buffer|timers)(/.*)?$",
  message: "Use the node: protocol.",
};
const ADAPTERS = "cli|mcp|picker";
const boundary = (files, forbidden, why) => ({
  files,
  ignores: ["**/*.test.ts"],
  rules: { "no-restricted-imports": ["error", { patterns: [nodeProtocol, { regex: forbidden, message: why }] }] },
});
const BOUNDARIES = [
  boundary(
    ["src/core/**/*.ts"],
    `(^|/)(store|hook|fleet|focus|harnesses|install|${ADAPTERS})/|backends/`,
    "The core imports nothing but the core.",
  ),
  boundary(["src/store/**/*.ts"], `(^|/)(hook|fleet|focus|harnesses|install|${ADAPTERS})/|backends/`, "The store builds on the core only."),
  boundary(
    ["src/hook/**/*.ts"],
    `(^|/)(fleet|focus|install|${ADAPTERS})/|backends/|harnesses/[a-z-]+/(?!harness\\.ts)`,
    "The hook imports the core, the store and the harness registry only: its start-up is every agent's cost.",
  ),
  boundary(["backends/**/*.ts"], `(^|/)src/(?!core/)`, "A backend imports the backend contract, the core and other backends only."),
  boundary(
    ["src/harnesses/*/**/*.ts"],
    `^\\.\\./(?!contract\\.ts|\\.\\./)|(^|/)(store|hook|fleet|focus|${ADAPTERS})/|backends/`,
    "A harness adapter imports the core, the harness contract and the install engine only.",
  ),
  boundary(
    ["src/fleet/**/*.ts"],
    `(^|/)(hook|focus|install|${ADAPTERS})/|backends/|harnesses/[a-z-]+/`,
    "The fleet reads the store; it knows harnesses through the registry.",
  ),
  boundary(
    ["src/install/**/*.ts"],
    `(^|/)(hook|fleet|focus|harnesses|${ADAPTERS})/|backends/`,
    "The install engine knows harnesses only through the provider contract.",
  ),
  boundary(
    ["src/hosts/**/*.ts"],
    `(^|/)(hook|${ADAPTERS})/|backends/|harnesses/[a-z-]+/`,
    "Remote hosts build on the fleet, the focus service and the config file; adapters show them.",
  ),
  boundary(["src/focus/**/*.ts"], `(^|/)(hook|install|${ADAPTERS})/|harnesses/`, "The focus service uses the fleet and the backends."),
  boundary(
    ["src/server/**/*.ts"],
    `(^|/)(hook|fleet|focus|harnesses|install|hosts|${ADAPTERS})/|backends/`,
    "The keypress server runs whatever verb runner it is given; its client is loaded by every served key.",
  ),
];

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", ".cache/", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: nodeGlobals },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "no-restricted-imports": ["error", { patterns: [nodeProtocol] }],
    },
  },
  {
    files: ["**/*.ts"],
    ignores: ["vitest.config.ts"], // vitest requires a default export
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: "ExportDefaultDeclaration", message: "Use named exports." },
        { selector: "ExportAllDeclaration", message: "Use explicit named exports." },
      ],
    },
  },
  {
    files: ["**/*.cjs", "bin/tongs-agents.js"], // bin/package.json makes bin/ CommonJS
    languageOptions: { sourceType: "commonjs", globals: { ...nodeGlobals, require: "readonly", module: "writable" } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // Only the CLI layer talks to the terminal; the hook must never print.
    files: ["src/**/*.ts", "backends/**/*.ts"],
    ignores: ["src/cli/**", "**/*.test.ts"],
    rules: { "no-console": "error" },
  },
  ...BOUNDARIES,
);
