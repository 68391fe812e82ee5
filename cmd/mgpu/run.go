package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog/log"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/replay"
	"github.com/mgpu-sim/mgpu/units"
)

type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// workloadFlags name a workload, its size and the system it runs on; run
// and characterize share them.
type workloadFlags struct {
	workload, config, size string
	gpus, iterations       int
	seed                   uint64
	scale                  float64
	sets                   setFlags
	// over, when set, is what --config and --set apply over in place
	// of the defaults: a replay's recorded GPU count and im2col kernel.
	over *config.Config
}

func (f *workloadFlags) register(fs *flag.FlagSet, verb string) {
	fs.StringVar(&f.workload, "workload", "mm", "workload to "+verb+" (see 'mgpu list')")
	intVar(fs, &f.gpus, "gpus", 4, "number of GPUs, 1 to 64")
	fs.Var(onceString{&f.config}, "config", "YAML config `file` (keys as in 'mgpu list'); at most one")
	fs.Var(&f.sets, "set", "override a config key: --set key=value (repeatable)")
	uint64Var(fs, &f.seed, "seed", 1, "random seed, recorded in the result")
	float64Var(fs, &f.scale, "scale", 1, "footprint scale `F` (1 = the paper's size)")
	fs.StringVar(&f.size, "size", "auto", "paper size column: auto (follows --gpus), 4gpu, 8gpu, 16gpu")
	intVar(fs, &f.iterations, "iterations", 0, "iterations for workloads that have them (see --help; 0 = the workload's default)")
}

// iterationsUsage is the --iterations help with the workloads that take
// it, computed only when help is printed.
func iterationsUsage() string {
	return "iterations, for the workloads that have them: " + strings.Join(iterationWorkloads(), ", ") + " (0 = the workload's default)"
}

// checkIterations rejects a negative --iterations, and a positive one on a
// workload without iterations, which would otherwise be silently ignored.
func (f *workloadFlags) checkIterations() error {
	if f.iterations < 0 {
		return badInput("--iterations %d: must be 0 (the workload's default) or a positive count", f.iterations)
	}
	if f.iterations == 0 {
		return nil
	}
	wl, err := benchmarks.New(f.workload)
	if err != nil {
		return nil // reported, with the valid names, where the workload is built
	}
	takes := iterationWorkloads()
	if !slices.Contains(takes, wl.Info().Name) {
		return badInput("--iterations %d: workload %s has no iterations; the flag applies to %s", f.iterations, f.workload, strings.Join(takes, ", "))
	}
	return nil
}

// iterationWorkloads lists the workloads whose kernels depend on
// Params.Iterations. benchmarks declares no such list (each workload's
// Setup reads the field or not), so each is set up at a tiny scale with
// one and with two iterations and the launches compared: the answer cannot
// drift from the workloads. It takes some tens of milliseconds.
func iterationWorkloads() []string {
	var out []string
	for _, name := range benchmarks.Names() {
		var launches [2]int
		for i := range launches {
			w, err := benchmarks.New(name)
			if err != nil {
				break
			}
			alloc, err := objtable.NewAllocator(objtable.Tagging{IDBits: objtable.MaxIDBits, ConfigBit: 1}, 2<<20)
			if err != nil {
				break
			}
			k, err := w.Setup(alloc, benchmarks.Params{GPUs: 4, Scale: 0.01, Size: benchmarks.SizeAuto, Iterations: i + 1, Seed: 1})
			if err != nil {
				break
			}
			launches[i] = len(k)
		}
		if launches[0] != launches[1] {
			out = append(out, name)
		}
	}
	return out
}

