import path from "node:path";
import { create, createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_REFLECTION_STREAMS } from "../../src/rpc/reflection-service.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { envelope, postH2 } from "../support/raw-rpc.js";

// Health and reflection through independent clients: @grpc/grpc-js with service definitions
// loaded at run time from the .proto files, never from the generated code the server uses.

const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true } as const;
const GRPC_NOT_FOUND = 5;
const GRPC_DEADLINE_EXCEEDED = 4;

function loadService(protoFile: string, servicePath: string[]): typeof grpc.Client {
  const definition = grpc.loadPackageDefinition(protoLoader.loadSync(path.resolve(protoFile), LOADER_OPTIONS));
  let node: any = definition;
  for (const part of servicePath) node = node[part];
  return node as typeof grpc.Client;
}

let server: TestServer;
let address: string;
beforeAll(async () => {
  server = await startTestServer();
  address = new URL(server.grpcUrl).host;
});
afterAll(() => server?.close());

describe("grpc.health.v1.Health over grpc-js", () => {
  const Health = loadService("proto/grpc/health/v1/health.proto", ["grpc", "health", "v1", "Health"]);
  let client: grpc.Client & Record<string, any>;
  beforeAll(() => {
    client = new Health(address, grpc.credentials.createInsecure()) as any;
  });
  afterAll(() => client.close());

  const check = (service: string) =>
    new Promise<{ error: grpc.ServiceError | null; response: any }>((resolve) => {
      client.Check({ service }, (error: grpc.ServiceError | null, response: any) => resolve({ error, response }));
    });

  it.each(["", "moderation.v1.ModerationService", "grpc.health.v1.Health"])("reports %j as SERVING", async (service) => {
    const { error, response } = await check(service);
    expect(error).toBeNull();
    expect(response).toEqual({ status: "SERVING" });
  });

  it("answers NOT_FOUND for a service it does not serve", async () => {
    const { error } = await check("no.such.Service");
    expect(error?.code).toBe(GRPC_NOT_FOUND);
    expect(error?.details).toMatch(/no\.such\.Service/);
    // With the API's code and a signature, as every other RPC error (it had neither).
    expect(error?.metadata.get("x-error-code")).toEqual(["not_found"]);
    expect(error?.metadata.get("signature")).toHaveLength(1);
  });

  it("needs no API key", async () => {
    const { error } = await check("");
    expect(error).toBeNull();
  });

  it("streams the status on Watch until the caller leaves", async () => {
    const call = client.Watch({ service: "" }) as grpc.ClientReadableStream<{ status: string }>;
    const first = await new Promise<{ status: string }>((resolve, reject) => {
      call.once("data", resolve);
      call.once("error", reject);
    });
    expect(first).toEqual({ status: "SERVING" });
    call.on("error", () => undefined); // the cancel below surfaces as CANCELLED
    call.cancel();
  });

  it("holds many Watch streams without Node's listener-leak warning (it printed at 11)", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    const calls = Array.from({ length: 20 }, () => client.Watch({ service: "" }) as grpc.ClientReadableStream<{ status: string }>);
    try {
      await Promise.all(calls.map((call) => new Promise((resolve, reject) => {
        call.once("data", resolve);
        call.once("error", reject);
      })));
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
      for (const call of calls) {
        call.on("error", () => undefined);
        call.cancel();
      }
    }
  });

  it("refuses a Watch message over the public methods' 64 KiB as such (it named Moderate's 70 MB)", async () => {
    const prefix = Buffer.from([0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]); // announces 4 GB
    const answer = await postH2(server.grpcUrl, "/grpc.health.v1.Health/Watch", { "content-type": "application/grpc", te: "trailers" }, prefix);
    expect(answer.metadata["x-error-code"]).toBe("payload_too_large");
    expect(decodeURIComponent(answer.metadata["grpc-message"] ?? "")).toBe("The request is larger than 65536 bytes.");
  });

  it.each([
    ["a message that does not parse", Buffer.from([0, 0, 0, 0, 2, 0xff, 0xff])],
    ["a message flagged compressed without grpc-encoding", Buffer.from([1, 0, 0, 0, 0])],
  ])("refuses %s on Watch as INVALID_ARGUMENT, invalid_request (Connect called it INTERNAL)", async (_name, body) => {
    const answer = await postH2(server.grpcUrl, "/grpc.health.v1.Health/Watch", { "content-type": "application/grpc", te: "trailers", "grpc-timeout": "2S" }, body);
    expect({ status: answer.grpcStatus, code: answer.metadata["x-error-code"] }).toEqual({ status: 3, code: "invalid_request" });
    expect(decodeURIComponent(answer.metadata["grpc-message"] ?? "")).toMatch(/^The request is not a valid grpc\.health\.v1\.HealthCheckRequest message: /);
  });

  it("takes Watch over Connect streaming with a quoted UTF-8 charset, as unary calls take one (it was 415)", async () => {
    const message = Buffer.from(JSON.stringify({ service: "" }));
    const body = Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), message]);
    const controller = new AbortController();
    const response = await fetch(`${server.httpUrl}/grpc.health.v1.Health/Watch`, {
      method: "POST", headers: { "content-type": 'application/connect+json; charset="utf-8"', "connect-timeout-ms": "2000" }, body, signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/connect+json");
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value!.subarray(5))).toContain('"SERVING"');
    controller.abort();
  });

  it("passes the body guard's own refusal on Watch as it is (a malformed grpc-timeout is not a bad message)", async () => {
    const answer = await postH2(server.grpcUrl, "/grpc.health.v1.Health/Watch", { "content-type": "application/grpc", te: "trailers", "grpc-timeout": "soon" }, Buffer.from([0, 0, 0, 0, 0]));
    expect({ status: answer.grpcStatus, code: answer.metadata["x-error-code"] }).toEqual({ status: 3, code: "invalid_request" });
    expect(decodeURIComponent(answer.metadata["grpc-message"] ?? "")).toMatch(/^The grpc-timeout header "soon" is malformed/);
  });

  it("ends Watch with DEADLINE_EXCEEDED when the caller's deadline passes (it ended OK)", async () => {
    // Raw frames: grpc-js would report its own deadline whatever the server answered.
    const watch = "/grpc.health.v1.Health/Watch";
    const grpcAnswer = await postH2(server.grpcUrl, watch, { "content-type": "application/grpc", te: "trailers", "grpc-timeout": "200m" }, envelope(new Uint8Array()));
    expect({ status: grpcAnswer.grpcStatus, code: grpcAnswer.metadata["x-error-code"] }).toEqual({ status: GRPC_DEADLINE_EXCEEDED, code: "deadline_exceeded" });
    // Connect's server stream: the end-stream message (flags 0x02) carries the error.
    const response = await fetch(`${server.httpUrl}${watch}`, { method: "POST", headers: { "content-type": "application/connect+json", "connect-timeout-ms": "200" }, body: new Uint8Array(envelope(new TextEncoder().encode("{}"))) });
    const frames = Buffer.from(await response.arrayBuffer()).toString("latin1");
    expect(frames).toMatch(/"code":"deadline_exceeded"/);
  });
});

