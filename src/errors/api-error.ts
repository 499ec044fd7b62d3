import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { create } from "@bufbuild/protobuf";
import { StorageUnavailableError, UnstorableTextError } from "../storage/storage-errors.js";

/**
 * Every error a caller can see, with its HTTP status and gRPC/Connect code.
 * This table is the single source of truth: the JSON route, the Connect
 * protocols and the README's error table all follow it.
 */
export const ERROR_CODES = {
  invalid_request: { http: 400, connect: Code.InvalidArgument },
  too_many_items: { http: 400, connect: Code.InvalidArgument },
  text_too_long: { http: 400, connect: Code.InvalidArgument },
  invalid_image: { http: 400, connect: Code.InvalidArgument },
  unsupported_image_type: { http: 415, connect: Code.InvalidArgument },
  remote_image_not_supported: { http: 400, connect: Code.InvalidArgument },
  image_too_large: { http: 413, connect: Code.InvalidArgument },
  missing_api_key: { http: 401, connect: Code.Unauthenticated },
  invalid_api_key: { http: 401, connect: Code.Unauthenticated },
  forbidden: { http: 403, connect: Code.PermissionDenied },
  not_found: { http: 404, connect: Code.NotFound },
  unknown_method: { http: 404, connect: Code.Unimplemented },
  email_taken: { http: 409, connect: Code.AlreadyExists },
  invalid_credentials: { http: 401, connect: Code.Unauthenticated },
  too_many_keys: { http: 409, connect: Code.FailedPrecondition },
  method_not_allowed: { http: 405, connect: Code.Unimplemented },
  unsupported_encoding: { http: 501, connect: Code.Unimplemented },
  payload_too_large: { http: 413, connect: Code.ResourceExhausted },
  unsupported_media_type: { http: 415, connect: Code.InvalidArgument },
  rate_limit_exceeded: { http: 429, connect: Code.ResourceExhausted },
  internal_error: { http: 500, connect: Code.Internal },
  deep_analysis_unavailable: { http: 503, connect: Code.Unavailable },
  deep_analysis_not_configured: { http: 501, connect: Code.FailedPrecondition },
  rate_limiter_unavailable: { http: 503, connect: Code.Unavailable },
  service_unavailable: { http: 503, connect: Code.Unavailable },
  provider_unavailable: { http: 503, connect: Code.Unavailable },
  provider_not_configured: { http: 501, connect: Code.FailedPrecondition },
  storage_unavailable: { http: 503, connect: Code.Unavailable },
  deadline_exceeded: { http: 504, connect: Code.DeadlineExceeded },
  request_timeout: { http: 408, connect: Code.DeadlineExceeded },
  invalid_policy: { http: 400, connect: Code.InvalidArgument },
  policy_unknown_category: { http: 400, connect: Code.InvalidArgument },
  policy_invalid_threshold: { http: 400, connect: Code.InvalidArgument },
  policy_list_too_large: { http: 400, connect: Code.InvalidArgument },
  policy_term_invalid: { http: 400, connect: Code.InvalidArgument },
} as const satisfies Record<string, { http: number; connect: Code }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Metadata key that carries the stable error code on every protocol. */
export const ERROR_CODE_HEADER = "x-error-code";

/**
 * Which part of the caller's input a refusal is about, set where the refusal is made, so that a
 * form can mark the input holding it (the dashboard's policy page) without reading the message:
 * rewording a message changes nothing. Internal: no answer carries it (JSON, Connect and gRPC
 * send the code and the message).
 */
export interface ErrorDetail {
  /** The request's field as the JSON API names it ("thresholds", "block_list", "allow_list"), or a dashboard form's ("text"). */
  readonly field: string;
  /** The category a threshold refusal is about. */
  readonly category?: string;
  /** The end of the message that speaks only to RPC callers; a form (the dashboard) leaves it out. */
  readonly rpcRemark?: string;
}

/**
 * An error meant for the caller. `message` is sent as-is, so it must never hold
 * internals; put those in `cause`, which is logged and never sent.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  /** Extra response headers / gRPC metadata (e.g. Retry-After). */
  readonly headers: Record<string, string>;
  /** The part of the input refused, when the refusal names one (ErrorDetail); never sent. */
  declare readonly detail?: ErrorDetail;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; headers?: Record<string, string>; detail?: ErrorDetail } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.headers = options.headers ?? {};
    // Not enumerable: nothing that spreads or serialises an error's own fields picks it up.
    if (options.detail) Object.defineProperty(this, "detail", { value: options.detail, enumerable: false });
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}

/** The ConnectError a Connect/gRPC caller receives for an ApiError: code in details and metadata. */
export function toConnectError(error: ApiError): ConnectError {
  const metadata = new Headers(error.headers);
  metadata.set(ERROR_CODE_HEADER, error.code);
  return new ConnectError(
    wellFormed(error.message),
    ERROR_CODES[error.code].connect,
    metadata,
    [{ desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { code: error.code }) }],
    error.cause,
  );
}

/**
 * The message with lone surrogates replaced by U+FFFD. A message may quote the caller's input, and
 * gRPC percent-encodes grpc-message with encodeURIComponent, which throws on a lone surrogate: the
 * refusal would never be sent.
 */
function wellFormed(message: string): string {
  return /[\ud800-\udfff]/.test(message) ? message.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd") : message;
}

/**
 * A caller's identifier as an error message quotes it: JSON-escaped (a control character shows as
 * its escape) and cut to 64 characters, so a 100,000-character key id is not echoed in full.
 */
export function quotedId(id: string): string {
  return JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id);
}

/** Turns anything thrown into an ApiError; unknown errors become a bare internal_error. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ConnectError) {
    const code = error.metadata.get(ERROR_CODE_HEADER);
    if (code && isErrorCode(code)) return new ApiError(code, error.rawMessage, { cause: error });
  }
  if (error instanceof StorageUnavailableError) {
    return new ApiError("storage_unavailable", "The service's database is unavailable; retry shortly.", {
      cause: error, headers: { "retry-after": String(error.retryAfterSeconds) },
    });
  }
  if (error instanceof UnstorableTextError) {
    return new ApiError("invalid_request", "The request holds a NUL character (U+0000), which is not accepted here.", { cause: error });
  }
  return new ApiError("internal_error", "The server failed to process the request.", { cause: error });
}
