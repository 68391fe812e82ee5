# mgpu: two commands on a fresh machine: `make run` and `make test`.
GO ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
BIN := bin/mgpu

.PHONY: run test test-full bench bench-floor bench-compare bench-figures lint build clean golden-full check-matrix configs docs test-slurm pgo fuzz

build:
	$(GO) build -o $(BIN) ./cmd/mgpu

# The default simulation: mm (OASIS Table II size) on 4 GPUs under OASIS.
run: build
	$(BIN) run --workload mm --gpus 4 --policy oasis --out results/run.json

# Every test, the long matrices cut to a slice (the golden comparison of
# every workload x policy stays whole), then the outside-module example of
# embedding (examples/embedding, a module of its own): about 4 minutes on 2 cores from a
# cold test cache; the timeout leaves room on a busy machine. ./platform,
# the longest package, is named first so that it starts at once (go test
# runs two packages at a time, in the order given).
test:
	$(GO) test -timeout 40m ./platform ./...
	cd examples/embedding && $(GO) test ./...

# The long matrices whole: the tests whose long part make test skips (they
# call fullOnly; TestFullOnlyTestsRunInCI keeps this list complete). CI runs
# make test, then this.
FULL_TESTS := TestGoldenResults|TestGoldenVariants|TestEveryWorkloadCoherent|TestCheckMatrix|TestOversubscriptionCoherent|TestOversubscriptionWorkloadsCoherent|TestHardwareHandlingCoherent|TestPart2WorkloadsCoherent|TestIssue14Violations|TestObservUVMCoherent|TestAllWorkloadsSmall|TestObservFig16|TestObservUVMSimilarScales|TestObservUVMSampledBudget|TestSUVSimilarScales|TestSUVSampledBudget|TestPaperScales
test-full:
	MGPU_TEST_FULL=1 $(GO) test -timeout 80m -run '^($(FULL_TESTS))$$' ./platform ./...

# The shipped config file: every key at its default, with its source
# (mgpu list --yaml). A test fails when it falls out of date.
configs: build
	$(BIN) list --yaml > configs/oasis-4gpu.yaml.tmp && mv configs/oasis-4gpu.yaml.tmp configs/oasis-4gpu.yaml

# docs/config.md: what mgpu list prints (workloads, policies, every config
# key with its default and source) as markdown; and the config part of
# docs/result.schema.json, made from the same keys (the rest of the schema
# is written by hand). A test fails when either falls out of date
# (TestConfigDocIsCurrent, TestResultSchemaIsCurrent); this rewrites them.
docs:
	$(GO) test ./cmd/mgpu -run '^TestConfigDocIsCurrent$$' -count=1 -update-docs
	$(GO) test ./config -run '^TestResultSchemaIsCurrent$$' -count=1 -update-docs

# The coherence checker over every workload x policy x variant (2 MB pages,
# 16 GPUs, oversubscription 1.5 and 3 with each eviction, spread over a
# switch); make test runs a slice of it.
check-matrix:
	MGPU_CHECK_MATRIX=1 $(GO) test ./platform -run TestCheckMatrix -timeout 60m

# mgpu sweep --emit slurm end to end on a real Slurm: a private
# single-node cluster on localhost runs a 4-run sweep as a job array, whose
# results must equal a local sweep's byte for byte. Needs root and apt: it
# installs Debian's slurmctld, slurmd, slurm-client and munge if missing,
# and stops its daemons when done (scripts/slurm/test-slurm.sh).
test-slurm: build
	MGPU=$(CURDIR)/$(BIN) scripts/slurm/test-slurm.sh

# The full-size fig15 runs (Table II, 4 GPUs, seed 1) against their golden
# results: the proof that a refactor changed no number (about 10 minutes).
golden-full:
	MGPU_GOLDEN_FULL=1 $(GO) test ./platform -run TestGoldenPaperRuns -parallel 2 -timeout 60m

# Go benchmarks, then the wall time of every paper workload at Table II
# size on 4 GPUs under on-touch, and of the oversubscription workloads on
# one GPU.
PAPER_WORKLOADS := bfs c2d fft i2c mm mt pr st lenet vgg16 resnet18
# The oversubscription papers' workloads, on one GPU at their default sizes.
OVERSUB_WORKLOADS := 2dconv atax bicg fdtd2d hotspot pathfinder nw backprop srad rbfs ra
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 1x ./platform/ ./cache/ ./interconnect/ ./benchmarks/...
	@for w in $(PAPER_WORKLOADS); do \
		$(BIN) list | grep -q "^  $$w " || { echo "$$w: not built yet"; continue; }; \
		/usr/bin/env time -f "$$w: wall %e s, peak RSS %M KB" $(BIN) run --workload $$w --gpus 4 --policy on-touch | grep -E "on 4 GPUs|mem instructions"; \
	done
	@for w in $(OVERSUB_WORKLOADS); do \
		/usr/bin/env time -f "$$w: wall %e s, peak RSS %M KB" $(BIN) run --workload $$w --gpus 1 --policy on-touch | grep -E "on 1 GPUs|mem instructions"; \
	done

