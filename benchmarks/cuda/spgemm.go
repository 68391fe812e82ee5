package cuda

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// SpGEMM is ObservUVM's SPM: the sparse matrix-matrix product C = A x B of
// CUDALibrarySamples' cuSPARSE/spgemm example (cusparseSpGEMM with
// CUSPARSE_SPGEMM_DEFAULT), every cudaMalloc made managed, on matrices
// generated from Params.Seed. cuSPARSE's kernels are closed; they are
// modelled as a row-wise Gustavson SpGEMM (one wavefront per row of A, the
// row's partial products merged in an LDS hash table, as GPU SpGEMMs such
// as nsparse do for rows of this length), in the five phases the sample's
// API calls run: work estimation, compute (symbolic, scan, numeric) and
// copy.
//
// Matrices: A and B are n x n CSR matrices (int32 row offsets and column
// indices, float32 values, columns sorted in each row) with spgemmRowNNZ =
// 8 distinct nonzeros in every row. B's columns are uniform. A's columns
// follow the column marginal of Graph500's R-MAT (each bit of a column
// index set with probability b+d = 0.24 on the next power of two above n,
// indices >= n drawn again), without relabelling: a few low-numbered rows
// of B are gathered by many rows of A and most by a few, the skewed
// region frequencies an LFU preference suggests (ObservUVM does not say
// which matrices SPM multiplies; this choice is the model's). C has
// about 8 x 8 = 64 nonzeros per row (the union of the 8 B rows an A row
// names; its expected size is n(1 - (1 - 8/n)^8)). Its exact structure is
// computed at set-up, so every store lands where the real one does.
//
// Shape: n, a multiple of 256, makes the expected footprint closest to
// SpGEMMSize times Params.Scale: 229,120 rows (256 MiB, 14.7M nonzeros
// of C) at scale 1, ObservUVM's 8.0 GB (Table II) at --scale 32 (7.3M
// rows; generating it takes about 0.5 GB of host memory).
//
// Objects, in the sample's allocation (ID) order:
//
//	0 "dA_csrOffsets" (n+1) int32     5 "dB_values"     8n float32
//	1 "dA_columns"    8n int32        6 "dC_csrOffsets" (n+1) int32
//	2 "dA_values"     8n float32      7 "dBuffer1"      (n+1) int32
//	3 "dB_csrOffsets" (n+1) int32     8 "dBuffer2"      (n+1) + 2 nnz(C) words
//	4 "dB_columns"    8n int32        9 "dC_columns"    nnz(C) int32
//	                                 10 "dC_values"     nnz(C) float32
//
// cuSPARSE sizes its two buffers itself and does not document what they
// hold; here dBuffer1 holds each row's product count (work estimation)
// and dBuffer2 each row's nonzero count followed by the product C's
// columns and values, which cusparseSpGEMM_copy then copies into the
// arrays the program allocated once it knew nnz(C). This is the least a
// Gustavson SpGEMM behind that API needs, an assumption.
//
// Kernels, in launch order; wavefront w of the row-wise kernels is row w
// (workgroups of 256 threads, 4 rows):
//
//   - spgemm_work_estimation: A's offsets (2 lanes), A's columns (8), the
//     8 B rows' offsets (16 lanes, a gather), the store of the row's
//     product count to dBuffer1 (1 lane): 4 instructions;
//   - spgemm_symbolic: the same three loads, B's columns of the 64
//     products (8 runs of 8 consecutive words, a gather of 8 rows), the
//     store of the row's nonzero count to dBuffer2: 5;
//   - spgemm_scan: one thread per row offset, the counts read and
//     dC_csrOffsets written (the prefix sum itself is LDS work): 2 per 64
//     rows;
//   - spgemm_numeric: A's offsets, columns and values, B's offsets, the
//     64 products' B columns and values, C's two row offsets, then the
//     stores of the row's columns and values into dBuffer2 (one lane per
//     nonzero of the C row): 9;
//   - spgemm_copy: one thread per nonzero of C, dBuffer2's column and
//     value read and dC_columns and dC_values written: 4 per 64 nonzeros.
//
// That is about 22 instructions per row, 5.0M at scale 1. SpGEMM has no
// iterations.
//
// Class: mixed, assigned here from the access pattern (Early-Adaptor does
// not run SpGEMM): A, C and the buffers are swept in row order, B's rows
// are gathered at random across the whole matrix.
//
// Known simplifications: the LDS hash table, its collisions and the sort
// of each C row are compute cycles, not modelled; every row of A and B
// has the same 8 nonzeros (real matrices vary), so every row takes the
// same path, where cuSPARSE bins rows by their product count; alpha = 1,
// beta = 0, so C is not read; the sample calls work estimation and
// compute twice each, the first time only to size a buffer, and those
// first calls launch nothing here.
type SpGEMM struct{}

