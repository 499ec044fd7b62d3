import { fromBinary, fromJsonString, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../base/json-depth.js";
import { charsetOf, isUtf8OrUnset, mediaTypeOf } from "../base/media-type.js";
import { decodeStrictUtf8 } from "../base/strict-utf8.js";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { explainRefusedConnectJson, explainRefusedJsonSyntax } from "../moderation/json-request.js";
import { NOT_UTF8_MESSAGE } from "../moderation/json-syntax.js";
import { BytesAfterCompressedData, RPC_CODINGS, type RpcCoding } from "./compressions.js";

/** How a unary RPC body is laid out: gRPC and gRPC-Web wrap the message in an envelope. */
export interface BodyFormat {
  enveloped: boolean;
  json: boolean;
}

const FORMATS: Record<string, BodyFormat> = {
  "application/proto": { enveloped: false, json: false },
  "application/json": { enveloped: false, json: true },
  "application/grpc": { enveloped: true, json: false },
  "application/grpc+proto": { enveloped: true, json: false },
  "application/grpc+json": { enveloped: true, json: true },
  "application/grpc-web": { enveloped: true, json: false },
  "application/grpc-web+proto": { enveloped: true, json: false },
  "application/grpc-web+json": { enveloped: true, json: true },
};

/** Connect's streaming content types (Health.Watch, reflection over Connect): not decoded by the guard, only named canonically. */
const CONNECT_STREAMING = new Set(["application/connect+json", "application/connect+proto"]);

/** The unary body format of a content type; undefined for one Connect refuses itself. */
export function bodyFormat(contentType: string | null): BodyFormat | undefined {
  const media = mediaTypeOf(contentType);
  return Object.hasOwn(FORMATS, media) ? FORMATS[media] : undefined;
}

/** The codings a request body may use, by name (a Map: "constructor" or "__proto__" names none). */
const CODINGS: ReadonlyMap<string, RpcCoding> = new Map(RPC_CODINGS.map((coding) => [coding.name, coding]));

/** The compressions a request body may use, as announced in a refusal: compressions.ts's, in its order, as Connect has them. */
export const SUPPORTED_ENCODINGS: readonly string[] = RPC_CODINGS.map((coding) => coding.name);

/** The compression a body is sent with, as Connect reads it: undefined for none. */
export function bodyEncoding(header: Headers, format: BodyFormat): string | undefined {
  const name = header.get(encodingHeader(format))?.trim().toLowerCase();
  return name === undefined || name === "" || name === "identity" ? undefined : name;
}

/**
 * The headers with the body's compression named as Connect compares it (lower case, no
 * "identity"): content codings are case-insensitive (RFC 9110 8.4.1), but Connect looks the
 * name up exactly, and answered "GZIP" with a bare UNIMPLEMENTED.
 */
export function withCanonicalEncoding(header: Headers, format: BodyFormat): Headers {
  const name = encodingHeader(format);
  const raw = header.get(name);
  if (raw === null) return header;
  const canonical = bodyEncoding(header, format);
  if (raw === canonical) return header;
  const copy = new Headers(header);
  if (canonical === undefined) copy.delete(name);
  else copy.set(name, canonical);
  return copy;
}

/**
 * The headers with a known Content-Type (unary, or Connect streaming) as Connect compares it: the
 * media type alone when its parameters say nothing but UTF-8. Connect matches the header by pattern and answered 415 to
 * `application/json; charset="utf-8"` (quoted, as RFC 9110 allows), `application/json ; charset=utf-8`
 * or another parameter, which the JSON routes accept; another charset is left for Connect to refuse.
 */
export function withCanonicalContentType(header: Headers): Headers {
  const raw = header.get("content-type");
  const media = mediaTypeOf(raw);
  if (raw === null || raw === media || !(Object.hasOwn(FORMATS, media) || CONNECT_STREAMING.has(media))) return header;
  const charset = charsetOf(raw);
  if (!isUtf8OrUnset(charset)) return header;
  const copy = new Headers(header);
  copy.set("content-type", media);
  return copy;
}

/** The header naming a body's compression: grpc-encoding for an enveloped (gRPC, gRPC-Web) body, Content-Encoding for Connect's unary one. */
export const encodingHeader = (format: BodyFormat): string => (format.enveloped ? "grpc-encoding" : "content-encoding");

/**
 * Whether Connect accepts this request compression (else it refuses the call before reading the
 * body). Names in the table only: with `in` on an object, "constructor" and "__proto__" passed as
 * encodings and reached Connect, which refused them in its own words, unsigned and without the
 * service's error code.
 */
export function isSupportedEncoding(encoding: string | undefined): boolean {
  return encoding === undefined || CODINGS.has(encoding);
}

/** The message bytes of a body, still compressed when `compressed`; or why the framing is wrong. */
type Unwrapped = { ok: true; bytes: Uint8Array; compressed: boolean } | { ok: false; reason: string };

/**
 * Takes the one message out of a unary body. An enveloped body is one length-prefixed message:
 * flags (bit 0: compressed with grpc-encoding), 4-byte big-endian length, the bytes; anything
 * after it is refused (Connect answered trailing bytes with a bare UNIMPLEMENTED).
 */
export function unwrapMessage(body: Uint8Array, format: BodyFormat, encoding: string | undefined): Unwrapped {
  if (!format.enveloped) return { ok: true, bytes: body, compressed: encoding !== undefined };
  if (body.byteLength < 5) return { ok: false, reason: body.byteLength === 0 ? "the body holds no gRPC message" : "the body is shorter than a gRPC message envelope" };
  const length = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1, false);
  if (body.byteLength < 5 + length) return { ok: false, reason: "the body ends inside its gRPC message" };
  if (body.byteLength > 5 + length) return { ok: false, reason: `${body.byteLength - 5 - length} bytes follow the message, and a unary call takes exactly one` };
  // 0 or 1 (compressed) only: gRPC-Web's 0x80 marks a trailer frame, which only a response has.
  if (body[0]! > 1) return { ok: false, reason: `the message's flags byte is 0x${body[0]!.toString(16).padStart(2, "0")}; a request message has 0x00 or 0x01 (compressed)` };
  const flagged = body[0] === 1;
  if (flagged && encoding === undefined) return { ok: false, reason: "the message is flagged compressed, but grpc-encoding names no compression" };
  return { ok: true, bytes: body.subarray(5), compressed: flagged };
}

