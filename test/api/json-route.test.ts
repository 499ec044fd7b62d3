import { gzipSync } from "node:zlib";
import http from "node:http";
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_IMAGE_BYTES, MAX_ITEMS, MAX_REQUEST_BYTES } from "../../src/base/limits.js";
import { callJson } from "../support/protocol-clients.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";
import { expectApiError } from "./error-expectations.js";

// What only the plain JSON route can get wrong: bytes that are not JSON, JSON of the wrong
// shape or types, the Content-Type, the body size; and the HTTP routes around it.

let server: TestServer;
let key: string;
beforeAll(async () => {
  ({ server, key } = await startServerWithKey());
});
afterAll(() => server?.close());

const ok = { input: [{ type: "text", text: "hello" }] };
const raw = (body: string | Uint8Array, contentType = "application/json") => callJson(server.httpUrl, undefined, key, { raw: body, contentType });

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A plain HTTP/1.1 request, for what fetch will not do (lie about Content-Length, stream forever). */
function rawRequest(options: http.RequestOptions, write: (req: http.ClientRequest, responded: () => boolean) => void): Promise<RawResponse> {
  const url = new URL(server.httpUrl);
  return new Promise((resolve, reject) => {
    let done = false;
    const req = http.request({ host: url.hostname, port: url.port, path: "/v1/moderate", method: "POST", agent: false, ...options }, (res) => {
      done = true;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on("error", reject);
    });
    // Once the server has answered it may close while we are still writing: that is expected.
    req.on("error", (error) => (done ? undefined : reject(error)));
    write(req, () => done);
  });
}

