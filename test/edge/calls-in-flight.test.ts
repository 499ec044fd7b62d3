import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callModerate } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Each RPC call links its abort signal to the listener's shutdown signal (app-routes.ts). With the
// plugin's own signal, more than ten calls at once made Node warn of a listener leak on stderr.
describe("many RPC calls in flight at once", () => {
  let server: TestServer;
  let key: string;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  beforeAll(async () => {
    server = await startTestServer();
    ({ key } = await server.createAccount("enterprise", 1_000_000));
    process.on("warning", onWarning);
  }, 60_000);
  afterAll(async () => {
    process.off("warning", onWarning);
    await server.close();
  });

  it("are all answered, and Node warns of no listener leak", async () => {
    const calls = Array.from({ length: 40 }, (_, i) => callModerate(i % 2 ? "connect" : "grpc", server, { input: [{ type: "text", text: `hello ${i}` }] }, key));
    const outcomes = await Promise.all(calls);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
  }, 60_000);
});
