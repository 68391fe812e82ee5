package shoc

import (
	"math/rand/v2"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// BFSSize is BFS's footprint in OASIS Table II and III.
var BFSSize = benchmarks.PaperSize{TableII: 32 * benchmarks.MiB, TableIII8: 64 * benchmarks.MiB, TableIII16: 128 * benchmarks.MiB}

// BFS is SHOC's BFS (level 1, the BFS_kernel_warp kernel) on an R-MAT
// graph generated from the seed.
//
// Shape: an undirected R-MAT graph (benchmarks.RMATGraph) of 2^s vertices with the
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
//	4 "kernarg"      the kernel arguments (see benchmarks.AllocKernarg)
//
// One kernel function, launched once per BFS level until the flag stays
// clear (depth launches; the last finds no unvisited neighbour). The
// levels are computed in Go at set-up, so every access is the one the
// real kernel makes on this graph: data dependent and random.
//
// Workgroups of 1,024 work-items (16 wavefronts), as MGPUSim launches
// SHOC's kernel (benchmarks/shoc/bfs/bfs.go, maxTheadsPerCore, every
// version from v3.0.0 on); SHOC's virtual warps of 32 lanes each own a
// chunk of 32 vertices, so a 64-lane wavefront owns 64 consecutive
// vertices and a workgroup one 4 KB page of levels. In launch curr a
// wavefront issues:
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
	benchmarks.Register("bfs", func() benchmarks.Workload { return BFS{} })
}

// Info implements Workload.
func (BFS) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "bfs",
		Description: "SHOC BFS on an R-MAT graph: one launch per level, data-dependent random gathers and scatters",
		Suite:       benchmarks.SuiteSHOC,
		PaperSize:   BFSSize,
	}
}

// bfsWorkgroup is MGPUSim's work-items per BFS workgroup (1,024, 16
// wavefronts).
const (
	bfsWorkgroup  = 1024
	bfsWavefronts = bfsWorkgroup / benchmarks.WavefrontSize
)

// bfsBytes is what BFS's objects take per vertex (edgeArray and levels)
// and per edge (edgeArrayAux).
var bfsBytes = benchmarks.GraphBytes{Vertex: 8, Edge: 4}

// bfsGraph builds the graph and the BFS depths for p.
func bfsGraph(p benchmarks.Params) (*benchmarks.Graph, []int32, int, error) {
	fp, err := BFSSize.Footprint(p)
	if err != nil {
		return nil, nil, 0, err
	}
	scale, edges := benchmarks.GraphScale(fp, bfsBytes.Vertex, bfsBytes.Edge)
	g := benchmarks.RMATGraph(scale, edges, p.Seed)
	r := rand.New(rand.NewPCG(p.Seed, 0xbf5))
	src := r.IntN(g.Vertices())
	for g.Degree(src) == 0 {
		src = r.IntN(g.Vertices())
	}
	return g, benchmarks.BFSDepths(g, src), src, nil
}

// Setup implements Workload.
func (BFS) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	g, depth, _, err := bfsGraph(p)
	if err != nil {
		return nil, err
	}
	v := g.Vertices()
	off, err := alloc.MallocManaged(uint64(v+1)*4, "edgeArray")
	if err != nil {
		return nil, err
	}
	adj := alloc.MustMalloc(uint64(max(1, g.Edges()))*4, "edgeArrayAux")
	levels := alloc.MustMalloc(uint64(v)*4, "levels")
	flag := alloc.MustMalloc(4, "flag")
	karg := alloc.MustMalloc(64, "kernarg")
	args := benchmarks.LastObjects(alloc, 5)
	maxDepth := int32(0)
	for _, d := range depth {
		maxDepth = max(maxDepth, d)
	}
	var ks []benchmarks.Kernel
	for curr := int32(0); curr <= maxDepth; curr++ {
		curr := curr
		ks = append(ks, benchmarks.Kernel{
			Name: "BFS_kernel_warp", Args: args,
			Workgroups: benchmarks.CeilDiv(v, bfsWorkgroup), WavefrontsPerWorkgroup: bfsWavefronts,
			Wavefront: func(wg, wf, _ int) benchmarks.Stream {
				return newBFSStream(g, depth, curr, (wg*bfsWavefronts+wf)*benchmarks.WavefrontSize, off, adj, levels, flag, karg)
			},
		})
	}
	return ks, nil
}

// bfsStream generates one wavefront's instructions in one launch.
type bfsStream struct {
	g                          *benchmarks.Graph
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

func newBFSStream(g *benchmarks.Graph, depth []int32, curr int32, v0 int, off, adj, levels, flag, ka uint64) *bfsStream {
	s := &bfsStream{g: g, depth: depth, curr: curr, v0: v0, v1: min(v0+benchmarks.WavefrontSize, g.Vertices()),
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
func (s *bfsStream) Next(in *benchmarks.Instruction) bool {
	if s.v0 >= s.v1 && s.step > 0 { // past the last vertex: kernarg, bounds check
		return false
	}
	in.Reset()
	switch s.step {
	case 0:
		s.step++
		benchmarks.GenKernarg(in, s.ka)
		return true
	case 1:
		s.step++
		in.Compute = benchmarks.IndexCycles
		for i := s.v0; i < s.v1; i++ {
			in.Addr[in.Lanes] = s.levels + uint64(i)*4
			in.Lanes++
		}
		return true
	}
	for s.v < s.v1 {
		nb := s.g.Nbrs(s.v)
		end := min(s.e+benchmarks.WavefrontSize, len(nb))
		in.Compute = benchmarks.GraphCycles
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
				in.Addr[in.Lanes] = s.adj + uint64(int(s.g.Off[s.v])+i)*4
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
