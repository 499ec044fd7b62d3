import { promisify } from "node:util";
import { deflate, inflate } from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Compression } from "@connectrpc/connect/protocol";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";

const deflateAsync = promisify(deflate);
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

/**
 * What Connect takes and answers with, in the order grpc-accept-encoding names them. One list
 * serves both ways: a client that lists deflate first (grpc-core and grpc-js send
 * "identity,deflate,gzip") gets answers in deflate, which it inflates as it does gzip.
 */
export const RPC_COMPRESSIONS: readonly Compression[] = [compressionGzip, compressionBrotli, compressionDeflate];
