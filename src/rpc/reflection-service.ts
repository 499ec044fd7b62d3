import { create, toBinary, type DescFile, type DescMessage, type DescService } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { type ConnectRouter } from "@connectrpc/connect";
import { PUBLIC_BODY_LIMIT } from "./guard-request-body.js";
import { limitOpenStreams } from "./open-streams.js";
import { clearReadErrors } from "./stream-read-errors.js";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";

/**
 * gRPC server reflection (v1 and the older v1alpha that many tools still ask for), over the
 * descriptors compiled into gen/: so the reflection answer can never drift from what is served.
 */
export function registerReflection(router: ConnectRouter, services: readonly DescService[]): void {
  const index = indexDescriptors(services);
  // Public: Connect reads and inflates each request message within a small limit.
  const options = { readMaxBytes: PUBLIC_BODY_LIMIT };
  const limited = limitOpenStreams(MAX_REFLECTION_STREAMS, `${MAX_REFLECTION_STREAMS} reflection streams are open on this server; retry later.`);
  // v1 and v1alpha have the same messages under different packages.
  router.service(v1.ServerReflection, { serverReflectionInfo: (requests) => limited(() => answer(requests, index, v1)) }, options);
  router.service(v1alpha.ServerReflection, {
    // Same shapes, different type names: the casts only bridge the generated types.
    serverReflectionInfo: (requests) => limited(() => answer(requests as never, index, v1alpha as unknown as typeof v1)) as never,
  }, options);
}

/**
 * Reflection streams open at once, v1 and v1alpha together. Public and long-lived by design (a
 * stream stays open between a tool's requests, so no arrival limit cuts it): without a cap, 2,000
 * idle ones from two keyless connections filled HTTP2_MAX_STREAMS, and every Moderate call on the
 * gRPC port was refused (REFUSED_STREAM) while they stayed. With Health.Watch's 1,000, public
 * streams stay under the smallest default HTTP2_MAX_STREAMS (2,000).
 */
export const MAX_REFLECTION_STREAMS = 100;

interface DescriptorIndex {
  serviceNames: string[];
  files: Map<string, DescFile>;
  symbols: Map<string, DescFile>;
  /** Each file as a serialized FileDescriptorProto, made once: descriptors never change while the process runs. */
  serialized: Map<DescFile, Uint8Array>;
}

function indexDescriptors(services: readonly DescService[]): DescriptorIndex {
  const files = new Map<string, DescFile>();
  const symbols = new Map<string, DescFile>();
  const serialized = new Map<DescFile, Uint8Array>();
  const addFile = (file: DescFile) => {
    if (files.has(file.name + ".proto")) return;
    files.set(file.name + ".proto", file);
    serialized.set(file, toBinary(FileDescriptorProtoSchema, file.proto));
    file.dependencies.forEach(addFile);
    const addMessage = (message: DescMessage) => {
      symbols.set(message.typeName, file);
      message.nestedMessages.forEach(addMessage);
      message.nestedEnums.forEach((e) => symbols.set(e.typeName, file));
    };
    file.messages.forEach(addMessage);
    file.enums.forEach((e) => symbols.set(e.typeName, file));
    file.extensions.forEach((e) => symbols.set(e.typeName, file));
    for (const service of file.services) {
      symbols.set(service.typeName, file);
      for (const method of service.methods) symbols.set(`${service.typeName}.${method.name}`, file);
    }
  };
  services.forEach((s) => addFile(s.file));
  return { serviceNames: services.map((s) => s.typeName), files, symbols, serialized };
}

/**
 * The file and the files it imports not yet sent on this stream (`sent`, updated), dependencies
 * first, as serialized FileDescriptorProtos; the requested file always, and first, as clients
 * expect. Like grpc-go's reflection, a stream does not resend a dependency: a caller repeating
 * one request 500 times on one stream (a few bytes each) got every import again each time.
 */
function withDependencies(file: DescFile, sent: Set<string>, serialized: Map<DescFile, Uint8Array>): Uint8Array[] {
  sent.add(file.name);
  const out: Uint8Array[] = [];
  const visit = (f: DescFile) => {
    if (sent.has(f.name)) return;
    sent.add(f.name);
    f.dependencies.forEach(visit);
    out.push(serialized.get(f)!);
  };
  file.dependencies.forEach(visit);
  return [serialized.get(file)!, ...out];
}

async function* answer(requests: AsyncIterable<v1.ServerReflectionRequest>, index: DescriptorIndex, api: typeof v1) {
  const sent = new Set<string>();
  for await (const request of clearReadErrors(requests, api.ServerReflectionRequestSchema.typeName)) {
    const reply = (messageResponse: v1.ServerReflectionResponse["messageResponse"]) =>
      create(api.ServerReflectionResponseSchema, { validHost: request.host, originalRequest: request, messageResponse });
    const notFound = (what: string) =>
      reply({ case: "errorResponse", value: create(api.ErrorResponseSchema, { errorCode: 5, errorMessage: `${what} not found` }) });
    const files = (file: DescFile) =>
      reply({ case: "fileDescriptorResponse", value: create(api.FileDescriptorResponseSchema, { fileDescriptorProto: withDependencies(file, sent, index.serialized) }) });

    const req = request.messageRequest;
    switch (req.case) {
      case "listServices":
        yield reply({
          case: "listServicesResponse",
          value: create(api.ListServiceResponseSchema, { service: index.serviceNames.map((name) => ({ name })) }),
        });
        break;
      case "fileByFilename": {
        const file = index.files.get(req.value);
        yield file ? files(file) : notFound(`file "${req.value}"`);
        break;
      }
      case "fileContainingSymbol": {
        const file = index.symbols.get(req.value.replace(/^\./, ""));
        yield file ? files(file) : notFound(`symbol "${req.value}"`);
        break;
      }
      case "fileContainingExtension":
        yield notFound(`extension ${req.value.extensionNumber} of "${req.value.containingType}"`);
        break;
      case "allExtensionNumbersOfType": {
        const known = index.symbols.has(req.value);
        yield known
          ? reply({ case: "allExtensionNumbersResponse", value: create(api.ExtensionNumberResponseSchema, { baseTypeName: req.value, extensionNumber: [] }) })
          : notFound(`type "${req.value}"`);
        break;
      }
      default:
        yield reply({ case: "errorResponse", value: create(api.ErrorResponseSchema, { errorCode: 3, errorMessage: "unsupported reflection request" }) });
    }
  }
}
