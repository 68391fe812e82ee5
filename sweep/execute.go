package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mgpu-sim/mgpu/atomicfile"
	"github.com/mgpu-sim/mgpu/platform"
)

// Summary counts what Execute did.
type Summary struct {
	Total, Skipped, Done, Failed int
	Wall                         time.Duration
}

// Failure is what a failed run leaves in <hash>.failed.json.
type Failure struct {
	Run   string   `json:"run"`
	Args  []string `json:"args"`
	Error string   `json:"error"`
}

// CheckDir makes the results directory and proves it writable, so a sweep
// fails before its first run rather than after it.
func CheckDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results directory %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return fmt.Errorf("results directory %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// ResultPath is where a run's result goes.
func ResultPath(dir string, r Run) string { return filepath.Join(dir, r.Hash()+".json") }

// Execute runs every run whose result file does not exist yet on jobs
// workers. A failed run is recorded in <hash>.failed.json and does not stop
// the others; it is retried by the next Execute. progress, if not nil,
// gets a one-line progress bar with an ETA.
func Execute(runs []Run, dir string, jobs int, progress io.Writer) (Summary, error) {
	if err := CheckDir(dir); err != nil {
		return Summary{}, err
	}
	jobs = max(jobs, 1)
	sum := Summary{Total: len(runs)}
	var todo []Run
	for _, r := range runs {
		if _, err := os.Stat(ResultPath(dir, r)); err == nil {
			sum.Skipped++
			continue
		}
		todo = append(todo, r)
	}
	start := time.Now()
	bar := &bar{w: progress, total: len(todo), skipped: sum.Skipped, start: start}
	bar.draw()
	work := make(chan Run)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				err := runOne(dir, r)
				mu.Lock()
				if err != nil {
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
	for _, r := range todo {
		work <- r
	}
	close(work)
	wg.Wait()
	bar.finish()
	sum.Wall = time.Since(start)
	return sum, nil
}

// runOne simulates one run and writes its result, or its failure.
func runOne(dir string, r Run) error {
	opts := r.Options()
	opts.Sets = r.Sets
	res, err := safeRun(opts)
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
		return err
	}
	os.Remove(failed)
	return atomicfile.Write(ResultPath(dir, r), res.WriteJSON)
}

// safeRun turns an internal panic into the run's error, so one broken run
// cannot take the sweep down.
func safeRun(o platform.Options) (res *platform.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	return platform.Run(o)
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
