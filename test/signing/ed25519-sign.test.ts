import { describe, expect, it } from "vitest";
import { generateKeyPairSync, createPublicKey, sign, verify, randomBytes } from "node:crypto";
import { createEd25519SignFunction, ed25519Backend } from "../../src/signing/ed25519-sign.js";

describe("Ed25519 signing backends", () => {
  it("libsodium's optional binding loads on this platform (the fast path the service uses)", () => {
    expect(ed25519Backend).toBe("libsodium");
  });

  it("libsodium and Node's crypto make the same signature, byte for byte, for any key and message", () => {
    const sodium = (key: Parameters<typeof createEd25519SignFunction>[0]) => createEd25519SignFunction(key, "libsodium");
    for (let k = 0; k < 5; k++) {
      const { privateKey } = generateKeyPairSync("ed25519");
      const [fast, node] = [sodium(privateKey), createEd25519SignFunction(privateKey, "node-crypto")];
      for (const size of [0, 1, 63, 64, 65, 600, 10_000]) {
        const message = randomBytes(size);
        const signature = fast(message);
        expect(Buffer.from(signature).toString("hex"), `key ${k}, ${size} bytes`).toBe(sign(null, message, privateKey).toString("hex"));
        expect(Buffer.from(node(message)).equals(signature)).toBe(true);
        expect(verify(null, message, createPublicKey(privateKey), signature)).toBe(true);
      }
    }
  });

  it("each call returns its own signature buffer, so earlier signatures are not overwritten", () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const signWithKey = createEd25519SignFunction(privateKey);
    const first = signWithKey(Buffer.from("first"));
    const copy = Buffer.from(first);
    signWithKey(Buffer.from("second"));
    expect(Buffer.from(first).equals(copy)).toBe(true);
  });

  it("refuses keys that are not Ed25519 private keys", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    expect(() => createEd25519SignFunction(publicKey)).toThrow(/Ed25519 private key/);
    expect(() => createEd25519SignFunction(ec.privateKey)).toThrow(/Ed25519 private key/);
    expect(() => createEd25519SignFunction(privateKey)).not.toThrow();
  });
});
