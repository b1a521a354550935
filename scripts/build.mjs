// Bundle the entry points. The hook is one self-contained file so it starts fast; its metafile is kept in .cache/
// for the test that proves its import graph stays small. The MCP server is its own bundle: the SDK imports classic zod,
// whose locales (360 KB) would otherwise land in the chunk every verb loads.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// Every bundle is CommonJS: Node loads a CommonJS file without its ES module loader, and `require` of a built-in
// costs nothing like an ES module's facade of it (an ESM bundle also hoists every built-in import of a lazily loaded
// module to the top). `import()` becomes `require` (dynamic-import unsupported), `import.meta` is mapped to the file.
const banner = { js: 'var __import_meta_url = require("node:url").pathToFileURL(__filename).href;' };
const importMeta = { "import.meta.url": "__import_meta_url", "import.meta.dirname": "__dirname" };
// graceful-fs and signal-exit (under proper-lockfile) each cost the hook several milliseconds of start-up for cases it
// never meets (EMFILE storms; locks held at a signal). The hook bundle uses small stand-ins; each shim says why. (Only
// the hook: execa in the CLI depends on signal-exit 4, whose API differs.)
const hookAlias = { "graceful-fs": "./scripts/graceful-fs-shim.cjs", "signal-exit": "./scripts/signal-exit-shim.cjs" };
const { version } = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
// TONGS_AGENTS_BUILD (src/core/version.ts): a digest of every source file that can reach a bundle, and of the shell
// client, which speaks to the server this build is (it reads the build from dist/build).
const sources = (
  await Promise.all(
    ["src", "backends"].map(async (dir) => (await readdir(`${root}${dir}`, { recursive: true })).map((name) => `${dir}/${name}`)),
  )
)
  .flat()
  .filter((path) => path.endsWith(".ts") && !path.endsWith(".test.ts"))
  .concat("bin/tongs-agents-key.sh")
  .sort();
const digest = createHash("sha256");
for (const path of sources)
  digest
    .update(`${path}\0`)
    .update(await readFile(`${root}${path}`))
    .update("\0");
const buildId = digest.digest("hex").slice(0, 16);
const identity = { TONGS_AGENTS_VERSION: JSON.stringify(version), TONGS_AGENTS_BUILD: JSON.stringify(buildId) };
const common = {
  define: { ...identity, ...importMeta },
  bundle: true,
  platform: "node",
  format: "cjs",
  supported: { "dynamic-import": false },
  target: "node22",
  absWorkingDir: root,
  banner,
  metafile: true,
  logLevel: "warning",
  legalComments: "none",
};

// The CLI is a small dispatcher (dist/cli/main.cjs) and one self-contained bundle per verb (dist/cli/verbs/<verb>.cjs),
// loaded on demand. Not esbuild's code splitting: across shared chunks it stopped tree-shaking zod's locales (360 KB
// loaded by every verb); a verb bundle carries only what that verb uses.
// The verbs and their modules are declared in src/cli/verbs.json (a test ties it to run.ts's table); a lazily imported
// module that is not declared there fails the build instead of silently landing in the dispatcher.
const verbs = JSON.parse(await readFile(new URL("../src/cli/verbs.json", import.meta.url), "utf8"));
const verbModules = [...new Set(Object.values(verbs))];
// `verbsDir` is where the verb bundles are, seen from the bundle being built: the dispatcher's (dist/cli/) or a verb's
// own (dist/cli/verbs/; the keypress server, `serve`, runs verbs through the dispatcher that loaded it).
const verbsApart = (verbsDir) => ({
  name: "verbs-apart",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\/[a-z-]+\.ts$/ }, (args) => {
      if (!args.importer.endsWith("src/cli/run.ts") || args.kind !== "dynamic-import") return undefined;
      const module = args.path.slice(2, -3);
      if (!verbModules.includes(module))
        return { errors: [{ text: `src/cli/run.ts loads ${args.path}, which src/cli/verbs.json does not declare` }] };
      return { path: `${verbsDir}${module}.cjs`, external: true };
    });
    // The MCP server is its own bundle too (dist/mcp/stdio.cjs, two levels up from dist/cli/verbs/).
    pluginBuild.onResolve({ filter: /^\.\.\/mcp\/stdio\.ts$/ }, () => ({ path: "../../mcp/stdio.cjs", external: true }));
  },
});

// The picker's first screen needs neither focus nor the preview (every backend) nor prune (the record lock) nor the SSH
// hosts (read after that screen; their focus carries every backend too): each is its own bundle (dist/cli/lazy/),
// required when Enter, Ctrl-T, Ctrl-X or Ctrl-R is pressed or the hosts are asked. What the picker prints of a focus across hosts that did not
// complete comes from the focus verb's own bundle.
const lazyBundles = {
  "../focus/service.ts": "focus",
  "../focus/preview.ts": "preview",
  "../store/prune.ts": "prune",
  "./pick-hosts.ts": "pick-hosts",
  "../answer/service.ts": "answer",
};
const pickerApart = {
  name: "picker-apart",
  setup(pluginBuild) {
    pluginBuild.onResolve(
      { filter: /^(\.\.\/focus\/(service|preview)|\.\.\/store\/prune|\.\.\/answer\/service|\.\/pick-hosts|\.\/focus)\.ts$/ },
      (args) => {
        if (!args.importer.endsWith("src/cli/pick.ts") || args.kind !== "dynamic-import") return undefined;
        return { path: args.path === "./focus.ts" ? "./focus.cjs" : `../lazy/${lazyBundles[args.path]}.cjs`, external: true };
      },
    );
  },
};

