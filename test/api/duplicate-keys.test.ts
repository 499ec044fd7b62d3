import { describe, expect, it } from "vitest";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { useServerWithKey } from "../support/test-server.js";

/**
 * A body with a key twice in one object is refused on the JSON routes, as Connect refuses it.
 * JSON.parse keeps the last value, so `"text":"I will kill you","text":"have a nice day"` was
 * answered 200 not flagged, signed over these very bytes: a reader that keeps the first value
 * would hold a signed "not flagged" for a threat.
 */

const file = useServerWithKey();

async function post(path: string, json: string): Promise<{ status: number; body: any; headers: Headers; raw: Uint8Array }> {
  const response = await fetch(`${file.server.httpUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": file.key }, body: json });
  const raw = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, body: JSON.parse(new TextDecoder().decode(raw)), headers: response.headers, raw };
}

const THREAT_THEN_GREETING = '{"input":[{"type":"text","text":"I will kill you","text":"have a nice day"}]}';
const duplicate = (key: string) => `The request body has a duplicate object key "${key}": a key may appear only once in a JSON object.`;

describe("POST /v1/moderate", () => {
  it("refuses a duplicate key with 400 invalid_request, signed over the body sent", async () => {
    const answer = await post("/v1/moderate", THREAT_THEN_GREETING);
    expect(answer.status).toBe(400);
    expect(answer.headers.get("x-error-code")).toBe("invalid_request");
    expect(answer.body).toEqual({ error: { code: "invalid_request", message: duplicate("text") } });
    const verified = await verifyModerationResponse({
      requestBody: new TextEncoder().encode(THREAT_THEN_GREETING), status: answer.status, headers: answer.headers, body: answer.raw, jwks: toJwks(file.server.ctx.signingKeys),
    });
    expect(verified).toMatchObject({ valid: true });
  });

  it.each([
    ["at the top level", '{"input":[{"type":"text","text":"hi"}],"input":[{"type":"text","text":"I will kill you"}]}', "input"],
    ["written once with an escape", '{"input":[{"type":"text","text":"I will kill you","\\u0074ext":"have a nice day"}]}', "text"],
    ["in any item", '{"input":[{"type":"text","text":"hi"},{"type":"text","type":"image","text":"x"}]}', "type"],
  ])("refuses one %s", async (_where, json, key) => {
    expect(await post("/v1/moderate", json)).toMatchObject({ status: 400, body: { error: { code: "invalid_request", message: duplicate(key) } } });
  });

  it("still answers items that repeat each other's keys", async () => {
    expect((await post("/v1/moderate", '{"input":[{"type":"text","text":"hi"},{"type":"text","text":"there"}]}')).status).toBe(200);
  });
});

describe("POST /v1/moderations (OpenAI's shape)", () => {
  it("refuses a duplicate key with 400, in OpenAI's error shape, as it refuses invalid JSON", async () => {
    const answer = await post("/v1/moderations", '{"input":"I will kill you","input":"hello"}');
    expect(answer.status).toBe(400);
    expect(answer.headers.get("x-error-code")).toBe("invalid_request");
    expect(answer.body).toEqual({ error: { message: duplicate("input"), type: "invalid_request_error", param: null, code: "invalid_request" } });
  });
});

describe("Connect, for comparison", () => {
  it("refuses the same body with 400 invalid_request", async () => {
    const response = await fetch(`${file.server.httpUrl}/moderation.v1.ModerationService/Moderate`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": file.key }, body: THREAT_THEN_GREETING,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-error-code")).toBe("invalid_request");
    expect(((await response.json()) as { message: string }).message).toMatch(/duplicate object key "text"/);
  });
});
