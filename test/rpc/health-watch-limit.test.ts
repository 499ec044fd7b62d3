import { ConnectError, type HandlerContext } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { HealthCheckRequestSchema } from "../../gen/grpc/health/v1/health_pb.js";
import { create } from "@bufbuild/protobuf";
import { createHealthServiceImpl, MAX_WATCH_STREAMS } from "../../src/rpc/health-service.js";

// The impl alone: opening MAX_WATCH_STREAMS + 1 streams over the network would only measure the network.
describe("Health.Watch streams open at once", () => {
  it(`are at most ${MAX_WATCH_STREAMS} per process; the next is service_unavailable, and one leaving makes room`, async () => {
    const impl = createHealthServiceImpl(["moderation.v1.ModerationService"], () => true);
    const open = async () => {
      const left = new AbortController();
      const stream = impl.watch!(create(HealthCheckRequestSchema, { service: "" }), { signal: left.signal } as HandlerContext) as AsyncGenerator<unknown>;
      const first = await stream.next();
      return { left, stream, first };
    };
    const streams = [];
    for (let i = 0; i < MAX_WATCH_STREAMS; i++) streams.push(await open());
    expect(streams[0]!.first.value).toMatchObject({ status: 1 });
    const refused = await open().catch((error: unknown) => ConnectError.from(error));
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).metadata.get("x-error-code")).toBe("service_unavailable");
    // One caller leaves: its stream ends, and a new one is let in.
    const leaving = streams.pop()!;
    const ending = leaving.stream.next();
    leaving.left.abort();
    expect((await ending).done).toBe(true);
    expect((await open()).first.value).toMatchObject({ status: 1 });
  });
});
