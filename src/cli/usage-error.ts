/** A mistake in the command line itself: modctl prints the message and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}
