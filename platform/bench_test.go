package platform

import (
	"testing"
	"time"

	"github.com/mgpu-sim/mgpu/config"
)

// BenchmarkSimulate reports simulated memory instructions per wall second
// on small runs of each paper workload, so regressions show in `make bench`.
func BenchmarkSimulate(b *testing.B) {
	for _, w := range []string{"mt", "mm"} {
		b.Run(w, func(b *testing.B) {
			var instr uint64
			var wall time.Duration
			for i := 0; i < b.N; i++ {
				c := config.DefaultConfig()
				start := time.Now()
				r, err := Run(Options{Workload: w, Policy: "on-touch", Scale: 0.25, Config: c})
				if err != nil {
					b.Fatal(err)
				}
				wall += time.Since(start)
				instr += r.Totals.MemInstructions
			}
			b.ReportMetric(float64(instr)/wall.Seconds(), "instr/s")
		})
	}
}
