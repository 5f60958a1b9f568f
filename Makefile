# Convenience targets; CMake is the build. `make demo` and `make test` work on a fresh Debian
# bookworm machine (they install what is missing first).
BUILD ?= build
JOBS ?= $(shell nproc)
CACHE ?= $(HOME)/.cache/torch2onnx
PYTHON := /usr/bin/python3
DEMO_MODEL := $(CACHE)/models/resnet18.pt

.PHONY: deps configure build demo test test-fast docs clean zoo zoo-f16 zoo-quantized zoo-detection fuzz test-asan bench bench-deps bench-graphs bench-llm format format-check package

deps:
	./scripts/install_deps.sh

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DT2O_CACHE_DIR=$(CACHE)

# Everything, the test executables included (docs/building.md: what it costs, how it is kept short).
build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Export resnet18 (traced, random weights) at opset 17 and verify it in ONNX Runtime. Builds only
# what that needs: the CLI (the torch2onnx launcher and libtorch2onnx-cli.so) and --verify's
# torch2onnx-reference; no test executable.
demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target torch2onnx torch2onnx-reference
	$(PYTHON) models/make_torchvision.py --out $(CACHE)/models resnet18
	mkdir -p $(BUILD)/demo
	$(BUILD)/torch2onnx $(DEMO_MODEL) -o $(BUILD)/demo/resnet18.onnx \
	    --input x:f32[1,3,224,224] --opset 17 --verify

# The Debian package (cmake/package.cmake): $(BUILD)/torch2onnx_<version>_<arch>.deb, for
# `sudo apt install ./$(BUILD)/torch2onnx_*.deb`. Builds what it installs, not the tests.
package: configure
	cmake --build $(BUILD) -j $(JOBS) --target t2o_installed
	cd $(BUILD) && cpack -G DEB

# Every test: converter tests, CLI tests and the end-to-end model tests.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Everything except the end-to-end model tests (e2e and the zoo subset).
test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE "e2e|zoo"

# The full torchvision zoo (models/zoo/torchvision.yaml: 94 models, opset 13 and 21, random
# weights): makes the TorchScript files, exports and verifies each in its own process, writes
# $(BUILD)/zoo/results.{md,xml,json} and puts the table into docs/zoo.md. Hours on 2 cores and
# tens of GB in $(CACHE)/zoo. Exits non-zero when a model fails unexpectedly.
ZOO_JOBS ?= 2
zoo: build
	$(PYTHON) models/make_zoo.py models/zoo/torchvision.yaml --out $(CACHE)/zoo
	$(BUILD)/torch2onnx zoo models/zoo/torchvision.yaml --models $(CACHE)/zoo --jobs $(ZOO_JOBS) \
	    --out $(BUILD)/zoo --report $(BUILD)/zoo/results.md --junit $(BUILD)/zoo/results.xml \
	    --json $(BUILD)/zoo/results.json; rc=$$?; \
	  $(PYTHON) models/make_zoo.py --splice $(BUILD)/zoo/results.md docs/zoo.md; exit $$rc

# Every quantized model of models/zoo/quantized.yaml (docs/quantized.md; CI runs its
# quantized_ci.yaml part): torchvision's quantized builders, eager, FX, QAT, dynamic. ~2 minutes.
zoo-quantized: build
	$(PYTHON) models/make_zoo.py models/zoo/quantized.yaml --out $(CACHE)/zoo-quantized
	$(BUILD)/torch2onnx zoo models/zoo/quantized.yaml --models $(CACHE)/zoo-quantized \
	    --jobs $(ZOO_JOBS) --require-expected-outputs --out $(BUILD)/zoo-quantized \
	    --report $(BUILD)/zoo-quantized/results.md --json $(BUILD)/zoo-quantized/results.json

# The CI subset (models/zoo/ci.yaml) at opset 17 with --dtype f16 (docs/float16.md): every model
# exported in float16 and verified against float32 LibTorch at the float16 tolerance; then the
# measurements of models/zoo/f16.yaml (conditioned resnet50 and convnext_base at 224x224 and the
# CI subset's 10 float16 failures, float32 and float16). The CI subset's run fails (its 10
# random-weight fixtures over the tolerance, documented) without stopping the target ('-').
# Outside `make test` (about 2 + 2 minutes on 2 cores); results in $(BUILD)/zoo-f16 and
# $(BUILD)/zoo-f16-measure.
zoo-f16: build
	$(PYTHON) models/make_zoo.py models/zoo/ci.yaml --out $(CACHE)/zoo-ci
	sed -e 's/^  opset: 17/  opset: 17\n  dtype: f16/' -e 's/, opset: \[[0-9, ]*\]//' \
	    -e '/^    opset: \[/d' models/zoo/ci.yaml > $(BUILD)/ci-f16.yaml
	-$(BUILD)/torch2onnx zoo $(BUILD)/ci-f16.yaml --jobs 2 --out $(BUILD)/zoo-f16 \
	    --report $(BUILD)/zoo-f16/results.md --json $(BUILD)/zoo-f16/results.json
	$(PYTHON) models/make_zoo.py models/zoo/f16.yaml --out $(CACHE)/zoo-f16
	$(BUILD)/torch2onnx zoo models/zoo/f16.yaml --models $(CACHE)/zoo-f16 --jobs 2 \
	    --require-expected-outputs --out $(BUILD)/zoo-f16-measure \
	    --report $(BUILD)/zoo-f16-measure/results.md --json $(BUILD)/zoo-f16-measure/results.json

