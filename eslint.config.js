import js from "@eslint/js";
import tseslint from "typescript-eslint";

const nodeGlobals = Object.fromEntries(
  ["process", "console", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate", "Buffer", "URL", "AbortController", "AbortSignal", "TextEncoder", "TextDecoder", "structuredClone", "queueMicrotask", "performance"].map((name) => [name, "readonly"]),
);

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", ".cache/", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: nodeGlobals },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(fs|path|os|child_process|crypto|util|net|stream|events|url|module|process|tty|readline|assert|buffer|timers)(/.*)?$",
              message: "Use the node: protocol.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.ts"],
    ignores: ["vitest.config.ts"], // vitest requires a default export
    rules: {
      "no-restricted-syntax": ["error", { selector: "ExportDefaultDeclaration", message: "Use named exports." }, { selector: "ExportAllDeclaration", message: "Use explicit named exports." }],
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
);