/** A message's bytes once inflated; or why not: too large (`inflatedPast`: the limit it passed, below `limit` when the ratio cap applied), or not valid compressed data. */
type Inflated = { ok: true; bytes: Uint8Array } | { ok: false; tooLarge: true; inflatedPast: number } | { ok: false; tooLarge: false; reason: string };

/**
 * How far a compressed message may inflate: within `limit`, and past MIN_INFLATE_CAP no more
 * than MAX_INFLATION_RATIO times its compressed size. No real request comes near it (text-only
 * requests stay under 1 MiB whatever they compress to, and images, base64 of JPEG, PNG, WebP or
 * GIF, hardly compress), while a bomb (60 MB of zeros is 106 bytes of brotli) stops early:
 * a caller with a key, which anyone can sign up for, cannot make a replica inflate 70 MB per call.
 */
export const MAX_INFLATION_RATIO = 100;
const MIN_INFLATE_CAP = 1024 * 1024;

function inflateCap(compressedBytes: number, limit: number): number {
  return Math.min(limit, Math.max(MIN_INFLATE_CAP, compressedBytes * MAX_INFLATION_RATIO));
}

/**
 * Inflates one request message (`encoding` undefined: it came uncompressed) within `limit` bytes
 * and the ratio cap, as Connect would (the body guard does it in Connect's place, once, after auth:
 * guard-request-body.ts).
 */
