// The plan a provider makes, the report of carrying it out, and what doctor finds: plain data, printed by the CLI
// (human or --json).
import type { McpState } from "./mcp-entry.ts";

/** A registered harness's id (src/harnesses/registry.ts): the engine carries it, and never looks inside it. */
export type HarnessId = string;

export type Step =
  /** Replace a file's content (before null: create it). */
  | {
      readonly kind: "write";
      readonly path: string;
      readonly before: string | null;
      readonly after: string;
      readonly why: readonly string[];
    }
  /** Remove a file that holds exactly `before`. */
  | { readonly kind: "delete"; readonly path: string; readonly before: string; readonly why: readonly string[] }
  /** Run a harness's own command. `tolerate` matches output that still counts as success (e.g. already removed). */
  | { readonly kind: "run"; readonly argv: readonly string[]; readonly why: string; readonly tolerate?: RegExp }
  /**
   * After a harness's own command removed our entry from a JSON file: remove these top-level keys if that left them
   * an empty object or list (`claude mcp remove` leaves `"mcpServers": {}`, `pi remove` leaves `"packages": []`), and
   * the file too when install created it (`deleteIfEmpty`) and nothing else is left in it. Read when it runs, since
   * the command has rewritten the file by then.
   */
  | {
      readonly kind: "drop-empty";
      readonly path: string;
      readonly keys: readonly string[];
      readonly deleteIfEmpty?: boolean;
      readonly why: readonly string[];
    };

export type Severity = "error" | "conflict" | "warning" | "note";

export interface Finding {
  readonly severity: Severity;
  readonly message: string;
}

export interface HarnessPlan {
  readonly harness: HarnessId;
  readonly steps: readonly Step[];
  readonly findings: readonly Finding[];
  /** What the user still has to do once the steps are done. */
  readonly todo: readonly string[];
  /** Config files the harness's own commands (run steps) may create, besides the paths of the file steps. */
  readonly files?: readonly string[];
}

export type StepStatus = "planned" | "done" | "failed" | "not-run";

export interface StepReport {
  readonly kind: Step["kind"];
  readonly status: StepStatus;
  /** File steps: the path, a diff-like listing and why. Run steps: the command line. */
  readonly path?: string;
  readonly change?: "create" | "modify" | "delete";
  readonly diff?: readonly string[];
  readonly command?: readonly string[];
  readonly why: readonly string[];
  readonly detail?: string;
}

export interface HarnessReport {
  readonly harness: HarnessId;
  /** False when a step failed or something needs the user (an error or a conflict). */
  readonly ok: boolean;
  readonly changed: boolean;
  readonly steps: readonly StepReport[];
  readonly findings: readonly Finding[];
  readonly todo: readonly string[];
}

export interface InstallReport {
  readonly action: "install" | "uninstall";
  readonly dry_run: boolean;
  readonly ok: boolean;
  readonly harnesses: readonly HarnessReport[];
  /** Uninstall: directories install had made for its files, removed once empty. */
  readonly removed_directories?: readonly string[];
}

export const error = (message: string): Finding => ({ severity: "error", message });
export const conflict = (message: string): Finding => ({ severity: "conflict", message });
export const warning = (message: string): Finding => ({ severity: "warning", message });
export const note = (message: string): Finding => ({ severity: "note", message });

/** A plan's findings block it when they are errors or conflicts (the steps still run: they touch only what is ours). */
export function isBlocking(finding: Finding): boolean {
  return finding.severity === "error" || finding.severity === "conflict";
}

export type HookStatus = "current" | "outdated" | "modified" | "missing";

export interface HookCheck {
  readonly event: string;
  readonly alias: string;
  readonly status: HookStatus;
  readonly trust?: "trusted" | "untrusted" | "modified" | "disabled";
}

export interface HarnessDoctor {
  readonly harness: HarnessId;
  readonly binary: string | null;
  readonly version: string | null;
  readonly hooks: readonly HookCheck[];
  readonly mcp: McpState | "unknown" | "n/a";
  /** Pi: whether our bridge package is installed and recorded. */
  readonly bridge?: "installed" | "missing" | "outdated" | "unowned";
  readonly problems: readonly string[];
  readonly legacy: readonly string[];
  readonly todo: readonly string[];
  readonly ok: boolean;
}

export interface DoctorReport {
  readonly node: { readonly path: string; readonly version: string; readonly ok: boolean };
  readonly package_root: string;
  readonly harnesses: readonly HarnessDoctor[];
  readonly ok: boolean;
}
