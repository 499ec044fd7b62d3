import { createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { fetchJwks } from "../../client/fetch-jwks.js";
import { parseHttpCapture, CaptureFormatError } from "../../client/parse-http-capture.js";
import { verifyModerationResponse } from "../../client/verify-response.js";
import { toPublicJwk } from "../../signing/ed25519-keys.js";
import type { Jwks } from "../../signing/jwk.js";
import { UsageError } from "../usage-error.js";

const USAGE =
  "usage: modctl verify --request REQ.json --response RESP.txt (--jwks URL|FILE | --key PUBLIC_KEY.pem) [--max-age SECONDS] [--route PATH] [--account ACCOUNT_ID]";

/**
 * modctl verify: checks a saved POST /v1/moderate response (`curl -si ... > RESP.txt`)
 * against the request body that was sent (and, with --route / --account, that it was signed for
 * that route and account). Prints one JSON line; exit 0 valid, 1 not, 2 usage.
 */
export async function runVerifyCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      request: { type: "string" },
      response: { type: "string" },
      jwks: { type: "string" },
      key: { type: "string" },
      "max-age": { type: "string" },
      route: { type: "string" },
      account: { type: "string" },
    },
  });
  if (!values.request || !values.response) throw new UsageError(USAGE);
  if ((values.jwks === undefined) === (values.key === undefined)) throw new UsageError(`give exactly one of --jwks and --key\n${USAGE}`);
  const maxAge = values["max-age"];
  if (maxAge !== undefined && !/^\d+$/.test(maxAge)) throw new UsageError("--max-age must be a whole number of seconds");

  const requestBody = readFile(values.request, "--request");
  const capture = readFile(values.response, "--response");
  let response;
  try {
    response = parseHttpCapture(capture);
  } catch (error) {
    if (error instanceof CaptureFormatError) return report({ valid: false, reason: `cannot read the response capture: ${error.message}` });
    throw error;
  }
  let jwks: unknown;
  try {
    jwks = values.jwks !== undefined ? await loadJwks(values.jwks) : jwksFromKeyFile(values.key ?? "");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // Without keys nothing can be verified: report it like any other failed check.
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return report({ valid: false, reason: `cannot load the JWKS from ${values.jwks}: ${error instanceof Error ? error.message : String(error)}${cause}` });
  }
  const result = await verifyModerationResponse({
    requestBody,
    status: response.status,
    headers: response.headers,
    body: response.body,
    jwks,
    ...(maxAge === undefined ? {} : { maxAgeSeconds: Number(maxAge) }),
    expect: { ...(values.route === undefined ? {} : { route: values.route }), ...(values.account === undefined ? {} : { account: values.account }) },
  });
  return report({
    valid: result.valid,
    ...(result.reason === undefined ? {} : { reason: result.reason }),
    ...(result.keyId === undefined ? {} : { keyId: result.keyId }),
    ...(result.created === undefined ? {} : { signedAt: new Date(result.created * 1000).toISOString() }),
    status: response.status,
  });
}

function report(result: { valid: boolean; reason?: string; [detail: string]: unknown }): number {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return result.valid ? 0 : 1;
}

async function loadJwks(source: string): Promise<unknown> {
  if (/^https?:\/\//i.test(source)) return fetchJwks(source, { fresh: true }); // one check, now: not a cached list
  try {
    return JSON.parse(new TextDecoder().decode(readFile(source, "--jwks"))) as unknown;
  } catch (error) {
    if (error instanceof SyntaxError) throw new UsageError(`--jwks ${source} is not JSON`);
    throw error;
  }
}

/** A PEM public key (or a private key, whose public half is used) as a one-key JWKS. */
function jwksFromKeyFile(path: string): Jwks {
  const text = new TextDecoder().decode(readFile(path, "--key"));
  let key: KeyObject;
  try {
    key = createPublicKey(text);
  } catch {
    throw new UsageError(`--key ${path} is not a PEM Ed25519 key`);
  }
  // Another curve's key (X25519 reads as a public key too) ended as "not in the JWKS".
  if (key.asymmetricKeyType !== "ed25519") throw new UsageError(`--key ${path} is not a PEM Ed25519 key (it is ${key.asymmetricKeyType ?? "not an asymmetric key"})`);
  return { keys: [toPublicJwk(key)] };
}

function readFile(path: string, flag: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
}
