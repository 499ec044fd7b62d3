import { envelope, postH1, postH2, type RawRpcAnswer } from "./raw-rpc.js";

/** Moderate's path on every RPC protocol. */
export const MODERATE_PATH = "/moderation.v1.ModerationService/Moderate";

/** One RPC protocol as a raw client speaks it: its Content-Type, transport and framing. */
export interface RawProtocol {
  name: string;
  contentType: string;
  transport: "h1" | "h2";
  enveloped: boolean;
  json: boolean;
}

export const RAW_PROTOCOLS: readonly RawProtocol[] = [
  { name: "gRPC", contentType: "application/grpc+proto", transport: "h2", enveloped: true, json: false },
  { name: "gRPC-Web", contentType: "application/grpc-web+proto", transport: "h1", enveloped: true, json: false },
  { name: "Connect, application/proto", contentType: "application/proto", transport: "h1", enveloped: false, json: false },
  { name: "Connect, application/json", contentType: "application/json", transport: "h1", enveloped: false, json: true },
];

/** An RPC error as a client decodes it: the status number, the message, x-error-code and the metadata. */
export interface RawRefusal {
  code: number;
  message: string;
  errorCode: string | undefined;
  metadata: Record<string, string>;
}

const CONNECT_CODES: Record<string, number> = { invalid_argument: 3, resource_exhausted: 8, unauthenticated: 16 };

/** Posts one message (enveloped as the protocol needs) and reads the refusal it gets (throws on success). */
export async function postRefused(
  protocol: RawProtocol, urls: { httpUrl: string; grpcUrl: string }, message: Uint8Array, headers: Record<string, string>, path = MODERATE_PATH,
): Promise<RawRefusal> {
  const body = protocol.enveloped ? envelope(message) : message;
  const allHeaders = { "content-type": protocol.contentType, ...headers };
  const answer: RawRpcAnswer = protocol.transport === "h2"
    ? await postH2(urls.grpcUrl, path, allHeaders, body)
    : await postH1(urls.httpUrl, path, allHeaders, body);
  const errorCode = answer.metadata["x-error-code"];
  if (protocol.enveloped) {
    if (!answer.grpcStatus) throw new Error(`expected a refusal, got grpc-status ${answer.grpcStatus}`);
    return { code: answer.grpcStatus, message: decodeURIComponent(answer.metadata["grpc-message"] ?? ""), errorCode, metadata: answer.metadata };
  }
  if (answer.httpStatus === 200) throw new Error("expected a refusal, got 200");
  const error = JSON.parse(answer.body.toString("utf8")) as { code: string; message: string };
  return { code: CONNECT_CODES[error.code] ?? -1, message: error.message, errorCode, metadata: answer.metadata };
}
