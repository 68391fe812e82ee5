package benchmarks

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mgpu-sim/mgpu/units"
)

// MiB is the unit of the paper tables' "MB" columns. The papers do not say
// whether they mean 10^6 or 2^20 bytes; the simulated sizes use 2^20, which
// is what power-of-two matrix and buffer sizes suggest.
const MiB = 1 << 20

// Size column names accepted in Params.Size.
const (
	SizeAuto  = "auto"
	Size4GPU  = "4gpu"
	Size8GPU  = "8gpu"
	Size16GPU = "16gpu"
)

// SizeColumns lists the values Params.Size accepts. The empty string is also
// accepted and means "auto", so a zero Params.Size sizes by GPU count.
func SizeColumns() []string { return []string{SizeAuto, Size4GPU, Size8GPU, Size16GPU} }

// PaperSize is a workload's total footprint in bytes in each column of the
// OASIS paper's tables: Table II (the 4-GPU baseline) and the 8- and 16-GPU
// columns of Table III.
type PaperSize struct {
	TableII    uint64
	TableIII8  uint64
	TableIII16 uint64
}

// ClampNote says when a workload built for p came out much larger than the
// footprint p asked for, because the request was below the workload's
// smallest shape; "" when it did not (or w declares no PaperSize).
// Footprints otherwise land within a few percent of the request, so 1.5x
// is a clamp.
func ClampNote(w Workload, p Params, built uint64) string {
	info := w.Info()
	if info.PaperSize == (PaperSize{}) {
		return ""
	}
	want, err := info.PaperSize.Footprint(p)
	if err != nil || float64(built) <= 1.5*float64(want) {
		return ""
	}
	return fmt.Sprintf("scale %g asks %s for a %s footprint, below its smallest shape; it runs at %s, so the result is not at the requested size",
		p.Scale, info.Name, units.Bytes(want).Human(), units.Bytes(built).Human())
}

// Column returns the GPU count of the paper column p selects: 4 (Table II),
// 8 or 16 (Table III).
//
// With Size "auto" (or empty) the column follows p.GPUs: the column for the
// largest of 4, 8, 16 that is at or below p.GPUs, and Table II for fewer than
// 4 GPUs (there is no smaller column). So 1-7 GPUs size from Table II, 8-15
// from the 8-GPU column and 16 or more from the 16-GPU column. "4gpu",
// "8gpu" and "16gpu" force a column whatever the GPU count.
func Column(p Params) (int, error) {
	switch p.Size {
	case SizeAuto, "":
		switch {
		case p.GPUs < 1:
			return 0, fmt.Errorf("size %q: %d GPUs: must be at least 1", SizeAuto, p.GPUs)
		case p.GPUs >= 16:
			return 16, nil
		case p.GPUs >= 8:
			return 8, nil
		default:
			return 4, nil
		}
	case Size4GPU:
		return 4, nil
	case Size8GPU:
		return 8, nil
	case Size16GPU:
		return 16, nil
	}
	return 0, fmt.Errorf("unknown size %q: valid sizes are %s", p.Size, strings.Join(SizeColumns(), ", "))
}

// CheckScale reports a Params.Scale that cannot size a workload: it must be
// a finite number above zero.
func CheckScale(scale float64) error {
	if !(scale > 0) || math.IsInf(scale, 0) {
		return fmt.Errorf("scale %v: must be a positive number", scale)
	}
	return nil
}

// Footprint returns the bytes the workload should allocate for p: the
// column Column(p) picks, times p.Scale.
func (s PaperSize) Footprint(p Params) (uint64, error) {
	if err := CheckScale(p.Scale); err != nil {
		return 0, err
	}
	col, err := Column(p)
	if err != nil {
		return 0, err
	}
	var b uint64
	switch col {
	case 4:
		b = s.TableII
	case 8:
		b = s.TableIII8
	default:
		b = s.TableIII16
	}
	f := math.Round(float64(b) * p.Scale)
	if f < 1 {
		f = 1
	}
	if f > 1<<47 {
		return 0, fmt.Errorf("scale %v: footprint %.0f bytes exceeds the 48-bit address space (2^47 bytes of data): at this size the scale must be above 0 and at most %.4g",
			p.Scale, f, floorDigits(float64(1<<47)/float64(b), 4))
	}
	return uint64(f), nil
}

// floorDigits rounds x > 0 down to its first n significant digits, so
// that a limit printed with them is not above the limit.
func floorDigits(x float64, n int) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x))-float64(n-1))
	return math.Floor(x/p) * p
}

// FlatSize is a PaperSize with one footprint in every column.
func FlatSize(b uint64) PaperSize { return PaperSize{TableII: b, TableIII8: b, TableIII16: b} }

// FitSide returns the multiple of mult, at least mult, whose footprint
// bytes(n) comes closest to fp. bytes must grow with n.
func FitSide(fp uint64, mult int, bytes func(n int) uint64) int {
	// The largest k with bytes(k*mult) <= fp, by binary search.
	hi := 1
	for bytes(hi*mult) <= fp && hi < 1<<40/mult {
		hi *= 2
	}
	k := sort.Search(hi, func(k int) bool { return bytes((k+1)*mult) > fp })
	if k == 0 {
		return mult
	}
	lo, up := bytes(k*mult), bytes((k+1)*mult)
	if math.Abs(float64(up)-float64(fp)) < math.Abs(float64(fp)-float64(lo)) {
		return (k + 1) * mult
	}
	return k * mult
}
