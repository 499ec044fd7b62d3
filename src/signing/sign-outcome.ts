import { toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import { ERROR_CODE_HEADER } from "../errors/api-error.js";
import { sortMapsInPlace } from "./canonical-message.js";
import { signHttpResponse, type HttpSignatureHeaders } from "./http-signature.js";
import { signRpcOutcome } from "./rpc-signature.js";
import type { SignatureScope } from "./scope.js";
import type { Signer } from "./signer.js";

/**
 * The one place that decides how an outcome of the API (an answer or an error, on any protocol)
 * is signed. Every path that answers a caller calls it: the JSON routes (src/http/send-json.ts),
 * the signing interceptor, the RPC body guard and refusals (src/rpc/), and the compute workers
 * that sign answers ahead. Pure: bytes and a key in, signature headers or metadata out; nothing
 * here imports fastify or node:http, so a worker thread can load it.
 *
 * INVARIANT: nothing changes an answer after it is signed. The signature covers exact bytes
 * (the JSON text sent; the canonical message bytes of an RPC answer; the error message), so
 *  - a JSON answer is sent as the very text signed here (`SignedJson.json`, written verbatim);
 *  - an RPC answer has its maps sorted here, in place, and is then only serialized: no
 *    interceptor outside signing and no edge code may replace or edit the message;
 *  - an RPC error's message and code are final when signed (the gRPC trailer re-encoding in
 *    src/edge/ changes only the percent-encoding, not the message a client decodes);
 *  - a signature made ahead (src/signing/signed-ahead.ts) is used only for the very message it
 *    was made for, so an interceptor that replaces an answer gets the replacement signed here.
 * test/signing/signed-as-received.test.ts checks it end to end: on every protocol, success and
 * error, the signature verifies over the bytes a real client received, with the JWKS key.
 */

/** The Content-Type every signed JSON answer is sent with; the signature covers it verbatim. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** A JSON answer (POST /v1/moderate, /v1/moderations, usage, their errors and 405s). */
export interface JsonOutcome {
  kind: "json";
  status: number;
  /** The body exactly as it will be sent. */
  json: string;
  /** The request body bytes as received; undefined when it was never read (bound to "no body"). */
  requestBody: Uint8Array | undefined;
  nowMs: number;
  /** The route and caller (scope.ts); undefined only for an answer of no API route. */
  scope: SignatureScope | undefined;
}

/** A successful gRPC / gRPC-Web / Connect answer; its maps are sorted in place before signing. */
export interface RpcAnswerOutcome<Desc extends DescMessage = DescMessage> {
  kind: "rpc-answer";
  schema: Desc;
  message: MessageShape<Desc>;
  /** Canonical bytes of the request message (canonicalMessageBytes); empty when none was decoded. */
  requestBytes: Uint8Array;
  nowMs: number;
  scope: SignatureScope | undefined;
}

/** A gRPC / gRPC-Web / Connect error, as the caller will receive it. */
export interface RpcErrorOutcome {
  kind: "rpc-error";
  /** gRPC status code (1-16). */
  code: number;
  /** The error message as sent (ConnectError.rawMessage). */
  message: string;
  /** The stable x-error-code, when the error has one. */
  errorCode?: string | undefined;
  requestBytes: Uint8Array;
  nowMs: number;
  scope: SignatureScope | undefined;
}

/**
 * A JSON answer as signed: its text, whose UTF-8 bytes (`byteLength` of them) the signature
 * covers, and the signature headers. The text, not the bytes, travels on: Node writes a string
 * body with the response head in one piece, and a string crosses threads in one copy. Node's
 * UTF-8 encoder makes the same bytes every time.
 */
export interface SignedJson {
  json: string;
  byteLength: number;
  headers: HttpSignatureHeaders;
}

/** Signature metadata of an RPC outcome, lower-case names (response headers, or error metadata). */
export type RpcSignatureMetadata = Record<string, string>;

export function signOutcome(signer: Signer, outcome: JsonOutcome): Promise<SignedJson>;
export function signOutcome(signer: Signer, outcome: RpcAnswerOutcome | RpcErrorOutcome): Promise<RpcSignatureMetadata>;
export async function signOutcome(signer: Signer, outcome: JsonOutcome | RpcAnswerOutcome | RpcErrorOutcome): Promise<SignedJson | RpcSignatureMetadata> {
  const created = Math.floor(outcome.nowMs / 1000);
  switch (outcome.kind) {
    case "json": {
      // RFC 9421 over @status, the Content-Type and the digests of both bodies (docs/signing.md).
      const body = Buffer.from(outcome.json, "utf8");
      const headers = await signHttpResponse(signer, {
        status: outcome.status,
        contentType: JSON_CONTENT_TYPE,
        body,
        requestBody: outcome.requestBody ?? new Uint8Array(),
        created,
        scope: outcome.scope,
      });
      return { json: outcome.json, byteLength: body.byteLength, headers };
    }
    case "rpc-answer": {
      // Sorted in place, so the bytes gRPC and Connect+proto put on the wire are the canonical bytes signed.
      const message = sortMapsInPlace(outcome.schema, outcome.message);
      const messageBytes = toBinary(outcome.schema, message, { writeUnknownFields: false });
      return signRpcOutcome(signer, { requestBytes: outcome.requestBytes, outcome: { ok: true, messageBytes }, created, scope: outcome.scope });
    }
    case "rpc-error": {
      const { code, message, errorCode } = outcome;
      return signRpcOutcome(signer, {
        requestBytes: outcome.requestBytes,
        outcome: { ok: false, code, message, ...(errorCode === undefined ? {} : { errorCode }) },
        created,
        scope: outcome.scope,
      });
    }
  }
}

/**
 * Signs a ConnectError as its caller will receive it and adds the signature to its metadata
 * (Connect callers read it as headers, gRPC and gRPC-Web callers as trailers). Returns the error.
 */
export async function signConnectError(signer: Signer, error: ConnectError, binding: { requestBytes: Uint8Array; nowMs: number; scope: SignatureScope | undefined }): Promise<ConnectError> {
  const metadata = await signOutcome(signer, {
    kind: "rpc-error",
    code: error.code,
    message: error.rawMessage,
    errorCode: error.metadata.get(ERROR_CODE_HEADER) ?? undefined,
    ...binding,
  });
  for (const [name, value] of Object.entries(metadata)) error.metadata.set(name, value);
  return error;
}
