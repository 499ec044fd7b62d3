import { createContextKey } from "@connectrpc/connect";
import type { Caller } from "../accounts/account-store.js";

/** The authenticated caller, set by the auth interceptor; undefined on public methods. */
export const callerKey = createContextKey<Caller | undefined>(undefined, { description: "authenticated caller" });

/**
 * The JSON route's request body exactly as received (undefined on Connect/gRPC calls),
 * for interceptors that must bind their work to the caller's bytes (signing).
 */
export const rawJsonBodyKey = createContextKey<Uint8Array | undefined>(undefined, { description: "raw JSON request body" });

/** The protocol a call arrived on: "json" for POST /v1/moderate, else Connect's protocol name. */
export const transportKey = createContextKey<"json" | "connect" | "grpc" | "grpc-web">("connect", { description: "transport" });

/**
 * Which answer a JSON call sends: /v1/moderate's own rendering, or OpenAI's (POST /v1/moderations),
 * which its route renders from the answer message; only the first may be rendered ahead by a
 * compute worker.
 */
export const jsonDialectKey = createContextKey<"moderate" | "openai">("moderate", { description: "JSON answer dialect" });

/**
 * The canonical bytes of an RPC request message (canonicalMessageBytes), set by the signing
 * interceptor, which binds the answer's signature to them; compute workers that sign an
 * answer ahead bind it to the same bytes.
 */
export const canonicalRequestKey = createContextKey<Uint8Array | undefined>(undefined, { description: "canonical RPC request bytes" });

/**
 * The RPC request message as the body guard decoded it, after auth (src/rpc/guard-request-body.ts);
 * Connect itself parsed only an empty placeholder. decoded-request.ts hands it to the chain.
 */
export const decodedRequestKey = createContextKey<object | undefined>(undefined, { description: "request decoded by the body guard" });
