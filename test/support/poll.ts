/**
 * Polls `condition` until it holds or `timeoutMs` have passed, and says whether it held. For
 * waiting on what real servers, sockets and fakes do, capped by the clock rather than by a count of
 * tries: the suite runs in parallel on 2 cores, and a generous cap only lengthens a run that fails.
 */
export async function pollUntil(condition: () => boolean, timeoutMs = 10_000, intervalMs = 10): Promise<boolean> {
  for (const until = Date.now() + timeoutMs; !condition(); ) {
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return true;
}