// baseConfig applies, in order: defaults (or f.over), --config, --set,
// then --gpus if given (a --set of gpus beside --gpus is an error, not
// overridden); it checks --scale, which no config validation sees.
func (f *workloadFlags) baseConfig(fs *flag.FlagSet) (config.Config, error) {
	cfg := config.DefaultConfig()
	if f.over != nil {
		cfg = *f.over
	}
	if !(f.scale > 0) || math.IsInf(f.scale, 0) {
		return cfg, badInput("--scale %g: must be a positive number", f.scale)
	}
	if err := f.checkIterations(); err != nil {
		return cfg, err
	}
	if f.config != "" {
		c, err := config.LoadConfigOver(f.config, cfg)
		if err != nil {
			return cfg, inputError{err}
		}
		cfg = c
	}
	for _, kv := range f.sets {
		if err := cfg.Set(kv); err != nil {
			return cfg, inputError{err}
		}
		if err := flagAlsoSets(fs, kv); err != nil {
			return cfg, err
		}
	}
	if visited(fs, "gpus") {
		cfg.GPUs = f.gpus
	}
	return cfg, nil
}

// flagKeys are the config keys that a flag of the same name also sets.
var flagKeys = []string{"gpus", "oversubscribe", "check"}

// flagAlsoSets rejects a --set of a key whose own flag is also given: the
// flag would win, and the result would record a --set that did not run.
func flagAlsoSets(fs *flag.FlagSet, kv string) error {
	key, _, _ := strings.Cut(kv, "=")
	key = strings.TrimSpace(key)
	if !slices.Contains(flagKeys, key) || fs.Lookup(key) == nil || !visited(fs, key) {
		return nil
	}
	return badInput("--set %s and --%s %s both set %s: give one of them", kv, key, fs.Lookup(key).Value, key)
}

func visited(fs *flag.FlagSet, name string) bool {
	seen := false
	fs.Visit(func(fl *flag.Flag) { seen = seen || fl.Name == name })
	return seen
}

type runFlags struct {
	workloadFlags
	policy, out, csv, logLevel string
	cpuProfile, progress       string
	trace                      string
	oversubscribe              float64
	check                      bool
	threads                    int
}

func parseRunFlags(args []string, stdout io.Writer) (*runFlags, *flag.FlagSet, error) {
	f := &runFlags{}
	fs := newFlagSet("run")
	f.register(fs, "run")
	fs.StringVar(&f.policy, "policy", "on-touch", "page-management policy (see 'mgpu list')")
	float64Var(fs, &f.oversubscribe, "oversubscribe", 0, "oversubscription factor `F`: GPU capacity = footprint / GPUs / F (e.g. 1.5); 0 = off")
	boolVar(fs, &f.check, "check", false, "coherence checking mode (slower)")
	intVar(fs, &f.threads, "threads", 1, "run the GPUs on up to `N` threads, a window of the links' least latency at a time; the result is the same for every N (docs/performance.md)")
	fs.StringVar(&f.out, "out", "", "write the JSON result here")
	fs.StringVar(&f.csv, "csv", "", "write a one-row CSV result here")
	addLogLevelFlag(fs, &f.logLevel)
	fs.StringVar(&f.progress, "progress", "auto", "progress line on stderr (simulated time, kernels, faults): auto (when stderr is a terminal, after 2 s), on, off")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the simulation here")
	fs.StringVar(&f.trace, "trace", "", "replay a recording ('mgpu trace record') instead of --workload: it fixes the workload, --scale, --size, --iterations, --seed, the GPU count and im2col (--gpus, --set or --config giving another is refused)")
	if err := noArgs(fs, args, stdout); err != nil {
		return nil, nil, err
	}
	return f, fs, nil
}

// buildConfig is baseConfig, then --check and --oversubscribe if given.
func (f *runFlags) buildConfig(fs *flag.FlagSet) (config.Config, error) {
	cfg, err := f.baseConfig(fs)
	if err != nil {
		return cfg, err
	}
	if visited(fs, "check") {
		cfg.Check = f.check
	}
	if visited(fs, "oversubscribe") {
		cfg.Oversubscribe = f.oversubscribe
	}
	if err := cfg.Validate(); err != nil {
		return cfg, inputError{err}
	}
	return cfg, nil
}

