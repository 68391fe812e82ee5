package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog/log"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/platform"
)

// Summary counts what Execute did.
type Summary struct {
	Total, Skipped, Done, Failed int
	// Stale counts cached results from another build that were run again,
	// Incomplete the cached files that were not whole results, run again
	// too (both are also in Done or Failed).
	Stale, Incomplete int
	// Interrupted is set when the interrupt channel delivered; Abandoned
	// counts the runs that were in flight when a second interrupt gave up
	// on them (their results are not written).
	Interrupted bool
	Abandoned   int
	Wall        time.Duration
}

// Kept is the number of runs whose results of this build are on disk.
func (s Summary) Kept() int { return s.Skipped + s.Done }

// ErrInterrupted is Execute's error when the interrupt channel stopped it.
var ErrInterrupted = errors.New("sweep interrupted")

// Failure is what a failed run leaves in <hash>.failed.json.
type Failure struct {
	Run   string   `json:"run"`
	Args  []string `json:"args"`
	Error string   `json:"error"`
}

// CheckDir makes the results directory and proves it writable, so a sweep
// fails before its first run rather than after it.
func CheckDir(dir string) error {
	if err := atomicfile.CheckDir(dir); err != nil {
		return fmt.Errorf("results directory: %w", err)
	}
	return nil
}

// ResultPath is where a run's result goes.
func ResultPath(dir string, r Run) string { return filepath.Join(dir, r.Hash()+".json") }

// stalePath is where a result of another build goes when running it again
// failed, so that neither a resume nor a merged CSV takes it for current.
func stalePath(dir string, r Run) string { return ResultPath(dir, r) + ".stale" }

// cached reads the result at path whole (ReadResult): ok is false when
// there is no such file, and err says why a file there is not a whole
// result (a stub, a field missing, a file cut short), which is run again.
func cached(path string) (version string, ok bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return "", true, err
	}
	r, err := ReadResult(data)
	if err != nil {
		return "", true, err
	}
	return r.Version, true, nil
}

// Kept is whether dir holds a whole result of r from this build, which
// a sweep would reuse rather than run.
func Kept(dir string, r Run) bool {
	v, ok, err := cached(ResultPath(dir, r))
	return ok && err == nil && v == platform.FullVersion()
}

// scanCache is the runs that have no whole result of this build in dir,
// with the counts of those that have one (Skipped) or one of another
// build (Stale); it says on progress which builds they came from, and
// which files were not whole results.
func scanCache(runs []Run, dir string, progress io.Writer) ([]Run, Summary) {
	sum := Summary{Total: len(runs)}
	this := platform.FullVersion()
	stale := map[string]int{}
	var broken []string
	var todo []Run
	for _, r := range runs {
		path := ResultPath(dir, r)
		v, ok, err := cached(path)
		switch {
		case !ok:
		case err != nil:
			broken = append(broken, fmt.Sprintf("%s (%v)", path, err))
		case v == this:
			sum.Skipped++
			continue
		default:
			stale[v]++
			sum.Stale++
		}
		todo = append(todo, r)
	}
	if progress != nil {
		for _, v := range slices.Sorted(maps.Keys(stale)) {
			fmt.Fprintf(progress, "%d cached results are from build %s, not this build %s: running them again\n", stale[v], v, this)
		}
		if len(broken) > 0 {
			fmt.Fprintf(progress, "%d cached result files are not whole results, the first %s: running them again\n", len(broken), broken[0])
		}
	}
	sum.Incomplete = len(broken)
	return todo, sum
}

// Execute is ExecuteUntil without an interrupt.
func Execute(runs []Run, dir string, jobs int, progress io.Writer) (Summary, error) {
	return ExecuteUntil(nil, runs, dir, jobs, progress)
}

