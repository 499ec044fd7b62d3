import { describe, expect, it } from "vitest";
import { MAX_ITEMS, MAX_TEXT_CODE_POINTS } from "../../src/base/limits.js";
import { POLICY_LIMITS } from "../../src/policies/policy.js";
import { outlineJson } from "../../src/base/json-outline.js";
import { POLICY_JSON_VALUES, POLICY_REQUEST_BYTES } from "../../src/rpc/body-limits.js";
import { useServerWithKey } from "../support/test-server.js";

// Each API method reads at most what its largest valid request needs (src/rpc/body-limits.ts):
// a policy call is not read and decoded up to the 70 MB that ten images need.

/** JSON as an encoder that escapes every non-ASCII character writes it (Python's json.dumps default). */
const asciiJson = (value: unknown): string => JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

describe("the policy methods' limit", () => {
  it("holds the largest valid TestPolicy request, every character escaped", () => {
    const astral = (n: number) => "😀".repeat(n);
    const term = astral(POLICY_LIMITS.termCodePoints);
    const request = {
      rules: {
        thresholds: { harassment: 0.5, hate: 0.5, self_harm: 0.5, sexual: 0.5, violence: 0.5 },
        blockList: Array.from({ length: POLICY_LIMITS.blockListTerms }, () => ({ term, category: "harassment_threatening" })),
        allowList: Array.from({ length: POLICY_LIMITS.allowListTerms }, () => term),
      },
      input: Array.from({ length: MAX_ITEMS }, () => ({ type: "text", text: astral(MAX_TEXT_CODE_POINTS) })),
    };
    const bytes = Buffer.byteLength(asciiJson(request));
    expect(bytes).toBeGreaterThan(14_000_000); // the escapes are counted
    expect(bytes).toBeLessThan(POLICY_REQUEST_BYTES);
    // And its JSON values (object members and array elements), which Connect JSON is held to.
    const { values } = outlineJson(Buffer.from(JSON.stringify({ ...request, rules: { ...request.rules, off: ["sexual", "violence"] } })), "input");
    expect(values).toBeGreaterThan(30_000);
    expect(values).toBeLessThanOrEqual(POLICY_JSON_VALUES);
  });
});

describe("over the wire", () => {
  const file = useServerWithKey();

  const call = (method: string, body: string) =>
    fetch(`${file.server.httpUrl}/moderation.v1.${method}`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": file.key }, body });

  it("refuses an UpdatePolicy body past 16 MiB before reading it, naming the policy limit", async () => {
    const response = await call("PolicyService/UpdatePolicy", `{"rules":{"allowList":["${"a".repeat(POLICY_REQUEST_BYTES)}"]}}`);
    expect(response.status).toBe(429); // Connect's HTTP status for RESOURCE_EXHAUSTED
    expect(response.headers.get("x-error-code")).toBe("payload_too_large");
    expect(await response.json()).toMatchObject({ message: `The request is larger than ${POLICY_REQUEST_BYTES} bytes, more than the largest policy and ten texts need.` });
  }, 30_000);

  it("still reads a policy body of a megabyte and more, and answers with the policy's own refusal", async () => {
    const terms = Array.from({ length: POLICY_LIMITS.allowListTerms + 1 }, (_, i) => `${i} ${"😀".repeat(90)}`);
    const body = asciiJson({ rules: { allowList: terms } });
    expect(body.length).toBeGreaterThan(1_000_000);
    const response = await call("PolicyService/UpdatePolicy", body);
    expect(response.headers.get("x-error-code")).toBe("policy_list_too_large");
  });

  it("refuses a GetUsage body past 64 KiB", async () => {
    const response = await call("AccountService/GetUsage", `{"keyId":"${"k".repeat(70_000)}"}`);
    expect(response.headers.get("x-error-code")).toBe("payload_too_large");
    expect(await response.json()).toMatchObject({ message: "The request is larger than 65536 bytes." });
  });
});
