"""Fine-tunes the pretrained encoder on one fold's training rows with the project's masked multi-label
loss (trainer.ts / train-mlp.ts: a row trains only the heads its source labels; loss weighted by the
corpus row weight, positives by min(8, max(1, sqrt(neg/pos))) per head), then writes raw logits of
the fold's calibration rows and of the held-out texts (max over windows, as the engine pools) in the
format src/training/transformer-score.ts reads.

  nice -n 19 python3 training/transformer/finetune.py --data /work/cache/transformer --fold hatemoji
"""
import argparse
import json
import math
import time

import torch
import torch.nn.functional as F
from torch import nn

from common import Encoder, Vocab, cosine_lr, kept_row, length_batches, pad_batch, read_jsonl, setup_threads

p = argparse.ArgumentParser()
p.add_argument("--data", required=True)
p.add_argument("--fold", required=True)
p.add_argument("--epochs", type=float, default=2)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--lr", type=float, default=5e-4)
p.add_argument("--seed", type=int, default=20261101)
p.add_argument("--no-pretrain", action="store_true", help="start from random weights (ablation)")
p.add_argument("--tag", default="transformer")
p.add_argument("--minutes", type=float, default=0, help="stop training by this wall-clock budget (0: none); the card states the epochs done")
p.add_argument("--calib-share", type=float, default=1.0, help="score this fixed hash share of the calibration rows (Platt and thresholds only)")
args = p.parse_args()
setup_threads()
torch.manual_seed(args.seed)
started = time.time()
log = lambda m: print(f"[{time.time() - started:6.0f}s] {args.fold}: {m}", flush=True)

ckpt = torch.load(f"{args.data}/pretrained.pt")
vocab = Vocab.load(f"{args.data}/vocab.json")
cfg = ckpt["config"]
model = Encoder(cfg["vocab_size"], cfg["heads_out"], d=cfg["d"], layers=cfg["layers"], n_heads=cfg["n_heads"], ff=cfg["ff"], max_len=cfg["max_len"])
if not args.no_pretrain:
    model.load_state_dict(ckpt["state"])
max_len = cfg["max_len"]


def load(name):
    rows = list(read_jsonl(f"{args.data}/{name}"))
    return [vocab.encode(r["t"], max_len) for r in rows], torch.tensor([r["y"] for r in rows], dtype=torch.float32), torch.tensor([r["w"] for r in rows], dtype=torch.float32)


seqs, y, w = load(f"fold-{args.fold}-train.jsonl")
K = y.shape[1]
known = y.ge(0)
pos = ((y == 1).float() * w[:, None]).sum(0)
neg = ((y == 0).float() * w[:, None]).sum(0)
pos_w = torch.clamp(torch.sqrt(neg / pos.clamp(min=1)), 1, 8)
log(f"{len(seqs)} training rows; positive weights {[round(v, 2) for v in pos_w.tolist()]}")

opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
gen = torch.Generator().manual_seed(args.seed)
lengths = [len(s) for s in seqs]
steps_per_epoch = math.ceil(len(seqs) / args.batch)
total = planned = int(steps_per_epoch * args.epochs)
step = 0
t_start = time.time()
model.train()
ema = None
while step < total:
    for b in length_batches(lengths, args.batch, gen):
        # Rows with no labelled head train nothing (as in train-mlp.ts).
        b = [i for i in b if known[i].any()]
        if not b:
            continue
        ids = pad_batch([seqs[i] for i in b])
        yb, mb = y[b], known[b].float()
        wb = w[b][:, None] * torch.where(yb == 1, pos_w[None], torch.ones_like(yb))
        for g in opt.param_groups:
            g["lr"] = cosine_lr(step, total, args.lr, 100)
        logits = model(ids)
        loss = (F.binary_cross_entropy_with_logits(logits, yb.clamp(min=0), reduction="none") * wb * mb).sum() / len(b)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        elapsed = time.time() - t_start
        if args.minutes > 0 and step % 50 == 0:
            # Shrink the cosine schedule to what fits the budget at the pace so far.
            total = max(step + 1, min(planned, int(step * args.minutes * 60 / elapsed)))
        if step % 100 == 0:
            log(f"step {step}/{total} loss {ema:.4f} ({elapsed / step:.2f} s/step)")
        if step >= total:
            break
train_seconds = time.time() - started
torch.save({"config": cfg, "state": model.state_dict()}, f"{args.data}/{args.tag}-{args.fold}.pt")
model.eval()


@torch.no_grad()
def logits_of(seq_list, batch=256):
    out = torch.zeros(len(seq_list), K)
    order = sorted(range(len(seq_list)), key=lambda i: len(seq_list[i]))
    for k in range(0, len(order), batch):
        b = order[k : k + batch]
        out[b] = model(pad_batch([seq_list[i] for i in b]))
    return out


calib_all, _, _ = load(f"fold-{args.fold}-calib.jsonl")
calib_rows = [i for i in range(len(calib_all)) if kept_row(i, args.calib_share)]
calib_seqs = [calib_all[i] for i in calib_rows]
calib = logits_of(calib_seqs)
log(f"scored {len(calib_seqs)} calibration rows")
held = list(read_jsonl(f"{args.data}/heldout-{args.fold}.jsonl"))
flat, owner = [], []
for i, r in enumerate(held):
    for toks in r["w"] or [[]]:
        flat.append(vocab.encode(toks, max_len))
        owner.append(i)
wl = logits_of(flat)
best = torch.full((len(held), K), -math.inf)
best = best.index_reduce_(0, torch.tensor(owner), wl, "amax")
seconds = time.time() - started
with open(f"{args.data}/{args.tag}-{args.fold}-calib.scores.json", "w") as f:
    json.dump({"family": args.tag, "rows": calib_rows if args.calib_share < 1 else None, "logits": [[round(v, 5) for v in row] for row in calib.tolist()]}, f)
with open(f"{args.data}/{args.tag}-{args.fold}-heldout.scores.json", "w") as f:
    json.dump({"family": args.tag, "logits": [[round(v, 5) for v in row] for row in best.tolist()], "seconds": seconds, "trainSeconds": train_seconds, "steps": step, "epochs": step / steps_per_epoch}, f)
log(f"trained {step} steps in {train_seconds:.0f} s; scored {len(calib_seqs)} calibration rows and {len(held)} held-out texts ({len(flat)} windows); {seconds:.0f} s in all")