# The detection zoo (models/zoo/detection.yaml: 8 torchvision detectors, symbolic image size, 3
# sizes each) at every opset its manifest lists (17 and 21); `make test` runs it at 17 only.
# About 10 min on 2 cores.
zoo-detection: build
	$(PYTHON) models/make_zoo.py models/zoo/detection.yaml --out $(CACHE)/zoo-detection
	$(BUILD)/torch2onnx zoo models/zoo/detection.yaml --models $(CACHE)/zoo-detection --jobs 1 \
	    --out $(BUILD)/zoo-detection --report $(BUILD)/zoo-detection/results.md \
	    --json $(BUILD)/zoo-detection/results.json

# The benchmark of issue 5 (bench/benchmark.py): torch2onnx vs torch.onnx.export on 7 models
# (export time, phases, floor, peak RSS, node count, file size, ONNX Runtime latency) and chains
# of 1k/10k/100k nodes; writes the tables into docs/performance.md. ~30 min on 2 cores; run it
# on an otherwise idle machine. BENCH_ARGS=--runs 3 --models resnet50 for a quick look.
BENCH_ARGS ?=
# The ONNX Runtime make bench times files in (bench/onnxruntime/package.json pins it).
bench-deps: deps
	cd bench/onnxruntime && { [ -f node_modules/onnxruntime-node/package.json ] || npm ci --ignore-scripts; }

bench: build bench-deps
	cmake --build $(BUILD) -j $(JOBS) --target t2o_floor
	$(PYTHON) bench/benchmark.py --cli $(BUILD)/torch2onnx --floor $(BUILD)/t2o_floor \
	    --doc docs/performance.md --json $(BUILD)/bench.json $(BENCH_ARGS)

# The 1.3B GPT-2-style decoder (models/make_gpt2.py, 5.2 GB fp32): export time, peak RSS and the
# floor, once, an export with --verify, and torch.onnx.export under a 20 GB address-space limit
# (so it fails instead of exhausting a 24 GB machine). Needs ~15 GB of RAM and ~20 GB of disk in
# $(CACHE)/llm and /tmp; tables go between the bench-llm markers of docs/performance.md.
# Our files against torch.onnx.export's in ONNX Runtime on the realworld fixtures (graph_compare.py).
bench-graphs: build bench-deps
	$(PYTHON) models/make_zoo.py models/zoo/realworld.yaml --out $(CACHE)/zoo-realworld
	$(PYTHON) bench/graph_compare.py --cli $(BUILD)/torch2onnx --models $(CACHE)/zoo-realworld \
	    --doc docs/performance.md --json $(BUILD)/bench-graphs.json $(BENCH_ARGS)

bench-llm: build
	cmake --build $(BUILD) -j $(JOBS) --target t2o_floor
	$(PYTHON) bench/benchmark.py --cli $(BUILD)/torch2onnx --floor $(BUILD)/t2o_floor \
	    --models gpt2_1_3b --runs 1 --ort-runs 0 --chains "" --verify-big --peer-mem-gb 20 \
	    --markers bench-llm --doc docs/performance.md --json $(BUILD)/bench-llm.json

# Regenerate docs/operators.md from the registry and the tests.
docs: build
	$(PYTHON) scripts/gen_operators_doc.py --cli $(BUILD)/torch2onnx --tests tests \
	    --targets ../shared/aten_ops_target.txt --all-targets ../shared/aten_ops_all.txt \
	    --out docs/operators.md


# libFuzzer targets (clang, build-fuzz/), each run for FUZZ_SECONDS: tests/fuzz/run_fuzzers.sh.
FUZZ_SECONDS ?= 60
fuzz: deps
	CACHE=$(CACHE) tests/fuzz/run_fuzzers.sh $(FUZZ_SECONDS)

# Unit tests built with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, -O1 -g1):
# the ASAN_TESTS executables (all their test cases, e2e/zoo/dynamic labels excluded) plus the
# sanitized torch2onnx CLI that test_cli and test_reliability run. LibTorch is not instrumented:
# its start-up leaks are not ours, so leak checking is off (tests/sanitizer/env.sh: the options,
# each with its reason). Cost: about 11 min of CPU to compile at -O1 -g1 (half of -O2 -g's 21;
# some 6 min on 2 idle cores) and 3-8 min for the ~110 test cases; .ci/run runs it after
# `make test` when the time budget allows. ASAN_TESTS=all builds and runs every unit-test
# executable (about 146 MB of disk each, debug info included).
ASAN_BUILD ?= build-asan
ASAN_TESTS ?= test_reliability test_cli test_optimize test_control_flow test_shape test_activation \
              test_reduce test_inplace
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DT2O_SANITIZE=ON \
	    -DT2O_CACHE_DIR=$(CACHE)
ifeq ($(ASAN_TESTS),all)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	. tests/sanitizer/env.sh && ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -LE "e2e|zoo|dynamic"
else
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target torch2onnx $(ASAN_TESTS)
	. tests/sanitizer/env.sh && ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -LE "e2e|zoo|dynamic" \
	    -R "^($(shell echo $(ASAN_TESTS) | sed 's/ /|/g')):"
endif

# clang-format (the repo's .clang-format) on every tracked C++ file; ctest checks it as
# format:clang-format, so `make test` and CI fail on unformatted code.
format:
	./scripts/check_format.sh --fix
format-check:
	./scripts/check_format.sh

clean:
	rm -rf $(BUILD)
