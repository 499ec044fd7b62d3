import { promisify } from "node:util";
import { brotliDecompress, gunzip } from "node:zlib";
import { fromBinary, fromJsonString, type DescMessage } from "@bufbuild/protobuf";

const INFLATE: Record<string, (data: Uint8Array, options: { maxOutputLength: number }) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  br: promisify(brotliDecompress),
};

/**
 * Why Connect would fail to decode a unary request body as `schema`, or undefined when it would
 * decode. Connect answers an undecodable protobuf body with INTERNAL and a JSON body of the wrong
 * shape with a bare INVALID_ARGUMENT, before any interceptor runs: neither carries the API's code
 * or a signature. Deciding it first (guard-request-body.ts) lets the caller get invalid_request,
 * signed, as on the JSON route. The options are Connect's defaults, so this accepts exactly what
 * Connect does; a compressed message is inflated as Connect would (gzip, br) within `limit` bytes,
 * and left to Connect when it inflates past that (Connect answers resource_exhausted itself).
 */
export async function undecodableReason(schema: DescMessage, header: Headers, body: Uint8Array, limit: number): Promise<string | undefined> {
  const contentType = (header.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const format = FORMATS[contentType];
  if (!format) return undefined; // Connect refuses an unsupported content type itself, with its own answer.
  let message = body;
  let encoding = header.get("content-encoding")?.trim().toLowerCase();
  if (format.enveloped) {
    // One length-prefixed message: flags (bit 0: compressed with grpc-encoding), 4-byte big-endian length, bytes.
    if (body.byteLength < 5) return "the body is shorter than a gRPC message envelope";
    const length = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1, false);
    if (body.byteLength < 5 + length) return "the body ends inside its gRPC message";
    message = body.subarray(5, 5 + length);
    encoding = (body[0]! & 0x01) !== 0 ? header.get("grpc-encoding")?.trim().toLowerCase() : undefined;
  }
  if (encoding && encoding !== "identity") {
    const inflate = INFLATE[encoding];
    if (!inflate) return undefined; // an encoding Connect does not accept: it answers that itself
    try {
      message = await inflate(message, { maxOutputLength: limit });
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") return undefined;
      return `the body is not valid ${encoding}`;
    }
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
