package heteromark

import (
	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// PageRank is Hetero-Mark's PageRank (PageRankUpdateGpu): CSR
// sparse-matrix-vector products on an R-MAT graph from the seed, one
// launch per iteration, the rank vectors swapping roles between launches.
//
// Shape: an undirected R-MAT graph (benchmarks.RMATGraph) whose CSR arrays and rank
// vectors fill the paper footprint: 2^18 vertices and 3.8M directed edges
// at Table II (32 MB); 2^19 and 8.9M at 8 GPUs (74 MB); 2^20 and 15.7M at
// 16 GPUs (132 MB).
//
// Objects, in allocation (ID) order:
//
//	0 "rowOffset" uint32 V+1 (read only)
//	1 "col"       uint32 E, the neighbours (read only)
//	2 "val"       float32 E, the edge weights 1/degree (read only)
//	3 "x"         float32 V, the ranks read in even iterations and
//	              written in odd ones
//	4 "y"         float32 V, the other way round
//	5 "kernarg"   the kernel arguments (see benchmarks.AllocKernarg)
//
// One kernel function, Iterations launches (default 2: each rank vector
// is once read and once written; Hetero-Mark iterates to convergence,
// which the instruction budget of about 3M at Table II does not allow).
// Workgroups of 64 work-items, one wavefront per row as Hetero-Mark's
// kernel assigns them (warp = 64 lanes per row). Wavefront row issues, as
// MGPUSim's kernel does (sarchlab/mgpusim v3.0.3,
// benchmarks/heteromark/pagerank/native/kernels.cl, lines 42-57):
//
//  1. the scalar load of the kernel arguments;
//  2. every lane's store of out[row] = 0 (one line);
//  3. the load of rowOffset[row] and rowOffset[row+1] (2 lanes);
//  4. per 64 non-zeros: loads of col and val (consecutive) and a gather
//     of in[col[jj]];
//  5. after the LDS reduction, lane 0's out[row] += sum: a load and a
//     store, so out is read and written in every launch.
type PageRank struct{}

// PRSize is PageRank's footprint in OASIS Table II and III.
var PRSize = benchmarks.PaperSize{TableII: 32 * benchmarks.MiB, TableIII8: 74 * benchmarks.MiB, TableIII16: 132 * benchmarks.MiB}

// prBytes is what PageRank's objects take per vertex (rowOffset, x, y)
// and per edge (col and val).
var prBytes = benchmarks.GraphBytes{Vertex: 12, Edge: 8}

func init() {
	benchmarks.Register("pr", func() benchmarks.Workload { return PageRank{} })
}

// prIterations is the default number of launches.
const prIterations = 2

// Info implements Workload.
func (PageRank) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "pr",
		Description: "Hetero-Mark PageRank on an R-MAT graph: CSR SpMV, one wavefront per row, rank vectors swapping per launch",
		Suite:       "Hetero-Mark",
		PaperSize:   PRSize,
	}
}

// Setup implements Workload.
func (PageRank) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	fp, err := PRSize.Footprint(p)
	if err != nil {
		return nil, err
	}
	scale, edges := benchmarks.GraphScale(fp, prBytes.Vertex, prBytes.Edge)
	g := benchmarks.RMATGraph(scale, edges, p.Seed)
	v := g.Vertices()
	off, err := alloc.MallocManaged(uint64(v+1)*4, "rowOffset")
	if err != nil {
		return nil, err
	}
	e := uint64(max(1, g.Edges())) * 4
	col := alloc.MustMalloc(e, "col")
	val := alloc.MustMalloc(e, "val")
	x := alloc.MustMalloc(uint64(v)*4, "x")
	y := alloc.MustMalloc(uint64(v)*4, "y")
	karg := alloc.MustMalloc(64, "kernarg")
	args := benchmarks.LastObjects(alloc, 6)
	iters := prIterations
	if p.Iterations > 0 {
		iters = p.Iterations
	}
	var ks []benchmarks.Kernel
	for it := 0; it < iters; it++ {
		in, out := x, y
		if it%2 == 1 {
			in, out = y, x
		}
		ks = append(ks, benchmarks.Kernel{
			Name: "PageRankUpdateGpu", Args: args, Workgroups: v, WavefrontsPerWorkgroup: 1,
			Wavefront: func(row, _, _ int) benchmarks.Stream {
				nb := g.Nbrs(row)
				chunks := benchmarks.CeilDiv(len(nb), benchmarks.WavefrontSize)
				base := int(g.Off[row])
				return &benchmarks.Loop{N: 5 + 3*chunks, Gen: func(i int, ins *benchmarks.Instruction) {
					ins.Compute = benchmarks.GraphCycles
					switch {
					case i == 0:
						benchmarks.GenKernarg(ins, karg)
					case i == 1: // y[row] = 0.0, by every lane
						ins.Write, ins.Lanes = true, benchmarks.WavefrontSize
						for l := range ins.Lanes {
							ins.Addr[l] = out + uint64(row)*4
						}
					case i == 2:
						ins.Lanes = 2
						ins.Addr[0], ins.Addr[1] = off+uint64(row)*4, off+uint64(row+1)*4
					case i < 3+3*chunks:
						c, k := (i-3)/3, (i-3)%3
						lo, hi := c*benchmarks.WavefrontSize, min((c+1)*benchmarks.WavefrontSize, len(nb))
						ins.Lanes = hi - lo
						for l := lo; l < hi; l++ {
							switch k {
							case 0:
								ins.Addr[l-lo] = col + uint64(base+l)*4
							case 1:
								ins.Addr[l-lo] = val + uint64(base+l)*4
							default:
								ins.Addr[l-lo] = in + uint64(nb[l])*4
							}
						}
					case i == 3+3*chunks: // lane 0's y[row] += sum: the load
						ins.Lanes, ins.Addr[0] = 1, out+uint64(row)*4
					default: // and the store
						ins.Compute = 0
						ins.Write, ins.Lanes, ins.Addr[0] = true, 1, out+uint64(row)*4
					}
				}}
			},
		})
	}
	return ks, nil
}
