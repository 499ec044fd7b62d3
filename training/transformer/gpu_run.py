"""The transformer family at full scale, in one time-boxed run on a GPU machine (issue 16 item 3):
MLM pretraining on the text no fold holds out, then per held-out dataset a fine-tuned model that has
never seen it, then a final model on every training row. Reads the packed corpus of
src/training/transformer-pack.ts; writes to --out:

  fold-scores.npz   per fold d: calib-d (float16 logits of the fold's calibration rows, in row order,
                    as fold-d-calib.jsonl) and heldout-d (float16 logits per held-out text, max over
                    windows); with the no-pretraining ablation, the same under nopre-calib-d, nopre-heldout-d
  teacher-1.npz,    per fold d (and "final"): uint8 probabilities (round(255 p)) of every corpus row,
  teacher-2.npz     the teacher targets for distilling into the embedding-bag MLP (train-mlp.ts)
  final-model.pt    the final model: embeddings int8 with a scale per row, the rest float16
  run.json          settings, steps, epochs, losses and seconds of every stage

Time-boxed on the wall clock from the start (--deadline): every stage's cosine schedule is sized by
the pace of its first steps, and files are rewritten after each fold, so a run cut short still
returns what it finished.

  python3 training/transformer/gpu_run.py --pack .gpu/pack --out $OUT --deadline 540
"""
import argparse
import copy
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from common import CLS, MASK, Encoder

p = argparse.ArgumentParser()
p.add_argument("--pack", required=True)
p.add_argument("--out", required=True)
p.add_argument("--deadline", type=float, default=540, help="seconds from start by which everything is written")
p.add_argument("--pretrain-seconds", type=float, default=120)
p.add_argument("--fold-seconds", type=float, default=40)
p.add_argument("--fold-epochs", type=float, default=3)
p.add_argument("--d", type=int, default=256)
p.add_argument("--layers", type=int, default=4)
p.add_argument("--heads", type=int, default=8)
p.add_argument("--ff", type=int, default=1024)
p.add_argument("--batch", type=int, default=256)
p.add_argument("--pretrain-batch", type=int, default=512)
p.add_argument("--pretrain-lr", type=float, default=1e-3)
p.add_argument("--lr", type=float, default=3e-4)
p.add_argument("--seed", type=int, default=20261101)
p.add_argument("--folds", default="", help="comma-separated subset of the pack's folds (default: all)")
p.add_argument("--limit-rows", type=int, default=0, help="smoke test: keep every n-th row only")
p.add_argument("--ablation", action="store_true", help="also fine-tune every fold from random weights, if time is left")
args = p.parse_args()
started = time.time()
os.makedirs(args.out, exist_ok=True)
dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
amp = dict(device_type="cuda", dtype=torch.bfloat16) if dev.type == "cuda" else dict(device_type="cpu", enabled=False)
torch.manual_seed(args.seed)
log_lines = []


def log(m):
    line = f"[{time.time() - started:6.1f}s] {m}"
    print(line, flush=True)
    log_lines.append(line)


def left():
    return args.deadline - (time.time() - started)


meta = json.load(open(f"{args.pack}/meta.json"))
K = len(meta["heads"])
MAX_LEN = meta["maxWords"] + 1
folds = [f for f in meta["folds"] if not args.folds or f in args.folds.split(",")]
rd = lambda name, dt: np.fromfile(f"{args.pack}/{name}", dtype=dt)


def padded(tokens, offsets):
    """[n, MAX_LEN] int64 ids with [CLS] first, and lengths; built with numpy, then moved once."""
    n = len(offsets) - 1
    lens = np.minimum(offsets[1:] - offsets[:-1], MAX_LEN - 1).astype(np.int64)
    ids = np.zeros((n, MAX_LEN), dtype=np.int64)
    ids[:, 0] = CLS
    pos = np.arange(MAX_LEN - 1)[None, :]
    take = pos < lens[:, None]
    src = offsets[:-1, None].astype(np.int64) + pos
    ids[:, 1:][take] = tokens[src[take]]
    return torch.from_numpy(ids).to(dev), torch.from_numpy(lens + 1).to(dev)


ids_all, len_all = padded(rd("rows.tokens.u16", np.uint16), rd("rows.offsets.u32", np.uint32))
dataset = torch.from_numpy(rd("rows.dataset.u8", np.uint8).astype(np.int64)).to(dev)
split = torch.from_numpy(rd("rows.split.u8", np.uint8).astype(np.int64)).to(dev)
labels = torch.from_numpy(rd("rows.labels.i8", np.int8).astype(np.float32).reshape(-1, K)).to(dev)
weight = torch.from_numpy(rd("rows.weight.f32", np.float32)).to(dev)
N = ids_all.shape[0]
keep_row = torch.ones(N, dtype=torch.bool, device=dev)
if args.limit_rows > 1:
    keep_row = torch.arange(N, device=dev) % args.limit_rows == 0