export async function inflateMessage(message: Uint8Array, encoding: string | undefined, limit: number): Promise<Inflated> {
  let bytes = message;
  if (encoding !== undefined && bytes.byteLength > 0) {
    const cap = inflateCap(bytes.byteLength, limit);
    try {
      // Node's inflaters stop soon after passing maxOutputLength (compressions.ts RpcCoding.inflate).
      bytes = await CODINGS.get(encoding)!.inflate(bytes, { maxOutputLength: cap });
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") return { ok: false, tooLarge: true, inflatedPast: cap };
      // Bytes after the compressed data are refused as bytes after a unary call's one message are.
      const after = error instanceof BytesAfterCompressedData ? ` (${error.message})` : "";
      return { ok: false, tooLarge: false, reason: `the body is not valid ${encoding}${after}` };
    }
  }
  if (bytes.byteLength > limit) return { ok: false, tooLarge: true, inflatedPast: limit };
  return { ok: true, bytes };
}

/**
 * Decodes one inflated request message with Connect's default options, so this accepts what
 * Connect would, but JSON that is not UTF-8. With `strictJson`, JSON with a field the message
 * does not have is refused instead of ignored. A refusal gives the decoder's `reason`, and for
 * Moderate's JSON, `explained`: the refusal /v1/moderate gives the same mistake, when its checks
 * find it (moderation/json-request.ts), worked out only once the decoder has refused the body.
 */
export function decodeMessage<Desc extends DescMessage>(
  schema: Desc, format: BodyFormat, bytes: Uint8Array, strictJson = false,
): { ok: true; message: MessageShape<Desc> } | { ok: false; reason: string; explained?: string | undefined } {
  // JSON.parse would build every level first (about 20 s for 70 MB of "[").
  if (format.json && nestsDeeperThan(bytes)) return { ok: false, reason: `the JSON nests more than ${MAX_JSON_DEPTH} levels deep` };
  let json = "";
  try {
    // Fatal: a byte that is not UTF-8 is refused, as the JSON routes and the binary decoder refuse
    // it (Connect's own decoder would make it U+FFFD and judge a text nobody sent).
    if (format.json) {
      try {
        json = decodeStrictUtf8(bytes);
      } catch {
        return { ok: false, reason: "the JSON is not valid UTF-8", explained: NOT_UTF8_MESSAGE };
      }
    }
    const decoded = format.json ? fromJsonString(schema, json, { ignoreUnknownFields: !strictJson }) : fromBinary(schema, bytes);
    return { ok: true, message: decoded };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // Moderate's JSON: refused in /v1/moderate's words for the same mistake, where they find it;
    // any other message's JSON: where its syntax breaks, or a key given twice.
    if (!format.json) return { ok: false, reason };
    return { ok: false, reason, explained: isModerateRequest(schema) ? explainRefusedConnectJson(json, bytes) : explainRefusedJsonSyntax(json, bytes) };
  }
}

const isModerateRequest = (schema: DescMessage) => schema.typeName === ModerateRequestSchema.typeName;

/**
 * What Connect is handed instead of the body once the guard has decoded it: an empty message
 * in the same format and compression, which Connect parses in no time (the guard's message
 * replaces it before the first interceptor, see decoded-request.ts). An envelope flagged
 * "not compressed" needs no compression; Connect inflates an empty unary body to empty.
 */
export function emptyMessageBody(format: BodyFormat, encoding: string | undefined): Uint8Array {
  if (format.enveloped) return format.json ? ENVELOPED_EMPTY_JSON : ENVELOPED_EMPTY;
  if (!format.json) return NOTHING;
  return encoding === undefined ? EMPTY_JSON : EMPTY_JSON_COMPRESSED.get(encoding)!;
}

const NOTHING = new Uint8Array(0);
const EMPTY_JSON = new TextEncoder().encode("{}");
const ENVELOPED_EMPTY = new Uint8Array(5);
const ENVELOPED_EMPTY_JSON = new Uint8Array([0, 0, 0, 0, 2, ...EMPTY_JSON]);
const EMPTY_JSON_COMPRESSED: ReadonlyMap<string, Uint8Array> = new Map(RPC_CODINGS.map((coding) => [coding.name, coding.compressSync(EMPTY_JSON)]));