describe("the JSON body", () => {
  it.each([
    ["not JSON at all", "{input: oops", /^The request body is not valid JSON: unexpected "i" at line 1, column 2; expected a double-quoted key or "\}" \(a key must be in double quotes\)\.$/],
    ["an empty body", "", /^The request body is empty; send a JSON object such as \{"input":\[\{"type":"text","text":"\.\.\."\}\]\}\.$/],
    ["a body of spaces and line breaks", " \r\n\t ", /^The request body is empty; send a JSON object/],
    ["truncated JSON", '{"input":[{"type":"text","text":"hi"}', /^The request body is not valid JSON: it ends at line 1, column 38, before its JSON is complete/],
    ["a trailing comma", '{"input":[{"type":"text","text":"hi"},]}', /^The request body is not valid JSON: unexpected "\]" at line 1, column 39; expected a value \(JSON allows no comma before "\]"\)\.$/],
    ["JSON that is not an object", '[{"type":"text","text":"hi"}]', /must be a JSON object with an "input" array/],
    ["a JSON string", '"hello"', /must be a JSON object/],
    ["null", "null", /must be a JSON object/],
    ["an object without input", "{}", /"input" must be an array of items/],
    ["input that is not an array", '{"input":"hello"}', /"input" must be an array of items/],
    ["input that is an object", '{"input":{"type":"text","text":"hi"}}', /"input" must be an array/],
    ["an unknown top-level field", '{"input":[{"type":"text","text":"hi"}],"model":"x"}', /Unknown field "model"; expected "input" and optionally "analyze_images"/],
    ["a camelCase analyzeImages", '{"input":[{"type":"text","text":"hi"}],"analyzeImages":true}', /Unknown field "analyzeImages"/],
    ["analyze_images that is not a boolean", '{"input":[{"type":"text","text":"hi"}],"analyze_images":"yes"}', /"analyze_images" must be true or false/],
    ["analyze_images of 1", '{"input":[{"type":"text","text":"hi"}],"analyze_images":1}', /"analyze_images" must be true or false/],
    ["an item that is a string", '{"input":["hello"]}', /input\[0\] must be an object such as \{"type":"text","text":"..."\}/],
    ["an item that is null", '{"input":[null]}', /input\[0\] must be an object/],
    ["an item with an unknown field", '{"input":[{"type":"text","text":"hi","lang":"en"}]}', /input\[0\] has unknown field "lang"/],
    ["a numeric text", '{"input":[{"type":"text","text":42}]}', /input\[0\]\.text must be a string/],
    // null is a field not given, as proto3 JSON (Connect) reads it.
    ["a null text", '{"input":[{"type":"text","text":null}]}', /^input\[0\]\.text must be a non-empty string\.$/],
    ["a null type", '{"input":[{"type":null,"text":"hi"}]}', /^input\[0\]\.type is missing; it must be "text" or "image"\.$/],
    ["an array text", '{"input":[{"type":"text","text":["a"]}]}', /input\[0\]\.text must be a string/],
    ["a numeric type", '{"input":[{"type":1,"text":"hi"}]}', /input\[0\]\.type must be a string/],
    ["an object base64", '{"input":[{"type":"image","base64":{}}]}', /input\[0\]\.base64 must be a string/],
    ["an item without type", '{"input":[{"text":"hi"}]}', /input\[0\]\.type is missing; it must be "text" or "image"/],
    ["a bad second item", '{"input":[{"type":"text","text":"hi"},{"type":"text","text":false}]}', /input\[1\]\.text must be a string/],
    // Refused before JSON.parse builds it: 70 MB of "[" kept the event loop busy for about 20 s.
    ["JSON nested deeper than any request needs", `{"input":${"[".repeat(33)}${"]".repeat(33)}}`, /nests JSON more than 32 levels deep/],
  ])("refuses %s with invalid_request", async (_name, body, message) => {
    expectApiError(await raw(body), "json", "invalid_request", message);
  });

  it("refuses bytes that are not UTF-8", async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"input":[{"type":"text","text":"'), 0xff, 0xfe, ...new TextEncoder().encode('"}]}')]);
    expectApiError(await raw(bytes), "json", "invalid_request", /not valid JSON/);
  });

  it("counts lone surrogates (only JSON escapes can carry them) as one code point each", async () => {
    // "\ud800a" is two code points: a lone high surrogate does not swallow the "a" after it.
    const text = "\\ud800a".repeat(5_001); // 10,002 code points, 10,002 UTF-16 units
    expectApiError(await raw(`{"input":[{"type":"text","text":"${text}"}]}`), "json", "text_too_long", /longer than 10,?000 characters/);
    expect((await raw(`{"input":[{"type":"text","text":"${"\\ud800a".repeat(5_000)}"}]}`)).ok).toBe(true);
  });

  it("keeps a huge unknown field name out of the message", async () => {
    const name = "x".repeat(5_000);
    const outcome = await raw(`{"input":[],"${name}":1}`);
    expectApiError(outcome, "json", "invalid_request", /Unknown field "x{40}…"/);
    if (!outcome.ok) expect(outcome.message.length).toBeLessThan(200);
  });

  it("counts only the brackets outside strings towards the nesting cap", async () => {
    const text = `${"[{".repeat(40)} \\" ${"}]".repeat(40)}`;
    const outcome = await raw(JSON.stringify({ input: [{ type: "text", text }] }));
    expect(outcome.ok).toBe(true);
  });

  it("accepts analyze_images false, and a BOM-less body with extra whitespace", async () => {
    expect((await raw(' \n{"input":[{"type":"text","text":"hi"}], "analyze_images": false}\n ')).ok).toBe(true);
  });

  it("accepts a body that starts with a UTF-8 byte-order mark, and refuses a BOM-only or doubled-BOM body", async () => {
    const bom = [0xef, 0xbb, 0xbf];
    const json = [...new TextEncoder().encode('{"input":[{"type":"text","text":"hi"}]}')];
    expect((await raw(new Uint8Array([...bom, ...json]))).ok).toBe(true);
    expectApiError(await raw(new Uint8Array(bom)), "json", "invalid_request", /^The request body is empty; /);
    expectApiError(await raw(new Uint8Array([...bom, ...bom, ...json])), "json", "invalid_request", /^The request body is not valid JSON: unexpected U\+FEFF at line 1, column 1; expected a JSON value \(a second byte-order mark\)\.$/);
  });

  it("authenticates before it looks at the body", async () => {
    const outcome = await callJson(server.httpUrl, undefined, undefined, { raw: "not json" });
    expectApiError(outcome, "json", "missing_api_key", /API key is required/);
  });
});