fold_ds = {d: meta["datasets"].index(d) for d in meta["folds"]}
is_fold_ds = torch.zeros(N, dtype=torch.bool, device=dev)
for i in fold_ds.values():
    is_fold_ds |= dataset == i
log(f"{N} rows on {dev}, vocabulary {meta['vocabSize']}, mean length {len_all.float().mean():.1f} ids; folds {folds}")


def batches(rows, batch, gen):
    """Index batches of similar length (sorted within random chunks of 50 batches), shuffled."""
    perm = rows[torch.randperm(len(rows), generator=gen, device="cpu").to(dev)]
    out = []
    chunk = batch * 50
    for i in range(0, len(perm), chunk):
        part = perm[i : i + chunk]
        part = part[torch.argsort(len_all[part])]
        out += list(torch.split(part, batch))
    order = torch.randperm(len(out), generator=gen).tolist()
    return [out[o] for o in order]


def cosine(step, total, peak, warmup):
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total - warmup))))


def new_model():
    return Encoder(meta["vocabSize"], K, d=args.d, layers=args.layers, n_heads=args.heads, ff=args.ff, max_len=MAX_LEN).to(dev)


def optimizer(model, lr):
    kw = dict(fused=True) if dev.type == "cuda" else {}
    return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01, **kw)


def run_boxed(rows, batch, seconds, max_epochs, peak_lr, step_fn, opt, what):
    """Trains until max_epochs or the time box; the schedule length is re-estimated from the pace."""
    gen = torch.Generator().manual_seed(args.seed)
    steps_per_epoch = math.ceil(len(rows) / batch)
    planned = total = max(1, int(steps_per_epoch * max_epochs))
    warmup = min(300, max(10, planned // 20))  # the pretraining plan is open-ended: cap the warm-up
    step, t0, ema, epoch = 0, time.time(), None, 0
    while step < total:
        for b in batches(rows, batch, gen):
            for g in opt.param_groups:
                g["lr"] = cosine(step, total, peak_lr, warmup)
            loss = step_fn(b)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(opt.param_groups[0]["params"], 1.0)
            opt.step()
            step += 1
            if step % 25 == 0:
                ema = loss.item() if ema is None else 0.9 * ema + 0.1 * loss.item()
                elapsed = time.time() - t0
                total = max(step + 1, min(planned, int(step * seconds / elapsed)))
            if step % 500 == 0:
                log(f"{what}: step {step}/{total} loss {ema:.4f} ({(time.time() - t0) / step * 1000:.1f} ms/step)")
            if step >= total:
                break
        epoch += 1
    return dict(steps=step, epochs=round(step / steps_per_epoch, 2), loss=ema, seconds=round(time.time() - t0, 1))


def trimmed(b):
    return ids_all[b][:, : int(len_all[b].max())]


# --- 1. MLM pretraining on every row of the datasets no fold holds out (labels unused). ---
V = meta["vocabSize"]
SPECIAL = meta["special"]


def mlm_step(model):
    def step(b):
        ids = trimmed(b)
        real = ids >= SPECIAL
        r = torch.rand(ids.shape, device=dev)
        target = real & (r < 0.15)
        inputs = ids.clone()
        inputs[target & (r < 0.12)] = MASK
        rnd = target & (r >= 0.12) & (r < 0.135)
        inputs[rnd] = torch.randint(SPECIAL, V, (int(rnd.sum()),), device=dev)
        with torch.autocast(**amp):
            h, _ = model.hidden(inputs)
            logits = model.mlm_logits(h[target])
        return F.cross_entropy(logits.float(), ids[target])
    return step


info = dict(args=vars(args), started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)), device=torch.cuda.get_device_name(0) if dev.type == "cuda" else "cpu")
pre_rows = torch.nonzero(~is_fold_ds & keep_row).squeeze(1)
pretrained = new_model()
info["parameters"] = sum(p.numel() for p in pretrained.parameters())
log(f"pretraining on {len(pre_rows)} rows, {info['parameters']} parameters")
pretrained.train()
info["pretrain"] = run_boxed(pre_rows, args.pretrain_batch, args.pretrain_seconds, 1000, args.pretrain_lr, mlm_step(pretrained), optimizer(pretrained, args.pretrain_lr), "pretrain")
info["pretrain"]["rows"] = len(pre_rows)
log(f"pretrained: {info['pretrain']}")
pre_state = copy.deepcopy(pretrained.state_dict())
del pretrained


