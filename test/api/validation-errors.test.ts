import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callModerate, PROTOCOLS, type ModerateBody } from "../support/protocol-clients.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";
import { expectApiError, PNG_DATA_URI, type ExpectedCode } from "./error-expectations.js";

// Request validation is shared by every protocol: the same body must fail the same way,
// with the same code and message, whether it arrives as JSON, Connect, gRPC-Web or gRPC.

const MiB = 1024 * 1024;
const text = (value: string) => ({ type: "text", text: value });
const image = (base64: string) => ({ type: "image", base64 });
/** A data URI whose base64 body decodes to exactly `bytes` bytes (size is judged from the length). */
const dataUriOfSize = (bytes: number) => {
  const groups = Math.ceil(bytes / 3);
  const padding = groups * 3 - bytes;
  return `data:image/png;base64,${"A".repeat(groups * 4 - padding)}${"=".repeat(padding)}`;
};

interface Case {
  name: string;
  body: ModerateBody;
  code: ExpectedCode;
  message: RegExp;
}

const CASES: Case[] = [
  { name: "an empty input list", body: { input: [] }, code: "invalid_request", message: /at least one input item/ },
  { name: "an unknown item type", body: { input: [{ type: "video", text: "x" }] }, code: "invalid_request", message: /input\[0\]\.type is "video"; it must be "text" or "image"/ },
  { name: "an item without a type", body: { input: [{ type: "", text: "x" }] }, code: "invalid_request", message: /input\[0\]\.type is missing/ },
  { name: "an empty text", body: { input: [text("")] }, code: "invalid_request", message: /input\[0\]\.text must be a non-empty string/ },
  { name: "a text item carrying base64", body: { input: [{ type: "text", text: "hi", base64: PNG_DATA_URI }] }, code: "invalid_request", message: /input\[0\].*must not carry "base64"/ },
  { name: "an image item carrying text", body: { input: [{ type: "image", text: "hi", base64: PNG_DATA_URI }] }, code: "invalid_request", message: /input\[0\].*must not carry "text"/ },
  { name: "a bad item after good ones (index named)", body: { input: [text("one"), text("two"), { type: "audio" }] }, code: "invalid_request", message: /input\[2\]\.type/ },
  {
    name: "11 items",
    body: { input: Array.from({ length: 11 }, (_, i) => text(`item ${i}`)) },
    code: "too_many_items",
    message: /at most 10 input items; this one holds 11/,
  },
  { name: "10,001 ASCII code points", body: { input: [text("a".repeat(10_001))] }, code: "text_too_long", message: /input\[0\]\.text is longer than 10,?000 characters/ },
  { name: "10,001 astral code points", body: { input: [text("😀".repeat(10_001))] }, code: "text_too_long", message: /longer than 10,?000 characters \(Unicode code points\)/ },
  { name: "a too-long text as the second item", body: { input: [text("fine"), text("b".repeat(9_999) + "😀😀")] }, code: "text_too_long", message: /input\[1\]\.text/ },
  { name: "an image over 5 MiB once decoded", body: { input: [image(dataUriOfSize(5 * MiB + 1))] }, code: "image_too_large", message: /5 MiB/ },
  { name: "an image that is not a data URI", body: { input: [image("https://example.test/cat.png")] }, code: "invalid_image", message: /data URI/ },
  { name: "an image with an empty base64 field", body: { input: [image("")] }, code: "invalid_image", message: /data URI/ },
  { name: "an image with bad base64", body: { input: [image("data:image/png;base64,@@not*base64!!")] }, code: "invalid_image", message: /valid base64/ },
  { name: "an image with truncated base64", body: { input: [image("data:image/png;base64,iVBORw0KGgoAAA")] }, code: "invalid_image", message: /valid base64/ },
];

let server: TestServer;
let key: string;
beforeAll(async () => {
  ({ server, key } = await startServerWithKey());
});
afterAll(() => server?.close());

describe.each(PROTOCOLS)("request validation over %s", (protocol) => {
  it.each(CASES)("refuses $name", async ({ body, code, message }) => {
    expectApiError(await callModerate(protocol, server, body, key), protocol, code, message);
  });

  it("accepts exactly 10 items", async () => {
    const outcome = await callModerate(protocol, server, { input: Array.from({ length: 10 }, (_, i) => text(`item ${i}`)) }, key);
    expect(outcome.ok).toBe(true);
  });

  it("accepts exactly 10,000 code points, counting astral characters (emoji) as one", async () => {
    const bodies = [
      "a".repeat(10_000),
      "😀".repeat(10_000), // 20,000 UTF-16 units
      "a".repeat(9_999) + "👍",
      "é".repeat(5_000) + "𝒜".repeat(5_000),
    ];
    for (const value of bodies) {
      const outcome = await callModerate(protocol, server, { input: [text(value)] }, key);
      expect(outcome.ok, `${value.slice(0, 4)}… (${value.length} UTF-16 units)`).toBe(true);
    }
  });

  it("does not count an image of exactly 5 MiB as too large", async () => {
    const outcome = await callModerate(protocol, server, { input: [image(dataUriOfSize(5 * MiB))] }, key);
    // The bytes are not a real image, so an image pipeline may refuse them; never for their size.
    if (!outcome.ok) expect(outcome.code).not.toBe("image_too_large");
  });

  it("checks the key before the body: a bad body without a key is missing_api_key", async () => {
    expectApiError(await callModerate(protocol, server, { input: [] }, undefined), protocol, "missing_api_key", /API key is required/);
  });
});