describe("Content-Type", () => {
  it.each([
    ["text/plain", "text/plain"],
    ["form data", "application/x-www-form-urlencoded"],
    ["JSON-ish", "application/jsonx"],
    ["Connect's proto type", "application/proto"],
  ])("refuses %s with unsupported_media_type (415)", async (_name, contentType) => {
    expectApiError(await raw(JSON.stringify(ok), contentType), "json", "unsupported_media_type", /must be JSON, sent with Content-Type: application\/json/);
  });

  it("refuses a body without Content-Type", async () => {
    const response = await fetch(`${server.httpUrl}/v1/moderate`, { method: "POST", headers: { "x-api-key": key }, body: new TextEncoder().encode(JSON.stringify(ok)) });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({ error: { code: "unsupported_media_type", message: expect.stringMatching(/Content-Type: application\/json/) } });
  });

  it("refuses a Content-Encoding with unsupported_media_type (415), compressed or not; identity is plain", async () => {
    const body = JSON.stringify(ok);
    for (const [encoding, bytes] of [["gzip", gzipSync(body)], ["gzip", Buffer.from(body)], ["br", Buffer.from(body)]] as const) {
      const response = await fetch(`${server.httpUrl}/v1/moderate`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json", "content-encoding": encoding }, body: bytes });
      expect(response.status).toBe(415);
      expect(await response.json()).toEqual({ error: { code: "unsupported_media_type", message: `The JSON routes take no Content-Encoding (got "${encoding}"): send the body uncompressed.` } });
    }
    const identity = await fetch(`${server.httpUrl}/v1/moderate`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json", "content-encoding": "identity" }, body });
    expect(identity.status).toBe(200);
  });

  it.each(["application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8", 'application/json; charset="utf-8"', "application/json; charset=utf8"])("accepts %s", async (contentType) => {
    expect((await raw(JSON.stringify(ok), contentType)).ok).toBe(true);
  });

  it("refuses a body declared in a charset other than UTF-8 (415, as Connect answers), whatever its bytes", async () => {
    // An audit (session 40): "charset=utf-16" with UTF-8 bytes answered 200, real UTF-16 400 "not valid JSON".
    for (const [charset, bytes] of [["utf-16", Buffer.from(JSON.stringify(ok))], ["UTF-16LE", Buffer.from(JSON.stringify(ok), "utf16le")], ["iso-8859-1", Buffer.from(JSON.stringify(ok))]] as const) {
      const response = await fetch(`${server.httpUrl}/v1/moderate`, { method: "POST", headers: { "x-api-key": key, "content-type": `application/json; charset=${charset}` }, body: bytes });
      expect(response.status).toBe(415);
      expect(await response.json()).toEqual({ error: { code: "unsupported_media_type", message: `The JSON routes read UTF-8 only (got charset "${charset.toLowerCase()}"): send the body as UTF-8.` } });
    }
  });
});

describe("body size", () => {
  it("leaves room for ten maximal image items", () => {
    const maximalItem = { type: "image", base64: `data:image/jpeg;base64,${"A".repeat(Math.ceil(MAX_IMAGE_BYTES / 3) * 4)}` };
    const body = JSON.stringify({ input: Array.from({ length: MAX_ITEMS }, () => maximalItem), analyze_images: true });
    expect(Buffer.byteLength(body)).toBeLessThan(MAX_REQUEST_BYTES);
    // …and not much more: a limit is only useful if it is tight.
    expect(MAX_REQUEST_BYTES).toBeLessThan(Buffer.byteLength(body) * 1.05);
  });

  it("refuses a declared Content-Length over the limit before reading anything (413)", async () => {
    const response = await rawRequest(
      { headers: { "content-type": "application/json", "x-api-key": key, "content-length": String(MAX_REQUEST_BYTES + 1) } },
      (req) => req.write('{"input":['), // and never the rest: the answer must not wait for it
    );
    expect(response.status).toBe(413);
    expect(response.headers["connection"]).toBe("close");
    expect(JSON.parse(response.body)).toEqual({
      error: { code: "payload_too_large", message: expect.stringMatching(new RegExp(`larger than ${MAX_REQUEST_BYTES} bytes, more than ten maximal items need`)) },
    });
  });

  it("refuses a streamed (chunked) body once it passes the limit (413)", async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20); // spaces: valid JSON whitespace, so only the size is wrong
    let sent = 0;
    const response = await rawRequest(
      { headers: { "content-type": "application/json", "x-api-key": key, "transfer-encoding": "chunked" } },
      (req, responded) => {
        const pump = () => {
          while (!responded() && sent <= MAX_REQUEST_BYTES + chunk.length) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once("drain", pump);
          }
          if (!responded()) req.end();
        };
        pump();
      },
    );
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: "payload_too_large", message: expect.stringMatching(/larger than/) } });
    // It stopped reading near the limit instead of buffering everything we could send.
    expect(sent).toBeLessThan(MAX_REQUEST_BYTES + 8 * chunk.length);
  });

  it("still serves the next request after a 413", async () => {
    expect((await raw(JSON.stringify(ok))).ok).toBe(true);
  });
});

