# Convenience targets; CMake is the build. `make demo` and `make test` work on a fresh Debian
# bookworm machine (they install what is missing first).
BUILD ?= build
JOBS ?= $(shell nproc)
CACHE ?= $(HOME)/.cache/torch2onnx
PYTHON := /usr/bin/python3
DEMO_MODEL := $(CACHE)/models/resnet18.pt

.PHONY: deps build demo test test-fast docs clean

deps:
	./scripts/install_deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DT2O_CACHE_DIR=$(CACHE)
	cmake --build $(BUILD) -j $(JOBS)

# Export resnet18 (traced, random weights) at opset 17 and verify it in ONNX Runtime.
demo: build
	$(PYTHON) models/make_torchvision.py --out $(CACHE)/models resnet18
	mkdir -p $(BUILD)/demo
	$(BUILD)/torch2onnx $(DEMO_MODEL) -o $(BUILD)/demo/resnet18.onnx \
	    --input x:f32[1,3,224,224] --opset 17 --verify

# Every test: converter tests, CLI tests and the end-to-end model tests.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Everything except the end-to-end model tests.
test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE e2e

# Regenerate docs/operators.md from the registry and the tests.
docs: build
	$(PYTHON) scripts/gen_operators_doc.py --cli $(BUILD)/torch2onnx --tests tests \
	    --targets ../shared/aten_ops_target.txt --out docs/operators.md

clean:
	rm -rf $(BUILD)
