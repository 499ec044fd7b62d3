import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startTestServer, type TestServer } from "../support/test-server.js";

const run = promisify(execFile);

/** The shell procedure from docs/signing.md, run as written: the documentation is the test subject. */
const readme = readFileSync("docs/signing.md", "utf8");
const script = /```sh\n(# verify-moderation-response\.sh[\s\S]*?)```/.exec(readme)?.[1];

let server: TestServer;
let apiKey: string;
let accountId: string;
const dir = mkdtempSync(join(tmpdir(), "signing-readme-"));
const scriptFile = join(dir, "verify.sh");

beforeAll(async () => {
  server = await startTestServer();
  ({ key: apiKey, accountId } = await server.createAccount("pro"));
  writeFileSync(scriptFile, script ?? "");
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function verifyWithScript(requestFile: string, headers: string, body: string, scope: string[] = []) {
  return run("bash", [scriptFile, requestFile, `${server.httpUrl}/.well-known/jwks.json`, headers, body, ...scope]).then(
    ({ stdout }) => ({ code: 0, stdout: stdout.trim() }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout.trim() }),
  );
}

describe("docs/signing.md verification procedure (bash, curl, openssl, jq)", () => {
  it("is in docs/signing.md", () => expect(script).toContain("openssl pkeyutl -verify"));

  it.each([
    ["a success", true],
    ["an error (no API key)", false],
  ])("accepts %s for the request sent and rejects it for another or when doctored", async (name, withKey) => {
    const tag = withKey ? "ok" : "err";
    const requestFile = join(dir, `req-${tag}.json`);
    writeFileSync(requestFile, '{"input":[{"type":"text","text":"readme example"}]}\n');
    const headers = join(dir, `headers-${tag}.txt`);
    const body = join(dir, `body-${tag}.bin`);
    await run("curl", [
      "-s", "-D", headers, "-o", body, "-H", "content-type: application/json",
      ...(withKey ? ["-H", `x-api-key: ${apiKey}`] : []),
      "--data-binary", `@${requestFile}`, `${server.httpUrl}/v1/moderate`,
    ]);
    expect(readFileSync(headers, "utf8")).toMatch(withKey ? /^HTTP\/1\.1 200/ : /^HTTP\/1\.1 401/);

    const ok = await verifyWithScript(requestFile, headers, body);
    expect(ok.stdout, name).toMatch(/^valid: signed by /);
    expect(ok.code).toBe(0);

    // Signed for the route called and, with a live key, the caller's account: checked when named.
    expect(await verifyWithScript(requestFile, headers, body, ["/v1/moderate"])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^valid: /) });
    expect(await verifyWithScript(requestFile, headers, body, ["/v1/moderations"])).toEqual({ code: 1, stdout: "invalid: not signed for route /v1/moderations" });
    expect(await verifyWithScript(requestFile, headers, body, ["/v1/moderate", accountId])).toMatchObject(withKey ? { code: 0 } : { code: 1, stdout: `invalid: not signed for account ${accountId}` });
    expect(await verifyWithScript(requestFile, headers, body, ["/v1/moderate", "acct_someone_else"])).toEqual({ code: 1, stdout: "invalid: not signed for account acct_someone_else" });
    // Doctor the account header: the signature catches it.
    if (withKey) {
      const forged = join(dir, "forged.txt");
      writeFileSync(forged, readFileSync(headers, "utf8").replace(/^moderation-account: .*$/im, "moderation-account: acct_someone_else"));
      expect(await verifyWithScript(requestFile, forged, body, ["/v1/moderate", "acct_someone_else"])).toEqual({ code: 1, stdout: "invalid: signature does not verify" });
    }

    const other = join(dir, `other-${tag}.json`);
    writeFileSync(other, '{"input":[{"type":"text","text":"readme example!"}]}\n');
    expect(await verifyWithScript(other, headers, body)).toEqual({ code: 1, stdout: "invalid: signed for a different request" });

    // Doctor the status line: the body and digests still match, only the signature catches it.
    const doctored = join(dir, `doctored-${tag}.txt`);
    writeFileSync(doctored, readFileSync(headers, "utf8").replace(/^HTTP\/1\.1 \d{3}/, "HTTP/1.1 202"));
    expect(await verifyWithScript(requestFile, doctored, body)).toEqual({ code: 1, stdout: "invalid: signature does not verify" });
  });
});