describe.each(["v1", "v1alpha"] as const)("gRPC server reflection %s over grpc-js", (version) => {
  const Reflection = loadService(`proto/grpc/reflection/${version}/reflection.proto`, ["grpc", "reflection", version, "ServerReflection"]);
  let client: grpc.Client & Record<string, any>;
  beforeAll(() => {
    client = new Reflection(address, grpc.credentials.createInsecure()) as any;
  });
  afterAll(() => client.close());

  /** Sends requests on one bidi stream and collects one response per request. */
  function reflect(requests: object[]): Promise<any[]> {
    return new Promise((resolve, reject) => {
      const call = client.ServerReflectionInfo() as grpc.ClientDuplexStream<object, any>;
      const responses: any[] = [];
      call.on("data", (response) => {
        responses.push(response);
        if (responses.length === requests.length) call.end();
      });
      call.on("error", reject);
      call.on("end", () => resolve(responses));
      for (const request of requests) call.write({ host: "test-host", ...request });
    });
  }

  const decodeFiles = (response: any): FileDescriptorProto[] => {
    expect(response.message_response).toBe("file_descriptor_response");
    return (response.file_descriptor_response.file_descriptor_proto as Buffer[]).map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
  };

  it("lists the served services", async () => {
    const [response] = await reflect([{ list_services: "" }]);
    expect(response.message_response).toBe("list_services_response");
    expect(response.valid_host).toBe("test-host");
    const names = response.list_services_response.service.map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining([
      "moderation.v1.ModerationService",
      "grpc.health.v1.Health",
      "grpc.reflection.v1.ServerReflection",
      "grpc.reflection.v1alpha.ServerReflection",
    ]));
    expect(new Set(names).size).toBe(names.length);
  });

  it("returns the file holding moderation.v1.ModerationService, with its methods", async () => {
    const [response] = await reflect([{ file_containing_symbol: "moderation.v1.ModerationService" }]);
    expect(response.original_request).toMatchObject({ file_containing_symbol: "moderation.v1.ModerationService" });
    const [file] = decodeFiles(response);
    expect(file).toMatchObject({ name: "moderation/v1/moderation.proto", package: "moderation.v1" });
    const service = file!.service.find((s) => s.name === "ModerationService");
    expect(service).toBeDefined();
    const moderate = service!.method.find((m) => m.name === "Moderate");
    expect(moderate).toMatchObject({ inputType: ".moderation.v1.ModerateRequest", outputType: ".moderation.v1.ModerateResponse" });
    expect(service!.method.map((m) => m.name)).toEqual(expect.arrayContaining(["Moderate", "ListSigningKeys"]));
    expect(file!.messageType.map((m) => m.name)).toEqual(expect.arrayContaining(["ModerateRequest", "ModerateResponse", "InputItem", "ErrorDetail"]));
  });

  it("sends a file's imports once per stream, the requested file every time (as grpc-go does)", async () => {
    const names = (response: any) => decodeFiles(response).map((file) => file.name);
    const responses = await reflect([
      { file_containing_symbol: "moderation.v1.PolicyService" },
      { file_containing_symbol: "moderation.v1.PolicyService" },
      { file_containing_symbol: "moderation.v1.ModerationService" },
    ]);
    expect(responses.map(names)).toEqual([
      ["moderation/v1/policy.proto", "moderation/v1/moderation.proto"],
      ["moderation/v1/policy.proto"],
      ["moderation/v1/moderation.proto"],
    ]);
    // A new stream starts afresh.
    expect(names((await reflect([{ file_containing_symbol: "moderation.v1.PolicyService" }]))[0])).toEqual(["moderation/v1/policy.proto", "moderation/v1/moderation.proto"]);
  });

  it("returns descriptors a client can build a working registry from", async () => {
    const [response] = await reflect([{ file_containing_symbol: "moderation.v1.ModerationService" }]);
    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: decodeFiles(response) }));
    const service = registry.getService("moderation.v1.ModerationService");
    expect(service?.methods.map((m) => m.name)).toEqual(expect.arrayContaining(["Moderate", "ListSigningKeys"]));
    expect(registry.getMessage("moderation.v1.ModerateResponse")?.fields.map((f) => f.name)).toEqual(
      expect.arrayContaining(["id", "model", "flagged", "results", "combined"]),
    );
  });

  it.each([
    ["a method", "moderation.v1.ModerationService.Moderate", "moderation/v1/moderation.proto"],
    ["a message", "moderation.v1.ModerateRequest", "moderation/v1/moderation.proto"],
    ["a fully-qualified name with a leading dot", ".moderation.v1.InputItem", "moderation/v1/moderation.proto"],
    ["the health service", "grpc.health.v1.Health", "grpc/health/v1/health.proto"],
    ["a nested enum", "grpc.health.v1.HealthCheckResponse.ServingStatus", "grpc/health/v1/health.proto"],
  ])("finds the file containing %s", async (_what, symbol, fileName) => {
    const [response] = await reflect([{ file_containing_symbol: symbol }]);
    expect(decodeFiles(response)[0]?.name).toBe(fileName);
  });

  it("returns a file by its name", async () => {
    const responses = await reflect([
      { file_by_filename: "moderation/v1/moderation.proto" },
      { file_by_filename: "grpc/health/v1/health.proto" },
    ]);
    expect(decodeFiles(responses[0])[0]).toMatchObject({ name: "moderation/v1/moderation.proto", package: "moderation.v1" });
    expect(decodeFiles(responses[1])[0]?.service.map((s) => s.name)).toEqual(["Health"]);
  });

  it("answers unknown symbols and files with error_response NOT_FOUND, and keeps the stream open", async () => {
    const responses = await reflect([
      { file_containing_symbol: "moderation.v1.NoSuchService" },
      { file_by_filename: "nope/v1/nope.proto" },
      { list_services: "" },
    ]);
    for (const response of responses.slice(0, 2)) {
      expect(response.message_response).toBe("error_response");
      expect(response.error_response.error_code).toBe(GRPC_NOT_FOUND);
      expect(response.error_response.error_message).toMatch(/not found/);
    }
    expect(responses[0].error_response.error_message).toContain("moderation.v1.NoSuchService");
    expect(responses[2].message_response).toBe("list_services_response");
  });

  it("needs no API key", async () => {
    const [response] = await reflect([{ list_services: "" }]);
    expect(response.message_response).toBe("list_services_response");
  });
});

