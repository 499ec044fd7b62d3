// Runs a Keras-style layers model (nsfwjs's MobileNetV2) with BatchNormalization folded into the
// preceding convolution, ReLU6 fused into it and explicit zero padding turned into "same", the way
// graph converters do. Profiling the layers model on the wasm backend showed BatchNorm + clip + pad
// taking ~45% of inference time; folding them turns four kernels per block into one. Plain JS (not TS) because it runs in a worker
// thread, which must load without a TypeScript loader on Node 20 and 24.

/** Layers that pass their input through unchanged at inference time. */
const IDENTITY_LAYERS = new Set(["Dropout", "SpatialDropout2D", "GaussianNoise", "GaussianDropout", "ActivityRegularization"]);
const FUSABLE_ACTIVATIONS = new Set(["linear", "relu", "relu6", "elu", "sigmoid", "prelu", "leakyrelu"]);

/**
 * @param {typeof import("@tensorflow/tfjs")} tf
 * @param {import("@tensorflow/tfjs").LayersModel} model a functional model with one input and one output
 * @returns {{ predict(input: import("@tensorflow/tfjs").Tensor4D): import("@tensorflow/tfjs").Tensor; dispose(): void; foldedLayers: number }}
 */
export function createFoldedModel(tf, model) {
  if (model.inputs.length !== 1 || model.outputs.length !== 1) throw new Error("folded model: expected one input and one output");
  const consumers = countConsumers(model);
  /** @type {Array<{ name: string; inputs: string[]; run: (xs: any[]) => any }>} */
  const steps = [];
  /** Output name of a layer that was folded into another → the name that now carries its value. */
  const alias = new Map();
  const owned = [];
  const keep = (t) => {
    owned.push(t);
    return t;
  };
  const resolve = (name) => alias.get(name) ?? name;
  let foldedLayers = 0;
  /** Convolutions that absorbed the ZeroPadding2D before them and now pad "same". */
  const samePadded = new Set();

  for (const layer of model.layers) {
    const kind = layer.getClassName();
    const name = layer.name;
    if (alias.has(name)) continue; // already folded into a convolution
    const inputs = inboundNames(layer).map(resolve);
    if (kind === "InputLayer") continue;
    if (IDENTITY_LAYERS.has(kind)) {
      alias.set(name, inputs[0]);
      continue;
    }
    // Keras' MobileNetV2 pads explicitly before its strided convolutions; when the padding is
    // exactly what "same" would add, the convolution can pad by itself and the Pad kernel goes.
    if (kind === "ZeroPadding2D") {
      const conv = onlyConsumer(model, layer, consumers);
      if (conv && isSamePadding(layer, conv)) {
        alias.set(name, inputs[0]);
        samePadded.add(conv.name);
        foldedLayers++;
        continue;
      }
    }
    if (kind === "Conv2D" || kind === "DepthwiseConv2D") {
      const cfg = layer.getConfig();
      if (cfg.dataFormat !== "channelsLast") throw new Error(`folded model: ${name} is not channels-last`);
      const weights = layer.getWeights();
      let kernel = weights[0];
      const outChannels = kind === "Conv2D" ? kernel.shape[3] : kernel.shape[2] * kernel.shape[3];
      let bias = cfg.useBias ? weights[1] : tf.zeros([outChannels]);
      let activation = activationName(cfg.activation);
      // Fold a following BatchNormalization (and then a ReLU) when this layer is its only producer.
      const bn = onlyConsumer(model, layer, consumers);
      if (activation === "linear" && bn && bn.getClassName() === "BatchNormalization") {
        const folded = foldBatchNorm(tf, kind, kernel, bias, bn);
        kernel = folded.kernel;
        bias = folded.bias;
        alias.set(bn.name, name);
        foldedLayers++;
        const act = onlyConsumer(model, bn, consumers);
        const fused = act && fusableActivation(act);
        if (fused) {
          activation = fused;
          alias.set(act.name, name);
          foldedLayers++;
        }
      }
      if (!FUSABLE_ACTIVATIONS.has(activation)) throw new Error(`folded model: ${name} has unsupported activation ${activation}`);
      kernel = keep(tf.keep(kernel.clone()));
      bias = keep(tf.keep(bias.clone()));
      const strides = cfg.strides;
      const padding = samePadded.has(name) ? "same" : cfg.padding;
      const dilations = cfg.dilationRate;
      steps.push({
        name,
        inputs,
        run: ([x]) =>
          kind === "Conv2D"
            ? tf.fused.conv2d({ x, filter: kernel, strides, pad: padding, dataFormat: "NHWC", dilations, bias, activation })
            : tf.fused.depthwiseConv2d({ x, filter: kernel, strides, pad: padding, dataFormat: "NHWC", dilations, bias, activation }),
      });
      continue;
    }
    if (kind === "Dense") {
      const cfg = layer.getConfig();
      const weights = layer.getWeights();
      const kernel = keep(tf.keep(weights[0].clone()));
      const bias = cfg.useBias ? keep(tf.keep(weights[1].clone())) : undefined;
      const act = activationName(cfg.activation);
      const softmax = act === "softmax";
      if (!softmax && !FUSABLE_ACTIVATIONS.has(act)) throw new Error(`folded model: ${name} has unsupported activation ${act}`);
      steps.push({
        name,
        inputs,
        run: ([x]) => {
          const y = tf.fused.matMul({ a: x, b: kernel, bias, activation: softmax ? "linear" : act });
          return softmax ? tf.softmax(y) : y;
        },
      });
      continue;
    }
    steps.push({ name, inputs, run: plainStep(tf, kind, layer, name) });
  }

  const outputName = resolve(model.outputs[0].sourceLayer.name);
  const inputName = model.inputs[0].sourceLayer.name;
  return {
    foldedLayers,
    predict(input) {
      return tf.tidy(() => {
        const values = new Map([[inputName, input]]);
        for (const step of steps) {
          const xs = step.inputs.map((n) => {
            const v = values.get(n);
            if (!v) throw new Error(`folded model: missing value for ${n}`);
            return v;
          });
          values.set(step.name, step.run(xs));
        }
        const out = values.get(outputName);
        if (!out) throw new Error("folded model: no output");
        return out;
      });
    },
    dispose() {
      for (const t of owned) t.dispose();
    },
  };
}

