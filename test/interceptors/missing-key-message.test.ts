import { describe, expect, it } from "vitest";
import { MISSING_KEY_MESSAGE, missingKeyMessage } from "../../src/interceptors/auth.js";

const SEND = "send Authorization: Bearer <key> or X-API-Key: <key>.";
const headers = (values: Record<string, string>) => new Headers(values);

// A call that presents no usable key is missing_api_key whatever it sent; when it sent a header
// meant to carry one, the message says what was wrong with it.
describe("missingKeyMessage", () => {
  it.each([
    [{ authorization: "mod_abc" }, `The Authorization header holds no scheme (it must read "Bearer <key>"): ${SEND}`],
    [{ authorization: "Bearermod_abc" }, `The Authorization header has no space after "Bearer": ${SEND}`],
    [{ authorization: "bearer" }, `The Authorization header holds "Bearer" but no key after it: ${SEND}`],
    [{ authorization: "Bearer mod_abc extra" }, `The Authorization header holds more than one word after "Bearer" (an API key has no spaces): ${SEND}`],
    [{ authorization: "Basic dXNlcjpwYXNz" }, `The Authorization header uses the "Basic" scheme, and only Bearer carries an API key: ${SEND}`],
    [{ authorization: "Token mod_abc", "x-api-key": " " }, `The Authorization header uses the "Token" scheme, and only Bearer carries an API key: ${SEND}`],
    [{ "x-api-key": " " }, `The X-API-Key header is empty: ${SEND}`],
    [{ "api-key": "mod_abc" }, `A key was sent in an "api-key" header, which this service does not read: ${SEND}`],
    [{ apikey: "mod_abc" }, `A key was sent in an "apikey" header, which this service does not read: ${SEND}`],
    [{}, MISSING_KEY_MESSAGE],
    [{ "user-agent": "curl" }, MISSING_KEY_MESSAGE],
  ])("%j", (values, message) => {
    expect(missingKeyMessage(headers(values))).toBe(message);
  });
});