const (
	// spgemmRowNNZ is the nonzeros of every row of A and B.
	spgemmRowNNZ = 8
	// spgemmProducts is the partial products of one row of C; they fill
	// one wavefront.
	spgemmProducts = spgemmRowNNZ * spgemmRowNNZ
	// spgemmBlock is the threads per workgroup; spgemmRowsPerWG the rows
	// of the row-wise kernels' workgroups (one wavefront each).
	spgemmBlock     = 256
	spgemmRowsPerWG = spgemmBlock / benchmarks.WavefrontSize
	// spgemmHashCycles is inserting a wavefront's 64 products into the
	// LDS hash table; spgemmMergeCycles compacting and sorting the row.
	spgemmHashCycles  = 64
	spgemmMergeCycles = 128
	// spgemmPaperScale is the --scale of ObservUVM's 8.0 GB.
	spgemmPaperScale = 32
	// spgemmColBit is the probability that a bit of one of A's column
	// indices is set: R-MAT's b + d.
	spgemmColBit = benchmarks.RMATColumnBit
)

// SpGEMMSize is SpGEMM's scale-1 footprint: ObservUVM's 8.0 GB / 32.
var SpGEMMSize = benchmarks.FlatSize(8192 * benchmarks.MiB / spgemmPaperScale)

func init() {
	benchmarks.Register("spgemm", func() benchmarks.Workload { return SpGEMM{} })
}

// Info implements Workload.
func (SpGEMM) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "spgemm",
		Description: "cuSPARSE-style SpGEMM C = A x B (row-wise Gustavson, skewed A columns): work estimation, compute, copy",
		// Its cuSPARSE spgemm example.
		Suite:             "CUDALibrarySamples",
		Aliases:           []string{"SPM"},
		Class:             benchmarks.ClassMixed,
		PaperSize:         SpGEMMSize,
		PreferredEviction: benchmarks.ObservUVMLFU,
	}
}

// spgemmExpectedBytes is the expected footprint of n rows.
func spgemmExpectedBytes(n int) uint64 {
	offs := 4 * uint64(n+1)
	nnzAB := uint64(n) * spgemmRowNNZ
	nnzC := float64(n) * spgemmRowUnion(n)
	return 5*offs + 2*8*nnzAB + uint64(math.Round(16*nnzC))
}

// spgemmRowUnion is the expected nonzeros of a row of C: the distinct
// columns of 8 independent uniform 8-subsets of n columns.
func spgemmRowUnion(n int) float64 {
	return float64(n) * -math.Expm1(spgemmRowNNZ*math.Log1p(-spgemmRowNNZ/float64(n)))
}

// SpGEMMRows returns the row count spgemm uses for p.
func SpGEMMRows(p benchmarks.Params) (int, error) {
	fp, err := SpGEMMSize.Footprint(p)
	if err != nil {
		return 0, err
	}
	n := benchmarks.FitSide(fp, spgemmBlock, spgemmExpectedBytes)
	if uint64(n)*spgemmProducts > math.MaxInt32 {
		return 0, fmt.Errorf("spgemm: scale %g: %d rows would overflow cuSPARSE's 32-bit offsets of C", p.Scale, n)
	}
	return n, nil
}