function plainStep(tf, kind, layer, name) {
  const cfg = layer.getConfig();
  switch (kind) {
    case "ZeroPadding2D": {
      const [[top, bottom], [left, right]] = cfg.padding;
      return ([x]) => tf.pad(x, [[0, 0], [top, bottom], [left, right], [0, 0]]);
    }
    case "ReLU":
      return ([x]) => (cfg.maxValue == null ? tf.relu(x) : tf.clipByValue(x, 0, cfg.maxValue));
    case "Activation": {
      const act = activationName(cfg.activation);
      return ([x]) => applyActivation(tf, act, x);
    }
    case "Add":
      return (xs) => tf.addN(xs);
    case "AveragePooling2D":
      return ([x]) => tf.avgPool(x, cfg.poolSize, cfg.strides, cfg.padding);
    case "MaxPooling2D":
      return ([x]) => tf.maxPool(x, cfg.poolSize, cfg.strides, cfg.padding);
    case "GlobalAveragePooling2D":
      return ([x]) => tf.mean(x, [1, 2]);
    case "Flatten":
      return ([x]) => tf.reshape(x, [x.shape[0], -1]);
    case "Reshape":
      return ([x]) => tf.reshape(x, [x.shape[0], ...cfg.targetShape]);
    case "BatchNormalization": {
      const { scale, shift } = batchNormAffine(tf, layer);
      const s = tf.keep(scale);
      const b = tf.keep(shift);
      return ([x]) => tf.add(tf.mul(x, s), b);
    }
    default:
      throw new Error(`folded model: layer ${name} of kind ${kind} is not supported`);
  }
}

