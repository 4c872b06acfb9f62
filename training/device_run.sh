#!/usr/bin/env bash
# Training on a lent GPU machine: install, make or unpack the data, train, hand the weights
# back. Run from the repository root.
#
# Why this shape: such a machine starts bare, has no network, runs one command for at most 10
# minutes, and is given back 30 s after a command ends. So a call either does everything in
# the foreground (`run`), or starts the trainer detached (`start`) and later calls, sent back to
# back while the machine is warm, watch it (`wait`): one start, one unbroken optimizer run of
# up to ~25 minutes, and each call brings back the newest checkpoint in case the next never
# comes.
#
#   make gpu-stage         # here: a kit and $KIT/stage.env (the stage's settings), sized;
#   training/device_run.sh run   # there: the stage, within STAGE_SECONDS (docs/training.md)
#   make device-kit        # here: wheels, CruxEval, the data Python (data made there)
#   make device-data-kit DATA_KIT="data/v1/train ..."   # or: data made here, carried packed
#   training/device_run.sh [run]      # there (carry .carry): everything, in one call
#   WAIT=500 training/device_run.sh start    # there: set up, start the trainer, watch 500 s
#   WAIT=540 training/device_run.sh wait     # there, next call: watch until done or 540 s
#   make device-stream-kit   # here: the data Python, a little carried data, the exclusions
#   STREAM_PROGRAMS=400000 STREAM_ROWS=250000 WAIT=200 training/device_run.sh start   # there:
#       data made on the cores while the GPU trains, each shard taken as it lands (ndb train
#       --stream); the first lands minutes in, later for larger requests (README: stage 2)
#
# .carry/ holds the wheels the image's Python 3.12 lacks (wheels/), and either the data
# (data.tar.xz: train/ and heldout/ shards) or what makes it there: the CruxEval file the data
# step filters against (cruxeval.jsonl; ../shared does not travel) and the Python that makes
# the training data here (python.tar.xz). Data is made with that interpreter, never with the
# image's: Python 3.12 traces comprehensions differently and ships other standard-library
# sources, so its trajectories would be another language (training/device_kit.py says more).
# The image's Python, which holds CUDA torch, trains.
#
# Environment (all optional; $KIT/stage.env, written by `make gpu-stage`, sets those it names
# unless they are set already):
#   PROGRAMS=16000  SEED=101  MIX=   the data (ndb data; MIX as `--mix` takes it, empty: the
#   shares of training/mix.toml)
#   DATA_ARCHIVE (default: $KIT/data.tar.xz when present): carried data; nothing is generated
#   RESUME=models/ndb-small  CONFIG=gpu-21m  MINUTES=4  LR=6e-4  DEVICE=cuda   the training
#     (resuming keeps the resumed model's shape; the config gives batch size and schedule;
#     RESUME= (empty) trains a new model of the config's shape, with TOKENIZER's tokenizer)
#   TOKENIZER=models/ndb-small   STEPS=100000 (the time box ends a run first)
#   GROW=0 (1: grow RESUME into CONFIG's wider and deeper shape before the first step, computing
#     the same function: training/grow.py)
#   WAIT=540 (start, wait: seconds to watch before returning)
#   STREAM_PROGRAMS=0 (>0: an `ndb data` run of that many programs (SEED, MIX) beside the trainer,
#     GEN_WORKERS=8 processes at lowered priority; the trainer packs its shards as they close
#     in PACK_WORKERS=6 processes and keeps STREAM_ROWS=4000000 rows at most, oldest replaced;
#     the carried data's exclude/ shards name programs it must leave out (held-out, evaluation))
#   WORK=/tmp/ndb   OUT=$OUT (the folder that comes back; model files go to $OUT/model)
#   KIT=.carry   PYTHON=python3 (trains)   DATA_PYTHON (makes data; default: the kit's Python)
#   STAGE_SECONDS=0 (>0, `run` only: the whole command ends within that many seconds: the
#     trainer is stopped in time for the newest checkpoint to be collected)
#   ABLATION_STEPS=0 (>0: instead of one model, the tokenizer ablation: two new models of
#     CONFIG, bpe and value tokenizer, that many steps each, measured on the held-out shards,
#     ABLATION_ITEMS=30 per action; $OUT/ablation.json comes back, no weights)
#   CRUXEVAL (default: ../shared's copy when present, else $KIT/cruxeval.jsonl)
set -euo pipefail

MODE=${1:-run}
case "$MODE" in
    run | start | wait | job) ;;  # job: the detached part of start (the trainer, the stream)
    *) echo "usage: device_run.sh [run|start|wait]" >&2; exit 2 ;;