// setMap is the --set overrides as a map, recorded in the result so a
// sweep's CSV can group by them.
func (f *runFlags) setMap() map[string]string {
	if len(f.sets) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, kv := range f.sets {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}

func cmdRun(args []string, stdout, stderr io.Writer) (err error) {
	f, fs, err := parseRunFlags(args, stdout)
	if err != nil {
		return err
	}
	if err := runClobber(f); err != nil {
		return err
	}
	term, err := setupLogging(f.logLevel, stderr)
	if err != nil {
		return err
	}
	prog, err := newProgressLine(f.progress, term)
	if err != nil {
		return err
	}
	var rec *replay.Program
	if f.trace != "" {
		if rec, err = f.openTrace(fs); err != nil {
			return err
		}
		defer rec.Close()
	}
	cfg, err := f.buildConfig(fs)
	if err != nil {
		return err
	}
	if f.threads < 1 {
		return badInput("--threads %d: must be >= 1", f.threads)
	}
	opts := platform.Options{Workload: f.workload, Policy: f.policy, Seed: f.seed, Scale: f.scale,
		Size: f.size, Iterations: f.iterations, Config: cfg, Sets: f.setMap(), Threads: f.threads}
	if rec != nil {
		if err := f.replayOptions(fs, rec, &opts); err != nil {
			return err
		}
	}
	if prog != nil {
		opts.Progress = prog.update
		defer prog.finish()
	}
	log.Info().Str("workload", opts.Workload).Str("policy", f.policy).Int("gpus", cfg.GPUs).Msg("building")
	sys, err := platform.Build(opts)
	if err != nil {
		return inputError{err}
	}
	// A result is lost if its path proves unwritable only after the
	// simulation, which may take minutes.
	if err := checkOutputs(fs, map[string]string{"out": f.out, "csv": f.csv, "cpuprofile": f.cpuProfile}); err != nil {
		return err
	}
	if f.cpuProfile != "" {
		finish, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer func() {
			if perr := finish(); err == nil {
				err = perr
			}
		}()
	}
	if prog != nil {
		prog.start = time.Now() // the simulation, not the build
	}
	setStage(f.simulating(opts.Config.GPUs))
	res, err := sys.Run()
	if prog != nil {
		prog.finish()
	}
	if err != nil {
		return err
	}
	log.Info().Dur("wall", res.Wall()).Msg("done")
	printSummary(stdout, res)
	return f.writeResults(res)
}

// simulating is what a signal during the simulation stops.
func (f *runFlags) simulating(gpus int) string {
	what := f.workload
	if f.trace != "" {
		what = "the recording " + f.trace
	}
	return fmt.Sprintf("simulating %s under %s on %d GPUs, before any result was written", what, f.policy, gpus)
}

// writeResults writes --out and --csv.
func (f *runFlags) writeResults(res *platform.Result) error {
	setStage("writing the result")
	if f.out != "" {
		if err := writeResult(f.out, res.WriteJSON); err != nil {
			return err
		}
	}
	if f.csv == "" {
		return nil
	}
	return writeResult(f.csv, func(w io.Writer) error {
		return platform.WriteCSV(w, []*platform.Result{res})
	})
}

// writeResult is how run writes its results: atomicfile.Write, which a
// test replaces to hold a write open while it signals the process.
var writeResult = atomicfile.Write

// startCPUProfile profiles into memory; finish writes the profile to path
// atomically, so that a run stopped by a signal leaves no partial file.
func startCPUProfile(path string) (finish func() error, err error) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return atomicfile.WriteBytes(path, buf.Bytes())
	}, nil
}

