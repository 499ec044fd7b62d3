/**
 * The RPC protocol a Content-Type names: gRPC-Web, gRPC, or Connect for anything else (Connect's
 * handler refuses what it does not read). Read as sent, without lower-casing: it runs on every RPC
 * call, and gRPC clients send these types in lower case.
 */
export function rpcProtocolOf(contentType: string | undefined): "grpc" | "grpc-web" | "connect" {
  if (contentType?.startsWith("application/grpc-web")) return "grpc-web";
  if (contentType?.startsWith("application/grpc")) return "grpc";
  return "connect";
}
