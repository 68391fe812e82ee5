package sweep

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"

	"github.com/mgpu-sim/mgpu/units"
)

// MaxRuns is the most runs a sweep may expand to, however it runs them:
// each is checked before the first starts (about 0.1 ms each, so ten
// million take a quarter of an hour before anything runs), and each
// writes a result file of about 10 KB into one directory.
const MaxRuns = 10_000_000

// HeldRunBytes is the memory a sweep that runs here holds per run: the
// run (2 KB, most of it its config), its place in the queue of runs to
// do, and its result, read back for the merged CSV. --emit and a --task
// slice hold none, or only their slice's.
const HeldRunBytes = 8 << 10

// fallbackMemory is the memory assumed available where the system does
// not say (no /proc/meminfo).
const fallbackMemory = 4 << 30

// availableMemory is the memory this process may take: the system's
// MemAvailable, or GOMEMLIMIT when that is lower. Tests replace it.
var availableMemory = func() (bytes uint64, source string) {
	bytes, source = fallbackMemory, "assumed; the system does not say"
	if avail, ok := memAvailable(); ok {
		bytes, source = avail, "MemAvailable"
	}
	if limit := debug.SetMemoryLimit(-1); limit > 0 && limit < math.MaxInt64 && uint64(limit) < bytes {
		bytes, source = uint64(limit), "GOMEMLIMIT"
	}
	return bytes, source
}

// memAvailable reads MemAvailable from /proc/meminfo.
func memAvailable() (uint64, bool) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 3 && string(f[0]) == "MemAvailable:" && string(f[2]) == "kB" {
			kb, err := strconv.ParseUint(string(f[1]), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// CheckSize refuses, before anything is expanded, a sweep of n runs of
// which held are to be held in memory at once (all of them to run them
// here; a --task slice's; none to emit them): more than MaxRuns, or held
// runs that would take more than half the memory available. The error
// names the limit and how to stay within it.
func CheckSize(n, held int) error {
	if n > MaxRuns {
		return fmt.Errorf("%d runs, more than the %d a sweep may have (each is checked before the first starts, and writes a result file): narrow its lists, or split it into several sweeps", n, MaxRuns)
	}
	avail, source := availableMemory()
	budget := avail / 2
	if need := uint64(held) * HeldRunBytes; need > budget {
		return fmt.Errorf("%d runs to hold in memory at once, about %s at %s each (the run, its place in the queue, its result for the merged CSV), "+
			"more than half the %s available (%s): at most %d can run here; split it with --tasks T --task i (each task holds its slice), "+
			"or stream it with --emit list or --emit slurm", held, units.Bytes(need).Human(), units.Bytes(HeldRunBytes).Human(),
			units.Bytes(avail).Human(), source, budget/HeldRunBytes)
	}
	return nil
}