esac
STARTED=$(date +%s)
KIT=${KIT:-.carry}
# shellcheck disable=SC1091
[ ! -f "$KIT/stage.env" ] || . "$KIT/stage.env"
STAGE_SECONDS=${STAGE_SECONDS:-0}
ABLATION_STEPS=${ABLATION_STEPS:-0}
ABLATION_ITEMS=${ABLATION_ITEMS:-30}
PROGRAMS=${PROGRAMS:-16000}
SEED=${SEED:-101}
MIX=${MIX-}
MIX_ARGS=()  # no --mix: training/mix.toml's shares
[ -z "$MIX" ] || MIX_ARGS=(--mix "$MIX")
RESUME=${RESUME-models/ndb-small}
TOKENIZER=${TOKENIZER:-models/ndb-small}
GROW=${GROW:-0}
STEPS=${STEPS:-100000}
WAIT=${WAIT:-540}
STREAM_PROGRAMS=${STREAM_PROGRAMS:-0}
GEN_WORKERS=${GEN_WORKERS:-8}
PACK_WORKERS=${PACK_WORKERS:-6}
STREAM_ROWS=${STREAM_ROWS:-4000000}
CONFIG=${CONFIG:-gpu-21m}
MINUTES=${MINUTES:-4}
LR=${LR:-6e-4}
DEVICE=${DEVICE:-cuda}
WORK=${WORK:-/tmp/ndb}
OUT=${OUT:?set OUT to the folder that comes back}
PYTHON=${PYTHON:-python3}
DATA_ARCHIVE=${DATA_ARCHIVE:-}
[ -n "$DATA_ARCHIVE" ] || [ ! -f "$KIT/data.tar.xz" ] || DATA_ARCHIVE="$KIT/data.tar.xz"
CRUXEVAL=${CRUXEVAL:-}
if [ -z "$CRUXEVAL" ]; then
    CRUXEVAL=../shared/benchmarks/cruxeval.jsonl
    [ -f "$CRUXEVAL" ] || CRUXEVAL="$KIT/cruxeval.jsonl"
fi
if { [ -z "$DATA_ARCHIVE" ] || [ "$STREAM_PROGRAMS" -gt 0 ]; } && [ ! -f "$CRUXEVAL" ]; then
    echo "device_run.sh: no CruxEval file at $CRUXEVAL; the data step filters training" \
        "functions against it. Run 'make device-kit' here and carry .carry." >&2
    exit 2
fi
export PYTHONUNBUFFERED=1

stamp() { echo "[$(date +%H:%M:%S)] $*"; }
project="$WORK/project"
site="$WORK/site"
# -P: the repository root (the working folder) holds source folders named like the installed
# package (neural_debugger/, training/, ...); they must not shadow the installed namespace.
ndb_python() { PYTHONPATH="$project:$site" "$PYTHON" -P "$@"; }
ndb_data() { PYTHONPATH="$project" "$DATA_PYTHON" -P -m neural_debugger.training data "$@"; }

# 1. Install, offline: this project (pure Python, one copy for both interpreters), the carried
#    wheels for the training Python, and (when data is made here) the data Python from the kit.
install() {
    mkdir -p "$project" "$site" "$OUT/model" "$WORK/logs"
    "$PYTHON" -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir \
        --target "$project" .
    if compgen -G "$KIT/wheels/*.whl" >/dev/null; then
        "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target "$site" "$KIT"/wheels/*.whl
    fi
    stamp "installed: training $("$PYTHON" --version)," \
        "torch $(ndb_python -c 'import torch; print(torch.__version__, torch.cuda.is_available())')"
}

