import { expect, it } from "vitest";
import { fetchJwks } from "../../src/client/fetch-jwks.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { useServerWithKey } from "../support/test-server.js";

// docs/openai-compatibility.md, "Errors": a 429 on /v1/moderations has `type` "requests" (OpenAI's
// type for a request-rate limit), with the service's stable code, and is signed like every answer.

const started = useServerWithKey();

it("answers the call past the limit 429 with type requests and code rate_limit_exceeded", async () => {
  const { server } = started;
  // The free plan: 10 requests a minute.
  const { key } = await server.createAccount("free");
  const body = JSON.stringify({ input: "hello there" });
  const post = () => fetch(`${server.httpUrl}/v1/moderations`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body });
  for (let i = 0; i < 10; i++) expect((await post()).status).toBe(200);
  const refused = await post();
  const text = await refused.text();
  expect(refused.status).toBe(429);
  expect(JSON.parse(text)).toEqual({ error: { message: expect.any(String), type: "requests", param: null, code: "rate_limit_exceeded" } });
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  const jwks = await fetchJwks(`${server.httpUrl}/.well-known/jwks.json`);
  expect(await verifyModerationResponse({ status: 429, headers: refused.headers, body: text, requestBody: body, jwks })).toMatchObject({ valid: true });
});
