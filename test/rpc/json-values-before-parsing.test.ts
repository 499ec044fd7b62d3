import { describe, expect, it } from "vitest";
import { MAX_JSON_VALUES } from "../../src/base/json-outline.js";
import { POLICY_JSON_VALUES } from "../../src/rpc/body-limits.js";
import { GRPC } from "../api/error-expectations.js";
import { postRefused, RAW_PROTOCOLS } from "../support/raw-moderate.js";
import { useServerWithKey } from "../support/test-server.js";

/**
 * A Connect JSON body is refused by its count of object members and array elements, read without
 * parsing it (json-outline.ts), as the JSON routes refuse theirs: Connect parses the whole text
 * before it meets the first key its schema lacks, so a Moderate body of millions of unknown keys
 * held the event loop for seconds for each call of a keyed caller.
 */

const file = useServerWithKey();
const connectJson = RAW_PROTOCOLS.find((p) => p.json)!;
const tooMany = (bound: number) => `The request body holds more than ${bound} JSON values (object members and array elements), far more than any request needs.`;

/** One text item holding `count` keys ModerateRequest's InputItem does not have. */
const unknownKeys = (count: number): Uint8Array => {
  const keys = Array.from({ length: count }, (_, i) => `"k${i}":1`).join(",");
  return new TextEncoder().encode(`{"input":[{"type":"text","text":"hi",${keys}}]}`);
};

describe("Connect JSON values counted before parsing", () => {
  it("refuses a Moderate body of 200,000 unknown keys, in the JSON routes' words", async () => {
    const refusal = await postRefused(connectJson, file.server, unknownKeys(200_000), { "x-api-key": file.key });
    expect(refusal).toMatchObject({ code: GRPC.INVALID_ARGUMENT, errorCode: "invalid_request", message: tooMany(MAX_JSON_VALUES) });
  });

  it("still reads a body under the bound (Moderate ignores keys it does not have)", async () => {
    const response = await fetch(`${file.server.httpUrl}/moderation.v1.ModerationService/Moderate`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": file.key }, body: new TextDecoder().decode(unknownKeys(100)),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ results: [{}] });
  });

  it("bounds the policy and account methods by what their largest request holds", async () => {
    const values = (n: number) => new TextEncoder().encode(`{"keyId":"","x":[${Array(n).fill(1).join(",")}]}`);
    const usage = await postRefused(connectJson, file.server, values(MAX_JSON_VALUES + 10), { "x-api-key": file.key }, "/moderation.v1.AccountService/GetUsage");
    expect(usage).toMatchObject({ errorCode: "invalid_request", message: tooMany(MAX_JSON_VALUES) });
    const policy = await postRefused(connectJson, file.server, values(POLICY_JSON_VALUES + 10), { "x-api-key": file.key }, "/moderation.v1.PolicyService/GetPolicy");
    expect(policy).toMatchObject({ errorCode: "invalid_request", message: tooMany(POLICY_JSON_VALUES) });
  });
});
