import { createHash, generateKeyPairSync, verify } from "node:crypto";
import { ApiError } from "../../src/errors/api-error.js";
import { parseJsonBody } from "../../src/moderation/json-body-value.js";
import { sha256DigestHeader } from "../../src/signing/sha256.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfiguredTextClassifier } from "../../src/classifiers/configured-text-classifier.js";
import { createPatternClassifier } from "../../src/classifiers/rules/pattern/pattern-classifier.js";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";
import { createComputePool, type ComputePool } from "../../src/workers/compute-pool.js";

const TEXTS = [
  "Thanks for the quick reply, see you at the meeting tomorrow.",
  "I will kill you, you worthless idiot.",
  "",
  "Ünïcödé, emoji 🙂 and\u200bzero-width characters",
  "A long benign paragraph. ".repeat(80),
];

describe("compute pool", () => {
  const keys = generateKeyPairSync("ed25519");
  let pool: ComputePool;
  beforeAll(async () => {
    pool = await createComputePool({ size: 2, setup: { textClassifier: "trained", signingKey: keys.privateKey } });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it("classifies exactly as the same model on the event loop does", async () => {
    const inline = loadTrainedClassifier();
    expect(pool.classifierId).toBe(inline.id);
    for (const text of TEXTS) expect(await pool.classify(text), text.slice(0, 30)).toEqual(await inline.classify(text));
  });

  it("makes Ed25519 signatures that verify with the public key", async () => {
    const data = new TextEncoder().encode("signature base");
    const signature = await pool.sign(data);
    expect(signature).toHaveLength(64);
    expect(verify(null, data, keys.publicKey, signature)).toBe(true);
    expect(verify(null, new TextEncoder().encode("other base"), keys.publicKey, signature)).toBe(false);
  });

  it("matches every answer to its own job when many are in flight at once", async () => {
    const inline = loadTrainedClassifier();
    const texts = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `you are a worthless idiot number ${i}` : `a calm sentence about item ${i}`));
    const datas = texts.map((t) => new TextEncoder().encode(t));
    const [verdicts, signatures] = await Promise.all([
      Promise.all(texts.map((t) => pool.classify(t))),
      Promise.all(datas.map((d) => pool.sign(d))),
    ]);
    for (let i = 0; i < texts.length; i += 37) expect(verdicts[i]).toEqual(await inline.classify(texts[i]!));
    for (let i = 0; i < datas.length; i++) expect(verify(null, datas[i]!, keys.publicKey, signatures[i]!)).toBe(true);
  });

  // Large JSON-route bodies are parsed here (http/json-off-thread.ts): the value, or the refusal,
  // must be the route's own parser's, and the digest remembered for the answer's signature the
  // body's own.
  it("parses JSON bodies as the routes' parser does, refusals included, and remembers each body's digest", async () => {
    const image = `data:image/png;base64,${Buffer.alloc(900_000, 7).toString("base64")}`;
    const bodies = [
      `{"input":[{"type":"image","base64":"${image}"}]}`,
      `{"input":[{"type":"image","base64":"${image}","base64":"x"}]}`,
      `{"input":[{"type":"image","base64":"${image}"}]`,
      `{"input":[${Array.from({ length: 11 }, () => `{"type":"image","base64":"${image.slice(0, 100_000)}"}`).join(",")}]}`,
    ];
    for (const text of bodies) {
      const shared = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(text)));
      shared.write(text);
      const refusal = (error: unknown) => ({ refused: error instanceof ApiError ? { code: error.code, message: error.message } : error });
      const inline = (() => {
        try {
          return { value: parseJsonBody(shared) };
        } catch (error) {
          return refusal(error);
        }
      })();
      expect(await pool.parseJson(shared).then((value) => ({ value }), refusal)).toEqual(inline);
      // The digest is looked up, not computed: a wrong one would fail every verifier.
      expect(sha256DigestHeader(shared)).toBe(`sha-256=:${createHash("sha256").update(shared).digest("base64")}:`);
    }
  });

  it("refuses work once closed, as service_unavailable (the calls still waiting at shutdown may retry elsewhere)", async () => {
    const closing = await createComputePool({ size: 1, setup: { textClassifier: "pattern" } });
    await closing.close();
    await expect(closing.classify("hello")).rejects.toMatchObject({ code: "service_unavailable", message: "The service is shutting down; retry the call." });
  });

  it("says which job kinds a worker was not set up for", async () => {
    const classifyOnly = await createComputePool({ size: 1, setup: { textClassifier: "pattern" } });
    try {
      await expect(classifyOnly.sign(new Uint8Array(3))).rejects.toThrow(/no signing key/);
      expect(classifyOnly.classifierId).toBe(createPatternClassifier().id);
    } finally {
      await classifyOnly.close();
    }
  });
});

describe("compute pool when a worker dies", () => {
  const POISON = "this text makes the worker thread exit";
  let pool: ComputePool;
  beforeAll(async () => {
    pool = await createComputePool({ size: 1, setup: { textClassifier: "pattern", exitOnText: POISON } });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it("re-runs the dead worker's other jobs on a replacement, and gives up on a job that kills it twice", async () => {
    const inline = await loadConfiguredTextClassifier("pattern");
    const before = Array.from({ length: 20 }, (_, i) => `sentence ${i} before the crash`);
    const after = Array.from({ length: 20 }, (_, i) => `sentence ${i} after the crash, you idiot`);
    // All queued in one turn, so they share the poisoned worker's batch.
    const outcomes = await Promise.allSettled([...before, POISON, ...after].map((t) => pool.classify(t)));
    const poisoned = outcomes[before.length]!;
    expect(poisoned.status).toBe("rejected");
    expect((poisoned as PromiseRejectedResult).reason.message).toMatch(/died twice/);
    const others = outcomes.filter((_, i) => i !== before.length);
    expect(others.every((o) => o.status === "fulfilled")).toBe(true);
    const texts = [...before, ...after];
    for (let i = 0; i < texts.length; i++) {
      expect((others[i] as PromiseFulfilledResult<unknown>).value).toEqual(await inline.classify(texts[i]!));
    }
    // And the pool keeps serving afterwards.
    expect(await pool.classify("still here")).toEqual(await inline.classify("still here"));
  });

  it("holds jobs submitted while its only worker restarts, and runs them on the replacement", async () => {
    const inline = await loadConfiguredTextClassifier("pattern");
    const poisoned = pool.classify(POISON).catch((error: Error) => error);
    const late: Promise<unknown>[] = [];
    // Keep submitting across the crash and the restart (a replacement takes a while to load).
    for (let i = 0; i < 25; i++) {
      late.push(pool.classify(`late sentence ${i}`));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await poisoned).toBeInstanceOf(Error);
    const answers = await Promise.all(late);
    for (let i = 0; i < answers.length; i++) expect(answers[i]).toEqual(await inline.classify(`late sentence ${i}`));
  }, 60_000); // generous: the replacement loads TypeScript on 2 cores the suite keeps busy (was 20 s, below the default)
});
