import net from "node:net";
import { describe, expect, it } from "vitest";
import { MAX_REQUEST_BYTES } from "../../src/base/limits.js";
import { useServerWithKey } from "../support/test-server.js";

/**
 * `Expect: 100-continue` (curl sends it for bodies over 1 KB): the invitation to upload goes to a
 * live key's call only (edge/expect-continue.ts). Node sent `100 Continue` to every caller, so a
 * caller without a key was invited to upload what the server then read and dropped.
 */

const file = useServerWithKey();
const WRONG_KEY = `mod_AAAAAAAA_${"A".repeat(43)}`;
const BODY = JSON.stringify({ input: [{ type: "text", text: "see you at lunch" }] });

/** Sends the headers alone and returns what arrives first, then (given `body`) the rest once the body is sent. */
function exchange(path: string, headers: Record<string, string>, body?: string): Promise<{ first: string; rest: string }> {
  const url = new URL(file.server.httpUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      const lines = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, "Content-Type: application/json", `Content-Length: ${Buffer.byteLength(BODY)}`, "Expect: 100-continue",
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
    let first: string | undefined;
    let rest = "";
    socket.on("data", (chunk: Buffer) => {
      if (first === undefined) {
        first = chunk.toString("latin1");
        if (body === undefined) return socket.end();
        socket.write(body);
        return;
      }
      rest += chunk.toString("latin1");
      if (/\r\n\r\n[\s\S]*\}$/.test(rest)) socket.end();
    });
    socket.on("error", reject);
    socket.on("close", () => resolve({ first: first ?? "", rest }));
    // The body is never sent unprompted: a server that waits for it would hold this test until here.
    setTimeout(() => socket.destroy(), 5_000);
  });
}

describe("Expect: 100-continue on HTTP/1.1", () => {
  it.each([["no key", {}], ["a wrong key", { "x-api-key": WRONG_KEY }]] as const)("with %s: no invitation; answered at once over no body", async (_name, headers) => {
    for (const path of ["/v1/moderate", "/v1/moderations"]) {
      const { first } = await exchange(path, headers);
      expect(first, path).toMatch(/^HTTP\/1\.1 401 /);
      expect(first, path).not.toMatch(/100 Continue/);
    }
  });

  it("without a key, a body announced over the limit is still refused as such first (step 2)", async () => {
    const url = new URL(file.server.httpUrl);
    const first = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () =>
        socket.write(`POST /v1/moderate HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${MAX_REQUEST_BYTES + 1}\r\nExpect: 100-continue\r\n\r\n`));
      socket.once("data", (chunk: Buffer) => {
        socket.destroy();
        resolve(chunk.toString("latin1"));
      });
      socket.on("error", reject);
    });
    expect(first).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("with a live key: 100 Continue, then the answer to the body sent after it", async () => {
    const { first, rest } = await exchange("/v1/moderate", { "x-api-key": file.key }, BODY);
    expect(first).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    expect(rest).toMatch(/^HTTP\/1\.1 200 /);
    expect(rest).toContain('"results"');
  });
});

describe("Expect with another value on HTTP/1.1", () => {
  /** One request, headers and body together; the whole answer. */
  function send(headers: Record<string, string>): Promise<string> {
    const url = new URL(file.server.httpUrl);
    return new Promise((resolve, reject) => {
      let answer = "";
      const socket = net.connect(Number(url.port), url.hostname, () => {
        const lines = ["POST /v1/moderate HTTP/1.1", `Host: ${url.host}`, "Content-Type: application/json", `Content-Length: ${Buffer.byteLength(BODY)}`, "Connection: close",
          ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
        socket.write(`${lines.join("\r\n")}\r\n\r\n${BODY}`);
      });
      socket.on("data", (chunk: Buffer) => {
        answer += chunk.toString("latin1");
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(answer));
      setTimeout(() => socket.destroy(), 5_000);
    });
  }

  it("is served as if it had not asked (Node's bare 417 had no code and no signature)", async () => {
    const served = await send({ "x-api-key": file.key, expect: "something-else" });
    expect(served).toMatch(/^HTTP\/1\.1 200 /);
    expect(served).toContain('"results"');
    expect(served.toLowerCase()).toMatch(/\r\nsignature: /);
    const refused = await send({ expect: "something-else" });
    expect(refused).toMatch(/^HTTP\/1\.1 401 /);
    expect(refused).toContain('"missing_api_key"');
  });
});

