"""Turns gpu_run.py's fold-scores.npz into the score files src/training/transformer-score.ts reads
(<tag>-<fold>-calib.scores.json and <tag>-<fold>-heldout.scores.json), next to the labels that
src/training/transformer-pack.ts wrote.

  python3 training/transformer/unpack_scores.py --run /work/cache/gpu1 --labels /work/cache/tfull
"""
import argparse
import json

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--run", required=True, help="folder with gpu_run.py's fold-scores.npz and run.json")
p.add_argument("--labels", required=True)
p.add_argument("--tag", default="transformer")
args = p.parse_args()
scores = np.load(f"{args.run}/fold-scores.npz")
run = json.load(open(f"{args.run}/run.json"))
rnd = lambda a: [[round(float(v), 4) for v in row] for row in a.astype(np.float32)]
for prefix, tag in (("", args.tag), ("nopre-", f"{args.tag}-nopre")):
    for key in scores.files:
        if not key.startswith(f"{prefix}heldout-"):
            continue
        fold = key[len(f"{prefix}heldout-"):]
        stats = run["folds"].get(f"{prefix}{fold}", {})
        with open(f"{args.labels}/{tag}-{fold}-calib.scores.json", "w") as f:
            json.dump({"family": tag, "logits": rnd(scores[f"{prefix}calib-{fold}"])}, f)
        with open(f"{args.labels}/{tag}-{fold}-heldout.scores.json", "w") as f:
            json.dump({"family": tag, "logits": rnd(scores[key]), "seconds": stats.get("seconds", 0), "steps": stats.get("steps"), "epochs": stats.get("epochs")}, f)
        print(f"{tag} {fold}: {scores[key].shape[0]} held-out texts")

# The teacher targets (teacher-*.npz) as one raw file per fold, teacher-<fold>.u8 (rows x heads,
# round(255 p)), which train.ts --teacher and transformer-pack.ts --teacher read (the name is
# train-mlp.ts teacherFile's; teacher-export.ts writes the MLP's own in the same layout).
for name in ("teacher-1.npz", "teacher-2.npz"):
    try:
        teachers = np.load(f"{args.run}/{name}")
    except FileNotFoundError:
        continue
    for fold in teachers.files:
        teachers[fold].astype(np.uint8).tofile(f"{args.labels}/teacher-{fold}.u8")
        print(f"teacher {fold}: {teachers[fold].shape}")
