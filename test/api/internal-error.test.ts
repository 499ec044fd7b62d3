import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../src/base/logger.js";
import type { TextClassifier } from "../../src/classifiers/classifier.js";
import { callModerate, PROTOCOLS } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { expectApiError } from "./error-expectations.js";

// An unexpected failure inside the service must reach the caller as internal_error with a
// generic message: the cause (which may hold paths, SQL, hostnames) is logged, never sent.

const SECRET = "secret internals";
const logged: unknown[] = [];
const failingClassifier: TextClassifier = {
  id: "failing-test-classifier",
  classify(text) {
    if (text.includes("boom")) throw new Error(`${SECRET}: /srv/models/v3.bin at 10.0.0.7`);
    return { categories: { harassment: { score: 0, flagged: false } }, explanations: {} };
  },
};
const captureLog: Logger = {
  error: (obj, msg) => void logged.push([obj, msg]),
  warn: () => undefined, info: () => undefined, debug: () => undefined,
};

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer({ overrides: { textClassifier: failingClassifier, log: captureLog } });
  ({ key } = await server.createAccount("enterprise", 1_000_000));
});
afterAll(() => server?.close());

describe.each(PROTOCOLS)("internal_error over %s", (protocol) => {
  it("answers 500 / INTERNAL with a generic message that leaks nothing", async () => {
    const outcome = await callModerate(protocol, server, { input: [{ type: "text", text: "boom" }] }, key);
    expectApiError(outcome, protocol, "internal_error", /^The server failed to process the request\.$/);
    const everything = JSON.stringify(outcome);
    for (const leak of [SECRET, "/srv/models", "10.0.0.7", "at Object", "Error:"]) expect(everything).not.toContain(leak);
  });

  it("also fails cleanly in the combined layer, and the next request still works", async () => {
    const outcome = await callModerate(protocol, server, { input: [{ type: "text", text: "fine" }, { type: "text", text: "also boom" }] }, key);
    expectApiError(outcome, protocol, "internal_error", /^The server failed to process the request\.$/);
    const next = await callModerate(protocol, server, { input: [{ type: "text", text: "fine" }] }, key);
    expect(next.ok).toBe(true);
  });
});

it("logs the cause it did not send", () => {
  expect(JSON.stringify(logged, (_k, v: unknown) => (v instanceof Error ? v.message : v))).toContain(SECRET);
});
