package benchmarks

import (
	"math/rand/v2"

	"github.com/mgpu-sim/mgpu/objtable"
)

// Paper footprints of the graph workloads (OASIS Table II and III).
var (
	BFSSize = PaperSize{TableII: 32 * MiB, TableIII8: 64 * MiB, TableIII16: 128 * MiB}
	PRSize  = PaperSize{TableII: 32 * MiB, TableIII8: 74 * MiB, TableIII16: 132 * MiB}
)

// graphCycles is the address arithmetic and compare per graph
// instruction (a few VALU instructions). An estimate.
const graphCycles = 16

// BFS is SHOC's BFS (level 1, the BFS_kernel_warp kernel) on an R-MAT
// graph generated from the seed.
//
// Shape: an undirected R-MAT graph (rmatGraph) of 2^s vertices with the
// edge count that fills the paper footprint: 2^19 vertices and 7.3M
// directed edges at Table II (32 MB), 2^20 and 14.7M at 8 GPUs, 2^21 and
// 29M at 16 GPUs. The source is a random vertex with edges, drawn from
// the seed.
//
// Objects, in allocation (ID) order:
//
//	0 "edgeArray"    CSR row offsets, uint32, V+1 (read only)
//	1 "edgeArrayAux" CSR neighbours, uint32, E (read only)
//	2 "levels"       int32 BFS level per vertex (read and written)
//	3 "flag"         int32 "frontier not empty", written by the kernel
//	                 and read by the host between launches
//	4 "kernarg"      the kernel arguments (see allocKernarg)
//
// One kernel function, launched once per BFS level until the flag stays
// clear (depth launches; the last finds no unvisited neighbour). The
// levels are computed in Go at set-up, so every access is the one the
// real kernel makes on this graph: data dependent and random.
//
// Workgroups of 256 work-items (4 wavefronts); SHOC's virtual warps of 32
// lanes each own a chunk of 32 vertices, so a 64-lane wavefront owns 64
// consecutive vertices. In launch curr a wavefront issues:
//
//  1. the scalar load of the kernel arguments;
//  2. a load of levels[v] for its 64 vertices;
//  3. per vertex v at level curr (the frontier), in order: the load of
//     edgeArray[v] and edgeArray[v+1] (2 lanes); then per 64 neighbours,
//     a load of edgeArrayAux (consecutive), a gather of levels[nbr], and
//     a scatter store of levels[nbr] = curr+1 to the neighbours first
//     reached at this level, followed by a store of flag (1 lane).
//
// SHOC checks levels[nbr] == INF without atomics, so every frontier
// vertex that sees an unvisited neighbour writes it: the model writes a
// neighbour from every edge that reaches it at its own level.
type BFS struct{}

func init() {
	Register("bfs", func() Workload { return BFS{} })
	Register("pr", func() Workload { return PageRank{} })
}

// Info implements Workload.
func (BFS) Info() Info {
	return Info{
		Name:        "bfs",
		Description: "SHOC BFS on an R-MAT graph: one launch per level, data-dependent random gathers and scatters",
		Suite:       SuiteSHOC,
		PaperSize:   BFSSize,
	}
}

// graphBytes is what a graph workload's objects take per vertex and per
// edge; it sizes the graph to the paper's footprint.
type graphBytes struct{ vertex, edge int }

var (
	bfsBytes = graphBytes{8, 4}  // edgeArray and levels per vertex; edgeArrayAux per edge
	prBytes  = graphBytes{12, 8} // rowOffset, x, y per vertex; col and val per edge
)

// bfsGraph builds the graph and the BFS depths for p.
func bfsGraph(p Params) (*csr, []int32, int, error) {
	fp, err := BFSSize.Footprint(p)
	if err != nil {
		return nil, nil, 0, err
	}
	scale, edges := graphScale(fp, bfsBytes.vertex, bfsBytes.edge)
	g := rmatGraph(scale, edges, p.Seed)
	r := rand.New(rand.NewPCG(p.Seed, 0xbf5))
	src := r.IntN(g.vertices())
	for g.degree(src) == 0 {
		src = r.IntN(g.vertices())
	}
	return g, bfsDepths(g, src), src, nil
}

