"""Shared pieces of the transformer family: vocabulary, encoding, the encoder, batching.

Input is the engine's own tokens (src/classifiers/model/features.ts tokenize() over the normalised
text), exported by src/training/transformer-export.ts, so a TypeScript or onnxruntime-node port needs
no second tokeniser: a word is its vocabulary id, or one of HASH_BUCKETS hashed ids when it is rare.
"""
import json
import math
import os

import torch
from torch import nn

PAD, CLS, MASK = 0, 1, 2
SPECIAL = 3
HASH_BUCKETS = 2048


def fnv1a(word):
    """FNV-1a over UTF-16 code units, as src/training/prng.ts hashString (seed 0x811c9dc5)."""
    h = 0x811C9DC5
    data = word.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h = ((h ^ (data[i] | (data[i + 1] << 8))) * 0x01000193) & 0xFFFFFFFF
    return h


class Vocab:
    """Frequent words get their own id; the rest share HASH_BUCKETS ids by hash."""

    def __init__(self, words):
        self.words = list(words)
        self.index = {w: SPECIAL + HASH_BUCKETS + i for i, w in enumerate(self.words)}
        self.size = SPECIAL + HASH_BUCKETS + len(self.words)

    @classmethod
    def build(cls, rows, max_words, min_count):
        counts = {}
        for toks in rows:
            for w in toks:
                counts[w] = counts.get(w, 0) + 1
        ranked = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
        return cls(ranked[:max_words])

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls(json.load(f)["words"])

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"hashBuckets": HASH_BUCKETS, "special": SPECIAL, "words": self.words}, f, ensure_ascii=False)

    def encode(self, toks, max_len):
        ids = [CLS]
        for w in toks[: max_len - 1]:
            i = self.index.get(w)
            ids.append(i if i is not None else SPECIAL + fnv1a(w) % HASH_BUCKETS)
        return ids


class Encoder(nn.Module):
    """Pre-LN transformer encoder, mean-pooled over real tokens; MLM head tied to the embeddings."""

    def __init__(self, vocab_size, heads_out, d=64, layers=2, n_heads=4, ff=128, max_len=128, dropout=0.1):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d, padding_idx=PAD)
        self.pos = nn.Embedding(max_len, d)
        layer = nn.TransformerEncoderLayer(d, n_heads, ff, dropout, activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.mlm_bias = nn.Parameter(torch.zeros(vocab_size))
        self.heads = nn.Linear(d, heads_out)
        # BERT-style small init: with N(0, 1) embeddings the tied MLM logits start at |z| ~ sqrt(d).
        nn.init.normal_(self.tok.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)
        with torch.no_grad():
            self.tok.weight[PAD].zero_()
        self.config = dict(vocab_size=vocab_size, heads_out=heads_out, d=d, layers=layers, n_heads=n_heads, ff=ff, max_len=max_len)

    def hidden(self, ids):
        pad = ids.eq(PAD)
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))[None]
        return self.norm(self.encoder(x, src_key_padding_mask=pad)), pad

    def mlm_logits(self, h):
        return h @ self.tok.weight.T + self.mlm_bias

    def forward(self, ids):
        h, pad = self.hidden(ids)
        keep = (~pad).unsqueeze(-1).to(h.dtype)
        pooled = (h * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.heads(pooled)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def pad_batch(seqs):
    n = max(len(s) for s in seqs)
    out = torch.zeros(len(seqs), n, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = torch.tensor(s, dtype=torch.long)
    return out


def length_batches(lengths, batch_size, generator):
    """Batches of similar length (sorted within random chunks of 50 batches), in random order: less padding."""
    order = torch.randperm(len(lengths), generator=generator).tolist()
    chunk = batch_size * 50
    batches = []
    for i in range(0, len(order), chunk):
        part = sorted(order[i : i + chunk], key=lambda j: lengths[j])
        batches += [part[k : k + batch_size] for k in range(0, len(part), batch_size)]
    perm = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[p] for p in perm]


def setup_threads():
    """One thread by default: under nice -n 19 on the shared machine a 2-thread OpenMP step waits at
    every barrier for the thread the scheduler parked (measured no faster than 1 thread)."""
    torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "1")))


def cosine_lr(step, total, peak, warmup):
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total - warmup))))


def kept_row(i, share):
    """A fixed hash subsample of row indices (the same in transformer-score.ts keptRow)."""
    return ((i * 2654435761) & 0xFFFFFFFF) % 1000 < share * 1000
