/** Why one attempt at a provider failed; decides whether to retry and what the caller is told. */
type ProviderFailure =
  /** No answer within the attempt's time limit. */
  | "timeout"
  /** Connection refused, reset, DNS... */
  | "network"
  /** The provider answered with a non-2xx status. */
  | "http"
  /** The answer was not a valid chat completion or not a valid verdict. */
  | "malformed"
  /** The model declined to judge the image. */
  | "refused";

export class ProviderError extends Error {
  override name = "ProviderError";
  readonly kind: ProviderFailure;
  readonly retryable: boolean;
  readonly status: number | undefined;
  /** From a Retry-After header, when the provider sent one. */
  readonly retryAfterMs: number | undefined;
  /**
   * The provider answered a well-formed completion, and the input decided the failure: a refusal,
   * or a verdict that does not parse (prose, often what text inside an image asked for). The
   * provider is up, so its circuit does not count it (provider-guard.ts).
   */
  readonly answered: boolean;

  constructor(
    kind: ProviderFailure,
    message: string,
    options: { retryable: boolean; status?: number; retryAfterMs?: number; answered?: boolean; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.retryable = options.retryable;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.answered = options.answered ?? kind === "refused";
  }
}
