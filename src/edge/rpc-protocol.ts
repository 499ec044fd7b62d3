/**
 * The RPC protocol a Content-Type names: gRPC-Web, gRPC, or Connect for anything else (Connect's
 * handler refuses what it does not read). Media types are case-insensitive, and
 * rpc/refuse-unsupported-requests.ts serves "Application/grpc" as gRPC: read as sent, such a call
 * was counted as Connect and its grpc-message went out without gRPC's percent-encoding (found by an
 * audit). A lower-casing of a type this short costs tens of nanoseconds a call.
 */
export function rpcProtocolOf(contentType: string | undefined): "grpc" | "grpc-web" | "connect" {
  const type = contentType?.toLowerCase();
  if (type?.startsWith("application/grpc-web")) return "grpc-web";
  if (type?.startsWith("application/grpc")) return "grpc";
  return "connect";
}
