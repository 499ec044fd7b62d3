import type { FastifyInstance } from "fastify";
import { rpcProtocolOf } from "./rpc-protocol.js";

/**
 * Connect writes the grpc-message trailer with encodeURIComponent, which also escapes
 * printable ASCII such as ":" and ";". The gRPC spec only requires escaping bytes outside
 * 0x20–0x7E and "%", and grpc-js decodes with decodeURI, which leaves those extra escapes in
 * place: callers would read "An API key is required%3A …". Re-encoding the trailer the way the
 * spec describes gives every client the same message.
 */
export function encodeGrpcMessage(message: string): string {
  let out = "";
  for (const byte of Buffer.from(message, "utf8")) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export function registerGrpcMessageEncoding(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    if (rpcProtocolOf(request.headers["content-type"]) === "grpc") {
      const raw = reply.raw as { addTrailers(headers: Record<string, string | string[]>): void };
      const addTrailers = raw.addTrailers.bind(raw);
      raw.addTrailers = (headers) => {
        const message = headers["grpc-message"];
        if (typeof message === "string") {
          try {
            headers["grpc-message"] = encodeGrpcMessage(decodeURIComponent(message));
          } catch {
            // Not valid percent-encoding: leave it as Connect wrote it.
          }
        }
        addTrailers(headers);
      };
    }
    done();
  });
}
