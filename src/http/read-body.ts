import type { Readable } from "node:stream";
import { ApiError } from "../errors/api-error.js";

/** Reads a request body into memory, refusing (without buffering more) once it passes `limit`. */
export async function readBody(stream: Readable, limit: number, declaredLength: number | undefined): Promise<Uint8Array> {
  const tooLarge = () => new ApiError("payload_too_large", `The request body is larger than ${limit} bytes, more than ten maximal items need.`);
  if (declaredLength !== undefined && declaredLength > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  // destroyOnReturn: false keeps the socket alive long enough to send the 413; the route
  // then answers with Connection: close instead of reading the rest.
  for await (const chunk of stream.iterator({ destroyOnReturn: false })) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size);
}
