import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Health, HealthCheckResponse_ServingStatus as HealthStatus } from "../../gen/grpc/health/v1/health_pb.js";
import { bracketIpv6Authority } from "../../src/edge/ipv6-authority.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Node's HTTP/2 client sends the authority of http://[::1]:port as "::1:port"; Connect could not
// build a URL from it and every call from connect-node over HTTP/2 to an IPv6 literal failed.

describe("bracketIpv6Authority", () => {
  it.each([
    ["::1:8081", "[::1]:8081"],
    ["::1", "[::1]"],
    ["2001:db8::7:8081", "[2001:db8::7]:8081"],
    ["2001:db8::7:443", "[2001:db8::7:443]"], // not the port it came in on: a whole address
    ["[::1]:8081", "[::1]:8081"],
    ["127.0.0.1:8081", "127.0.0.1:8081"],
    ["example.com:8081", "example.com:8081"],
    ["::x:8081", "::x:8081"],
  ])("%s, on port 8081 -> %s", (sent, expected) => {
    const headers: Record<string, string> = { ":authority": sent };
    bracketIpv6Authority(headers, 8081);
    expect(headers[":authority"]).toBe(expected);
  });
});

describe("connect-node over HTTP/2 to an IPv6 literal", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { HOST: "::1" } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("is answered on gRPC and Connect (both failed: Invalid URL, HTTP 200 without a status)", async () => {
    expect(server.grpcUrl).toMatch(/^http:\/\/\[::1\]:\d+$/);
    for (const transport of [createGrpcTransport({ baseUrl: server.grpcUrl }), createConnectTransport({ baseUrl: server.grpcUrl, httpVersion: "2" })]) {
      expect((await createClient(Health, transport).check({ service: "" })).status).toBe(HealthStatus.SERVING);
    }
  });
});