// Setup implements Workload.
func (BFS) Setup(alloc *objtable.Allocator, p Params) ([]Kernel, error) {
	g, depth, _, err := bfsGraph(p)
	if err != nil {
		return nil, err
	}
	v := g.vertices()
	off, err := alloc.MallocManaged(uint64(v+1)*4, "edgeArray")
	if err != nil {
		return nil, err
	}
	adj := alloc.MustMalloc(uint64(max(1, g.edges()))*4, "edgeArrayAux")
	levels := alloc.MustMalloc(uint64(v)*4, "levels")
	flag := alloc.MustMalloc(4, "flag")
	karg := alloc.MustMalloc(64, "kernarg")
	args := lastObjects(alloc, 5)
	maxDepth := int32(0)
	for _, d := range depth {
		maxDepth = max(maxDepth, d)
	}
	perWG := dnnWorkgroup
	var ks []Kernel
	for curr := int32(0); curr <= maxDepth; curr++ {
		curr := curr
		ks = append(ks, Kernel{
			Name: "BFS_kernel_warp", Args: args,
			Workgroups: ceilDiv(v, perWG), WavefrontsPerWorkgroup: dnnWavefronts,
			Wavefront: func(wg, wf, _ int) Stream {
				return newBFSStream(g, depth, curr, (wg*dnnWavefronts+wf)*WavefrontSize, off, adj, levels, flag, karg)
			},
		})
	}
	return ks, nil
}

// bfsStream generates one wavefront's instructions in one launch.
type bfsStream struct {
	g                          *csr
	depth                      []int32
	curr                       int32
	v0, v1                     int // the wavefront's vertices
	off, adj, levels, flag, ka uint64
	step                       int // 0 kernarg, 1 levels, then the frontier walk
	v                          int // current frontier vertex
	phase                      int // 0 offsets, 1 aux, 2 gather, 3 scatter, 4 flag
	e                          int // next neighbour index of v
	found                      bool
}

func newBFSStream(g *csr, depth []int32, curr int32, v0 int, off, adj, levels, flag, ka uint64) *bfsStream {
	s := &bfsStream{g: g, depth: depth, curr: curr, v0: v0, v1: min(v0+WavefrontSize, g.vertices()),
		off: off, adj: adj, levels: levels, flag: flag, ka: ka, v: v0 - 1}
	s.nextVertex()
	return s
}

// nextVertex advances to the next frontier vertex of the chunk.
func (s *bfsStream) nextVertex() {
	for s.v++; s.v < s.v1 && s.depth[s.v] != s.curr; s.v++ {
	}
	s.phase, s.e = 0, 0
}

// Next implements Stream.
func (s *bfsStream) Next(in *Instruction) bool {
	if s.v0 >= s.v1 && s.step > 0 { // past the last vertex: kernarg, bounds check
		return false
	}
	in.Reset()
	switch s.step {
	case 0:
		s.step++
		genKernarg(in, s.ka)
		return true
	case 1:
		s.step++
		in.Compute = indexCycles
		for i := s.v0; i < s.v1; i++ {
			in.Addr[in.Lanes] = s.levels + uint64(i)*4
			in.Lanes++
		}
		return true
	}
	for s.v < s.v1 {
		nb := s.g.nbrs(s.v)
		end := min(s.e+WavefrontSize, len(nb))
		in.Compute = graphCycles
		switch s.phase {
		case 0:
			in.Lanes = 2
			in.Addr[0] = s.off + uint64(s.v)*4
			in.Addr[1] = s.off + uint64(s.v+1)*4
			s.phase = 1
			if len(nb) == 0 {
				s.nextVertex()
			}
			return true
		case 1:
			for i := s.e; i < end; i++ {
				in.Addr[in.Lanes] = s.adj + uint64(int(s.g.off[s.v])+i)*4
				in.Lanes++
			}
			s.phase = 2
			return true
		case 2:
			for _, u := range nb[s.e:end] {
				in.Addr[in.Lanes] = s.levels + uint64(u)*4
				in.Lanes++
			}
			s.phase = 3
			return true
		case 3:
			in.Write = true
			for _, u := range nb[s.e:end] {
				if s.depth[u] == s.curr+1 {
					in.Addr[in.Lanes] = s.levels + uint64(u)*4
					in.Lanes++
				}
			}
			s.found = s.found || in.Lanes > 0
			s.e = end
			s.phase = 1
			if s.e >= len(nb) {
				s.phase = 4
			}
			return true
		default:
			if s.found {
				in.Write, in.Lanes, in.Addr[0] = true, 1, s.flag
				s.found = false
				s.nextVertex()
				return true
			}
			s.nextVertex()
		}
	}
	return false
}

