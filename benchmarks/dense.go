package benchmarks

import (
	"slices"

	"github.com/mgpu-sim/mgpu/objtable"
)

// denseLinalg is the part the dense linear-algebra workloads (gmm, syrk,
// syr2k, mm-tiled, gemv, mvt, gramschmidt) share: each allocates n x n
// float32 matrices and then n-float vectors, with the side n fitted to its
// footprint, and launches kernels over them. Each workload's exported type
// embeds its denseLinalg, which carries the Info, sizing and Setup, so
// that these are written once; the workload's own file keeps its kernels
// and the facts and sizes it fills in. The registry fills the embedded
// value (New("gmm")); a bare GEMM{} has an empty Info.
type denseLinalg struct {
	info Info
	// mult is what the side is a multiple of: the kernel's block width,
	// so that no block is partly out of range.
	mult int
	// matrices and vectors name the objects in allocation order, the n x
	// n float32 matrices first, then the n-float vectors.
	matrices, vectors []string
	// kernels builds the launches over what Setup allocated.
	kernels func(m denseObjects) []Kernel
}

// denseObjects is what Setup allocated for a denseLinalg: the side n and,
// in allocation order, each object's base address and ID.
type denseObjects struct {
	n    int
	base []uint64
	ids  []int
}

// Info implements Workload.
func (d denseLinalg) Info() Info { return d.info }

// side returns the side, a multiple of d.mult, at which the matrices and
// vectors together come closest to the footprint for p.
func (d denseLinalg) side(p Params) (int, error) {
	matrices, vectors := uint64(len(d.matrices)), uint64(len(d.vectors))
	return linalgSide(d.info.PaperSize, p, d.mult, func(n int) uint64 {
		return floatBytes * (matrices*uint64(n)*uint64(n) + vectors*uint64(n))
	})
}

// Setup implements Workload.
func (d denseLinalg) Setup(alloc *objtable.Allocator, p Params) ([]Kernel, error) {
	n, err := d.side(p)
	if err != nil {
		return nil, err
	}
	m := denseObjects{n: n}
	vector := uint64(n) * floatBytes
	for i, name := range slices.Concat(d.matrices, d.vectors) {
		size := vector
		if i < len(d.matrices) {
			size *= uint64(n)
		}
		base, err := alloc.MallocManaged(size, name)
		if err != nil {
			return nil, err
		}
		m.base = append(m.base, base)
	}
	m.ids = lastObjects(alloc, len(m.base))
	ks := d.kernels(m)
	FinishAccess(alloc, ks)
	return ks, nil
}
