import { readAll } from "./src/training/datasets/index.js";
import { datasetsRoot } from "./src/training/datasets/files.js";
import { CATEGORY_IDS } from "./src/classifiers/categories.js";
const ex = readAll(datasetsRoot());
const sh = CATEGORY_IDS.indexOf("self_harm");
const by = new Map<string, { pos: number; first: number; neg: number; short: number }>();
for (const e of ex) {
  const y = (e as any).labels[sh];
  const s = by.get(e.dataset) ?? { pos: 0, first: 0, neg: 0, short: 0 };
  if (y === 1) { s.pos++; if (/\b(i|i'm|my|me)\b/i.test(e.text)) s.first++; if (e.text.length < 200) s.short++; }
  if (y === 0) s.neg++;
  by.set(e.dataset, s);
}
for (const [d, s] of by) if (s.pos > 0) console.log(d, s);
