import type { Verdict } from "../classifiers/classifier.js";
import type { DecodedImage } from "./decoded-image.js";

/**
 * Scores a decoded image. Like text classifiers, it reports only the categories it really judges;
 * every other category stays absent from its verdict.
 */
export interface ImageClassifier {
  /** Version id reported in the item's `models`, e.g. "nsfwjs-mobilenet_v2@4.3.0". */
  readonly id: string;
  /** `signal`: the call's; once aborted, work not yet started need not be done. */
  classify(image: DecodedImage, signal?: AbortSignal): Promise<Verdict>;
  /** Releases workers or connections, when the classifier holds any. */
  close?(): Promise<void>;
}
