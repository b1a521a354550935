// Bundle the two entry points. The hook is one self-contained file so it starts fast; its metafile is kept in .cache/
// for the test that proves its import graph stays small.
import { build } from "esbuild";
import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// proper-lockfile and its dependencies are CommonJS: give the ESM bundle a `require` for Node's built-ins.
const banner = { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' };
const common = { bundle: true, platform: "node", format: "esm", target: "node22", absWorkingDir: root, banner, metafile: true, logLevel: "warning", legalComments: "none" };

const entries = [
  { name: "hook", entryPoints: ["src/hook-main.ts"], outfile: "dist/hook.js", minify: true },
  { name: "cli", entryPoints: ["src/cli/main.ts"], outfile: "dist/cli.js", minify: false },
];

await mkdir(`${root}.cache`, { recursive: true });
await Promise.all(
  entries.map(async ({ name, ...options }) => {
    const result = await build({ ...common, ...options });
    await writeFile(`${root}.cache/${name}.meta.json`, JSON.stringify(result.metafile));
  }),
);
