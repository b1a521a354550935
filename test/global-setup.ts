import { execFileSync } from "node:child_process";

/** Build dist/ once per run: process-level tests execute the same bundles users install. */
export function setup(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
