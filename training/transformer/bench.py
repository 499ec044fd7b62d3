"""Inference cost of the encoder on one core: milliseconds per 1,000-character item (the issue's
budget unit), single-threaded PyTorch, with the item cut into the engine's 480/240 windows (a
1,000-character text is 3 windows of about 100 tokens). Also the model size (float32 and int8
estimates) and an ONNX export for onnxruntime-node.

  python3 training/transformer/bench.py --data /work/cache/transformer --fold hatemoji
"""
import argparse
import json
import os
import time

import torch

from common import Encoder

p = argparse.ArgumentParser()
p.add_argument("--data", required=True)
p.add_argument("--fold", required=True)
p.add_argument("--tag", default="transformer")
p.add_argument("--rounds", type=int, default=200)
p.add_argument("--onnx", action="store_true")
args = p.parse_args()
torch.set_num_threads(1)
ckpt = torch.load(f"{args.data}/{args.tag}-{args.fold}.pt")
cfg = ckpt["config"]
model = Encoder(cfg["vocab_size"], cfg["heads_out"], d=cfg["d"], layers=cfg["layers"], n_heads=cfg["n_heads"], ff=cfg["ff"], max_len=cfg["max_len"])
model.load_state_dict(ckpt["state"])
model.eval()
params = sum(p.numel() for p in model.parameters())
emb = model.tok.weight.numel() + model.mlm_bias.numel()
# A 1,000-character item: 3 windows (480 wide, stride 240) of ~100 tokens each.
ids = torch.randint(3, cfg["vocab_size"], (3, 101))
ids[:, 0] = 1
with torch.inference_mode():
    for _ in range(20):
        model(ids)
    times = []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        model(ids)
        times.append(time.perf_counter() - t0)
times.sort()
res = {
    "msPer1000CharsMedian": round(1000 * times[len(times) // 2], 3), "msPer1000CharsP90": round(1000 * times[int(len(times) * 0.9)], 3),
    "params": params, "float32MB": round(4 * (params - model.mlm_bias.numel()) / 1e6, 2), "int8EmbeddingsMB": round((emb + 4 * (params - emb)) / 1e6, 2),
    "runtime": f"PyTorch {torch.__version__} CPU, 1 thread, batch of the item's 3 windows x 101 tokens", "load": os.getloadavg(),
}
if args.onnx:
    import onnx  # noqa: F401  (checks the exporter's dependency is present)

    path = f"{args.data}/{args.tag}-{args.fold}.onnx"
    torch.onnx.export(model, (ids,), path, input_names=["ids"], output_names=["logits"], dynamic_axes={"ids": {0: "windows", 1: "tokens"}, "logits": {0: "windows"}}, opset_version=14)
    res["onnxMB"] = round(os.path.getsize(path) / 1e6, 2)
print(json.dumps(res, indent=1))
json.dump(res, open(f"{args.data}/{args.tag}-bench.json", "w"), indent=1)
