#!/usr/bin/env bash
# One self-contained training run on a lent GPU machine: install, make data on every core,
# train the shipped model further, and hand the weights back. Run from the repository root.
#
# Why one script: such a machine starts bare, has no network, is given back seconds after a
# command ends, and runs one command for at most 10 minutes. So every call does everything,
# and a later call continues from the weights the earlier one returned (carried in RESUME).
#
#   make device-wheels                       # here, once: the wheels the machine lacks, in .whl/
#   training/device_run.sh                   # there (carry .whl): about 9 minutes
#
# Environment (all optional):
#   PROGRAMS=16000  SEED=101  MIX=generated=0.7,package=0.12,repo=0.18   the data (ndb data)
#   RESUME=models/ndb-small  CONFIG=gpu-small  MINUTES=4  LR=6e-4  DEVICE=cuda   the training
#     (resuming keeps the resumed model's shape; the config gives batch size and schedule)
#   WORK=/tmp/ndb   OUT=$OUT (the folder that comes back; model files go to $OUT/model)
#   WHEELS=.whl (carried wheels)   PYTHON=python3
set -euo pipefail

PROGRAMS=${PROGRAMS:-16000}
SEED=${SEED:-101}
MIX=${MIX:-generated=0.7,package=0.12,repo=0.18}
RESUME=${RESUME:-models/ndb-small}
CONFIG=${CONFIG:-gpu-small}
MINUTES=${MINUTES:-4}
LR=${LR:-6e-4}
DEVICE=${DEVICE:-cuda}
WORK=${WORK:-/tmp/ndb}
OUT=${OUT:?set OUT to the folder that comes back}
PYTHON=${PYTHON:-python3}
WHEELS=${WHEELS:-.whl}
export PYTHONUNBUFFERED=1

stamp() { echo "[$(date +%H:%M:%S)] $*"; }

# 1. Install: carried wheels (what the machine's image lacks), then this project, offline.
site="$WORK/site"
mkdir -p "$site" "$OUT/model"
if compgen -G "$WHEELS/*.whl" >/dev/null; then
    "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" "$WHEELS"/*.whl
fi
"$PYTHON" -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir \
    --target "$site" .
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
ndb() { "$PYTHON" -m neural_debugger "$@"; }
stamp "installed: $("$PYTHON" --version), torch $("$PYTHON" -c 'import torch; print(torch.__version__, torch.cuda.is_available())')"

# 2. Data on every core; held-out programs of other seeds and the held-out side of real code.
workers=$(nproc)
stamp "data: $PROGRAMS programs on $workers cores"
ndb data --out "$WORK/data/train" --programs "$PROGRAMS" --seed "$SEED" --mix "$MIX" \
    --workers "$workers" > "$OUT/data_train.json"
ndb data --out "$WORK/data/heldout" --programs 300 --seed $((SEED + 900000)) \
    --exclude "$WORK/data/train" --functions heldout --workers "$workers" > "$OUT/data_heldout.json"
cp "$WORK/data/train/stats.json" "$OUT/data_stats.json"

# 3. Train from the carried weights, time-boxed (the cosine anneals to zero by the deadline).
stamp "train: config $CONFIG from $RESUME for $MINUTES min on $DEVICE"
ndb train --config "$CONFIG" --data "$WORK/data" --out "$WORK/run" --resume "$RESUME" \
    --minutes "$MINUTES" --lr "$LR" --device "$DEVICE" 2>&1 | tee "$OUT/train.log"

# 4. Hand back the model folder (bf16 shards of at most 16 MiB each) and the run record.
for f in "$WORK"/run/*.json "$WORK"/run/*.safetensors; do
    cp "$f" "$OUT/model/"
done
stamp "done: $(ls "$OUT/model" | tr '\n' ' ')"
