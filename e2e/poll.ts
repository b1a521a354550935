// How the container suites wait: look, and look again after a pause that grows. Each look is at least one
// `podman exec` (a capture of a pane, a read of the record history), and an exec costs about 0.15 CPU-seconds on this
// machine kind (Podman's API service, runc, and the cleanup process conmon starts for each exec session), which two
// suites side by side pay out of the same two cores as the agents they wait for. Most states come within a second, so
// the first looks are 100 ms apart; a long wait (an agent CLI starting, a model turn) looks at most once a second.
// The timeout bounds a hang; it never measures speed.

/** The pause after look number `attempt` (0-based): 100 ms, growing by half each time, at most 1 s. */
export function pollDelay(attempt: number): number {
  return Math.min(1000, Math.round(100 * 1.5 ** attempt));
}

/**
 * Look with `check` until it gives a value other than undefined (or false), and return it; a look that throws ends the
 * wait with its error. After `timeoutMs`, throws with `what` and `explain()`'s text.
 */
export async function pollUntil<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  { timeoutMs = 60_000, explain }: { timeoutMs?: number; explain?: (() => Promise<string>) | undefined } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      const explained = explain ? await explain().catch((error: unknown) => String(error)) : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${explained ? `:\n${explained}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollDelay(attempt)));
  }
}
