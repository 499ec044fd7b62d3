import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { EventEmitter } from "node:events";
import { create, toJson, toBinary } from "@bufbuild/protobuf";
import { createContextValues } from "@connectrpc/connect";
import { ModerateRequestSchema, ModerateResponseSchema, ModerationService } from "../gen/moderation/v1/moderation_pb.js";
import { createAppContext } from "../src/app/app-context.js";
import { readConfig } from "../src/config/config.js";
import { createInterceptorChain } from "../src/interceptors/chain.js";
import { transportKey, rawJsonBodyKey } from "../src/interceptors/context-keys.js";
import { invokeThroughChain } from "../src/http/invoke-chain.js";
import { parseModerateJson } from "../src/http/json-body.js";
import { signJsonBody } from "../src/signing/json-body-signature.js";
import { createModerationServiceImpl } from "../src/rpc/moderation-service.js";
import { createModerator } from "../src/moderation/moderate.js";

const TEXT = "Thanks for the quick reply, see you at the meeting tomorrow. I think the plan is good.";
const BODY = new TextEncoder().encode(JSON.stringify({ input: [{ type: "text", text: TEXT }] }));
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "stages-"));
const ctx = await createAppContext(readConfig({ DATA_DIR: dataDir, IMAGE_MODEL_LOAD: "lazy", PORT: "0", GRPC_PORT: "0", LOG_LEVEL: "warn" }));
const account = await ctx.accounts.createAccount({ email: "s@example.test", plan: "enterprise", rpm: 1_000_000_000 });
const { key } = await ctx.accounts.createKey(account.id);
const interceptors = createInterceptorChain(ctx);
const service = createModerationServiceImpl(ctx);
const moderate = createModerator({ textClassifier: ctx.textClassifier });

async function time(name: string, n: number, fn: () => unknown) {
  for (let i = 0; i < 500; i++) await fn();
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const u = process.cpuUsage(t);
  console.log(`${name.padEnd(36)} ${((u.user + u.system) / n).toFixed(1).padStart(7)} µs`);
}
const req = parseModerateJson(BODY);
const out = create(ModerateResponseSchema, await moderate(req) as never);
const fakeRequest = () => {
  const raw = Object.assign(new EventEmitter(), { complete: true, httpVersionMajor: 1 });
  return { method: "POST", url: "/v1/moderate", headers: { host: "127.0.0.1:8080", "content-type": "application/json", "content-length": String(BODY.length), "x-api-key": key, connection: "keep-alive" }, raw } as never;
};
for (const round of [1, 2]) {
  console.log(`-- round ${round}`);
  await time("classify", 5000, () => ctx.textClassifier.classify(TEXT));
  await time("parseModerateJson", 5000, () => parseModerateJson(BODY));
  await time("moderate()", 5000, () => moderate(req));
  await time("create+toJson+stringify", 5000, () => JSON.stringify(toJson(ModerateResponseSchema, create(ModerateResponseSchema, out as never), { useProtoFieldName: true, alwaysEmitImplicit: true })));
  await time("toBinary", 5000, () => toBinary(ModerateResponseSchema, out));
  const body = toJson(ModerateResponseSchema, out, { useProtoFieldName: true, alwaysEmitImplicit: true });
  await time("signJsonBody", 5000, () => signJsonBody(ctx.signingKeys.signer, { status: 200, body, requestBody: BODY, nowMs: Date.now() }));
  await time("authenticate", 5000, () => ctx.accounts.authenticate(key));
  await time("invokeThroughChain (full)", 5000, () => invokeThroughChain({
    request: fakeRequest(), service: ModerationService, method: ModerationService.method.moderate, impl: service.moderate!, input: req, interceptors,
    contextValues: createContextValues().set(transportKey, "json").set(rawJsonBodyKey, BODY),
  }));
}
await ctx.close();
await fs.rm(dataDir, { recursive: true, force: true });
const { generateKeyPairSync, sign, createHash } = await import("node:crypto");
const kp = generateKeyPairSync("ed25519");
const data = new Uint8Array(600);
const ctx2 = await createAppContext(readConfig({ DATA_DIR: dataDir + "2", IMAGE_MODEL_LOAD: "lazy", PORT: "0", GRPC_PORT: "0", LOG_LEVEL: "warn" }));
for (const round of [1, 2]) {
  await time("ed25519 sign 600B", 5000, () => sign(null, data, kp.privateKey));
  await time("sha256 1KB x2", 5000, () => { createHash("sha256").update(BODY).digest(); createHash("sha256").update(data).digest(); });
  await time("chain with no interceptors", 5000, () => invokeThroughChain({
    request: fakeRequest(), service: ModerationService, method: ModerationService.method.moderate, impl: async () => out, input: req, interceptors: [],
    contextValues: createContextValues().set(transportKey, "json").set(rawJsonBodyKey, BODY),
  }));
  const ic = createInterceptorChain(ctx2);
  const a2 = await ctx2.accounts.createAccount({ email: `s${round}@example.test`, plan: "enterprise", rpm: 1_000_000_000 });
  const k2 = (await ctx2.accounts.createKey(a2.id)).key;
  const fr = () => { const raw = Object.assign(new EventEmitter(), { complete: true, httpVersionMajor: 1 }); return { method: "POST", url: "/v1/moderate", headers: { "content-type": "application/json", "x-api-key": k2 }, raw } as never; };
  await time("chain full, impl returns canned", 5000, () => invokeThroughChain({
    request: fr(), service: ModerationService, method: ModerationService.method.moderate, impl: async () => out, input: req, interceptors: ic,
    contextValues: createContextValues().set(transportKey, "json").set(rawJsonBodyKey, BODY),
  }));
}
await ctx2.close();
