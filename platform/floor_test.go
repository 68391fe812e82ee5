package platform

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/mgpu-sim/mgpu/config"
)

// BenchmarkFloorFull is the whole simulator on the runs gpu's
// BenchmarkFloor takes apart (docs/performance.md, "The floor"): 4 GPUs
// under OASIS, seed 1. Per memory instruction, ns/instr and cpu-ns/instr
// are the engine's run alone (System.Run), whole-cpu-ns/instr the set-up
// and build too, as `mgpu run` spends them; `make bench-floor` runs it
// beside the floor.
func BenchmarkFloorFull(b *testing.B) {
	ThisBuild() // the binary's digest, once a process, outside the runs timed
	for _, run := range []struct {
		workload string
		scale    float64
	}{{"mm", 0.3}, {"mt", 1}, {"pr", 0.5}} {
		b.Run(run.workload, func(b *testing.B) {
			runtime.LockOSThread() // as gpu's BenchmarkFloor
			defer runtime.UnlockOSThread()
			b.ReportAllocs()
			var wall, cpu, whole time.Duration
			var instr, mallocs uint64
			var ms runtime.MemStats
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC()
				c0 := floorCPU()
				s, err := Build(Options{Workload: run.workload, Policy: "oasis", Scale: run.scale, Seed: 1, Config: config.DefaultConfig()})
				if err != nil {
					b.Fatal(err)
				}
				runtime.ReadMemStats(&ms)
				m0, c1, t0 := ms.Mallocs, floorCPU(), time.Now()
				b.StartTimer()
				r, err := s.Run()
				b.StopTimer()
				wall += time.Since(t0)
				c2 := floorCPU()
				cpu += c2 - c1
				whole += c2 - c0
				runtime.ReadMemStats(&ms)
				mallocs += ms.Mallocs - m0
				if err != nil {
					b.Fatal(err)
				}
				instr += r.Totals.MemInstructions
				b.StartTimer()
			}
			n := float64(instr)
			b.ReportMetric(float64(wall.Nanoseconds())/n, "ns/instr")
			b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/instr")
			b.ReportMetric(float64(whole.Nanoseconds())/n, "whole-cpu-ns/instr")
			b.ReportMetric(float64(mallocs)/n, "allocs/instr")
			b.ReportMetric(n/float64(b.N), "instr")
		})
	}
}

// floorCPU is the process's user and system time, every thread's.
func floorCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
