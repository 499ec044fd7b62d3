import { fromBinary, fromJsonString, type DescMessage } from "@bufbuild/protobuf";

/**
 * Why Connect would fail to decode a unary request body as `schema`, or undefined when it would
 * decode (or when it is compressed: Connect inflates and judges it itself). Connect answers an
 * undecodable protobuf body with INTERNAL and a JSON body of the wrong shape with a bare
 * INVALID_ARGUMENT, before any interceptor runs: neither carries the API's code or a signature.
 * Deciding it first (guard-request-body.ts) lets the caller get invalid_request, signed, as on
 * the JSON route. The options are Connect's defaults, so this accepts exactly what Connect does.
 */
export function undecodableReason(schema: DescMessage, header: Headers, body: Uint8Array): string | undefined {
  const contentType = (header.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const format = FORMATS[contentType];
  if (!format) return undefined; // Connect refuses an unsupported content type itself, with its own answer.
  const encoding = header.get(format.enveloped ? "grpc-encoding" : "content-encoding");
  if (encoding && encoding !== "identity") return undefined;
  let message = body;
  if (format.enveloped) {
    // One length-prefixed message: flags (bit 0: compressed), 4-byte big-endian length, bytes.
    if (body.byteLength < 5) return "the body is shorter than a gRPC message envelope";
    if ((body[0]! & 0x01) !== 0) return undefined;
    const length = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1, false);
    if (body.byteLength < 5 + length) return "the body ends inside its gRPC message";
    message = body.subarray(5, 5 + length);
  }
  try {
    if (format.json) fromJsonString(schema, new TextDecoder().decode(message), { ignoreUnknownFields: true });
    else fromBinary(schema, message);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const FORMATS: Record<string, { enveloped: boolean; json: boolean }> = {
  "application/proto": { enveloped: false, json: false },
  "application/json": { enveloped: false, json: true },
  "application/grpc": { enveloped: true, json: false },
  "application/grpc+proto": { enveloped: true, json: false },
  "application/grpc+json": { enveloped: true, json: true },
  "application/grpc-web": { enveloped: true, json: false },
  "application/grpc-web+proto": { enveloped: true, json: false },
  "application/grpc-web+json": { enveloped: true, json: true },
};
