import { expect, it } from "vitest";
import { envelope, postH1, postH2 } from "../support/raw-rpc.js";
import { useServerWithKey } from "../support/test-server.js";
import { parseExposition, valueOf } from "./scrape.js";

// Refusals the RPC body guard makes (src/rpc/guard-request-body.ts) are answered by Connect
// before the interceptor chain that notes error codes, and gRPC answers errors with HTTP 200: such
// calls were counted and logged as successes (status 200, no code).
const context = useServerWithKey();
const MODERATE = "/moderation.v1.ModerationService/Moderate";

it("counts a gRPC or gRPC-Web call refused by the body guard with its error code, not as a success", async () => {
  const key = context.key;
  const grpc = { "content-type": "application/grpc", te: "trailers", "x-api-key": key };
  const damaged = await postH2(context.server.grpcUrl, MODERATE, grpc, envelope(Uint8Array.from([0x0a, 0xff, 0xff, 0x01])));
  const badTimeout = await postH2(context.server.grpcUrl, MODERATE, { ...grpc, "grpc-timeout": "abc" }, envelope(new Uint8Array(0)));
  const snappy = await postH1(context.server.httpUrl, MODERATE, { "content-type": "application/grpc-web+proto", "grpc-encoding": "snappy", "x-api-key": key }, envelope(new Uint8Array(0), true));
  expect([damaged.metadata["x-error-code"], badTimeout.metadata["x-error-code"], snappy.metadata["x-error-code"]]).toEqual(["invalid_request", "invalid_request", "unsupported_encoding"]);

  await expect.poll(async () => {
    const samples = parseExposition(await context.server.ctx.metrics.render());
    return [
      valueOf(samples, "moderation_requests_total", { route: MODERATE, protocol: "grpc", status: "200", code: "invalid_request" }),
      valueOf(samples, "moderation_requests_total", { route: MODERATE, protocol: "grpc-web", status: "200", code: "unsupported_encoding" }),
      samples.filter((s) => s.name === "moderation_requests_total" && s.labels.route === MODERATE && s.labels.code === "").length,
    ];
  }).toEqual([2, 1, 0]);
});
