// Bundle the two entry points. The hook is one self-contained file so it starts fast; its metafile is kept in .cache/
// for the test that proves its import graph stays small.
import { build } from "esbuild";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// proper-lockfile and its dependencies are CommonJS: give the ESM bundle a `require` for Node's built-ins.
const banner = { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' };
// graceful-fs and signal-exit (under proper-lockfile) each cost the hook several milliseconds of start-up for cases it
// never meets (EMFILE storms; locks held at a signal). The hook bundle uses small stand-ins; each shim says why. (Only
// the hook: execa in the CLI depends on signal-exit 4, whose API differs.)
const hookAlias = { "graceful-fs": "./scripts/graceful-fs-shim.cjs", "signal-exit": "./scripts/signal-exit-shim.cjs" };
const { version } = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
const common = { define: { TONGS_AGENTS_VERSION: JSON.stringify(version) }, bundle: true, platform: "node", format: "esm", target: "node22", absWorkingDir: root, banner, metafile: true, logLevel: "warning", legalComments: "none" };

const entries = [
  // CommonJS: Node loads it measurably faster than an ES module, and the hook's start-up is its cost.
  { name: "hook", entryPoints: ["src/hook-main.ts"], outfile: "dist/hook.cjs", minify: true, format: "cjs", banner: {}, alias: hookAlias },
  // Split: the MCP server and the picker load only when their verb runs, so `list` and `status` start fast.
  // jsonc-parser's package "main" is a UMD wrapper whose requires esbuild cannot follow: bundle its ES module build.
  { name: "cli", entryPoints: ["src/cli/main.ts"], outdir: "dist/cli", splitting: true, chunkNames: "chunks/[name]-[hash]", minify: false, alias: { "jsonc-parser": "./node_modules/jsonc-parser/lib/esm/main.js" } },
];

await rm(`${root}dist`, { recursive: true, force: true });
await mkdir(`${root}.cache`, { recursive: true });
await Promise.all(
  entries.map(async ({ name, ...options }) => {
    const result = await build({ ...common, ...options });
    await writeFile(`${root}.cache/${name}.meta.json`, JSON.stringify(result.metafile));
  }),
);