// PageRank is Hetero-Mark's PageRank (PageRankUpdateGpu): CSR
// sparse-matrix-vector products on an R-MAT graph from the seed, one
// launch per iteration, the rank vectors swapping roles between launches.
//
// Shape: an undirected R-MAT graph (rmatGraph) whose CSR arrays and rank
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
//	5 "kernarg"   the kernel arguments (see allocKernarg)
//
// One kernel function, Iterations launches (default 2: each rank vector
// is once read and once written; Hetero-Mark iterates to convergence,
// which the instruction budget of about 3M at Table II does not allow).
// Workgroups of 64 work-items, one wavefront per row as Hetero-Mark's
// kernel assigns them (warp = 64 lanes per row). Wavefront row issues:
//
//  1. the scalar load of the kernel arguments;
//  2. the load of rowOffset[row] and rowOffset[row+1] (2 lanes);
//  3. per 64 non-zeros: loads of col and val (consecutive) and a gather
//     of in[col[jj]];
//  4. after the LDS reduction, lane 0's store of out[row].
type PageRank struct{}

// prIterations is the default number of launches.
const prIterations = 2

// Info implements Workload.
func (PageRank) Info() Info {
	return Info{
		Name:        "pr",
		Description: "Hetero-Mark PageRank on an R-MAT graph: CSR SpMV, one wavefront per row, rank vectors swapping per launch",
		Suite:       "Hetero-Mark",
		PaperSize:   PRSize,
	}
}

// Setup implements Workload.
func (PageRank) Setup(alloc *objtable.Allocator, p Params) ([]Kernel, error) {
	fp, err := PRSize.Footprint(p)
	if err != nil {
		return nil, err
	}
	scale, edges := graphScale(fp, prBytes.vertex, prBytes.edge)
	g := rmatGraph(scale, edges, p.Seed)
	v := g.vertices()
	off, err := alloc.MallocManaged(uint64(v+1)*4, "rowOffset")
	if err != nil {
		return nil, err
	}
	e := uint64(max(1, g.edges())) * 4
	col := alloc.MustMalloc(e, "col")
	val := alloc.MustMalloc(e, "val")
	x := alloc.MustMalloc(uint64(v)*4, "x")
	y := alloc.MustMalloc(uint64(v)*4, "y")
	karg := alloc.MustMalloc(64, "kernarg")
	args := lastObjects(alloc, 6)
	iters := prIterations
	if p.Iterations > 0 {
		iters = p.Iterations
	}
	var ks []Kernel
	for it := 0; it < iters; it++ {
		in, out := x, y
		if it%2 == 1 {
			in, out = y, x
		}
		ks = append(ks, Kernel{
			Name: "PageRankUpdateGpu", Args: args, Workgroups: v, WavefrontsPerWorkgroup: 1,
			Wavefront: func(row, _, _ int) Stream {
				nb := g.nbrs(row)
				chunks := ceilDiv(len(nb), WavefrontSize)
				base := int(g.off[row])
				return &Loop{N: 3 + 3*chunks, Gen: func(i int, ins *Instruction) {
					ins.Compute = graphCycles
					switch {
					case i == 0:
						genKernarg(ins, karg)
					case i == 1:
						ins.Lanes = 2
						ins.Addr[0], ins.Addr[1] = off+uint64(row)*4, off+uint64(row+1)*4
					case i < 2+3*chunks:
						c, k := (i-2)/3, (i-2)%3
						lo, hi := c*WavefrontSize, min((c+1)*WavefrontSize, len(nb))
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
					default:
						ins.Write, ins.Lanes, ins.Addr[0] = true, 1, out+uint64(row)*4
					}
				}}
			},
		})
	}
	return ks, nil
}