// What readers write back (a fact the harness stated, src/fleet/stated.ts) goes through the store transaction and the
// record lock (proper-lockfile, graceful-fs: ~15 ms of start-up). Readers rarely have such a fact, so for the verbs and
// the lazy bundles the transaction is a bundle of its own (dist/cli/lazy/transaction.cjs), required when one is found.
// (From dist/cli/verbs/ and dist/cli/lazy/ alike, `../lazy/` is that folder.)
const storeApart = {
  name: "store-apart",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.\/store\/transaction\.ts$/ }, (args) =>
      args.importer.endsWith("src/fleet/stated.ts") && args.kind === "dynamic-import"
        ? { path: "../lazy/transaction.cjs", external: true }
        : undefined,
    );
  },
};

const entries = [
  // The hook: its start-up is its cost, so it is minified and uses the stand-ins above.
  // No banner (nothing in it reads import.meta), so no import.meta mapping either.
  {
    name: "hook",
    entryPoints: ["src/hook/main.ts"],
    outfile: "dist/hook.cjs",
    minify: true,
    banner: {},
    define: identity,
    alias: hookAlias,
  },
  // The drainer the hook shim (bin/tongs-agents-hook.sh) starts on demand: the same pipeline, built the same way.
  {
    name: "hook-drainer",
    entryPoints: ["src/hook/drainer-main.ts"],
    outfile: "dist/hook-drainer.cjs",
    minify: true,
    banner: {},
    define: { ...identity, "import.meta.dirname": "__dirname" },
    alias: hookAlias,
  },
  // The optional status-line wrapper (`install --claude-statusline`): Claude Code runs it on every status-line update.
  {
    name: "statusline",
    entryPoints: ["src/hook/statusline-main.ts"],
    outfile: "dist/statusline.cjs",
    minify: true,
    banner: {},
    define: { ...identity, "import.meta.dirname": "__dirname" },
    alias: hookAlias,
  },
  // Claude Code's held PermissionRequest hook (the hook's bin requires it for the alias permission-hold).
  {
    name: "claude-hold",
    entryPoints: ["src/hook/claude-hold-main.ts"],
    outfile: "dist/claude-hold.cjs",
    minify: true,
    banner: {},
    define: identity,
    alias: hookAlias,
  },
  { name: "cli", entryPoints: ["src/cli/main.ts"], outfile: "dist/cli/main.cjs", plugins: [verbsApart("./verbs/")] },
  // What the bin loads first: hands a served verb to the keypress server, else loads main.cjs. Kept small.
  { name: "client", entryPoints: ["src/cli/client.ts"], outfile: "dist/cli/client.cjs" },
  // jsonc-parser's package "main" is a UMD wrapper whose requires esbuild cannot follow: bundle its ES module build.
  {
    name: "verbs",
    entryPoints: verbModules.map((verb) => ({ in: `src/cli/${verb}.ts`, out: verb })),
    outdir: "dist/cli/verbs",
    outExtension: { ".js": ".cjs" },
    alias: { "jsonc-parser": "./node_modules/jsonc-parser/lib/esm/main.js" },
    plugins: [verbsApart("./"), pickerApart, storeApart],
  },
  {
    name: "lazy",
    entryPoints: [
      ...Object.entries(lazyBundles).map(([path, out]) => ({
        in: path.startsWith("./") ? `src/cli/${path.slice(2)}` : `src/${path.slice(3)}`,
        out,
      })),
      { in: "src/store/transaction.ts", out: "transaction" },
    ],
    outdir: "dist/cli/lazy",
    outExtension: { ".js": ".cjs" },
    plugins: [storeApart],
  },
  { name: "mcp", entryPoints: ["src/mcp/stdio.ts"], outfile: "dist/mcp/stdio.cjs" },
  // The notifier the hook starts detached on a state change (src/hook/notify-trigger.ts looks for it beside dist/hook.cjs).
  { name: "notify", entryPoints: ["src/notify/main.ts"], outfile: "dist/notify.cjs" },
];

// A build whose inputs are those of the dist/ already there is skipped: every source and data file under src/ and
// backends/, the lockfile and manifest (the bundled dependencies, the version), this script and its shims. So the
// test runs and `npm pack` that build again find dist/ current and leave it alone, which lets two test runs share one
// checkout (scripts/test.sh runs the live and container suites side by side). Delete dist/ to force a build.
const inputs = createHash("sha256").update(buildId);
const inputFiles = (
  await Promise.all(
    ["src", "backends"].map(async (dir) =>
      (await readdir(`${root}${dir}`, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => `${(entry.parentPath ?? entry.path).slice(root.length)}/${entry.name}`),
    ),
  )
)
  .flat()
  .concat(["package.json", "package-lock.json", "scripts/build.mjs", ...Object.values(hookAlias).map((path) => path.slice(2))])
  .sort();
for (const path of inputFiles)
  inputs
    .update(`${path}\0`)
    .update(await readFile(`${root}${path}`))
    .update("\0");
const inputsDigest = inputs.digest("hex");
const inputsFile = `${root}.cache/build-inputs`;
const current = await Promise.all([readFile(inputsFile, "utf8"), readFile(`${root}dist/build`, "utf8")]).then(
  ([digest, built]) => digest === inputsDigest && built === `${buildId}\n`,
  () => false,
);
if (current) process.exit(0);

await rm(inputsFile, { force: true });
await rm(`${root}dist`, { recursive: true, force: true });
await mkdir(`${root}.cache`, { recursive: true });
await Promise.all(
  entries.map(async ({ name, ...options }) => {
    const result = await build({ ...common, ...options });
    await writeFile(`${root}.cache/${name}.meta.json`, JSON.stringify(result.metafile));
  }),
);
await writeFile(`${root}dist/build`, `${buildId}\n`);
await writeFile(inputsFile, inputsDigest);