# The floor (docs/performance.md): the least work a memory instruction
# needs, built up level by level (generate, coalesce, L1 lookups, one
# engine event, L2 lookups) on the streams of mm, mt and pr, beside the
# whole simulator on the same runs, in one command (about 2 minutes).
bench-floor:
	$(GO) test -p 1 -run '^$$' -bench '^BenchmarkFloor' -benchtime 1x -count 3 ./gpu ./platform

# The working tree's speed against revision OLD, as pairs of runs, with
# the results checked identical: make bench-compare OLD=HEAD~3 [SET=quick]
# (scripts/bench-compare.sh; the full set takes about half an hour).
# RESULTS=differ compares across a model change, in throughput; PASS=1
# swaps which binary runs first (average a PASS=0 and a PASS=1 pass).
SET ?= full
RESULTS ?= identical
PASS ?= 0
bench-compare:
	@test -n "$(OLD)" || { echo "usage: make bench-compare OLD=<revision> [SET=full|quick] [RESULTS=identical|differ] [PASS=0|1]"; exit 2; }
	RESULTS=$(RESULTS) PASS=$(PASS) scripts/bench-compare.sh $(OLD) $(SET)

# The budget of the oversubscription figures: each from a cold cache (its
# own results directory) with --jobs 2, wall time and peak RSS. Several
# hours in all (the SUV and ObservUVM figures at default scale take half an
# hour each), so it is not part of bench.
OVERSUB_FIGURES := uvmmu-fig1 uvmmu-fig4 uvmmu-fig5 uvmmu-fig6 ea-threshold ea-fig13 ea-fig14 \
	observuvm-fig9 observuvm-fig10 observuvm-fig13 observuvm-fig14 observuvm-fig15 observuvm-fig16 observuvm-fig17 observuvm-fig3 \
	suv-fig5 suv-fig7 suv-fig9 suv-density
bench-figures: build
	@tmp=$$(mktemp -d); for f in $(OVERSUB_FIGURES); do \
		/usr/bin/env time -f "$$f: wall %e s, peak RSS %M KB" $(BIN) figure $$f --jobs 2 --results $$tmp/$$f --out $$tmp/out | grep -E "runs \("; \
	done; rm -rf $$tmp

# cmd/mgpu/default.pgo: the CPU profile go build optimises the binary with
# (profile-guided optimisation; results do not change, only speed: 2-4% on
# the oversubscription runs). Refresh it after large changes to the hot
# path: profiles of a coalesced, an uncoalesced and a stencil run, merged.
PGO_RUNS := fdtd2d atax hotspot
pgo:
	$(GO) build -pgo=off -o bin/mgpu-nopgo ./cmd/mgpu
	@tmp=$$(mktemp -d); for w in $(PGO_RUNS); do \
		bin/mgpu-nopgo run --config configs/rtx3090.yaml --workload $$w --gpus 1 --oversubscribe 1.5 --progress off --cpuprofile $$tmp/$$w.prof > /dev/null || exit 1; \
	done; $(GO) tool pprof -proto $$tmp/*.prof > cmd/mgpu/default.pgo; rm -rf $$tmp bin/mgpu-nopgo

# Go fuzzing of every input parser, one target after another, each for
# FUZZTIME: the config loader and --set, the sweep spec, the CLI's numbers,
# the result files collect reads, the trace reader (the file, then a
# recording's metadata and addresses) and the Accel-Sim converter (each is
# a package:target pair). A crasher is saved under the package's
# testdata/fuzz, and go test then runs it with the seed corpus. On a busy
# machine: make fuzz FUZZTIME=30s FUZZFLAGS=-parallel=1
# FUZZMINIMIZE caps the minimising of each new interesting input (Go's
# default, 60 s, took most of a target's time when a call takes a
# millisecond: the trace and Accel-Sim targets write a file a call).
FUZZTIME ?= 10m
FUZZMINIMIZE ?= 5s
FUZZFLAGS ?=
FUZZ_TARGETS := ./config:FuzzLoadConfig ./config:FuzzConfigSet ./sweep:FuzzSweepSpec \
	./cmd/mgpu:FuzzDecimalFlags ./cmd/mgpu:FuzzRunFlags \
	./trace:FuzzTraceFile ./replay:FuzzReplayMeta ./accelsim:FuzzAccelSim
FUZZ_TARGETS += ./sweep:FuzzCollect
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $(FUZZFLAGS) $$pkg || exit 1; \
	done

lint:
	@test -z "$$(gofmt -l .)" || (echo "gofmt would change:"; gofmt -l .; exit 1)
	$(GO) vet ./...
	$(STATICCHECK) ./...
	cd examples/embedding && $(GO) vet ./... && $(STATICCHECK) ./...

clean:
	rm -rf bin results
