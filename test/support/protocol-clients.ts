import path from "node:path";
import { create, toJson } from "@bufbuild/protobuf";
import { ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { ErrorDetailSchema, ModerateRequestSchema, ModerateResponseSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";

/** The four ways a caller can reach Moderate; the shared suites run on each. */
export const PROTOCOLS = ["json", "connect", "grpc-web", "grpc"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export interface ModerateBody {
  input: Array<{ type: string; text?: string; base64?: string }>;
  analyze_images?: boolean;
}

export type Outcome =
  | { ok: true; body: any; headers: Record<string, string> }
  /** status: the HTTP status for json, the gRPC/Connect code number for the others. */
  | { ok: false; code: string; message: string; status: number; headers: Record<string, string> };

export interface Endpoints {
  httpUrl: string;
  grpcUrl: string;
}

export async function callModerate(protocol: Protocol, endpoints: Endpoints, body: ModerateBody, apiKey?: string): Promise<Outcome> {
  switch (protocol) {
    case "json":
      return callJson(endpoints.httpUrl, body, apiKey);
    case "connect":
      return callConnect(createConnectTransport({ baseUrl: endpoints.httpUrl, httpVersion: "1.1", useBinaryFormat: true }), body, apiKey);
    case "grpc-web":
      return callConnect(createGrpcWebTransport({ baseUrl: endpoints.httpUrl, httpVersion: "1.1" }), body, apiKey);
    case "grpc":
      return callGrpcJs(endpoints.grpcUrl, body, apiKey);
  }
}

export async function callJson(httpUrl: string, body: unknown, apiKey?: string, init: { contentType?: string; raw?: string | Uint8Array } = {}): Promise<Outcome> {
  const response = await fetch(`${httpUrl}/v1/moderate`, {
    method: "POST",
    headers: { "content-type": init.contentType ?? "application/json", ...(apiKey === undefined ? {} : { "x-api-key": apiKey }) },
    body: (init.raw ?? JSON.stringify(body)) as BodyInit,
  });
  const headers = Object.fromEntries(response.headers.entries());
  const json = (await response.json()) as any;
  if (response.ok) return { ok: true, body: json, headers };
  return { ok: false, code: json.error.code, message: json.error.message, status: response.status, headers };
}

async function callConnect(transport: Transport, body: ModerateBody, apiKey?: string): Promise<Outcome> {
  const client = createClient(ModerationService, transport);
  const headers: Record<string, string> = {};
  const collect = (h: Headers) => h.forEach((v, k) => { headers[k] = v; });
  try {
    const response = await client.moderate(create(ModerateRequestSchema, {
      input: body.input.map((i) => ({ type: i.type, text: i.text ?? "", base64: i.base64 ?? "" })),
      analyzeImages: body.analyze_images ?? false,
    }), { headers: apiKey === undefined ? {} : { "x-api-key": apiKey }, onHeader: collect, onTrailer: collect });
    return { ok: true, body: toJson(ModerateResponseSchema, response, { useProtoFieldName: true, alwaysEmitImplicit: true }), headers };
  } catch (error) {
    const ce = ConnectError.from(error);
    collect(ce.metadata);
    const detail = ce.findDetails(ErrorDetailSchema)[0];
    return { ok: false, code: detail?.code ?? headers["x-error-code"] ?? "?", message: ce.rawMessage, status: ce.code, headers };
  }
}

let grpcDefinition: grpc.GrpcObject | undefined;
function loadGrpcDefinition(): grpc.GrpcObject {
  if (!grpcDefinition) {
    // An independent client: built from the .proto at run time, not from our generated code.
    const packageDefinition = protoLoader.loadSync(path.resolve("proto/moderation/v1/moderation.proto"), {
      keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true,
    });
    grpcDefinition = grpc.loadPackageDefinition(packageDefinition);
  }
  return grpcDefinition;
}

export function createGrpcJsClient(grpcUrl: string): grpc.Client & Record<string, any> {
  const pkg = loadGrpcDefinition() as any;
  const Client = pkg.moderation.v1.ModerationService as typeof grpc.Client;
  return new Client(new URL(grpcUrl).host, grpc.credentials.createInsecure()) as any;
}

async function callGrpcJs(grpcUrl: string, body: ModerateBody, apiKey?: string): Promise<Outcome> {
  const client = createGrpcJsClient(grpcUrl);
  const metadata = new grpc.Metadata();
  if (apiKey !== undefined) metadata.set("x-api-key", apiKey);
  const headers: Record<string, string> = {};
  const collect = (md: grpc.Metadata) => {
    for (const [k, v] of Object.entries(md.getMap())) headers[k] = String(v);
  };
  try {
    return await new Promise<Outcome>((resolve, reject) => {
      const call = client.Moderate(
        { input: body.input.map((i) => ({ type: i.type, text: i.text ?? "", base64: i.base64 ?? "" })), analyze_images: body.analyze_images ?? false },
        metadata,
        (error: grpc.ServiceError | null, response: any) => {
          if (error) return reject(error);
          resolve({ ok: true, body: response, headers });
        },
      );
      call.on("metadata", collect);
      call.on("status", (status: grpc.StatusObject) => collect(status.metadata));
    });
  } catch (error) {
    const se = error as grpc.ServiceError;
    collect(se.metadata);
    return { ok: false, code: headers["x-error-code"] ?? "?", message: se.details, status: se.code, headers };
  } finally {
    client.close();
  }
}
