package benchmarks

import (
	"testing"
)

func TestColumn(t *testing.T) {
	for _, c := range []struct {
		gpus int
		size string
		want int
	}{
		{1, "auto", 4}, {2, "auto", 4}, {3, "", 4}, {4, "auto", 4}, {7, "auto", 4},
		{8, "auto", 8}, {12, "auto", 8}, {16, "auto", 16}, {64, "auto", 16},
		{4, "16gpu", 16}, {16, "4gpu", 4}, {2, "8gpu", 8},
	} {
		got, err := Column(Params{GPUs: c.gpus, Size: c.size, Scale: 1})
		if err != nil || got != c.want {
			t.Errorf("Column(%d GPUs, %q) = %d, %v; want %d", c.gpus, c.size, got, err, c.want)
		}
	}
}

func TestFitSide(t *testing.T) {
	sq := func(n int) uint64 { return uint64(n * n) }
	for _, c := range []struct {
		fp         uint64
		mult, want int
	}{{100, 1, 10}, {110, 1, 10}, {111, 1, 11}, {1, 16, 16}, {0, 4, 4}, {400, 16, 16}, {800, 16, 32}} {
		if got := FitSide(c.fp, c.mult, sq); got != c.want {
			t.Errorf("fitSide(%d, %d) = %d, want %d", c.fp, c.mult, got, c.want)
		}
	}
}
