import type * as tfjs from "@tensorflow/tfjs";

export interface FoldedModel {
  /** BatchNormalization and activation layers folded into convolutions. */
  readonly foldedLayers: number;
  predict(input: tfjs.Tensor4D): tfjs.Tensor;
  dispose(): void;
}

export function createFoldedModel(tf: typeof tfjs, model: tfjs.LayersModel): FoldedModel;
