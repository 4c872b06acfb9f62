#!/usr/bin/env bash
# One self-contained training run on a lent GPU machine: install, make data on every core,
# train the shipped model further, and hand the weights back. Run from the repository root.
#
# Why one script: such a machine starts bare, has no network, is given back seconds after a
# command ends, and runs one command for at most 10 minutes. So every call does everything,
# and a later call continues from the weights the earlier one returned (carried in RESUME).
#
#   make device-kit                          # here, once: what the machine lacks, in .carry/
#   training/device_run.sh                   # there (carry .carry): about 9 minutes
#
# .carry/ holds the wheels the image's Python 3.12 lacks (wheels/), the CruxEval file the data
# step filters against (cruxeval.jsonl; ../shared does not travel) and the Python that makes
# the training data here (python.tar.xz). Data is made with that interpreter, never with the
# image's: Python 3.12 traces comprehensions differently and ships other standard-library
# sources, so its trajectories would be another language (training/device_kit.py says more).
# The image's Python, which holds CUDA torch, trains.
#
# Environment (all optional):
#   PROGRAMS=16000  SEED=101  MIX=generated=0.7,package=0.12,repo=0.18   the data (ndb data)
#   RESUME=models/ndb-small  CONFIG=gpu-small  MINUTES=4  LR=6e-4  DEVICE=cuda   the training
#     (resuming keeps the resumed model's shape; the config gives batch size and schedule)
#   WORK=/tmp/ndb   OUT=$OUT (the folder that comes back; model files go to $OUT/model)
#   KIT=.carry   PYTHON=python3 (trains)   DATA_PYTHON (makes data; default: the kit's Python)
#   CRUXEVAL (default: ../shared's copy when present, else $KIT/cruxeval.jsonl)
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
KIT=${KIT:-.carry}
CRUXEVAL=${CRUXEVAL:-}
if [ -z "$CRUXEVAL" ]; then
    CRUXEVAL=../shared/benchmarks/cruxeval.jsonl
    [ -f "$CRUXEVAL" ] || CRUXEVAL="$KIT/cruxeval.jsonl"
fi
if [ ! -f "$CRUXEVAL" ]; then
    echo "device_run.sh: no CruxEval file at $CRUXEVAL; the data step filters training" \
        "functions against it. Run 'make device-kit' here and carry .carry." >&2
    exit 2
fi
export PYTHONUNBUFFERED=1

stamp() { echo "[$(date +%H:%M:%S)] $*"; }

# 1. Install, offline: this project (pure Python, one copy for both interpreters), the carried
#    wheels for the training Python, and the data Python from the kit.
project="$WORK/project"
site="$WORK/site"
mkdir -p "$project" "$site" "$OUT/model"
"$PYTHON" -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir \
    --target "$project" .
if compgen -G "$KIT/wheels/*.whl" >/dev/null; then
    "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" "$KIT"/wheels/*.whl
fi
if [ -z "${DATA_PYTHON:-}" ]; then
    if [ ! -f "$KIT/python.tar.xz" ]; then
        echo "device_run.sh: no $KIT/python.tar.xz (the Python that makes training data)." \
            "Run 'make device-kit' here and carry .carry, or set DATA_PYTHON." >&2
        exit 2
    fi
    mkdir -p "$WORK/python"
    tar -xJf "$KIT/python.tar.xz" -C "$WORK/python"
    DATA_PYTHON=$(echo "$WORK"/python/bin/python3.*)
    export LD_LIBRARY_PATH="$WORK/python/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# -P: the repository root (the working folder) holds source folders named like the installed
# package (neural_debugger/, training/, ...); they must not shadow the installed namespace.
ndb() { PYTHONPATH="$project:$site" "$PYTHON" -P -m neural_debugger "$@"; }
ndb_data() { PYTHONPATH="$project" "$DATA_PYTHON" -P -m neural_debugger.training data "$@"; }
stamp "installed: data $("$DATA_PYTHON" --version), training $("$PYTHON" --version)," \
    "torch $("$PYTHON" -c 'import torch; print(torch.__version__, torch.cuda.is_available())')"

# 2. Data on every core; held-out programs of other seeds and the held-out side of real code.
workers=$(nproc)
stamp "data: $PROGRAMS programs on $workers cores"
ndb_data --out "$WORK/data/train" --programs "$PROGRAMS" --seed "$SEED" --mix "$MIX" \
    --workers "$workers" --cruxeval "$CRUXEVAL" > "$OUT/data_train.json"
ndb_data --out "$WORK/data/heldout" --programs 300 --seed $((SEED + 900000)) \
    --exclude "$WORK/data/train" --functions heldout --workers "$workers" --cruxeval "$CRUXEVAL" \
    > "$OUT/data_heldout.json"
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