// SpGEMMExpectedFootprint is the footprint spgemm is expected to allocate
// for p (C's size is known only once the product's structure is), without
// generating the matrices.
func SpGEMMExpectedFootprint(p benchmarks.Params) (uint64, error) {
	n, err := SpGEMMRows(p)
	if err != nil {
		return 0, err
	}
	return spgemmExpectedBytes(n), nil
}

// spgemmMats is A's and B's columns (8 per row, sorted) and C's row
// offsets.
type spgemmMats struct {
	n          int
	acol, bcol []uint32
	coff       []uint32
}

// spgemmGenerate builds A, B and C's row structure for n rows from seed.
func spgemmGenerate(n int, seed uint64) *spgemmMats {
	m := &spgemmMats{n: n, acol: make([]uint32, n*spgemmRowNNZ), bcol: make([]uint32, n*spgemmRowNNZ)}
	ra := rand.New(rand.NewPCG(seed, 0x5b9e3a))
	rb := rand.New(rand.NewPCG(seed, 0x5b9e3b))
	width := bits.Len(uint(n - 1))
	bit := spgemmColBit
	threshold := uint32(bit * math.MaxUint32)
	skewed := func() uint32 {
		for {
			var c uint32
			var r uint64
			for b := 0; b < width; b++ {
				if b%2 == 0 {
					r = ra.Uint64()
				}
				if uint32(r) < threshold {
					c |= 1 << b
				}
				r >>= 32
			}
			if int(c) < n {
				return c
			}
		}
	}
	uniform := func() uint32 { return rb.Uint32N(uint32(n)) }
	fill := func(row []uint32, draw func() uint32) {
		for j := range row {
			c := draw()
			for slices.Contains(row[:j], c) {
				c = draw()
			}
			row[j] = c
		}
		slices.Sort(row)
	}
	for i := 0; i < n; i++ {
		fill(m.acol[i*spgemmRowNNZ:(i+1)*spgemmRowNNZ], skewed)
		fill(m.bcol[i*spgemmRowNNZ:(i+1)*spgemmRowNNZ], uniform)
	}
	// Gustavson's symbolic phase with a dense marker: C's row sizes.
	m.coff = make([]uint32, n+1)
	mark := make([]int32, n)
	for i := range mark {
		mark[i] = -1
	}
	for i := 0; i < n; i++ {
		cnt := uint32(0)
		for _, k := range m.arow(i) {
			for _, c := range m.brow(int(k)) {
				if mark[c] != int32(i) {
					mark[c] = int32(i)
					cnt++
				}
			}
		}
		m.coff[i+1] = m.coff[i] + cnt
	}
	return m
}

func (m *spgemmMats) arow(i int) []uint32 { return m.acol[i*spgemmRowNNZ : (i+1)*spgemmRowNNZ] }
func (m *spgemmMats) brow(k int) []uint32 { return m.bcol[k*spgemmRowNNZ : (k+1)*spgemmRowNNZ] }
func (m *spgemmMats) nnzC() int           { return int(m.coff[m.n]) }

// spgemmArrays are the objects' pointers; bufCols and bufVals are the
// product's columns and values inside dBuffer2.
type spgemmArrays struct {
	aOff, aCol, aVal, bOff, bCol, bVal, cOff, buf1, buf2, cCol, cVal uint64
	bufCols, bufVals                                                 uint64
}

