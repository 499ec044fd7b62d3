import path from "node:path";
import { create, fromBinary } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { anyUnpack, AnySchema, type Any } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorDetailSchema, ModerateRequestSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";

// Connect, gRPC-Web and gRPC callers get the stable error code twice: as an ErrorDetail in the
// error's details and as x-error-code metadata. Checked here with the Connect clients, with raw
// HTTP for Connect's JSON form, and with grpc-js decoding grpc-status-details-bin by hand.

let server: TestServer;
let key: string;
beforeAll(async () => {
  ({ server, key } = await startServerWithKey());
});
afterAll(() => server?.close());

const CASES = [
  { code: "missing_api_key", connect: Code.Unauthenticated, apiKey: undefined, input: [{ type: "text", text: "hi" }] },
  { code: "invalid_api_key", connect: Code.Unauthenticated, apiKey: `mod_AAAAAAAA_${"A".repeat(43)}`, input: [{ type: "text", text: "hi" }] },
  { code: "invalid_request", connect: Code.InvalidArgument, apiKey: "valid", input: [] },
  { code: "too_many_items", connect: Code.InvalidArgument, apiKey: "valid", input: Array.from({ length: 11 }, () => ({ type: "text", text: "x" })) },
  { code: "invalid_image", connect: Code.InvalidArgument, apiKey: "valid", input: [{ type: "image", base64: "nope" }] },
] as const;

const transports: Record<string, () => Transport> = {
  "connect (binary)": () => createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1", useBinaryFormat: true }),
  "connect (JSON)": () => createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" }),
  "grpc-web": () => createGrpcWebTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" }),
  "grpc (connect-node client)": () => createGrpcTransport({ baseUrl: server.grpcUrl }),
};

describe.each(Object.keys(transports))("error details over %s", (name) => {
  it.each(CASES)("carries $code in an ErrorDetail and in x-error-code", async ({ code, connect, apiKey, input }) => {
    const client = createClient(ModerationService, transports[name]!());
    const headers = apiKey === undefined ? {} : { "x-api-key": apiKey === "valid" ? key : apiKey };
    const error = await client.moderate(create(ModerateRequestSchema, { input: [...input] }), { headers }).then(
      () => { throw new Error("expected an error"); },
      (e: unknown) => ConnectError.from(e),
    );
    expect(error.code).toBe(connect);
    expect(error.findDetails(ErrorDetailSchema)).toEqual([expect.objectContaining({ code })]);
    expect(error.metadata.get("x-error-code")).toBe(code);
    expect(error.rawMessage.length).toBeGreaterThan(10);
  });

  it("lets anyone call ListSigningKeys, without a key", async () => {
    const client = createClient(ModerationService, transports[name]!());
    const response = await client.listSigningKeys({});
    expect(Array.isArray(response.keys)).toBe(true);
  });
});

describe("Connect's JSON error body over plain HTTP", () => {
  it("has the Connect code, the message and the ErrorDetail, plus the x-error-code header", async () => {
    const response = await fetch(`${server.httpUrl}/moderation.v1.ModerationService/Moderate`, {
      method: "POST",
      headers: { "content-type": "application/json", "connect-protocol-version": "1", "x-api-key": key },
      body: JSON.stringify({ input: [] }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-error-code")).toBe("invalid_request");
    const body = (await response.json()) as { code: string; message: string; details: Array<{ type: string; value: string }> };
    expect(body.code).toBe("invalid_argument");
    expect(body.message).toMatch(/at least one input item/);
    const detail = body.details.find((d) => d.type === "moderation.v1.ErrorDetail");
    expect(detail).toBeDefined();
    expect(fromBinary(ErrorDetailSchema, Buffer.from(detail!.value, "base64"))).toMatchObject({ code: "invalid_request" });
  });

  it("answers 401 unauthenticated without a key", async () => {
    const response = await fetch(`${server.httpUrl}/moderation.v1.ModerationService/Moderate`, {
      method: "POST",
      headers: { "content-type": "application/json", "connect-protocol-version": "1" },
      body: JSON.stringify({ input: [{ type: "text", text: "hi" }] }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("x-error-code")).toBe("missing_api_key");
    expect(await response.json()).toMatchObject({ code: "unauthenticated" });
  });
});

/** google.rpc.Status, decoded by hand: { code = 1, message = 2, repeated Any details = 3 }. */
function decodeStatus(bytes: Uint8Array): { code: number; message: string; details: Any[] } {
  const reader = new BinaryReader(bytes);
  const status = { code: 0, message: "", details: [] as Any[] };
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) status.code = reader.int32();
    else if (field === 2) status.message = reader.string();
    else if (field === 3) status.details.push(fromBinary(AnySchema, reader.bytes()));
    else reader.skip(wireType);
  }
  return status;
}

describe("error details over grpc-js", () => {
  let client: grpc.Client & Record<string, any>;
  beforeAll(() => {
    const definition = grpc.loadPackageDefinition(protoLoader.loadSync(path.resolve("proto/moderation/v1/moderation.proto"), { keepCase: true, defaults: true, oneofs: true }));
    const Service = (definition as any).moderation.v1.ModerationService as typeof grpc.Client;
    client = new Service(new URL(server.grpcUrl).host, grpc.credentials.createInsecure()) as any;
  });
  afterAll(() => client.close());

  const fail = (input: object[], apiKey?: string) =>
    new Promise<grpc.ServiceError>((resolve, reject) => {
      const metadata = new grpc.Metadata();
      if (apiKey) metadata.set("x-api-key", apiKey);
      client.Moderate({ input }, metadata, (error: grpc.ServiceError | null) => (error ? resolve(error) : reject(new Error("expected an error"))));
    });

  it("sends grpc-status-details-bin holding the ErrorDetail, and x-error-code", async () => {
    const error = await fail([], key);
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.metadata.get("x-error-code")).toEqual(["invalid_request"]);
    const [raw] = error.metadata.get("grpc-status-details-bin");
    expect(raw).toBeInstanceOf(Buffer);
    const status = decodeStatus(raw as Buffer);
    expect(status.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(status.message).toMatch(/at least one input item/);
    const details = status.details.map((any) => anyUnpack(any, ErrorDetailSchema)).filter((d) => d !== undefined);
    expect(details).toEqual([expect.objectContaining({ code: "invalid_request" })]);
  });

  it("does the same for errors raised before the body is looked at (auth)", async () => {
    const error = await fail([{ type: "text", text: "hi" }]);
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.metadata.get("x-error-code")).toEqual(["missing_api_key"]);
    const status = decodeStatus(error.metadata.get("grpc-status-details-bin")[0] as Buffer);
    expect(status.details.map((any) => anyUnpack(any, ErrorDetailSchema)?.code)).toContain("missing_api_key");
  });

  // Connect percent-encodes grpc-message with encodeURIComponent and grpc-js decodes it with
  // decodeURI; src/edge/grpc-message-encoding.ts re-encodes it as the gRPC spec says.
  it("shows grpc-js callers error messages without percent-escapes", async () => {
    const error = await fail([{ type: "video", text: "x" }], key);
    expect(error.details).toBe('input[0].type is "video"; it must be "text" or "image".');
  });
});
