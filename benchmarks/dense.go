package benchmarks

import (
	"slices"

	"github.com/mgpu-sim/mgpu/objtable"
)

// DenseLinalg is the part the dense linear-algebra workloads (PolyBench's
// gmm, syrk, syr2k, mvt, gramschmidt; the CUDA samples' mm-tiled and
// cuBLAS's gemv) share: each allocates n x n float32 matrices and then
// n-float vectors, with the side n fitted to its footprint, and launches
// kernels over them. Each workload's exported type embeds its
// DenseLinalg, which carries the Info, sizing and Setup, so that these
// are written once; the workload's own file keeps its kernels and the
// facts and sizes it fills in. The registry fills the embedded value
// (New("gmm")); a bare polybench.GEMM{} has an empty Info.
type DenseLinalg struct {
	// Facts is what Info returns.
	Facts Info
	// Mult is what the side is a multiple of: the kernel's block width,
	// so that no block is partly out of range.
	Mult int
	// Matrices and Vectors name the objects in allocation order, the n x
	// n float32 matrices first, then the n-float vectors.
	Matrices, Vectors []string
	// Kernels builds the launches over what Setup allocated.
	Kernels func(m DenseObjects) []Kernel
}

// DenseObjects is what Setup allocated for a DenseLinalg: the side N and,
// in allocation order, each object's base address and ID.
type DenseObjects struct {
	N    int
	Base []uint64
	IDs  []int
}

// Info implements Workload.
func (d DenseLinalg) Info() Info { return d.Facts }

// Side returns the side, a multiple of d.Mult, at which the matrices and
// vectors together come closest to the footprint for p.
func (d DenseLinalg) Side(p Params) (int, error) {
	matrices, vectors := uint64(len(d.Matrices)), uint64(len(d.Vectors))
	return LinalgSide(d.Facts.PaperSize, p, d.Mult, func(n int) uint64 {
		return FloatBytes * (matrices*uint64(n)*uint64(n) + vectors*uint64(n))
	})
}

// Setup implements Workload.
func (d DenseLinalg) Setup(alloc *objtable.Allocator, p Params) ([]Kernel, error) {
	n, err := d.Side(p)
	if err != nil {
		return nil, err
	}
	m := DenseObjects{N: n}
	vector := uint64(n) * FloatBytes
	for i, name := range slices.Concat(d.Matrices, d.Vectors) {
		size := vector
		if i < len(d.Matrices) {
			size *= uint64(n)
		}
		base, err := alloc.MallocManaged(size, name)
		if err != nil {
			return nil, err
		}
		m.Base = append(m.Base, base)
	}
	m.IDs = LastObjects(alloc, len(m.Base))
	ks := d.Kernels(m)
	FinishAccess(alloc, ks)
	return ks, nil
}