describe("reflection streams open at once", () => {
  it(`are at most ${MAX_REFLECTION_STREAMS}, v1 and v1alpha together; the next is UNAVAILABLE (service_unavailable), and one leaving makes room`, async () => {
    // Idle streams from a keyless caller had filled HTTP2_MAX_STREAMS and locked Moderate out.
    const V1 = loadService("proto/grpc/reflection/v1/reflection.proto", ["grpc", "reflection", "v1", "ServerReflection"]);
    const V1alpha = loadService("proto/grpc/reflection/v1alpha/reflection.proto", ["grpc", "reflection", "v1alpha", "ServerReflection"]);
    const clients = [new V1(address, grpc.credentials.createInsecure()) as any, new V1alpha(address, grpc.credentials.createInsecure()) as any];
    const open: grpc.ClientDuplexStream<object, any>[] = [];
    const ask = (call: grpc.ClientDuplexStream<object, any>) =>
      new Promise<{ error?: grpc.ServiceError; answered?: true }>((resolve) => {
        call.once("data", () => resolve({ answered: true }));
        call.once("error", (error: grpc.ServiceError) => resolve({ error }));
        call.write({ host: "", list_services: "" });
      });
    try {
      for (let i = 0; i < MAX_REFLECTION_STREAMS; i++) {
        const call = clients[i % 2].ServerReflectionInfo() as grpc.ClientDuplexStream<object, any>;
        call.on("error", () => undefined);
        open.push(call);
      }
      // Every one answers: they are open and counted.
      expect((await Promise.all(open.map(ask))).every((r) => r.answered)).toBe(true);
      const refused = await ask(clients[1].ServerReflectionInfo());
      expect(refused.error?.code).toBe(grpc.status.UNAVAILABLE);
      expect(refused.error?.metadata.get("x-error-code")).toEqual(["service_unavailable"]);
      open.pop()!.end();
      let next: { error?: grpc.ServiceError; answered?: true } = {};
      for (let attempt = 0; attempt < 50 && !next.answered; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        next = await ask(clients[0].ServerReflectionInfo());
      }
      expect(next.answered).toBe(true);
    } finally {
      for (const call of open) call.cancel();
      for (const client of clients) client.close();
    }
  });
});

