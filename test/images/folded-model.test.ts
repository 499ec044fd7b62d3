import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { createFoldedModel } from "../../src/images/folded-model.mjs";

/**
 * A small MobileNetV2-shaped model: explicit pad + strided conv + BN + ReLU6, a depthwise block
 * with BN, a residual add, pooling and dense layers. BN statistics are random so folding matters.
 */
function buildModel(size: number): tf.LayersModel {
  const input = tf.input({ shape: [size, size, 3] });
  let x = tf.layers.zeroPadding2d({ padding: [[0, 1], [0, 1]] }).apply(input) as tf.SymbolicTensor;
  x = tf.layers.conv2d({ filters: 8, kernelSize: 3, strides: 2, padding: "valid", useBias: false }).apply(x) as tf.SymbolicTensor;
  x = tf.layers.batchNormalization({ epsilon: 1e-3 }).apply(x) as tf.SymbolicTensor;
  x = tf.layers.reLU({ maxValue: 6 }).apply(x) as tf.SymbolicTensor;
  let y = tf.layers.depthwiseConv2d({ kernelSize: 3, padding: "same", useBias: false }).apply(x) as tf.SymbolicTensor;
  y = tf.layers.batchNormalization({ epsilon: 1e-3 }).apply(y) as tf.SymbolicTensor;
  y = tf.layers.reLU({ maxValue: 6 }).apply(y) as tf.SymbolicTensor;
  y = tf.layers.conv2d({ filters: 8, kernelSize: 1, padding: "same", useBias: false }).apply(y) as tf.SymbolicTensor;
  y = tf.layers.batchNormalization({ epsilon: 1e-3 }).apply(y) as tf.SymbolicTensor;
  x = tf.layers.add().apply([x, y]) as tf.SymbolicTensor;
  x = tf.layers.globalAveragePooling2d({}).apply(x) as tf.SymbolicTensor;
  x = tf.layers.dense({ units: 6, activation: "relu" }).apply(x) as tf.SymbolicTensor;
  x = tf.layers.dropout({ rate: 0.5 }).apply(x) as tf.SymbolicTensor;
  const output = tf.layers.dense({ units: 4, activation: "softmax" }).apply(x) as tf.SymbolicTensor;
  const model = tf.model({ inputs: input, outputs: output });
  // Give every BatchNormalization non-trivial statistics.
  for (const layer of model.layers) {
    if (layer.getClassName() !== "BatchNormalization") continue;
    const n = layer.getWeights()[0]!.shape[0]!;
    layer.setWeights([
      tf.randomUniform([n], 0.5, 1.5, "float32", 1),
      tf.randomUniform([n], -0.5, 0.5, "float32", 2),
      tf.randomUniform([n], -0.3, 0.3, "float32", 3),
      tf.randomUniform([n], 0.5, 2, "float32", 4),
    ]);
  }
  return model;
}

function maxDifference(model: tf.LayersModel, size: number): { difference: number; folded: number } {
  const folded = createFoldedModel(tf, model);
  const input = tf.randomUniform([3, size, size, 3], 0, 1, "float32", 7) as tf.Tensor4D;
  const expected = (model.predict(input) as tf.Tensor).dataSync();
  const actual = folded.predict(input).dataSync();
  let difference = 0;
  for (let i = 0; i < expected.length; i++) difference = Math.max(difference, Math.abs(expected[i]! - actual[i]!));
  folded.dispose();
  return { difference, folded: folded.foldedLayers };
}

describe("folded model", () => {
  beforeAll(async () => {
    await tf.setBackend("cpu");
  });

  it("matches the layers model with batch norm, ReLU6 and 'same'-equivalent padding folded", () => {
    const { difference, folded } = maxDifference(buildModel(16), 16);
    expect(difference).toBeLessThan(1e-5);
    // pad, 3 × BN, 2 × ReLU6
    expect(folded).toBe(6);
  });

  it("keeps an explicit pad that differs from 'same' (odd input size) and still matches", () => {
    // On a 15-pixel input "same" pads 1 on each side, not [0, 1]: folding the pad would be wrong.
    const { difference, folded } = maxDifference(buildModel(15), 15);
    expect(difference).toBeLessThan(1e-5);
    expect(folded).toBe(5);
  });

  it("refuses layers it does not know rather than guessing", () => {
    const input = tf.input({ shape: [4] });
    const output = tf.layers.layerNormalization({}).apply(input) as tf.SymbolicTensor;
    expect(() => createFoldedModel(tf, tf.model({ inputs: input, outputs: output }))).toThrow(/LayerNormalization is not supported/);
  });
});
