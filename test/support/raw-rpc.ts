import { brotliDecompressSync, gunzipSync } from "node:zlib";
import http2 from "node:http2";

/** What a raw RPC call got back: the gRPC status and metadata, headers and trailers merged. */
export interface RawRpcAnswer {
  /** HTTP status of the response. */
  httpStatus: number;
  /** grpc-status (gRPC, gRPC-Web); undefined for Connect unary, which answers with the HTTP status. */
  grpcStatus: number | undefined;
  /** Headers and trailers (gRPC-Web: the trailer frame too), lower-case names. */
  metadata: Record<string, string>;
  /** The response body (gRPC-Web: without the trailer frame). */
  body: Buffer;
}

/** A gRPC (or gRPC-Web) envelope: flags, big-endian length, message. */
export function envelope(message: Uint8Array, compressed = false): Buffer {
  const out = Buffer.alloc(5 + message.byteLength);
  out[0] = compressed ? 1 : 0;
  out.writeUInt32BE(message.byteLength, 1);
  out.set(message, 5);
  return out;
}

/** POSTs `body` over HTTP/2 prior knowledge (h2c), as a gRPC client or Connect over HTTP/2 does, with headers exactly as given. */
export function postH2(baseUrl: string, path: string, headers: Record<string, string>, body: Uint8Array): Promise<RawRpcAnswer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(baseUrl);
    session.on("error", reject);
    const stream = session.request({ ":method": "POST", ":path": path, ...headers });
    const metadata: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let httpStatus = 0;
    const take = (from: http2.IncomingHttpHeaders) => {
      for (const [name, value] of Object.entries(from)) if (!name.startsWith(":") && value !== undefined) metadata[name] = String(value);
    };
    stream.on("response", (h) => {
      httpStatus = Number(h[":status"]);
      take(h);
    });
    stream.on("trailers", take);
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", reject);
    stream.on("close", () => {
      session.close();
      const grpcStatus = metadata["grpc-status"];
      resolve({ httpStatus, grpcStatus: grpcStatus === undefined ? undefined : Number(grpcStatus), metadata, body: Buffer.concat(chunks) });
    });
    stream.end(Buffer.from(body));
  });
}

/** POSTs `body` over HTTP/1.1; a gRPC-Web answer's trailer frame is read into `metadata`. */
export async function postH1(baseUrl: string, path: string, headers: Record<string, string>, body: Uint8Array): Promise<RawRpcAnswer> {
  const response = await fetch(`${baseUrl}${path}`, { method: "POST", headers, body: Buffer.from(body) });
  const metadata: Record<string, string> = Object.fromEntries(response.headers.entries());
  let bytes = Buffer.from(await response.arrayBuffer());
  if ((headers["content-type"] ?? "").startsWith("application/grpc-web")) {
    // Messages, then a frame flagged 0x80 holding the trailers as HTTP header lines (0x81: compressed
    // with the answer's grpc-encoding, as Connect does once they pass its 1 KiB compression floor).
    let at = 0;
    while (at + 5 <= bytes.length) {
      const length = bytes.readUInt32BE(at + 1);
      if ((bytes[at]! & 0x80) !== 0) {
        const frame = bytes.subarray(at + 5, at + 5 + length);
        const trailers = (bytes[at]! & 0x01) === 0 ? frame : inflate(frame, response.headers.get("grpc-encoding"));
        for (const line of trailers.toString("utf8").split("\r\n")) {
          const colon = line.indexOf(":");
          if (colon > 0) metadata[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        bytes = bytes.subarray(0, at);
        break;
      }
      at += 5 + length;
    }
  }
  const grpcStatus = metadata["grpc-status"];
  return { httpStatus: response.status, grpcStatus: grpcStatus === undefined ? undefined : Number(grpcStatus), metadata, body: bytes };
}

/** A compressed gRPC-Web frame, inflated by its grpc-encoding (gzip or br). */
function inflate(frame: Buffer, encoding: string | null): Buffer {
  if (encoding === "gzip") return gunzipSync(frame);
  if (encoding === "br") return brotliDecompressSync(frame);
  throw new Error(`a compressed gRPC-Web frame with grpc-encoding ${encoding}`);
}