describe("a method the server does not have, over grpc-js", () => {
  it("answers UNIMPLEMENTED with x-error-code unknown_method, not an HTTP 404", async () => {
    const client = new grpc.Client(address, grpc.credentials.createInsecure());
    const error = await new Promise<grpc.ServiceError | null>((resolve) => {
      client.makeUnaryRequest("/moderation.v1.ModerationService/Nope", (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), (e) => resolve(e));
    });
    client.close();
    expect(error?.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(error?.details).toBe("No RPC method /moderation.v1.ModerationService/Nope on this server.");
    expect(error?.metadata.get("x-error-code")).toEqual(["unknown_method"]);
    expect(error?.metadata.get("signature")).toHaveLength(1);
    expect(error?.metadata.get("x-request-id")).toHaveLength(1);
  });
});

describe("GRPC_REFLECTION=off", () => {
  let quiet: TestServer;
  beforeAll(async () => {
    quiet = await startTestServer({ env: { GRPC_REFLECTION: "off" } });
  });
  afterAll(() => quiet?.close());

  it("serves no reflection (UNIMPLEMENTED, unknown_method) and health no longer lists it", async () => {
    const host = new URL(quiet.grpcUrl).host;
    const Reflection = loadService("proto/grpc/reflection/v1/reflection.proto", ["grpc", "reflection", "v1", "ServerReflection"]);
    const reflection = new Reflection(host, grpc.credentials.createInsecure()) as grpc.Client & Record<string, any>;
    const error = await new Promise<grpc.ServiceError>((resolve) => {
      const call = reflection.ServerReflectionInfo() as grpc.ClientDuplexStream<object, unknown>;
      call.on("error", resolve);
      call.on("data", () => undefined);
      call.write({ host: "", list_services: "" });
      call.end();
    });
    reflection.close();
    expect(error.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(error.metadata.get("x-error-code")).toEqual(["unknown_method"]);
    const Health = loadService("proto/grpc/health/v1/health.proto", ["grpc", "health", "v1", "Health"]);
    const health = new Health(host, grpc.credentials.createInsecure()) as grpc.Client & Record<string, any>;
    const check = (service: string) => new Promise<grpc.ServiceError | null>((resolve) => health.Check({ service }, (e: grpc.ServiceError | null) => resolve(e)));
    expect((await check("grpc.reflection.v1.ServerReflection"))?.code).toBe(GRPC_NOT_FOUND);
    expect(await check("moderation.v1.ModerationService")).toBeNull();
    health.close();
  });
});

describe("Health.Watch at shutdown", () => {
  it("sends NOT_SERVING and ends the stream with OK, so it does not hold the shutdown to be cut", async () => {
    const stopping = await startTestServer();
    const Health = loadService("proto/grpc/health/v1/health.proto", ["grpc", "health", "v1", "Health"]);
    const health = new Health(new URL(stopping.grpcUrl).host, grpc.credentials.createInsecure()) as grpc.Client & Record<string, any>;
    const call = health.Watch({ service: "moderation.v1.ModerationService" }) as grpc.ClientReadableStream<{ status: string }>;
    const statuses: string[] = [];
    const ended = new Promise<grpc.StatusObject>((resolve) => {
      call.on("data", (message: { status: string }) => statuses.push(message.status));
      call.on("error", () => undefined);
      call.on("status", resolve);
    });
    await new Promise<void>((resolve) => call.once("data", () => resolve()));
    const closing = stopping.close();
    const status = await ended;
    await closing;
    health.close();
    expect(statuses).toEqual(["SERVING", "NOT_SERVING"]);
    expect(status.code).toBe(grpc.status.OK);
  });
});
