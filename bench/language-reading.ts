/**
 * readLanguage's cost per text, in process: with ELD's own detect() as the pick and with the
 * faster pick on ELD's tables (src/classifiers/language/eld-top-language.ts), alternating rounds;
 * CPU time per call, median of the rounds.
 *
 *   npx tsx bench/language-reading.ts
 */
import { eldPick, readLanguage } from "../src/classifiers/language/read-language.js";
import { eldTopLanguage } from "../src/classifiers/language/eld-top-language.js";

const TEXTS: Array<[string, string]> = [
  ["npm run bench's text (90 chars)", "Thanks for the quick reply, see you at the meeting tomorrow. I think the plan is good."],
  ["French (80 chars)", "Je vais te retrouver ce soir et tu vas le regretter, tout le monde te déteste."],
  ["English, 1,000 chars", "I think the plan is good, but we should talk about the budget before the meeting. ".repeat(12).slice(0, 1000)],
];
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const EN = new Set(["en"]);

function cpuPerCall(text: string, pick: (t: string) => string): number {
  const started = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) readLanguage(text, EN, pick);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / CALLS;
}

for (const [name, text] of TEXTS) {
  const runs: Record<string, number[]> = { eld: [], fast: [] };
  for (let round = 0; round <= ROUNDS; round++) {
    const eldMicros = cpuPerCall(text, eldPick);
    const fastMicros = cpuPerCall(text, eldTopLanguage);
    if (round === 0) continue; // warm-up
    runs.eld!.push(eldMicros);
    runs.fast!.push(fastMicros);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${name.padEnd(34)} ELD detect ${median(runs.eld!).toFixed(1).padStart(6)} µs   fast pick ${median(runs.fast!).toFixed(1).padStart(6)} µs per readLanguage`);
}
