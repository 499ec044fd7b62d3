import { describe, expect, it } from "vitest";
import { callModerate, PROTOCOLS } from "../support/protocol-clients.js";
import { useServerWithKey } from "../support/test-server.js";

// Sentences written for these tests (not from any dataset).
const FRENCH = "Je vais te retrouver ce soir et tu vas le regretter, tout le monde te déteste.";
const SPANISH = "Quiero morir esta noche, ya no aguanto más esta vida.";
const GERMAN = "Ich will nicht mehr leben, alles ist sinnlos geworden.";
const ARABIC = "سأجدك الليلة وستندم على ذلك";
const MIXED = "Thanks for the lovely dinner yesterday, it was great to see everyone again and the food was amazing. " +
  "Mais je vais te retrouver ce soir et tu vas le regretter.";
const ENGLISH = "I will find you and hurt you";

const text = (value: string) => ({ type: "text", text: value });
/** grpc-js (proto-loader) reports an unset optional field as null; the others leave it out. */
const present = (v: unknown) => (v === null ? undefined : v);

const server = useServerWithKey();

describe.each(PROTOCOLS)("languages over %s", (protocol) => {
  it("an answer where everything was evaluated has no not_evaluated", async () => {
    const out = await callModerate(protocol, server.server, { input: [text(ENGLISH), text("see you at noon")] }, server.key);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(present(out.body.not_evaluated)).toBeUndefined();
    expect(out.body.results.map((r: any) => r.language)).toEqual(["en", "en"]);
  });

  it("reports each text's language; text the model does not cover is not evaluated, item and top level say so", async () => {
    const out = await callModerate(protocol, server.server, { input: [FRENCH, SPANISH, GERMAN, ARABIC, MIXED, ENGLISH].map(text) }, server.key);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const results = out.body.results as any[];
    const expected = [["fr", "unsupported_language"], ["es", "unsupported_language"], ["de", "unsupported_language"], ["ar", "unsupported_language"]] as const;
    expected.forEach(([language, reason], i) => {
      const r = results[i];
      expect(r.language, `item ${i}`).toBe(language);
      // Absent, never 0: nothing reads as "safe".
      expect(r.categories ?? {}, `item ${i}`).toEqual({});
      expect(r.explanations ?? [], `item ${i}`).toEqual([]);
      expect(Boolean(r.flagged)).toBe(false);
      expect(r.not_evaluated).toEqual({ reason, language });
    });
    // English with a French part: scored, and marked as partly read.
    expect(results[4].language).toBe("en");
    expect(Object.keys(results[4].categories)).toHaveLength(11);
    expect(results[4].not_evaluated).toEqual({ reason: "partly_unsupported_language", language: "fr" });
    // Plain English: scored, flagged, nothing left unevaluated.
    expect(results[5].language).toBe("en");
    expect(results[5].flagged).toBe(true);
    expect(present(results[5].not_evaluated)).toBeUndefined();
    // The top level lists every item not (wholly) evaluated.
    expect(out.body.not_evaluated.items).toEqual([
      { index: 0, reason: "unsupported_language", language: "fr" },
      { index: 1, reason: "unsupported_language", language: "es" },
      { index: 2, reason: "unsupported_language", language: "de" },
      { index: 3, reason: "unsupported_language", language: "ar" },
      { index: 4, reason: "partly_unsupported_language", language: "fr" },
    ]);
    expect(out.body.flagged).toBe(true);
    // The combined layer (all texts joined) is mostly uncovered; its English threat still flags, so it
    // is reported as partly read rather than dropped.
    expect(out.body.combined.flagged).toBe(true);
    expect(out.body.combined.not_evaluated.reason).toBe("partly_unsupported_language");
  });

  it("the combined layer says it was partly unread when an item was, however the joined text reads", async () => {
    // Joined, these read as English (found by an audit, session 40): the combined layer gave
    // every score and no not_evaluated while item 0 said French.
    const out = await callModerate(protocol, server.server, { input: [text("Ce film est nul, you stupid idiot."), text("have a nice day")] }, server.key);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.body.not_evaluated.items.map((n: any) => n.index)).toEqual([0]);
    expect(out.body.combined.not_evaluated.language).toBe("fr");
  });

  it("the top level says so when only the combined text was unread (a French threat split across messages)", async () => {
    // Each part alone is too short to tell; joined they read as French. The top level said
    // nothing, so a caller reading it alone took the answer for judged and safe (found by an audit).
    const out = await callModerate(protocol, server.server, { input: [text("je vais"), text("te tuer")] }, server.key);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.body.results.map((r: any) => present(r.not_evaluated))).toEqual([undefined, undefined]);
    expect(out.body.combined.not_evaluated).toMatchObject({ reason: "unsupported_language", language: "fr" });
    expect(out.body.not_evaluated.items ?? []).toEqual([]);
    expect(out.body.not_evaluated.combined).toMatchObject({ reason: "unsupported_language", language: "fr" });
  });

  // Found by an audit (session 51): "   ", "!!!" and a lone zero-width space were answered with the
  // model's scores for no text at all (hate 0.044), as if judged.
  it("text with nothing to read is not evaluated (no_text), and leaves nothing of the joined text unread", async () => {
    const out = await callModerate(protocol, server.server, { input: [text("!!!"), text("   "), text("\u200b"), text(ENGLISH), text("🔪🔪")] }, server.key);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const results = out.body.results as any[];
    for (const i of [0, 1, 2]) {
      expect(results[i].categories ?? {}, `item ${i}`).toEqual({});
      expect(results[i].not_evaluated, `item ${i}`).toEqual({ reason: "no_text", language: "und" });
    }
    // English and emoji are read.
    expect(Object.keys(results[3].categories)).toHaveLength(11);
    expect(Object.keys(results[4].categories)).toHaveLength(11);
    expect(out.body.not_evaluated.items.map((n: any) => [n.index, n.reason])).toEqual([[0, "no_text"], [1, "no_text"], [2, "no_text"]]);
    expect(present(out.body.combined.not_evaluated)).toBeUndefined();
    expect(out.body.combined.flagged).toBe(true);
  });

  it("a request wholly in an uncovered language is flagged false only beside its not_evaluated list", async () => {
    const out = await callModerate(protocol, server.server, { input: [text(FRENCH), text(SPANISH)] }, server.key);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(Boolean(out.body.flagged)).toBe(false);
    expect(out.body.not_evaluated.items.map((n: any) => n.index)).toEqual([0, 1]);
    expect(out.body.combined.categories ?? {}).toEqual({});
    expect(out.body.combined.not_evaluated.reason).toBe("unsupported_language");
  });
});
