import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
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
// the folders a layer must not reach; imports are matched on their (relative) specifiers. With import-x/no-cycle below,
// no file can import upward or close a circle.
const nodeProtocol = {
  regex: "^(fs|path|os|child_process|crypto|util|net|stream|events|url|module|process|tty|readline|assert|buffer|timers)(/.*)?$",
  message: "Use the node: protocol.",
};
const ADAPTERS = "cli|mcp|picker";
/** Every folder of src/ above the store and the install engine. */
const SERVICES = "hook|fleet|focus|answer|hosts|notify|server";
const boundary = (files, forbidden, why) => ({
  files,
  ignores: ["**/*.test.ts"],
  rules: { "no-restricted-imports": ["error", { patterns: [nodeProtocol, { regex: forbidden, message: why }] }] },
});
const BOUNDARIES = [
  boundary(
    ["src/core/**/*.ts"],
    `(^|/)(store|install|harnesses|${SERVICES}|${ADAPTERS})/|backends/`,
    "The core imports nothing but the core.",
  ),
  boundary(["src/store/**/*.ts"], `(^|/)(install|harnesses|${SERVICES}|${ADAPTERS})/|backends/`, "The store builds on the core only."),
  boundary(
    ["src/install/**/*.ts"],
    `(^|/)(harnesses|${SERVICES}|${ADAPTERS})/|backends/`,
    "The install engine knows harnesses only through the provider contract.",
  ),
  boundary(
    ["src/harnesses/*.ts"],
    `(^|/)(${SERVICES}|${ADAPTERS})/|backends/`,
    "The harness registry builds on the core and the install engine; everything above reads it.",
  ),
  boundary(
    ["src/harnesses/*/**/*.ts"],
    `^\\.\\./(?!contract\\.ts|\\.\\./)|(^|/)(store|${SERVICES}|${ADAPTERS})/|backends/`,
    "A harness adapter imports the core, the harness contract and the install engine only.",
  ),
  boundary(
    ["src/hook/**/*.ts"],
    `(^|/)(install|fleet|focus|hosts|notify|server|${ADAPTERS})/|backends/(?!tmux/refresh\\.ts)|harnesses/[a-z-]+/(?!harness\\.ts)`,
    "The hook imports the core, the store and the harness registry only (and the drainer the tmux status redraw): its start-up is every agent's cost.",
  ),
  boundary(
    ["src/fleet/**/*.ts"],
    `(^|/)(install|hook|focus|hosts|notify|server|${ADAPTERS})/|backends/|harnesses/[a-z-]+/`,
    "The fleet reads the store; it knows harnesses through the registry.",
  ),
  boundary(["backends/**/*.ts"], `(^|/)src/(?!core/)`, "A backend imports the backend contract, the core and other backends only."),
  boundary(
    ["src/focus/**/*.ts"],
    `(^|/)(install|harnesses|hook|hosts|notify|server|${ADAPTERS})/`,
    "The focus service uses the fleet and the backends.",
  ),
  boundary(
    ["src/answer/**/*.ts"],
    `(^|/)(install|hook|focus|hosts|notify|server|${ADAPTERS})/|harnesses/[a-z-]+/`,
    "Answering a dialog reads the fleet and asks the backend that owns the pane; adapters show it.",
  ),
  boundary(
    ["src/hosts/**/*.ts"],
    `(^|/)(hook|notify|server|${ADAPTERS})/|backends/|harnesses/[a-z-]+/`,
    "Remote hosts build on the fleet, the focus service and the config file; adapters show them.",
  ),
  boundary(
    ["src/notify/**/*.ts"],
    `(^|/)(hosts|server|${ADAPTERS})/|hook/(?!debug-log\\.ts)|harnesses/[a-z-]+/`,
    "The notifier builds on the store, the registry, the focus and answer services and the backends; the hook starts it, never imports it.",
  ),
  boundary(
    ["src/server/**/*.ts"],
    `(^|/)(install|harnesses|hook|fleet|focus|hosts|notify|${ADAPTERS})/|backends/`,
    "The keypress server runs whatever verb runner it is given; its client is loaded by every served key.",
  ),
  boundary(["src/picker/**/*.ts"], `(^|/)(install|hook|notify|server|cli|mcp)/`, "The picker is an adapter the CLI runs; it knows no CLI."),
  boundary(
    ["src/mcp/**/*.ts"],
    `(^|/)(cli|picker|answer)/`,
    "The MCP server is an adapter of its own, and only a person answers an agent: no MCP tool reaches src/answer/.",
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
    // One writer for the terminal: a verb prints through its io (src/cli/io.ts `verbIo`, which makes every text safe,
    // src/core/terminal-text.ts), never to the process's streams; the hook must never print. Only the entry points that
    // hand the writer its channels touch them: the CLI's, the served client's relay, and the MCP server's stdio.
    files: ["src/**/*.ts", "backends/**/*.ts"],
    ignores: ["**/*.test.ts", "src/cli/main.ts", "src/cli/client.ts", "src/mcp/stdio.ts"],
    rules: {
      "no-console": "error",
      "no-restricted-properties": [
        "error",
        ...["stdout", "stderr"].map((property) => ({
          object: "process",
          property,
          message: "Print through the verb's io (src/cli/io.ts): it makes the text safe for the terminal.",
        })),
      ],
    },
  },
  ...BOUNDARIES,
  {
    // No two modules import each other, through any chain (a dynamic import counts: it is an arrow of the build too).
    // Together with the boundaries above, a layer can neither reach up nor close a circle inside itself.
    files: ["src/**/*.ts", "backends/**/*.ts"],
    ignores: ["**/*.test.ts"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".js"] })],
      // The modules it follows are TypeScript: parse them as the linter does.
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
);
