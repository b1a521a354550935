// Puts the stateful fakes (wezterm, osascript, xdotool) first on PATH for a test, with their state in a temp dir.
// Everything proven through them is MOCKED evidence: it shows what tongs-agents sends and how it reads the answers,
// against a model of the real program built from upstream source and docs, not the program itself.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";

export type FakeProgram = "wezterm" | "osascript" | "xdotool" | "terminal-notifier";

export interface FakeCall {
  readonly program: FakeProgram;
  readonly argv: string[];
  readonly env: Record<string, string>;
}

export interface Fakes {
  readonly bin: string;
  readonly stateDir: string;
  /** Environment with the fakes first on PATH; `base` is the rest of the environment. */
  env(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  set(program: FakeProgram, state: unknown): void;
  state<T>(program: FakeProgram): T;
  calls(): FakeCall[];
}

const FAKES_DIR = resolve(import.meta.dirname);

export function installFakes(root: string, programs: readonly FakeProgram[] = ["wezterm", "osascript", "xdotool"]): Fakes {
  const bin = join(root, "fake-bin");
  const stateDir = join(root, "fake-state");
  mkdirSync(bin, { recursive: true });
  mkdirSync(stateDir, { recursive: true });
  for (const program of programs) {
    const wrapper = join(bin, program);
    writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${join(FAKES_DIR, `${program}.mjs`)}' "$@"\n`);
    chmodSync(wrapper, 0o755);
  }
  const callsFile = join(stateDir, "calls.jsonl");
  return {
    bin,
    stateDir,
    env: (base) => ({ ...base, PATH: `${bin}${delimiter}${base.PATH ?? ""}`, TONGS_FAKE_STATE: stateDir }),
    set: (program, state) => writeFileSync(join(stateDir, `${program}.json`), `${JSON.stringify(state, null, 2)}\n`),
    state: <T>(program: FakeProgram) => JSON.parse(readFileSync(join(stateDir, `${program}.json`), "utf8")) as T,
    calls: () =>
      existsSync(callsFile)
        ? readFileSync(callsFile, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line) as FakeCall)
        : [],
  };
}
