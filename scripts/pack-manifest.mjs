// The package.json that ships has no `prepare` script. A checkout needs it (`npm ci` builds dist/ through it), but in
// a published manifest npm 11 counts it as an install script and warns every user who installs the package ("install
// scripts not yet covered by allowScripts"), and npm 12 blocks it; the tarball already holds the built dist/.
// `prepack` (after the build) runs `strip`: package.json loses `prepare`, its exact bytes are kept in
// .cache/package.json.prepack; `postpack` runs `restore`. A backup left by a pack that died is restored first.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Scripts that only make sense in a checkout: the build, and these pack steps (scripts/ is not shipped). */
const CHECKOUT_ONLY = ["prepare", "prepack", "postpack"];

/** The manifest text to pack: the same JSON without the checkout-only scripts (2-space indent, final newline). */
export function packedManifest(text) {
  const manifest = JSON.parse(text);
  for (const name of CHECKOUT_ONLY) delete manifest.scripts?.[name];
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

export function restore(root) {
  const backup = join(root, ".cache", "package.json.prepack");
  if (!existsSync(backup)) return false;
  renameSync(backup, join(root, "package.json"));
  return true;
}

export function strip(root) {
  restore(root);
  const path = join(root, "package.json");
  const text = readFileSync(path, "utf8");
  mkdirSync(join(root, ".cache"), { recursive: true });
  writeFileSync(join(root, ".cache", "package.json.prepack"), text);
  // Replaced whole (a rename), never truncated in place: a test run beside a pack may read package.json at any moment.
  writeFileSync(`${path}.packing`, packedManifest(text));
  renameSync(`${path}.packing`, path);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, root = process.cwd()] = process.argv.slice(2);
  if (mode === "strip") strip(root);
  else if (mode === "restore") restore(root);
  else {
    process.stderr.write("usage: node scripts/pack-manifest.mjs strip|restore [package dir]\n");
    process.exit(2);
  }
}
