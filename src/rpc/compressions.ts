import { promisify } from "node:util";
import { brotliCompressSync, brotliDecompress, deflate, deflateSync, gunzip, gzipSync, inflate, type BrotliOptions, type ZlibOptions } from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Compression } from "@connectrpc/connect/protocol";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";

/**
 * One content coding a request or an answer may use: what Connect uses to read and write it, and
 * what the body guard (decode-check.ts) uses in Connect's place on unary requests.
 */
export interface RpcCoding {
  /** The coding's name in grpc-encoding and Content-Encoding (Connect's `compression.name`). */
  readonly name: string;
  /** Connect's codec, for streams and answers. */
  readonly compression: Compression;
  /**
   * Node's one-shot inflater, refusing bytes after the compressed data (BytesAfterCompressedData).
   * With maxOutputLength it checks the output after every chunk (16 KiB) and stops once it passes
   * the limit: a bomb costs about `limit` bytes of inflating, and the limit itself is never allocated.
   */
  readonly inflate: (data: Uint8Array, options: { maxOutputLength: number }) => Promise<Buffer>;
  /** Compresses at once: for the small fixed bodies the guard hands Connect (emptyMessageBody). */
  readonly compressSync: (data: Uint8Array) => Buffer;
}

/** Bytes were sent after the end of a body's compressed data; `count` of them. */
export class BytesAfterCompressedData extends Error {
  constructor(readonly count: number) {
    super(`${count} bytes follow the end of the compressed data`);
  }
}

/** A zlib one-shot function as called with `info: true`: the output and the engine, which counts the input it used. */
type OneShotWithInfo = (data: Uint8Array, options: ZlibOptions & BrotliOptions & { info: true }) => Promise<{ buffer: Buffer; engine: { bytesWritten: number } }>;

/**
 * Inflates with `oneShot`, refusing input left over once the compressed data ends. Node's inflate
 * and brotli stop at the end of their stream and drop what follows, and gunzip drops zero bytes
 * after a member (or a member after them): an audit found deflate and br bodies with bytes after
 * them answered, which gzip refused, and those bytes are in no request digest. The engine's
 * count of input used costs nothing to read.
 */
function wholly(oneShot: (data: Uint8Array, options: object, callback: (error: Error | null, result: Buffer) => void) => void): RpcCoding["inflate"] {
  const run = promisify(oneShot) as unknown as OneShotWithInfo;
  return async (data, options) => {
    const { buffer, engine } = await run(data, { ...options, info: true });
    if (engine.bytesWritten < data.byteLength) throw new BytesAfterCompressedData(data.byteLength - engine.bytesWritten);
    return buffer;
  };
}

const deflateAsync = promisify(deflate);
// gRPC's deflate is zlib (RFC 1950), as grpc-core and grpc-js send it; not raw deflate.
const inflateAsync = promisify(inflate);

/**
 * gRPC's "deflate", the zlib format (RFC 1950, as HTTP's deflate coding is): grpc-core (Python,
 * C++, Ruby, PHP) and grpc-js offer it as a one-line channel option, and connect-node has only
 * gzip and br. The body guard inflates unary requests itself (decode-check.ts, with the ratio
 * cap); this inflates only what Connect reads (streams), within readMaxBytes, as connect-node's gzip.
 */
const compressionDeflate: Compression = {
  name: "deflate",
  compress: async (bytes) => new Uint8Array(await deflateAsync(bytes)),
  async decompress(bytes, readMaxBytes) {
    if (bytes.byteLength === 0) return new Uint8Array(0);
    try {
      return new Uint8Array(await inflateAsync(bytes, { maxOutputLength: readMaxBytes }));
    } catch (error) {
      const tooLarge = (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
      const message = tooLarge ? `message is larger than configured readMaxBytes ${readMaxBytes} after decompression` : "decompression failed";
      throw new ConnectError(message, tooLarge ? Code.ResourceExhausted : Code.InvalidArgument, undefined, undefined, error);
    }
  },
};

const coding = (compression: Compression, inflate: RpcCoding["inflate"], compressSync: RpcCoding["compressSync"]): RpcCoding => ({ name: compression.name, compression, inflate, compressSync });

/**
 * The codings this service takes and answers with, in the order grpc-accept-encoding names them:
 * the one list of them (adding a coding is one line here). One list serves both ways: a client
 * that lists deflate first (grpc-core and grpc-js send "identity,deflate,gzip") gets answers in
 * deflate, which it inflates as it does gzip.
 */
export const RPC_CODINGS: readonly RpcCoding[] = [
  coding(compressionGzip, wholly(gunzip), gzipSync),
  coding(compressionBrotli, wholly(brotliDecompress), brotliCompressSync),
  coding(compressionDeflate, wholly(inflate), deflateSync),
];

/** What Connect takes and answers with (RPC_CODINGS' codecs, in its order). */
export const RPC_COMPRESSIONS: readonly Compression[] = RPC_CODINGS.map((c) => c.compression);