func printSummary(w io.Writer, r *platform.Result) {
	t := r.Totals
	fmt.Fprintf(w, "%s on %d GPUs, policy %s, footprint %v, seed %d\n", r.Workload, r.GPUs, r.Policy, r.Footprint.Human(), r.Seed)
	fmt.Fprintf(w, "  simulated time   %.3f ms   (wall %.2f s)\n", r.SimTimeNs/1e6, r.Wall().Seconds())
	fmt.Fprintf(w, "  mem instructions %d   (%.2f M/s simulated per wall second)\n", t.MemInstructions, float64(t.MemInstructions)/r.Wall().Seconds()/1e6)
	fmt.Fprintf(w, "  page faults      %d   protection faults %d   batches %d\n", t.PageFaults, t.ProtectionFaults, t.FaultBatches)
	fmt.Fprintf(w, "  migrations       h2d %d   d2d %d   d2h %d   evictions %d (capacity %v per GPU)\n", t.MigrationsH2D, t.MigrationsD2D, t.MigrationsD2H, t.Evictions, r.GPUCapacity.Human())
	fmt.Fprintf(w, "  duplications %d   collapses %d   remote lines %d (host %d)   invalidations %d\n", t.Duplications, t.Collapses, t.RemoteLines, t.HostLines, t.Invalidations)
	fmt.Fprintf(w, "  bytes            NVLink %v   PCIe %v\n", units.Bytes(t.BytesNVLink).Human(), units.Bytes(t.BytesPCIe).Human())
	s := r.Stalls
	fmt.Fprintf(w, "  stalls (ms)      walk %.3f  host %.3f  migration %.3f  remote %.3f  dup %.3f  collapse %.3f\n",
		s.LocalWalk/1e6, s.HostFault/1e6, s.Migration/1e6, s.RemoteAccess/1e6, s.Duplication/1e6, s.WriteCollapse/1e6)
}

// progressDelay is how long a run goes before --progress auto shows its
// progress line: a short run shows none.
const progressDelay = 2 * time.Second

// progressLine is run's progress on stderr: one line, rewritten in place
// at most every progressEvery, and erased when the run ends.
type progressLine struct {
	term         *terminal
	delay        time.Duration
	start, drawn time.Time
}

const progressEvery = 250 * time.Millisecond

// newProgressLine reads --progress: nil when off, or when auto and stderr
// is not a terminal; auto shows the line after progressDelay, on from the
// start.
func newProgressLine(mode string, term *terminal) (*progressLine, error) {
	p := &progressLine{term: term, start: time.Now()}
	switch mode {
	case "auto":
		if !term.tty {
			return nil, nil
		}
		p.delay = progressDelay
	case "on":
	case "off":
		return nil, nil
	default:
		return nil, badInput("--progress %q: valid values are auto, on, off", mode)
	}
	return p, nil
}

// update is platform.Options.Progress. It runs on the simulating goroutine
// every platform.ProgressEvents events, so it only reads the clock.
func (p *progressLine) update(pr platform.Progress) {
	if pr.Done {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < p.delay || now.Sub(p.drawn) < progressEvery {
		return
	}
	p.drawn = now
	p.term.setStatus(formatProgress(pr, now.Sub(p.start)))
}

// finish erases the line.
func (p *progressLine) finish() { p.term.clearStatus() }

// formatProgress is the progress line, e.g.
// "simulated 1.234 ms  kernel 3/20  page faults 4567  wall 12s".
func formatProgress(p platform.Progress, wall time.Duration) string {
	return fmt.Sprintf("simulated %.3f ms  kernels %d/%d done  page faults %d  wall %s",
		p.SimTimeNs/1e6, p.Kernels, p.KernelsTotal, p.PageFaults, wall.Round(time.Second))
}

// checkOutputs checks the output path flags before a run: one given empty
// would silently write nothing, and each must be writable
// (atomicfile.CheckFile); runClobber has refused two naming one file.
func checkOutputs(fs *flag.FlagSet, paths map[string]string) error {
	var err error
	fs.Visit(func(fl *flag.Flag) {
		if p, ok := paths[fl.Name]; ok && p == "" && err == nil {
			err = badInput("--%s is empty: give a file name, or leave the flag out", fl.Name)
		}
	})
	if err != nil {
		return err
	}
	for _, name := range []string{"out", "csv", "cpuprofile"} {
		if p := paths[name]; p != "" {
			if err := atomicfile.CheckFile(p); err != nil {
				return badInput("--%s: %v", name, err)
			}
		}
	}
	return nil
}
