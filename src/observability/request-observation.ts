import { randomUUID } from "node:crypto";
import { createContextKey } from "@connectrpc/connect";
import type { FastifyRequest } from "fastify";

/** The `protocol` label of the request metrics and the request log line. */
export type Protocol = "json" | "connect" | "grpc" | "grpc-web" | "http";

/**
 * What the request log and the request metrics need to know about one request, filled in as it
 * goes: the route layer names the protocol, the interceptor chain the account and error code.
 */
export class RequestObservation {
  protocol: Protocol = "http";
  errorCode: string | undefined = undefined;
  accountId: string | undefined = undefined;
  /** The matched route's URL, noted by the route's own hook (request-hooks.ts); undefined until then. */
  route: string | undefined = undefined;

  constructor(
    readonly requestId: string,
    /** performance.now() when the request was routed. */
    readonly started: number,
  ) {}
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the onRequest hook of registerRequestObservation; null before it runs. */
    observation: RequestObservation | null;
  }
}

/** The request's observation, for the interceptor chain (set by the Connect plugin's contextValues and the JSON routes' invoker). */
export const observationKey = createContextKey<RequestObservation | undefined>(undefined, { description: "request observation" });

/** The response header (and gRPC response metadata) that carries the request id. */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * A caller's X-Request-Id is kept when it is a plausible id (letters, digits and . _ : - only,
 * at most 128 characters), so it can be followed through a proxy's logs; anything else (too
 * long, spaces, control or non-ASCII characters that could forge log lines) is replaced.
 */
const WELL_FORMED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === "string" && WELL_FORMED_ID.test(header) ? header : randomUUID();
}

/** Names the protocol of a request the route layer recognised, and returns its observation. */
export function observeAs(request: FastifyRequest, protocol: Protocol): RequestObservation | undefined {
  const observation = request.observation;
  if (observation) observation.protocol = protocol;
  return observation ?? undefined;
}

/** Records the API error code of an answer sent outside the interceptor chain (404, 405, framework errors). */
export function noteErrorCode(request: FastifyRequest, code: string): void {
  if (request.observation) request.observation.errorCode = code;
}