/** True when `pad` adds exactly the zeros that padding "same" would give the valid conv after it. */
function isSamePadding(pad, conv) {
  const kind = conv.getClassName();
  if (kind !== "Conv2D" && kind !== "DepthwiseConv2D") return false;
  const cfg = conv.getConfig();
  if (cfg.padding !== "valid" || cfg.dilationRate.some((d) => d !== 1)) return false;
  const shape = pad.inboundNodes[0]?.inputTensors[0]?.shape; // [batch, height, width, channels]
  if (!Array.isArray(shape) || shape.length !== 4) return false;
  const [[top, bottom], [left, right]] = pad.getConfig().padding;
  const same = (size, kernel, stride) => {
    const total = Math.max((Math.ceil(size / stride) - 1) * stride + kernel - size, 0);
    return [Math.floor(total / 2), total - Math.floor(total / 2)];
  };
  const [kh, kw] = cfg.kernelSize;
  const [sh, sw] = cfg.strides;
  const [expectTop, expectBottom] = same(shape[1], kh, sh);
  const [expectLeft, expectRight] = same(shape[2], kw, sw);
  return top === expectTop && bottom === expectBottom && left === expectLeft && right === expectRight;
}

function applyActivation(tf, act, x) {
  switch (act) {
    case "linear":
      return x;
    case "relu":
      return tf.relu(x);
    case "relu6":
      return tf.relu6(x);
    case "sigmoid":
      return tf.sigmoid(x);
    case "softmax":
      return tf.softmax(x);
    default:
      throw new Error(`folded model: activation ${act} is not supported`);
  }
}

/** y = x * scale + shift, per channel, equivalent to the BatchNormalization layer at inference. */
function batchNormAffine(tf, bn) {
  const cfg = bn.getConfig();
  if (cfg.axis !== -1 && cfg.axis !== 3) throw new Error(`folded model: ${bn.name} normalises axis ${cfg.axis}`);
  const w = bn.getWeights();
  let i = 0;
  const gamma = cfg.scale ? w[i++] : undefined;
  const beta = cfg.center ? w[i++] : undefined;
  const mean = w[i++];
  const variance = w[i++];
  return tf.tidy(() => {
    const inv = tf.rsqrt(tf.add(variance, cfg.epsilon));
    const scale = gamma ? tf.mul(inv, gamma) : inv;
    const shift = tf.sub(beta ?? tf.zerosLike(mean), tf.mul(mean, scale));
    return { scale, shift };
  });
}

function foldBatchNorm(tf, kind, kernel, bias, bn) {
  return tf.tidy(() => {
    const { scale, shift } = batchNormAffine(tf, bn);
    // Output channel c of a depthwise kernel [h, w, in, mult] is in * mult + m.
    const scaleForKernel = kind === "Conv2D" ? scale : tf.reshape(scale, [kernel.shape[2], kernel.shape[3]]);
    return { kernel: tf.mul(kernel, scaleForKernel), bias: tf.add(tf.mul(bias, scale), shift) };
  });
}

function fusableActivation(layer) {
  const kind = layer.getClassName();
  const cfg = layer.getConfig();
  if (kind === "ReLU") {
    if (cfg.maxValue == null && !cfg.threshold && !cfg.negativeSlope) return "relu";
    if (cfg.maxValue === 6 && !cfg.threshold && !cfg.negativeSlope) return "relu6";
    return undefined;
  }
  if (kind === "Activation") {
    const act = activationName(cfg.activation);
    return act === "relu" || act === "relu6" || act === "sigmoid" ? act : undefined;
  }
  return undefined;
}

function activationName(act) {
  if (act == null) return "linear";
  return String(act).toLowerCase();
}

function inboundNames(layer) {
  const node = layer.inboundNodes[0];
  return node ? node.inboundLayers.map((l) => l.name) : [];
}

function countConsumers(model) {
  const counts = new Map();
  for (const layer of model.layers) {
    for (const name of inboundNames(layer)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

function onlyConsumer(model, layer, consumers) {
  if (consumers.get(layer.name) !== 1) return undefined;
  if (model.outputs.some((o) => o.sourceLayer === layer)) return undefined;
  return model.layers.find((l) => inboundNames(l).includes(layer.name));
}
