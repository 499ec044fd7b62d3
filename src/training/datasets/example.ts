import { CATEGORY_IDS, type CategoryId } from "../../classifiers/categories.js";

/** One training or evaluation row after label mapping. */
export interface Example {
  text: string;
  /** Dataset folder name: the unit held out in leave-one-dataset-out evaluation. */
  dataset: string;
  /** Finer source inside the dataset (file, label or slice), for reports. */
  slice: string;
  /** One label per CATEGORY_IDS entry: -1 = the source says nothing about this category; 0 = negative; 1 = positive. */
  labels: Int8Array;
}

export const CATEGORY_INDEX: Readonly<Record<CategoryId, number>> = Object.fromEntries(
  CATEGORY_IDS.map((id, i) => [id, i]),
) as Record<CategoryId, number>;

export const PARENT: Partial<Record<CategoryId, CategoryId>> = {
  harassment_threatening: "harassment",
  hate_threatening: "hate",
  self_harm_intent: "self_harm",
  self_harm_instructions: "self_harm",
  sexual_minors: "sexual",
  violence_graphic: "violence",
};

export type LabelSpec = Partial<Record<CategoryId, 0 | 1>>;

/**
 * Builds a label vector. `base` fills categories the spec does not name: "benign" rows are negative
 * for every category; "unknown" rows say nothing beyond the spec. Sub-categories imply their parent
 * (a positive child makes the parent positive) and a negative parent makes its children negative.
 */
export function makeLabels(spec: LabelSpec, base: "benign" | "unknown"): Int8Array {
  const labels = new Int8Array(CATEGORY_IDS.length).fill(base === "benign" ? 0 : -1);
  for (const [id, value] of Object.entries(spec) as [CategoryId, 0 | 1][]) labels[CATEGORY_INDEX[id]] = value;
  markParentsOfPositives(labels);
  markChildrenOfNegatives(labels);
  return labels;
}

/** A negative parent makes its sub-categories negative (after markParentsOfPositives, as makeLabels does). */
function markChildrenOfNegatives(labels: Int8Array): void {
  for (const [child, parent] of Object.entries(PARENT) as [CategoryId, CategoryId][]) {
    if (labels[CATEGORY_INDEX[parent]] === 0) labels[CATEGORY_INDEX[child]] = 0;
  }
}

/** A positive sub-category makes its parent positive, in the label vector at `labels[at ..]`. */
function markParentsOfPositives(labels: Int8Array, at = 0): void {
  for (const [child, parent] of Object.entries(PARENT) as [CategoryId, CategoryId][]) {
    if (labels[at + CATEGORY_INDEX[child]] === 1) labels[at + CATEGORY_INDEX[parent]] = 1;
  }
}

export const BENIGN: Int8Array = makeLabels({}, "benign");

/** Dataset rows as yielded by readers, before normalisation and de-duplication. */
export function example(dataset: string, slice: string, text: string, labels: Int8Array): Example {
  return { text, dataset, slice, labels };
}
