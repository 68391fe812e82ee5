package cuda

import (
	"slices"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/benchmarks/benchtest"
)

// TestSpGEMMRows checks the Gustavson order: the numeric phase of row i
// gathers exactly the B rows A's row i names, and writes C's row i at
// its offsets; the copy moves every nonzero once; the launches come in
// the API's order.
func TestSpGEMMRows(t *testing.T) {
	p := benchmarks.Params{GPUs: 1, Scale: 0.01, Seed: 3}
	n, _ := SpGEMMRows(p)
	m := spgemmGenerate(n, p.Seed)
	a, ks := benchtest.Setup(t, "spgemm", p)
	var names []string
	for _, k := range ks {
		names = append(names, k.Name)
	}
	if want := "spgemm_work_estimation spgemm_symbolic spgemm_scan spgemm_numeric spgemm_copy"; strings.Join(names, " ") != want {
		t.Fatalf("launches %q", names)
	}
	// C's structure, independently: the union of the named B rows.
	for i := 0; i < n; i += 97 {
		u := map[uint32]bool{}
		for _, k := range m.arow(i) {
			for _, c := range m.brow(int(k)) {
				u[c] = true
			}
		}
		if got := int(m.coff[i+1] - m.coff[i]); got != len(u) {
			t.Fatalf("row %d of C: %d nonzeros, want %d", i, got, len(u))
		}
	}
	skew := map[uint32]int{}
	for _, c := range m.acol {
		skew[c]++
	}
	if skew[0] < 10*spgemmRowNNZ { // R-MAT's marginal: column 0 is hot
		t.Errorf("A's column 0 appears %d times in %d rows; the columns are not skewed", skew[0], n)
	}
	numeric := ks[3]
	cWritten := map[uint64]int{}
	for row := 0; row < n; row++ {
		ins := benchtest.InstructionAccesses(t, a, numeric.Wavefront(row/spgemmRowsPerWG, row%spgemmRowsPerWG, 0))
		var bcols []uint64
		for _, k := range m.arow(row) {
			for j := uint64(0); j < spgemmRowNNZ; j++ {
				bcols = append(bcols, uint64(k)*spgemmRowNNZ+j)
			}
		}
		for _, x := range ins {
			if len(x) > 0 && x[0].Obj.Name == "dB_columns" && !slices.Equal(benchtest.LaneElems(x, 4), bcols) {
				t.Fatalf("row %d gathers B elements %v, want %v", row, benchtest.LaneElems(x, 4), bcols)
			}
		}
		last := ins[len(ins)-1]
		if !last[0].Write || last[0].Obj.Name != "dBuffer2" || len(last) != int(m.coff[row+1]-m.coff[row]) {
			t.Fatalf("row %d: last instruction %v", row, last)
		}
		for _, x := range last {
			cWritten[(x.Addr-x.Obj.Base)/4]++
		}
	}
	// The values land after the n+1 counts and nnz(C) columns.
	first := uint64(n+1) + uint64(m.nnzC())
	benchtest.ExactlyOnce(t, "numeric values", cWritten, first+uint64(m.nnzC()), func(i uint64) bool { return i >= first })
	c := benchtest.CountKernel(t, a, ks[4], 4)
	c.OnlyObjects(t, "copy", []string{"dBuffer2"}, []string{"dC_columns", "dC_values"})
	for _, o := range []string{"dC_columns", "dC_values"} {
		benchtest.ExactlyOnce(t, o, c.Writes[o], uint64(m.nnzC()), func(uint64) bool { return true })
	}
	s := benchtest.CountKernel(t, a, ks[2], 4)
	benchtest.ExactlyOnce(t, "scan", s.Writes["dC_csrOffsets"], uint64(n+1), func(uint64) bool { return true })
}
