# Thin wrapper over CMake. `make run` and `make test` install any missing
# Debian build dependency first (scripts/install-deps.sh), so both work on a
# fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps build run test asan fuzz bench bench-serve bench-serve-memory python clean

all: build

deps:
	@scripts/install-deps.sh

build:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: deps build
	$(BUILD)/geno run --cap print examples/hello.geno

test: deps build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (LeakSanitizer included: any leak fails the run).
asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGENO_SANITIZE=ON >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

# libFuzzer targets (fuzz/README.md): builds every target in FUZZ_TARGETS
# (default: all six) and runs each for FUZZ_SECONDS (default 600), one
# after another; FUZZ_JOBS > 1 forks that many processes per target.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= fuzz_frontend fuzz_check fuzz_run fuzz_gen fuzz_hostile fuzz_constrain fuzz_server
fuzz: deps
	@CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DGENO_FUZZ=ON >/dev/null
	@cmake --build build-fuzz -j $(JOBS) $(addprefix --target ,$(FUZZ_TARGETS))
	@FUZZ_TARGETS="$(FUZZ_TARGETS)" fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

# The Python package into $(BUILD)/venv (offline; see python/README.md):
#   $(BUILD)/venv/bin/python -c 'import geno; print(geno.run(...))'
python: deps build
	@scripts/python-venv.sh $(BUILD)

bench: build
	@bench/run.sh

# `geno serve` under wrk (bench/README.md): throughput, latency, the fork
# floor, workers killed under load, the reference's server for the ratio;
# and, separately, the server's memory over MEM_REQUESTS (100,000) requests.
bench-serve: build
	@bench/serve.sh $(BUILD)/geno

bench-serve-memory: build
	@bench/serve.sh --memory $(BUILD)/geno

clean:
	rm -rf $(BUILD) build-asan build-fuzz
