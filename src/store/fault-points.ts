// Named points of a record write, where the adversarial suite stops or kills a writer (test/adversarial/stalled-writers):
// with the lock taken, after the record was read, with the temp file written, right before the rename, and after the
// rename but before the applied entries are dequeued. A no-op unless a test sets a hook in the writer's own process.
export type FaultPoint = "locked" | "read" | "temp-written" | "before-rename" | "written";

let hook: ((point: FaultPoint) => void) | undefined;

export function setFaultHook(next: ((point: FaultPoint) => void) | undefined): void {
  hook = next;
}

export function faultPoint(point: FaultPoint): void {
  hook?.(point);
}