// ExecuteUntil runs, on jobs workers, every run that has no result of this
// build in dir. The run's file name is its input hash and the version
// inside it completes the cache key: a result from another build (a
// different commit, or another binary of a dirty tree) is run again, with
// a line on progress saying which build it came from, since reusing it
// silently would mix old numbers into new figures.
//
// A failed run is recorded in <hash>.failed.json and does not stop the
// others; it is retried by the next Execute. progress, if not nil, gets a
// one-line progress bar with an ETA.
//
// The first value from interrupt stops starting runs and lets those in
// flight finish and be kept; a second abandons them: ExecuteUntil returns
// at once and they never write. Either way it returns ErrInterrupted, and
// a later Execute resumes where this one stopped.
func ExecuteUntil(interrupt <-chan os.Signal, runs []Run, dir string, jobs int, progress io.Writer) (Summary, error) {
	if err := CheckDir(dir); err != nil {
		return Summary{}, err
	}
	jobs = max(jobs, 1)
	todo, sum := scanCache(runs, dir, progress)
	start := time.Now()
	bar := &bar{w: progress, total: len(todo), skipped: sum.Skipped, start: start}
	bar.draw()
	work := make(chan Run)
	platform.BeforeConcurrentRuns()
	// mu guards sum, bar and stopped; results are written under it, so
	// that once stopped is set no write is under way or can start.
	var mu sync.Mutex
	stopped, running := false, 0
	var wg sync.WaitGroup
	for i := 0; i < jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				mu.Lock()
				running++
				mu.Unlock()
				began := time.Now()
				res, err := safeRun(r)
				// Which runs take the wall time, for planning a sweep; the
				// result files stay free of it (they are deterministic).
				log.Info().Str("run", r.Label()).Dur("wall", time.Since(began)).Msg("run finished")
				mu.Lock()
				running--
				if stopped {
					mu.Unlock()
					return
				}
				if err = record(dir, r, res, err); err != nil {
					sum.Failed++
				} else {
					sum.Done++
				}
				bar.done, bar.failed = sum.Done, sum.Failed
				bar.draw()
				mu.Unlock()
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	interrupted := func() {
		mu.Lock()
		defer mu.Unlock()
		sum.Interrupted = true
		if progress != nil {
			fmt.Fprintf(progress, "\ninterrupted: starting no more runs; %d in flight will finish (interrupt again to abandon them)\n", running)
			bar.draw()
		}
	}
dispatch:
	for _, r := range todo {
		select {
		case work <- r:
		case <-interrupt:
			interrupted()
			break dispatch
		}
	}
	close(work)
	select {
	case <-finished:
	case <-interrupt:
		if !sum.Interrupted {
			interrupted()
			select {
			case <-finished:
			case <-interrupt:
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	select {
	case <-finished:
	default:
		stopped = true
		sum.Abandoned = running
	}
	bar.finish()
	sum.Wall = time.Since(start)
	if sum.Interrupted {
		return sum, ErrInterrupted
	}
	return sum, nil
}

// record writes a run's result, or its failure; it returns the run's error.
func record(dir string, r Run, res *platform.Result, err error) error {
	failed := filepath.Join(dir, r.Hash()+".failed.json")
	if err != nil {
		werr := atomicfile.Write(failed, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(Failure{Run: r.Label(), Args: r.Args(), Error: err.Error()})
		})
		if werr != nil {
			return werr
		}
		if _, serr := os.Stat(ResultPath(dir, r)); serr == nil {
			os.Rename(ResultPath(dir, r), stalePath(dir, r))
		}
		return err
	}
	os.Remove(failed)
	return atomicfile.Write(ResultPath(dir, r), res.WriteJSON)
}

// simulate is the simulator, replaceable by tests that need to hold a run
// in flight.
var simulate = platform.Run

// safeRun turns an internal panic into the run's error, so one broken run
// cannot take the sweep down.
func safeRun(r Run) (res *platform.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	opts := r.Options()
	opts.Sets = r.Sets
	return simulate(opts)
}

// bar is a one-line progress bar: done/total, failures, elapsed and ETA.
type bar struct {
	w                   io.Writer
	total, done, failed int
	skipped             int
	start               time.Time
}

func (b *bar) draw() {
	if b.w == nil {
		return
	}
	const width = 30
	n := b.done + b.failed
	fill := width
	if b.total > 0 {
		fill = width * n / b.total
	}
	eta := "?"
	if n > 0 {
		left := time.Duration(float64(time.Since(b.start)) / float64(n) * float64(b.total-n))
		eta = left.Round(time.Second).String()
	}
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d runs  %d failed  %d already done  elapsed %s  ETA %s ",
		strings.Repeat("#", fill), strings.Repeat(".", width-fill), n, b.total, b.failed, b.skipped,
		time.Since(b.start).Round(time.Second), eta)
}

func (b *bar) finish() {
	if b.w != nil {
		fmt.Fprintln(b.w)
	}
}
