/**
 * Polls `condition` until it holds or `timeoutMs` have passed, and says whether it held. For
 * waiting on what real servers, sockets and fakes do, capped by the clock rather than by a count of
 * tries: the suite runs in parallel on 2 cores, and a generous cap only lengthens a run that fails.
 */
export async function pollUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, intervalMs = 10): Promise<boolean> {
  for (const until = Date.now() + timeoutMs; !(await condition()); ) {
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return true;
}

/** pollUntil, failing the test with `what` it waited for when the time runs out. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000, intervalMs = 20): Promise<void> {
  if (!(await pollUntil(condition, timeoutMs, intervalMs))) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