# --- 2. Fine-tuning: the project's masked multi-label loss (train-mlp.ts). ---
def finetune(rows, from_pretrained, seconds, what):
    model = new_model()
    if from_pretrained:
        model.load_state_dict(pre_state)
    y, w = labels[rows], weight[rows]
    pos = ((y == 1).float() * w[:, None]).sum(0)
    neg = ((y == 0).float() * w[:, None]).sum(0)
    pos_w = torch.clamp(torch.sqrt(neg / pos.clamp(min=1)), 1, 8)
    rows = rows[(labels[rows] >= 0).any(1)]  # rows with no labelled head train nothing

    def step(b):
        yb = labels[b]
        known = (yb >= 0).float()
        wb = weight[b][:, None] * torch.where(yb == 1, pos_w[None], torch.ones_like(yb)) * known
        with torch.autocast(**amp):
            logits = model(trimmed(b))
        return (F.binary_cross_entropy_with_logits(logits.float(), yb.clamp(min=0), reduction="none") * wb).sum() / len(b)

    model.train()
    stats = run_boxed(rows, args.batch, seconds, args.fold_epochs, args.lr, step, optimizer(model, args.lr), what)
    model.eval()
    return model, stats


@torch.no_grad()
def logits_of(model, ids, lens, batch=2048):
    out = torch.empty(ids.shape[0], K, device=dev)
    order = torch.argsort(lens)
    for b in torch.split(order, batch):
        with torch.autocast(**amp):
            out[b] = model(ids[b][:, : int(lens[b].max())]).float()
    return out


held = {}
for d in folds:
    t, o = padded(rd(f"heldout-{d}.tokens.u16", np.uint16), rd(f"heldout-{d}.offsets.u32", np.uint32))
    held[d] = (t, o, torch.from_numpy(rd(f"heldout-{d}.owner.u32", np.uint32).astype(np.int64)).to(dev), meta["fold"][d]["heldout"])

scores, teacher1, teacher2, fold_info = {}, {}, {}, {}


def score_fold(model, d, prefix):
    ex = fold_ds[d]
    all_logits = logits_of(model, ids_all, len_all)
    calib = all_logits[(split == 1) & (dataset != ex)]
    t, lens, owner, n = held[d]
    wl = logits_of(model, t, lens)
    best = torch.full((n, K), -math.inf, device=dev).index_reduce_(0, owner, wl, "amax")
    scores[f"{prefix}calib-{d}"] = calib.half().cpu().numpy()
    scores[f"{prefix}heldout-{d}"] = best.half().cpu().numpy()
    return all_logits


def save(teachers=False):
    np.savez_compressed(f"{args.out}/fold-scores.npz", **scores)
    # The teacher files are large: written when one is complete (and at the end).
    if teachers and teacher1:
        np.savez_compressed(f"{args.out}/teacher-1.npz", **teacher1)
    if teachers and teacher2:
        np.savez_compressed(f"{args.out}/teacher-2.npz", **teacher2)
    info["folds"] = fold_info
    info["seconds"] = round(time.time() - started, 1)
    info["log"] = log_lines
    json.dump(info, open(f"{args.out}/run.json", "w"), indent=1)


def probs_u8(logits):
    return torch.round(torch.sigmoid(logits) * 255).to(torch.uint8).cpu().numpy()


for i, d in enumerate(folds):
    # Leave time for the folds still to come and the final model.
    box = min(args.fold_seconds, max(5.0, (left() - 30) / (len(folds) - i + 1) - 8))
    rows = torch.nonzero((split == 0) & (dataset != fold_ds[d]) & keep_row).squeeze(1)
    model, stats = finetune(rows, True, box, d)
    all_logits = score_fold(model, d, "")
    (teacher1 if i < 5 else teacher2)[d] = probs_u8(all_logits)
    fold_info[d] = stats
    log(f"{d}: {stats}")
    save(teachers=i == 4)
    del model

rows = torch.nonzero((split == 0) & keep_row).squeeze(1)
model, stats = finetune(rows, True, min(args.fold_seconds, max(5.0, left() - 40)), "final")
teacher2["final"] = probs_u8(logits_of(model, ids_all, len_all))
fold_info["final"] = stats
log(f"final: {stats}")
sd = {k: v.detach().float().cpu() for k, v in model.state_dict().items()}
emb = sd.pop("tok.weight")
scale = emb.abs().amax(1).clamp(min=1e-8) / 127
torch.save({"config": model.config, "vocab": f"{args.pack}/vocab.json", "tok_int8": torch.round(emb / scale[:, None]).to(torch.int8), "tok_scale": scale,
            "state_fp16": {k: v.half() for k, v in sd.items()}}, f"{args.out}/final-model.pt")
save(teachers=True)
del model

# --- 3. Ablation: the same fine-tuning from random weights, while time is left. ---
if args.ablation:
    for d in folds:
        if left() < args.fold_seconds + 25:
            log(f"ablation stopped before {d}: {left():.0f} s left")
            break
        rows = torch.nonzero((split == 0) & (dataset != fold_ds[d]) & keep_row).squeeze(1)
        model, stats = finetune(rows, False, args.fold_seconds, f"nopre {d}")
        score_fold(model, d, "nopre-")
        fold_info[f"nopre-{d}"] = stats
        save()
        del model
log("done")
save()