// Setup implements Workload.
func (SpGEMM) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := SpGEMMRows(p)
	if err != nil {
		return nil, err
	}
	m := spgemmGenerate(n, p.Seed)
	rows, nnzAB, nnzC := uint64(n+1)*4, uint64(n)*spgemmRowNNZ*4, uint64(m.nnzC())*4
	var a spgemmArrays
	if a.aOff, err = alloc.MallocManaged(rows, "dA_csrOffsets"); err != nil {
		return nil, err
	}
	a.aCol = alloc.MustMalloc(nnzAB, "dA_columns")
	a.aVal = alloc.MustMalloc(nnzAB, "dA_values")
	a.bOff = alloc.MustMalloc(rows, "dB_csrOffsets")
	a.bCol = alloc.MustMalloc(nnzAB, "dB_columns")
	a.bVal = alloc.MustMalloc(nnzAB, "dB_values")
	a.cOff = alloc.MustMalloc(rows, "dC_csrOffsets")
	a.buf1 = alloc.MustMalloc(rows, "dBuffer1")
	a.buf2 = alloc.MustMalloc(rows+2*nnzC, "dBuffer2")
	a.cCol = alloc.MustMalloc(nnzC, "dC_columns")
	a.cVal = alloc.MustMalloc(nnzC, "dC_values")
	a.bufCols, a.bufVals = a.buf2+rows, a.buf2+rows+nnzC
	id := benchmarks.LastObjects(alloc, 11)
	rowKernel := func(name string, args []int, phase int) benchmarks.Kernel {
		return benchmarks.Kernel{
			Name: name, Args: args, Workgroups: n / spgemmRowsPerWG, WavefrontsPerWorkgroup: spgemmRowsPerWG,
			Wavefront: func(wg, wf, _ int) benchmarks.Stream {
				return &spgemmRowStream{m: m, a: &a, phase: phase, row: wg*spgemmRowsPerWG + wf}
			},
		}
	}
	elemKernel := func(name string, args []int, items, per int, gen func(i, base, lanes int, in *benchmarks.Instruction)) benchmarks.Kernel {
		wavefronts := benchmarks.CeilDiv(items, benchmarks.WavefrontSize)
		return benchmarks.Kernel{
			Name: name, Args: args, Workgroups: benchmarks.CeilDiv(wavefronts, spgemmRowsPerWG), WavefrontsPerWorkgroup: spgemmRowsPerWG,
			Wavefront: func(wg, wf, _ int) benchmarks.Stream {
				base := (wg*spgemmRowsPerWG + wf) * benchmarks.WavefrontSize
				lanes := min(benchmarks.WavefrontSize, items-base)
				if lanes <= 0 { // past the end: the bounds check only
					return &benchmarks.Loop{N: 1, Gen: func(_ int, in *benchmarks.Instruction) { in.Compute = benchmarks.IndexCycles }}
				}
				return &benchmarks.Loop{N: per, Gen: func(i int, in *benchmarks.Instruction) { gen(i, base, lanes, in) }}
			},
		}
	}
	nnz := m.nnzC()
	return []benchmarks.Kernel{
		rowKernel("spgemm_work_estimation", []int{id[0], id[1], id[3], id[7]}, spgemmWork),
		rowKernel("spgemm_symbolic", []int{id[0], id[1], id[3], id[4], id[8]}, spgemmSymbolic),
		elemKernel("spgemm_scan", []int{id[8], id[6]}, n+1, 2, func(i, base, lanes int, in *benchmarks.Instruction) {
			in.Compute, in.Write = benchmarks.LoadCycles, i == 1
			for l := 0; l < lanes; l++ {
				r := base + l
				switch {
				case i == 1:
					benchmarks.AddLane(in, a.cOff+4*uint64(r))
				case r < n: // the last offset is the total: no count to read
					benchmarks.AddLane(in, a.buf2+4*uint64(r))
				}
			}
		}),
		rowKernel("spgemm_numeric", []int{id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[8]}, spgemmNumeric),
		elemKernel("spgemm_copy", []int{id[8], id[9], id[10]}, nnz, 4, func(i, base, lanes int, in *benchmarks.Instruction) {
			in.Compute, in.Write = benchmarks.LoadCycles, i%2 == 1
			src, dst := a.bufCols, a.cCol
			if i >= 2 {
				src, dst = a.bufVals, a.cVal
			}
			if in.Write {
				src = dst
			}
			for l := 0; l < lanes; l++ {
				benchmarks.AddLane(in, src+4*uint64(base+l))
			}
		}),
	}, nil
}

