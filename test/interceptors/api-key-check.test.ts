import { createContextValues } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import type { AccountStore } from "../../src/accounts/account-store.js";
import { createApiKeyCheck, knownWithoutLiveKey } from "../../src/interceptors/auth.js";

// A call known to have no live key gets 10 s for its HTTP/2 body; one whose key the store could
// not look up (the database down) is answered storage_unavailable, retryable, and its upload was
// cut at 10 s as if its key were made up.
const KEY = `mod_AAAAAAAA_${"A".repeat(43)}`;
const storeAnswering = (authenticate: () => Promise<unknown>) =>
  ({ cachedCaller: () => undefined, authenticate }) as unknown as AccountStore;

describe("knownWithoutLiveKey", () => {
  it("is true without a key and for a key the store says is not live", async () => {
    const none = createContextValues();
    expect(createApiKeyCheck(storeAnswering(async () => undefined))(new Headers(), none)).toBe(false);
    expect(knownWithoutLiveKey(none)).toBe(true);
    const unknown = createContextValues();
    expect(await createApiKeyCheck(storeAnswering(async () => undefined))(new Headers({ "x-api-key": KEY }), unknown)).toBe(false);
    expect(knownWithoutLiveKey(unknown)).toBe(true);
  });

  it("is false for a live key and for a key the store could not look up", async () => {
    const live = createContextValues();
    expect(await createApiKeyCheck(storeAnswering(async () => ({ accountId: "acct_1" })))(new Headers({ "x-api-key": KEY }), live)).toBe(true);
    expect(knownWithoutLiveKey(live)).toBe(false);
    const down = createContextValues();
    expect(await createApiKeyCheck(storeAnswering(async () => Promise.reject(new Error("database down"))))(new Headers({ "x-api-key": KEY }), down)).toBe(false);
    expect(knownWithoutLiveKey(down)).toBe(false);
  });
});