describe("HTTP routes", () => {
  it("answers unknown routes with not_found in the same JSON error shape (404)", async () => {
    for (const [method, path] of [["GET", "/nope"], ["POST", "/v1/moderation"], ["GET", "/v2/moderate"], ["DELETE", "/"]] as const) {
      const response = await fetch(`${server.httpUrl}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ error: { code: "not_found", message: `No route for ${method} ${path}.` } });
    }
  });

  it("answers another method on a path it serves with 405 and the methods it does serve (was a 404)", async () => {
    for (const [method, path] of [["POST", "/healthz"], ["DELETE", "/readyz"], ["PUT", "/metrics"], ["POST", "/.well-known/jwks.json"], ["PATCH", "/openapi.json"]] as const) {
      const response = await fetch(`${server.httpUrl}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get("allow")).toBe("GET, HEAD");
      expect(await response.json()).toEqual({ error: { code: "method_not_allowed", message: `Use GET or HEAD for ${path}.` } });
    }
    // HEAD is answered without a body, its signature over the empty one.
    const head = await fetch(`${server.httpUrl}/v1/moderations`, { method: "HEAD" });
    expect([head.status, head.headers.get("allow"), await head.text()]).toEqual([405, "POST", ""]);
  });

  it("does not echo the query string of an unknown route", async () => {
    const response = await fetch(`${server.httpUrl}/nope?token=s3cret`);
    expect(response.status).toBe(404);
    const body = await response.text();
    expect(body).not.toContain("s3cret");
    expect(JSON.parse(body)).toEqual({ error: { code: "not_found", message: "No route for GET /nope." } });
  });

  it.each(["GET", "PUT", "PATCH", "DELETE"])("answers %s /v1/moderate with method_not_allowed (405) and Allow: POST", async (method) => {
    const response = await fetch(`${server.httpUrl}/v1/moderate`, { method, headers: { "x-api-key": key } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({ error: { code: "method_not_allowed", message: expect.stringMatching(/Use POST for \/v1\/moderate/) } });
  });

  // Methods no route is registered for fell to the not-found handler, which took the 405 routes'
  // own methods for served ones: "Allow: GET, HEAD, POST, PUT, PATCH, DELETE", in /v1/moderate's
  // shape on /v1/moderations too (found by an audit).
  it.each(["TRACE", "PROPFIND", "PURGE"])("answers %s on the JSON routes with their own 405: Allow: POST", async (method) => {
    const send = (path: string) => new Promise<{ status: number; allow: string | undefined; body: any }>((resolve, reject) => {
      const request = http.request(`${server.httpUrl}${path}`, { method, headers: { "x-api-key": key } }, (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode!, allow: response.headers.allow, body: JSON.parse(text) }));
      });
      request.on("error", reject);
      request.end();
    });
    expect(await send("/v1/moderate")).toEqual({ status: 405, allow: "POST", body: { error: { code: "method_not_allowed", message: "Use POST for /v1/moderate." } } });
    const openAi = await send("/v1/moderations");
    expect([openAi.status, openAi.allow]).toEqual([405, "POST"]);
    expect(openAi.body.error).toMatchObject({ code: "method_not_allowed", type: "invalid_request_error" });
  });

  it("answers GET /healthz with 200 ok", async () => {
    const response = await fetch(`${server.httpUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("answers GET /readyz with 200 ready once every check passes", async () => {
    const response = await fetch(`${server.httpUrl}/readyz`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe("ready");
    expect(body.checks.database).toBe("ok");
    expect(Object.values(body.checks).every((v) => v === "ok")).toBe(true);
  });

  it("serves the JSON route and health on the h2c listener too", async () => {
    const session = http2.connect(server.grpcUrl);
    try {
      const request = (headers: http2.OutgoingHttpHeaders, body?: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const stream = session.request(headers);
          let status = 0;
          let text = "";
          stream.on("response", (h) => (status = Number(h[":status"])));
          stream.setEncoding("utf8");
          stream.on("data", (chunk: string) => (text += chunk));
          stream.on("end", () => resolve({ status, body: text }));
          stream.on("error", reject);
          stream.end(body);
        });
      expect(await request({ ":method": "GET", ":path": "/healthz" })).toEqual({ status: 200, body: JSON.stringify({ status: "ok" }) });
      const moderated = await request(
        { ":method": "POST", ":path": "/v1/moderate", "content-type": "application/json", "x-api-key": key },
        JSON.stringify(ok),
      );
      expect(moderated.status).toBe(200);
      expect(JSON.parse(moderated.body)).toMatchObject({ id: expect.stringMatching(/^modr_/), results: [{ index: 0, type: "text" }] });
      const unauthenticated = await request({ ":method": "POST", ":path": "/v1/moderate", "content-type": "application/json" }, JSON.stringify(ok));
      expect(unauthenticated.status).toBe(401);
      expect(JSON.parse(unauthenticated.body)).toMatchObject({ error: { code: "missing_api_key" } });
    } finally {
      session.close();
    }
  });
});