// The row-wise kernels.
const (
	spgemmWork = iota
	spgemmSymbolic
	spgemmNumeric
)

// spgemmSteps lists each row-wise kernel's instructions.
var spgemmSteps = [...][]int{
	spgemmWork:     {stepAOff, stepACol, stepBOff, stepStoreWork},
	spgemmSymbolic: {stepAOff, stepACol, stepBOff, stepBCol, stepStoreCount},
	spgemmNumeric:  {stepAOff, stepACol, stepAVal, stepBOff, stepBCol, stepBVal, stepCOff, stepStoreCols, stepStoreVals},
}

// The instructions of a row.
const (
	stepAOff = iota
	stepACol
	stepAVal
	stepBOff
	stepBCol
	stepBVal
	stepCOff
	stepStoreWork
	stepStoreCount
	stepStoreCols
	stepStoreVals
)

// spgemmRowStream is one row-wise kernel's wavefront for row row.
type spgemmRowStream struct {
	m     *spgemmMats
	a     *spgemmArrays
	phase int
	row   int
	i     int
}

// Next implements Stream.
func (s *spgemmRowStream) Next(in *benchmarks.Instruction) bool {
	steps := spgemmSteps[s.phase]
	if s.i >= len(steps) {
		return false
	}
	step := steps[s.i]
	s.i++
	in.Reset()
	in.Compute = benchmarks.LoadCycles
	a, r := s.a, uint64(s.row)
	aStart := r * spgemmRowNNZ
	switch step {
	case stepAOff:
		in.Compute = benchmarks.IndexCycles
		benchmarks.AddLane(in, a.aOff+4*r)
		benchmarks.AddLane(in, a.aOff+4*(r+1))
	case stepACol, stepAVal:
		base := a.aCol
		if step == stepAVal {
			base = a.aVal
		}
		for j := uint64(0); j < spgemmRowNNZ; j++ {
			benchmarks.AddLane(in, base+4*(aStart+j))
		}
	case stepBOff:
		for _, k := range s.m.arow(s.row) {
			benchmarks.AddLane(in, a.bOff+4*uint64(k))
			benchmarks.AddLane(in, a.bOff+4*uint64(k+1))
		}
	case stepBCol, stepBVal:
		base := a.bCol
		if step == stepBVal {
			base = a.bVal
		}
		for _, k := range s.m.arow(s.row) {
			for j := uint64(0); j < spgemmRowNNZ; j++ {
				benchmarks.AddLane(in, base+4*(uint64(k)*spgemmRowNNZ+j))
			}
		}
	case stepCOff:
		in.Compute = spgemmHashCycles
		benchmarks.AddLane(in, a.cOff+4*r)
		benchmarks.AddLane(in, a.cOff+4*(r+1))
	case stepStoreWork:
		in.Write = true
		benchmarks.AddLane(in, a.buf1+4*r)
	case stepStoreCount:
		in.Write, in.Compute = true, spgemmHashCycles
		benchmarks.AddLane(in, a.buf2+4*r)
	case stepStoreCols, stepStoreVals:
		base := a.bufCols
		if step == stepStoreCols {
			in.Compute = spgemmMergeCycles
		} else {
			base = a.bufVals
		}
		in.Write = true
		for e := s.m.coff[s.row]; e < s.m.coff[s.row+1]; e++ {
			benchmarks.AddLane(in, base+4*uint64(e))
		}
	}
	return true
}
