import { setTimeout as delay } from "node:timers/promises";

export interface WaitForOptions {
  /** What is awaited, named in the error when the deadline passes. */
  what: string;
  /** Deadline; a state that never comes fails the test instead of hanging it. */
  timeoutMs?: number;
  /** Pause between checks, so a poll of the server leaves it time to make progress. */
  intervalMs?: number;
}

/**
 * Resolves as soon as `check` returns true; rejects naming `what` once `timeoutMs` has passed. For states the
 * code reports but announces no event for (a slot held, a version landed): tests wait on them, never on a delay.
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  { what, timeoutMs = 30_000, intervalMs = 20 }: WaitForOptions,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (performance.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(intervalMs);
  }
}
