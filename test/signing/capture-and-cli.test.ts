import { afterAll, describe, expect, it, vi } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseHttpCapture } from "../../src/client/parse-http-capture.js";
import { runVerifyCommand } from "../../src/cli/commands/verify.js";
import { UsageError } from "../../src/cli/usage-error.js";
import { FIXTURE_SCOPE, makeKeyRing, signedHttpResponse } from "./fixtures.js";

const ring = makeKeyRing();
const response = await signedHttpResponse(ring);
const dir = mkdtempSync(join(tmpdir(), "verify-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture(statusLine: string, eol: string, preamble = ""): Uint8Array {
  const head = [statusLine, ...Object.entries(response.headers).map(([k, v]) => `${k}: ${v}`), "date: Sun, 22 Nov 2026 10:00:00 GMT"].join(eol);
  return Buffer.concat([Buffer.from(preamble + head + eol + eol), Buffer.from(response.body)]);
}

describe("parseHttpCapture", () => {
  it.each([
    ["HTTP/1.1 200 OK", "\r\n", ""],
    ["HTTP/2 200 ", "\r\n", ""],
    ["HTTP/1.1 200 OK", "\n", ""],
    ["HTTP/1.1 200 OK", "\r\n", "HTTP/1.1 100 Continue\r\n\r\n"],
  ])("reads %j with %j line ends and preamble %j, body byte for byte", (statusLine, eol, preamble) => {
    const parsed = parseHttpCapture(capture(statusLine, eol, preamble));
    expect(parsed.status).toBe(200);
    expect(Buffer.from(parsed.body)).toEqual(Buffer.from(response.body));
    expect(parsed.headers).toContainEqual(["signature", response.headers.signature]);
  });

  it("keeps a body's own trailing newline and CRLFs", async () => {
    const raw = Buffer.from("HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n\r\nline one\r\n\r\nline two\n");
    expect(Buffer.from(parseHttpCapture(raw).body).toString()).toBe("line one\r\n\r\nline two\n");
  });

  it("refuses text that is not a response", async () => {
    expect(() => parseHttpCapture(Buffer.from('{"id":"modr_1"}'))).toThrow(/ends before the blank line|no HTTP status line/);
  });
});

describe("modctl verify (files)", () => {
  const requestFile = join(dir, "req.json");
  const responseFile = join(dir, "resp.txt");
  const keyFile = join(dir, "key.pem");
  const jwksFile = join(dir, "jwks.json");
  writeFileSync(requestFile, response.requestBody);
  writeFileSync(responseFile, capture("HTTP/1.1 200 OK", "\r\n"));
  writeFileSync(jwksFile, JSON.stringify(response.jwks));
  const [active] = ring.publishedKeys;
  writeFileSync(keyFile, createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: active!.x }, format: "jwk" }).export({ format: "pem", type: "spki" }));

  async function run(args: string[]): Promise<{ code: number; out: string }> {
    const writes: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (writes.push(String(chunk)), true));
    try {
      return { code: await runVerifyCommand(args), out: writes.join("") };
    } finally {
      spy.mockRestore();
    }
  }

  it("exits 0 with one JSON line for a valid response, by --key or --jwks file", async () => {
    for (const keyArgs of [["--key", keyFile], ["--jwks", jwksFile]]) {
      const { code, out } = await run(["--request", requestFile, "--response", responseFile, ...keyArgs]);
      expect(code).toBe(0);
      expect(out.trim().split("\n")).toHaveLength(1);
      expect(JSON.parse(out)).toMatchObject({ valid: true, keyId: ring.signer.keyId, status: 200 });
    }
  });

  it("exits 1 with the reason for another request or a doctored response", async () => {
    const otherRequest = join(dir, "other.json");
    writeFileSync(otherRequest, '{"input":[{"type":"text","text":"something else"}]}');
    const other = await run(["--request", otherRequest, "--response", responseFile, "--key", keyFile]);
    expect(other.code).toBe(1);
    expect(JSON.parse(other.out)).toMatchObject({ valid: false, reason: "the response was signed for a different request body" });

    const doctored = join(dir, "doctored.txt");
    writeFileSync(doctored, Buffer.from(capture("HTTP/1.1 200 OK", "\r\n")).toString().replace('"flagged":false', '"flagged":true '));
    const result = await run(["--request", requestFile, "--response", doctored, "--key", keyFile]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ valid: false, reason: "the body does not match Content-Digest" });
  });

  it("with --route and --account, exits 1 unless the response was signed for them", async () => {
    const base = ["--request", requestFile, "--response", responseFile, "--key", keyFile];
    expect((await run([...base, "--route", FIXTURE_SCOPE.route, "--account", FIXTURE_SCOPE.account])).code).toBe(0);
    const otherAccount = await run([...base, "--account", "acct_other"]);
    expect(otherAccount.code).toBe(1);
    expect(JSON.parse(otherAccount.out)).toMatchObject({ valid: false, reason: 'the answer was signed for account "acct_fixture", not "acct_other"' });
    const otherRoute = await run([...base, "--route", "/v1/moderations"]);
    expect(JSON.parse(otherRoute.out)).toMatchObject({ valid: false, reason: 'the answer was signed for route "/v1/moderate", not "/v1/moderations"' });
  });

  it("refuses a --key of another curve as a usage error, naming it (it ended as \"not in the JWKS\")", async () => {
    const x25519 = join(dir, "x25519.pem");
    writeFileSync(x25519, generateKeyPairSync("x25519").publicKey.export({ format: "pem", type: "spki" }));
    await expect(runVerifyCommand(["--request", requestFile, "--response", responseFile, "--key", x25519])).rejects.toThrow(`--key ${x25519} is not a PEM Ed25519 key (it is x25519)`);
  });

  it("treats a bad command line as a usage error (exit 2 in modctl)", async () => {
    await expect(runVerifyCommand(["--request", requestFile, "--response", responseFile])).rejects.toThrow(UsageError);
    await expect(runVerifyCommand(["--request", requestFile, "--response", responseFile, "--key", join(dir, "missing.pem")])).rejects.toThrow(
      `--key: cannot read ${join(dir, "missing.pem")} (ENOENT)`,
    );
  });
});
