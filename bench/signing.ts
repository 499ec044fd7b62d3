// Cost of signing one moderation response, and of verifying it, against not signing at all.
// Usage: npm run bench:signing [-- --ms 1500]
import { ed25519Backend } from "../src/signing/ed25519-sign.js";
import { generateKeyPairSync, verify as nodeVerify, createPublicKey } from "node:crypto";
import os from "node:os";
import { parseArgs } from "node:util";
import { create, toBinary, toJson } from "@bufbuild/protobuf";
import { createClient, createRouterTransport, type Interceptor } from "@connectrpc/connect";
import { CATEGORY_IDS } from "../src/classifiers/categories.js";
import { ModerateRequestSchema, ModerateResponseSchema, ModerationService } from "../gen/moderation/v1/moderation_pb.js";
import { verifyModerationResponse } from "../src/client/verify-response.js";
import { createSigningInterceptor } from "../src/interceptors/signing.js";
import { canonicalMessageBytes, sortMapsInPlace } from "../src/signing/canonical-message.js";
import { createKeyRing, toJwks } from "../src/signing/key-ring.js";
import { signRpcOutcome } from "../src/signing/rpc-signature.js";
import { signOutcome } from "../src/signing/sign-outcome.js";

const { values } = parseArgs({ options: { ms: { type: "string", default: "1500" } } });
const budgetMs = Number(values.ms);

const ring = createKeyRing({ active: { privateKey: generateKeyPairSync("ed25519").privateKey, createdAt: 0 }, retiring: [] });
const jwks = toJwks(ring);
const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "a typical sentence of user content to judge" }, { type: "text", text: "and a second one" }] });
const requestBody = new TextEncoder().encode(JSON.stringify({ input: request.input.map((i) => ({ type: i.type, text: i.text })) }));
const categories = Object.fromEntries(CATEGORY_IDS.map((id, i) => [id, { score: (i * 37) % 100 / 100, flagged: false }]));
const response = create(ModerateResponseSchema, {
  id: "modr_0123456789abcdef",
  model: "bench",
  results: [0, 1].map((index) => ({ index, type: "text", categories, models: ["bench"] })),
  combined: { categories },
});
const body = toJson(ModerateResponseSchema, response, { useProtoFieldName: true, alwaysEmitImplicit: true });

/** µs per call of `fn` over one timed round of `ms`. */
async function round(fn: () => unknown, ms: number): Promise<number> {
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.ceil(ms)) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 20; i++) await fn();
    n += 20;
    now = process.hrtime.bigint();
  }
  return Number(now - start) / 1000 / n;
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * µs per call of each function: they take turns over seven rounds sharing the time budget,
 * and each reports its median round. Taking turns means a busy neighbour on a shared
 * machine slows both sides of a comparison alike, and the median drops the worst rounds.
 */
async function measure(...fns: Array<() => unknown>): Promise<number[]> {
  for (const fn of fns) for (let i = 0; i < 200; i++) await fn();
  const rounds: number[][] = fns.map(() => []);
  for (let r = 0; r < 7; r++) {
    for (const [i, fn] of fns.entries()) rounds[i]!.push(await round(fn, budgetMs / 7));
  }
  return rounds.map(median);
}

const measureOne = async (fn: () => unknown) => (await measure(fn))[0]!;

const rows: Array<[string, number]> = [];
const add = (name: string, us: number) => rows.push([name, us]);

// JSON route: what the route does anyway (serialize) vs. serialize + sign.
const [stringifyOnly, stringifyAndSign] = await measure(
  () => JSON.stringify(body),
  () => signOutcome(ring.signer, { kind: "json", status: 200, json: JSON.stringify(body), requestBody, nowMs: Date.now(), scope: { route: "/v1/moderate", account: "acct_bench" } }),
);
add("JSON route: JSON.stringify only (no signing)", stringifyOnly!);
add("JSON route: JSON.stringify + signOutcome", stringifyAndSign!);
// RPC, as the interceptor does it: canonical request bytes, sorted response bytes, signature.
add(
  "RPC: canonical bytes + signRpcOutcome",
  await measureOne(() =>
    signRpcOutcome(ring.signer, {
      requestBytes: canonicalMessageBytes(ModerateRequestSchema, request),
      outcome: { ok: true, messageBytes: toBinary(ModerateResponseSchema, sortMapsInPlace(ModerateResponseSchema, response)) },
    }),
  ),
);
add(`Ed25519 sign alone (${ed25519Backend})`, await measureOne(() => ring.signer.sign(requestBody)));

// Verification, as a caller pays it.
const headers = { "content-type": "application/json; charset=utf-8", ...(await signOutcome(ring.signer, { kind: "json", status: 200, json: JSON.stringify(body), requestBody, nowMs: Date.now(), scope: { route: "/v1/moderate", account: "acct_bench" } })).headers };
const bodyBytes = new TextEncoder().encode(JSON.stringify(body));
add("verifyModerationResponse (WebCrypto)", await measureOne(() => verifyModerationResponse({ requestBody, status: 200, headers, body: bodyBytes, jwks })));
const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwks.keys[0]!.x }, format: "jwk" });
const rawSig = await ring.signer.sign(requestBody);
add("Ed25519 verify alone (node:crypto)", await measureOne(() => nodeVerify(null, requestBody, publicKey, rawSig)));

// A whole in-process Moderate call through Connect, with and without the signing interceptor.
const callWith = (interceptors: Interceptor[]) => {
  const transport = createRouterTransport(
    (router) => router.service(ModerationService, { moderate: () => create(ModerateResponseSchema, response), listSigningKeys: () => ({ keys: [] }) }),
    { router: { interceptors } },
  );
  const client = createClient(ModerationService, transport);
  return () => client.moderate(request);
};
const [plain, signed] = (await measure(callWith([]), callWith([createSigningInterceptor({ keys: ring })]))) as [number, number];
add("Connect call in process, no signing", plain);
add("Connect call in process, signing interceptor", signed);

const width = Math.max(...rows.map(([name]) => name.length));
const [load1] = os.loadavg();
console.log(`signing benchmark (${budgetMs} ms per row, median of 7 alternating rounds; load average ${load1!.toFixed(1)} on ${os.cpus().length} cores)\n`);
for (const [name, us] of rows) console.log(`${name.padEnd(width)}  ${us.toFixed(1).padStart(8)} µs/op  ${Math.round(1e6 / us).toLocaleString("en-US").padStart(9)} ops/s`);
const jsonCost = rows[1]![1] - rows[0]![1];
console.log(`\nadded per JSON response: ${jsonCost.toFixed(1)} µs; per RPC response: ${(signed - plain).toFixed(1)} µs (interceptor, in process)`);
