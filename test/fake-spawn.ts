// A stand-in for child_process.spawn that records each hook process and lets the test decide when it exits.
import { EventEmitter } from "node:events";

export interface FakeChild {
  readonly command: string;
  readonly args: string[];
  readonly options: Record<string, unknown>;
  /** What was written to stdin, parsed. */
  payload: Record<string, unknown> | undefined;
  killedWith: string | undefined;
  exited: boolean;
  exit(code?: number): void;
  fail(error?: Error): void;
}

export function fakeSpawn({ autoExit = false }: { autoExit?: boolean } = {}) {
  const children: FakeChild[] = [];
  const waiters: Array<() => void> = [];
  let running = 0;
  let maxRunning = 0;
  const spawn = (command: string, args: string[], options: Record<string, unknown>) => {
    const events = new EventEmitter();
    const child: FakeChild = {
      command,
      args,
      options,
      payload: undefined,
      killedWith: undefined,
      exited: false,
      exit(code = 0) {
        if (child.exited) return;
        child.exited = true;
        running -= 1;
        events.emit("exit", code, null);
      },
      fail(error = new Error("spawn ENOENT")) {
        if (child.exited) return;
        child.exited = true;
        running -= 1;
        events.emit("error", error);
      },
    };
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    children.push(child);
    for (const wake of waiters.splice(0)) wake();
    return {
      stdin: {
        on: () => undefined,
        end: (data: string) => {
          child.payload = JSON.parse(data) as Record<string, unknown>;
          if (autoExit) setImmediate(() => child.exit(0));
        },
      },
      on: (event: string, listener: (...args: unknown[]) => void) => events.on(event, listener),
      kill: (signal: string) => {
        child.killedWith = signal;
        setImmediate(() => child.exit(1));
        return true;
      },
    };
  };
  return {
    spawn,
    children,
    get maxRunning() {
      return maxRunning;
    },
    /** Resolves once at least `count` hook processes have been started. */
    async started(count: number): Promise<FakeChild[]> {
      while (children.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return children;
    },
  };
}
