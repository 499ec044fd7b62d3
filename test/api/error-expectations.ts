import { expect } from "vitest";
import type { Outcome, Protocol } from "../support/protocol-clients.js";

/** gRPC / Connect status codes, written out so the tests do not trust the code under test. */
export const GRPC = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAUTHENTICATED: 16,
} as const;

/** The spec's error table: stable code → HTTP status on the JSON route, gRPC code elsewhere. */
export const EXPECTED_ERRORS = {
  invalid_request: { http: 400, grpc: GRPC.INVALID_ARGUMENT },
  too_many_items: { http: 400, grpc: GRPC.INVALID_ARGUMENT },
  text_too_long: { http: 400, grpc: GRPC.INVALID_ARGUMENT },
  invalid_image: { http: 400, grpc: GRPC.INVALID_ARGUMENT },
  image_too_large: { http: 413, grpc: GRPC.INVALID_ARGUMENT },
  missing_api_key: { http: 401, grpc: GRPC.UNAUTHENTICATED },
  invalid_api_key: { http: 401, grpc: GRPC.UNAUTHENTICATED },
  not_found: { http: 404, grpc: GRPC.NOT_FOUND },
  method_not_allowed: { http: 405, grpc: GRPC.UNIMPLEMENTED },
  payload_too_large: { http: 413, grpc: GRPC.RESOURCE_EXHAUSTED },
  unsupported_media_type: { http: 415, grpc: GRPC.INVALID_ARGUMENT },
  internal_error: { http: 500, grpc: GRPC.INTERNAL },
} as const;

export type ExpectedCode = keyof typeof EXPECTED_ERRORS;

/**
 * Asserts a failed call: stable code, the status the table gives it on this protocol, a message
 * that says what is wrong, and (on the RPC protocols) the code repeated in x-error-code metadata.
 */
export function expectApiError(outcome: Outcome, protocol: Protocol, code: ExpectedCode, message: RegExp): void {
  if (outcome.ok) throw new Error(`expected ${code} over ${protocol}, got a success: ${JSON.stringify(outcome.body).slice(0, 300)}`);
  const status = protocol === "json" ? EXPECTED_ERRORS[code].http : EXPECTED_ERRORS[code].grpc;
  expect({ code: outcome.code, status: outcome.status }).toEqual({ code, status });
  // The same words on every protocol: grpc-js included (see src/edge/grpc-message-encoding.ts).
  expect(outcome.message).toMatch(message);
  if (protocol !== "json") expect(outcome.headers["x-error-code"]).toBe(code);
}

/**
 * Decodes every %XX escape of a grpc-message, as the gRPC spec asks receivers to. The server
 * now writes grpc-message so that grpc-js's decodeURI reads it correctly, so this is only a
 * tolerance for other clients; kept for the suites that import it (test/images).
 */
export function decodeGrpcMessage(message: string): string {
  try {
    return decodeURIComponent(message);
  } catch {
    return message;
  }
}

/** A real 16×16 PNG, as a data URI: valid for any image pipeline. */
export const PNG_DATA_URI =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAGUlEQVQokWM4UaFBEmIY1VAxGkonhmvSAAADaGgQExd+HAAAAABJRU5ErkJggg==";
