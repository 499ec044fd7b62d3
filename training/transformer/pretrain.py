"""Masked-language-model pretraining of the encoder on the exported text (pretrain.jsonl: every row
of the datasets no fold holds out, both splits, no labels). Time-boxed: the first steps are timed and
the cosine schedule is sized so the run ends within --minutes (the shared 2-core machine).

  nice -n 19 python3 training/transformer/pretrain.py --data /work/cache/transformer --minutes 35
"""
import argparse
import json
import random
import time

import torch
from torch import nn

from common import CLS, MASK, PAD, SPECIAL, Encoder, Vocab, cosine_lr, length_batches, pad_batch, read_jsonl, setup_threads

p = argparse.ArgumentParser()
p.add_argument("--data", required=True)
p.add_argument("--minutes", type=float, default=35)
p.add_argument("--batch", type=int, default=64)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--max-words", type=int, default=8000)
p.add_argument("--min-count", type=int, default=3)
p.add_argument("--max-len", type=int, default=128)
p.add_argument("--seed", type=int, default=20261101)
p.add_argument("--d", type=int, default=64)
p.add_argument("--layers", type=int, default=2)
p.add_argument("--ff", type=int, default=128)
args = p.parse_args()
setup_threads()
torch.manual_seed(args.seed)
random.seed(args.seed)
started = time.time()
log = lambda m: print(f"[{time.time() - started:6.0f}s] {m}", flush=True)

rows = [r["t"] for r in read_jsonl(f"{args.data}/pretrain.jsonl")]
vocab = Vocab.build(rows, args.max_words, args.min_count)
vocab.save(f"{args.data}/vocab.json")
seqs = [vocab.encode(t, args.max_len) for t in rows if t]
del rows
lengths = [len(s) for s in seqs]
log(f"{len(seqs)} rows, vocab {vocab.size}, mean length {sum(lengths) / len(lengths):.1f} tokens")

model = Encoder(vocab.size, 10, d=args.d, layers=args.layers, ff=args.ff, max_len=args.max_len)
opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
gen = torch.Generator().manual_seed(args.seed)
loss_fn = nn.CrossEntropyLoss()


def mask_batch(ids):
    """BERT masking: 15% of real tokens are targets; of those 80% [MASK], 10% random, 10% kept."""
    real = ids.ge(SPECIAL)
    target = real & (torch.rand(ids.shape, generator=gen) < 0.15)
    inputs = ids.clone()
    r = torch.rand(ids.shape, generator=gen)
    inputs[target & (r < 0.8)] = MASK
    rnd = target & (r >= 0.8) & (r < 0.9)
    inputs[rnd] = torch.randint(SPECIAL, vocab.size, (int(rnd.sum()),), generator=gen)
    return inputs, target


# Time-boxed on the wall clock (from the first step): the cosine schedule's length is re-estimated
# every 50 steps from the pace so far, since the shared machine's load changes during the run.
budget = args.minutes * 60
t_start = time.time()
total = None
step = 0
seen = 0
epoch = 0
model.train()
done = False
ema = None
while not done:
    for b in length_batches(lengths, args.batch, gen):
        ids = pad_batch([seqs[i] for i in b])
        inputs, target = mask_batch(ids)
        if not target.any():
            continue
        for g in opt.param_groups:
            g["lr"] = cosine_lr(step, total or 10**9, args.lr, 100)
        h, _ = model.hidden(inputs)
        logits = model.mlm_logits(h[target])
        loss = loss_fn(logits, ids[target])
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        seen += len(b)
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        elapsed = time.time() - t_start
        if step % 50 == 0:
            total = max(step + 1, int(step * budget / elapsed))
            log(f"step {step}/{total} epoch {epoch} rows {seen} mlm loss {ema:.3f} ({elapsed / step:.2f} s/step)")
        if elapsed >= budget:
            done = True
            break
    epoch += 1
torch.save({"config": model.config, "state": model.state_dict()}, f"{args.data}/pretrained.pt")
info = {"steps": step, "rowsSeen": seen, "rows": len(seqs), "epochs": seen / len(seqs), "mlmLoss": ema, "seconds": time.time() - started, "vocab": vocab.size, "batch": args.batch}
json.dump(info, open(f"{args.data}/pretrain-info.json", "w"), indent=1)
log(f"saved pretrained.pt: {info}")
