// The hook's time budgets, shared by the synchronous hook (main.ts) and the drainer (drainer.ts), which applies the
// shim's events.

/**
 * Budgets (docs/contract.md, "Fail-open"). The harness writes the event and closes stdin at once; waiting longer for
 * it only happens when the machine is overloaded, and then a late event is worth more than a dropped one, so the input
 * has its own bound: whatever was read by then is used (hook-input.ts says what a cut payload still gives). From the
 * moment the input is read, the work (scan, lock, write) has WORK_BOUND_MS. Node's own start-up is not ours to bound:
 * under heavy CPU contention it alone can take longer than a second.
 */
export const INPUT_BOUND_MS = 2000;
export const SCAN_BOUND_MS = 150;
/** A harness told by its node script (Gemini CLI, Qwen Code) has its ancestors' arguments read on every event. */
export const SCRIPT_SCAN_BOUND_MS = 400;
export const LOCK_BOUND_MS = 650;
export const WORK_BOUND_MS = 900;
