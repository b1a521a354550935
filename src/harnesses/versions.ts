// Version drift: is the installed harness a version our hooks were proven on (its `provenVersions`, the pinned versions
// of the live suites)? Read from what `<binary> --version` printed (doctor runs it); never a network check. Hook
// formats drift between releases: a renamed event or payload field turns a state the harness states into one we no
// longer see.
import type { Harness } from "./contract.ts";

export type VersionCheck =
  | { readonly status: "proven"; readonly version: string; readonly proven_on: readonly string[] }
  | { readonly status: "unproven"; readonly version: string; readonly proven_on: readonly string[]; readonly meaning: string }
  | { readonly status: "unknown"; readonly proven_on: readonly string[]; readonly meaning: string };

/** The first x.y.z (with a pre-release tag, if any) in a `--version` line: `2.1.332 (Claude Code)`, `codex-cli 0.171.0`. */
const VERSION = /(?:^|[^\d.])(\d+\.\d+\.\d+(?:-[0-9A-Za-z][0-9A-Za-z.-]*)?)(?![\d.]*\d)/;

export function versionNumber(printed: string): string | undefined {
  return VERSION.exec(printed)?.[1];
}

/** What doctor says of `printed` (the first line `--version` printed), for an installed harness. */
export function checkVersion(harness: Harness, printed: string | null): VersionCheck {
  const provenOn = harness.provenVersions;
  const proven = provenOn.join(", ");
  const version = printed === null ? undefined : versionNumber(printed);
  if (version === undefined)
    return {
      status: "unknown",
      proven_on: provenOn,
      meaning: `its version could not be read, so whether our hooks were proven on it (${proven}) is not known`,
    };
  if (provenOn.includes(version)) return { status: "proven", version, proven_on: provenOn };
  return {
    status: "unproven",
    version,
    proven_on: provenOn,
    meaning:
      `our hooks were proven on ${harness.displayName} ${proven}, not ${version}: if this release renamed an event or a payload ` +
      "field, the state it stands for is no longer seen and a record keeps its last state instead (not a wrong one); " +
      "`tongs-agents explain <session>` shows which events arrived",
  };
}
