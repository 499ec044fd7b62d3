import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { parseExposition, valueOf } from "../observability/scrape.js";
import { envelope, postH2 } from "../support/raw-rpc.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Media types are case-insensitive and the service serves "Application/grpc" as gRPC, but the edge
// read the type as sent: such a call was counted as Connect and its grpc-message went out
// percent-encoded as Connect writes it ("An%20API%20key..."), not as gRPC's spec (found by an audit).
describe("a gRPC Content-Type in another case", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("is gRPC at the edge too: its grpc-message is gRPC's, and it is counted as gRPC", async () => {
    const body = envelope(toBinary(ModerateRequestSchema, create(ModerateRequestSchema, { input: [{ type: "text", text: "hi" }] })));
    const call = (contentType: string) => postH2(server.grpcUrl, "/moderation.v1.ModerationService/Moderate", { "content-type": contentType, te: "trailers" }, body);
    const lower = await call("application/grpc");
    for (const contentType of ["Application/grpc", "APPLICATION/GRPC+PROTO"]) {
      const answer = await call(contentType);
      expect(answer.grpcStatus).toBe(16);
      expect(answer.metadata["x-error-code"]).toBe("missing_api_key");
      expect(answer.metadata["grpc-message"]).toBe(lower.metadata["grpc-message"]);
      expect(answer.metadata["grpc-message"]).not.toContain("%20");
    }
    const samples = parseExposition(await server.ctx.metrics.render());
    expect(valueOf(samples, "moderation_requests_total", { route: "/moderation.v1.ModerationService/Moderate", protocol: "grpc", status: "200", code: "missing_api_key" })).toBe(3);
  });
});