# The Python that makes data: DATA_PYTHON, or the kit's, unpacked once into $WORK/python.
data_python() {
    [ -z "${DATA_PYTHON:-}" ] || return 0
    if [ ! -d "$WORK/python/bin" ]; then
        if [ ! -f "$KIT/python.tar.xz" ]; then
            echo "device_run.sh: no $KIT/python.tar.xz (the Python that makes training data)." \
                "Run 'make device-kit' here and carry .carry, or set DATA_PYTHON." >&2
            exit 2
        fi
        mkdir -p "$WORK/python"
        tar -xJf "$KIT/python.tar.xz" -C "$WORK/python"
    fi
    DATA_PYTHON=$(echo "$WORK"/python/bin/python3.*)
    export LD_LIBRARY_PATH="$WORK/python/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# 2. The data: carried (unpacked), or made on every core with held-out programs of another seed.
prepare_data() {
    mkdir -p "$WORK/data"
    [ "$STREAM_PROGRAMS" -eq 0 ] || data_python
    if [ -n "$DATA_ARCHIVE" ]; then
        stamp "data: unpacking $DATA_ARCHIVE"
        xz -T0 -dc "$DATA_ARCHIVE" | tar -xf - -C "$WORK/data"
        stamp "data: $(ls "$WORK"/data/train | wc -l) training shards," \
            "$(du -sh "$WORK"/data/train | cut -f1)"
        return
    fi
    data_python
    local workers
    workers=$(nproc)
    stamp "data: $PROGRAMS programs on $workers cores with $("$DATA_PYTHON" --version)"
    ndb_data --out "$WORK/data/train" --programs "$PROGRAMS" --seed "$SEED" "${MIX_ARGS[@]}" \
        --workers "$workers" --cruxeval "$CRUXEVAL" > "$WORK/logs/data_train.json"
    ndb_data --out "$WORK/data/heldout" --programs 300 --seed $((SEED + 900000)) \
        --exclude "$WORK/data/train" --functions heldout --workers "$workers" \
        --cruxeval "$CRUXEVAL" > "$WORK/logs/data_heldout.json"
    cp "$WORK/data/train/stats.json" "$WORK/logs/data_stats.json"
}

# 3. The trainer's command: from the carried weights (RESUME), or a new model of CONFIG's shape
#    that speaks TOKENIZER's tokens; time-boxed (the cosine anneals to zero by the deadline).
train_command() {
    local from=(--tokenizer "$TOKENIZER")
    [ -z "$RESUME" ] || from=(--resume "$RESUME")
    [ "$GROW" != 1 ] || from+=(--grow)
    local stream=()
    [ "$STREAM_PROGRAMS" -eq 0 ] || stream=(--stream "$WORK/stream" \
        --stream-workers "$PACK_WORKERS" --stream-rows "$STREAM_ROWS")
    echo "$PYTHON" -P -m neural_debugger train --config "$CONFIG" --data "$WORK/data" \
        --out "$WORK/run" "${from[@]}" --minutes "$MINUTES" --steps "$STEPS" --lr "$LR" \
        --device "$DEVICE" --workers "$(nproc)" "${stream[@]}"
}

# The trainer, and beside it (STREAM_PROGRAMS > 0) the data step writing into $WORK/stream in a
# process group of its own, ended with the trainer. Writes train.log, stream.log, train.rc.
job() {
    local gen="" rc=0
    rm -rf "$WORK/stream"
    if [ "$STREAM_PROGRAMS" -gt 0 ]; then
        data_python
        local exclude=()
        [ ! -d "$WORK/data/exclude" ] || exclude=(--exclude "$WORK/data/exclude")
        stamp "stream: $STREAM_PROGRAMS programs (seed $SEED) on $GEN_WORKERS cores" \
            > "$WORK/stream.log"
        setsid nice -n 10 env PYTHONPATH="$project" "$DATA_PYTHON" -P -m neural_debugger.training \
            data --out "$WORK/stream" --programs "$STREAM_PROGRAMS" --seed "$SEED" \
            "${MIX_ARGS[@]}" --workers "$GEN_WORKERS" --shard-size 2500 --eager --cruxeval "$CRUXEVAL" \
            "${exclude[@]}" >> "$WORK/stream.log" 2>&1 < /dev/null &
        gen=$!
    fi
    local limit=()
    if [ "$STAGE_SECONDS" -gt 0 ] && [ "$MODE" = run ]; then
        # what is left of the stage, less a minute to stop, collect and hand back (`run` only:
        # a detached trainer, `start`, outlives one command by design)
        local left=$((STAGE_SECONDS - ($(date +%s) - STARTED) - 60))
        [ "$left" -gt 30 ] || left=30
        limit=(timeout --kill-after=20 "$left")
        stamp "train: stopped after $left s at the latest (STAGE_SECONDS=$STAGE_SECONDS)"
    fi
    if [ "$ABLATION_STEPS" -gt 0 ]; then
        PYTHONPATH="$project:$site" "${limit[@]}" "$PYTHON" -P -m \
            neural_debugger.evaluation.tokenizer_ablation --data "$WORK/data" \
            --out "$WORK/ablation" --config "$CONFIG" --steps "$ABLATION_STEPS" \
            --per-action "$ABLATION_ITEMS" --device "$DEVICE" --workers "$(nproc)" \
            > "$WORK/train.log" 2>&1 < /dev/null || rc=$?
    else
        PYTHONPATH="$project:$site" "${limit[@]}" $(train_command) > "$WORK/train.log" 2>&1 \
            < /dev/null || rc=$?
    fi
    if [ "$rc" -eq 124 ] && [ "${#limit[@]}" -gt 0 ]; then
        # stopped by the stage's own limit: its newest checkpoint is the stage's result
        stamp "train: stopped at the stage's limit; the newest checkpoint comes back" \
            >> "$WORK/train.log"
        rc=0
    fi
    if [ -n "$gen" ]; then
        kill -- "-$gen" 2>/dev/null || true
        stamp "stream: stopped with the trainer" >> "$WORK/stream.log"
    fi
    echo "$rc" > "$WORK/train.rc"
}

# 4. Hand back the weights (bf16 shards of at most 16 MiB each, and their index), config.json
#    and the run record in $OUT/model, and the logs and data reports in one $OUT/logs.tar.gz:
#    what comes back is at most 8 files, so a ~25M-parameter model's four shards still fit, and
#    the tokenizer and generation files (TOKENIZER's or RESUME's, already here) stay. A
#    checkpoint being written is copied again once it has settled.
collect() {
    local f
    mkdir -p "$OUT/model" "$WORK/logs"
    [ -f "$WORK/train.log" ] && cp "$WORK/train.log" "$WORK/logs/train.log"
    [ -f "$WORK/stream.log" ] && tail -c 200000 "$WORK/stream.log" > "$WORK/logs/stream.log"
    [ -f "$WORK/stream/stats.json" ] && cp "$WORK/stream/stats.json" "$WORK/logs/stream_stats.json"
    [ -z "$(ls "$WORK/logs")" ] || tar -czf "$OUT/logs.tar.gz" -C "$WORK/logs" .
    [ ! -f "$WORK/ablation/ablation.json" ] || cp "$WORK/ablation/ablation.json" "$OUT/"
    compgen -G "$WORK/run/*.safetensors" >/dev/null || { stamp "no checkpoint yet"; return; }
    for _ in 1 2 3; do
        local before after
        before=$(stat -c %Y "$WORK"/run/* | sort | tail -1)
        rm -f "$OUT"/model/model*.safetensors*
        for f in "$WORK"/run/config.json "$WORK"/run/run.json "$WORK"/run/model*.safetensors*; do
            cp "$f" "$OUT/model/"
        done
        after=$(stat -c %Y "$WORK"/run/* | sort | tail -1)
        [ "$before" = "$after" ] && [ $(($(date +%s) - after)) -ge 2 ] && break
        sleep 3
    done
    stamp "collected: $(ls "$OUT/model" | tr '\n' ' ')+ logs.tar.gz"
}

# Watch a detached trainer for WAIT seconds or until it ends, then collect.
watch_trainer() {
    local until=$(($(date +%s) + WAIT))
    while [ ! -f "$WORK/train.rc" ] && [ "$(date +%s)" -lt "$until" ]; do
        sleep 10
    done
    grep -E "^eval|^data|^model|^stream|time budget|compile|Error" "$WORK/train.log" \
        | tail -20 || true
    tail -3 "$WORK/train.log" || true
    collect
    if [ -f "$WORK/train.rc" ]; then
        stamp "trainer finished with exit status $(cat "$WORK/train.rc")"
        return "$(cat "$WORK/train.rc")"
    fi
    stamp "trainer still running"
}

case "$MODE" in
    run)
        install
        prepare_data
        if [ "$ABLATION_STEPS" -gt 0 ]; then
            stamp "ablation: two $CONFIG models (bpe, value), $ABLATION_STEPS steps each"
        else
            stamp "train: config $CONFIG from ${RESUME:-scratch}$([ "$GROW" != 1 ] || echo \
                ", grown") for $MINUTES min on $DEVICE"
        fi
        rm -f "$WORK/train.rc"
        job
        cat "$WORK/train.log"
        collect
        stamp "done in $(($(date +%s) - STARTED)) s"
        exit "$(cat "$WORK/train.rc")"
        ;;
    start)
        install
        prepare_data
        stamp "train (detached): config $CONFIG from ${RESUME:-scratch} for $MINUTES min"
        rm -f "$WORK/train.rc"
        # setsid: the trainer (and the stream) outlive this command; `wait` calls watch them
        setsid bash "$0" job < /dev/null > "$WORK/job.log" 2>&1 &
        watch_trainer
        ;;
    job)
        job
        ;;
    wait)
        [ -f "$WORK/train.log" ] || { echo "device_run.sh: no trainer was started here" >&2; exit 2; }
        watch_trainer
        ;;
esac
