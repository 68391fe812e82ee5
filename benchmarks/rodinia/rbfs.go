package rodinia

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// RodiniaBFS is Rodinia 3.1's BFS (Harish and Narayanan's Kernel and
// Kernel2, one thread per node, frontier masks) as UVMSmart ports it and
// Early-Adaptor runs it, on a graph of Rodinia's own shape. It is "rbfs";
// "bfs" is SHOC's.
//
// Graph: Rodinia's generator (data/bfs/inputGen/graphgen.cpp): node i
// draws 2 to 4 edges (uniformly), each to a uniformly random node (self
// loops and repeats allowed), stored in both directions, each node's list
// in generation order; a mean degree of 6 with a narrow spread, unlike the
// skewed R-MAT graph of bfs. It is generated from Params.Seed; the source
// is node 0, as Rodinia's bfs.cu forces. The node count, a multiple of
// 512, makes the expected footprint closest to RBFSSize times
// Params.Scale: 887296 nodes and 5.3M directed edges at scale 1 (33 MB,
// EA's 8448 MB / 256), 227M nodes at scale 256 (EA's size; generating
// that graph takes about 6 GB of host memory and minutes). Scale 1 is
// smaller than the other EA workloads' 1/32 because set-up generates the
// graph and runs the BFS in Go: about 0.3 s here, against 5 s at 1/32.
//
// Objects, in allocation (ID) order (every cudaMalloc made managed):
//
//	0 "graph_nodes"         V x {starting, no_of_edges} int32 (8 B), read only
//	1 "graph_mask"          V bool, the frontier
//	2 "updating_graph_mask" V bool, the next frontier
//	3 "graph_visited"       V bool
//	4 "graph_edges"         E int32, read only
//	5 "cost"                V int32, the BFS level
//	6 "d_over"              1 bool, "another level follows" (UVMSmart keeps
//	                        it in cudaMalloc memory)
//
// Per BFS level, Kernel then Kernel2, each over V/512 blocks of 512
// threads (MAX_THREADS_PER_BLOCK), until a level adds no node: 2*(depth+1)
// launches. The levels are computed at set-up, so every access is the one
// the real kernels make. Wavefront w holds nodes 64w .. 64w+63.
//
//   - Kernel: a load of graph_mask for its 64 nodes; if some are in the
//     frontier (level curr), their store of graph_mask = false, their load
//     of graph_nodes, then for k = 0, 1, ... up to the largest degree among
//     them: the load of graph_edges[starting+k] by the nodes with more
//     than k edges, the gather of graph_visited at those neighbours and,
//     for the neighbours not yet visited (level curr+1), the load of
//     cost[tid] and the scatter stores of cost and updating_graph_mask.
//     Several frontier nodes can write one neighbour, as in Rodinia.
//   - Kernel2: a load of updating_graph_mask; if some of its nodes are set
//     (level curr+1), their stores of graph_mask and graph_visited, the
//     store of d_over (one lane) and the store clearing
//     updating_graph_mask.
//
// The level count follows from the graph, so Params.Iterations does not
// apply. That is about 3M instructions at scale 1 (TestRBFSLevels logs
// the count).
//
// Class: mixed (Early-Adaptor Table II): the per-node arrays are swept
// densely every launch, the neighbour gathers and scatters are random.
//
// Access facts: Kernel's edge loop runs from graph_nodes[tid].starting to
// that plus no_of_edges, bounds loaded from memory. So every object
// accessed in it is DataDependent in Kernel: graph_edges, graph_visited
// (at the loaded id), cost and updating_graph_mask, the edge list and the
// arrays reached through it (SUV's Table I: U for BFS). The rest is
// Analysable, with addresses affine in tid and no host induction variable
// (the level loop is a do-while on d_over). Their memops sit under
// data-dependent branches (graph_mask[tid], updating_graph_mask[tid]),
// whose fraction SUV takes as 1. Accesses count threads, so they are upper
// bounds, V per memop. In Kernel that is 2V on graph_mask (load, store)
// and V on graph_nodes. In Kernel2 it is 2V on updating_graph_mask, V on
// graph_mask and graph_visited, and V on d_over: every thread with its
// mask set stores *g_over, though the stream has one lane per wavefront
// for them (up to 64 threads a lane). One block's range is its 512
// elements, and d_over's one byte.
type RodiniaBFS struct{}

const (
	// rbfsBlock is Rodinia's MAX_THREADS_PER_BLOCK.
	rbfsBlock = 512
	// rbfsMinEdges and rbfsMaxEdges bound the edges a node draws.
	rbfsMinEdges, rbfsMaxEdges = 2, 4
	// rbfsNodeBytes is the per-node arrays: graph_nodes, three masks,
	// cost; rbfsEdgeBytes is one graph_edges entry.
	rbfsNodeBytes = 8 + 3 + 4
	rbfsEdgeBytes = 4
	// rbfsMeanDegree is the expected degree, 2 x the mean of 2..4 drawn.
	rbfsMeanDegree = rbfsMinEdges + rbfsMaxEdges
)

// RBFSSize is rbfs's scale-1 footprint: Early-Adaptor's Table II footprint
// over EAScales.
var RBFSSize = benchmarks.EASize("rbfs")

func init() {
	benchmarks.Register("rbfs", func() benchmarks.Workload { return RodiniaBFS{} })
}

// Info implements Workload.
func (RodiniaBFS) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "rbfs",
		Description: "Rodinia BFS on a Rodinia-style graph (2-4 random edges per node): frontier masks, two launches per level",
		Suite:       benchmarks.SuiteRodinia,
		// EA's and ObservUVM's BFS is Rodinia's (the registered bfs is
		// SHOC's).
		Aliases:           []string{"BFS"},
		Class:             benchmarks.ClassMixed,
		PaperSize:         RBFSSize,
		PreferredEviction: benchmarks.ObservUVMCP,
		DeclaresAccess:    true,
	}
}

// RBFSNodes returns the node count rbfs uses for p.
func RBFSNodes(p benchmarks.Params) (int, error) {
	fp, err := RBFSSize.Footprint(p)
	if err != nil {
		return 0, err
	}
	v := benchmarks.FitSide(fp, rbfsBlock, func(v int) uint64 {
		return uint64(v)*(rbfsNodeBytes+rbfsMeanDegree*rbfsEdgeBytes) + 1
	})
	if float64(v)*rbfsMaxEdges*2 > math.MaxInt32 {
		return 0, fmt.Errorf("rbfs: scale %g: %d nodes would overflow Rodinia's 32-bit edge offsets", p.Scale, v)
	}
	return v, nil
}

// rodiniaGraph generates Rodinia's graph shape on v nodes from seed.
func rodiniaGraph(v int, seed uint64) *benchmarks.Graph {
	gen := func(edge func(i, d uint32)) {
		r := rand.New(rand.NewPCG(seed, 0x40d1a))
		for i := 0; i < v; i++ {
			for k := rbfsMinEdges + r.IntN(rbfsMaxEdges-rbfsMinEdges+1); k > 0; k-- {
				edge(uint32(i), r.Uint32N(uint32(v)))
			}
		}
	}
	off := make([]uint32, v+1)
	gen(func(i, d uint32) { off[i+1]++; off[d+1]++ })
	for i := 1; i <= v; i++ {
		off[i] += off[i-1]
	}
	adj := make([]uint32, off[v])
	fill := make([]uint32, v)
	copy(fill, off[:v])
	gen(func(i, d uint32) {
		adj[fill[i]] = d
		fill[i]++
		adj[fill[d]] = i
		fill[d]++
	})
	return &benchmarks.Graph{Off: off, Adj: adj}
}

// rbfsGraph builds the graph and the BFS levels from node 0 for p.
func rbfsGraph(p benchmarks.Params) (*benchmarks.Graph, []int32, error) {
	v, err := RBFSNodes(p)
	if err != nil {
		return nil, nil, err
	}
	g := rodiniaGraph(v, p.Seed)
	return g, benchmarks.BFSDepths(g, 0), nil
}

// rbfsArrays are the objects' pointers.
type rbfsArrays struct {
	nodes, mask, updating, visited, edges, cost, over uint64
}

// Setup implements Workload.
func (RodiniaBFS) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	g, depth, err := rbfsGraph(p)
	if err != nil {
		return nil, err
	}
	v := uint64(g.Vertices())
	var a rbfsArrays
	if a.nodes, err = alloc.MallocManaged(8*v, "graph_nodes"); err != nil {
		return nil, err
	}
	a.mask = alloc.MustMalloc(v, "graph_mask")
	a.updating = alloc.MustMalloc(v, "updating_graph_mask")
	a.visited = alloc.MustMalloc(v, "graph_visited")
	a.edges = alloc.MustMalloc(rbfsEdgeBytes*uint64(g.Edges()), "graph_edges")
	a.cost = alloc.MustMalloc(4*v, "cost")
	a.over = alloc.MustMalloc(1, "d_over")
	id := benchmarks.LastObjects(alloc, 7)
	maxDepth := int32(0)
	for _, d := range depth {
		maxDepth = max(maxDepth, d)
	}
	wgs, wfs := int(v)/rbfsBlock, rbfsBlock/benchmarks.WavefrontSize
	vv := int64(v)
	block := benchmarks.ElemSpan(0, rbfsBlock-1, 1) // a block's bools
	access1 := []benchmarks.Access{
		benchmarks.AnalysableAccess(id[0], vv, benchmarks.ElemSpan(0, rbfsBlock-1, 8)),
		benchmarks.AnalysableAccess(id[1], 2*vv, block),
		benchmarks.DataDependentAccess(id[2]), benchmarks.DataDependentAccess(id[3]), benchmarks.DataDependentAccess(id[4]), benchmarks.DataDependentAccess(id[5]),
	}
	access2 := []benchmarks.Access{
		benchmarks.AnalysableAccess(id[1], vv, block),
		benchmarks.AnalysableAccess(id[2], 2*vv, block),
		benchmarks.AnalysableAccess(id[3], vv, block),
		benchmarks.AnalysableAccess(id[6], vv, 1), // every thread, its branch taken as 1
	}
	var ks []benchmarks.Kernel
	for curr := int32(0); curr <= maxDepth; curr++ {
		ks = append(ks, benchmarks.Kernel{
			Name: "Kernel", Args: id[:6], Workgroups: wgs, WavefrontsPerWorkgroup: wfs, Access: access1,
			Wavefront: func(wg, wf, _ int) benchmarks.Stream {
				return newRBFSStream(g, depth, curr, (wg*wfs+wf)*benchmarks.WavefrontSize, a)
			},
		}, benchmarks.Kernel{
			Name: "Kernel2", Args: []int{id[1], id[2], id[3], id[6]}, Workgroups: wgs, WavefrontsPerWorkgroup: wfs, Access: access2,
			Wavefront: func(wg, wf, _ int) benchmarks.Stream {
				return rbfsKernel2(depth, curr, (wg*wfs+wf)*benchmarks.WavefrontSize, a)
			},
		})
	}
	benchmarks.FinishAccess(alloc, ks)
	return ks, nil
}

// rbfsKernel2 is Kernel2's wavefront for the nodes v0 .. v0+63.
func rbfsKernel2(depth []int32, curr int32, v0 int, a rbfsArrays) benchmarks.Stream {
	var next []int
	for v := v0; v < v0+benchmarks.WavefrontSize; v++ {
		if depth[v] == curr+1 {
			next = append(next, v)
		}
	}
	n := 5
	if len(next) == 0 {
		n = 1
	}
	return &benchmarks.Loop{N: n, Gen: func(i int, in *benchmarks.Instruction) {
		in.Compute = benchmarks.GraphCycles
		switch i {
		case 0:
			in.Compute = benchmarks.IndexCycles
			for v := v0; v < v0+benchmarks.WavefrontSize; v++ {
				benchmarks.AddLane(in, a.updating+uint64(v))
			}
		case 3:
			in.Write = true
			benchmarks.AddLane(in, a.over)
		default:
			in.Write = true
			base := [5]uint64{0, a.mask, a.visited, 0, a.updating}[i]
			for _, v := range next {
				benchmarks.AddLane(in, base+uint64(v))
			}
		}
	}}
}

// rbfsStream is Kernel's wavefront for the nodes v0 .. v0+63 at level
// curr.
type rbfsStream struct {
	g      *benchmarks.Graph
	depth  []int32
	curr   int32
	v0     int
	a      rbfsArrays
	front  []int // the wavefront's frontier nodes
	maxDeg int
	step   int // 0 mask load, 1 mask store, 2 nodes load, 3 the edge loop
	k      int // edge index of the loop
	phase  int // 0 edges, 1 visited, 2 cost load, 3 cost store, 4 updating store
}

func newRBFSStream(g *benchmarks.Graph, depth []int32, curr int32, v0 int, a rbfsArrays) *rbfsStream {
	s := &rbfsStream{g: g, depth: depth, curr: curr, v0: v0, a: a}
	for v := v0; v < v0+benchmarks.WavefrontSize; v++ {
		if depth[v] == curr {
			s.front = append(s.front, v)
			s.maxDeg = max(s.maxDeg, g.Degree(v))
		}
	}
	return s
}

// Next implements Stream.
func (s *rbfsStream) Next(in *benchmarks.Instruction) bool {
	in.Reset()
	in.Compute = benchmarks.GraphCycles
	switch {
	case s.step == 0:
		s.step++
		in.Compute = benchmarks.IndexCycles
		for v := s.v0; v < s.v0+benchmarks.WavefrontSize; v++ {
			benchmarks.AddLane(in, s.a.mask+uint64(v))
		}
		return true
	case len(s.front) == 0:
		return false
	case s.step == 1:
		s.step++
		in.Write = true
		for _, v := range s.front {
			benchmarks.AddLane(in, s.a.mask+uint64(v))
		}
		return true
	case s.step == 2:
		s.step++
		for _, v := range s.front {
			benchmarks.AddLane(in, s.a.nodes+8*uint64(v))
		}
		return true
	}
	return s.edgeStep(in)
}

// edgeStep issues the next instruction of the loop over edge k: the
// edge load, the visited gather and, when some neighbour is new, the cost
// load and the two scatters.
func (s *rbfsStream) edgeStep(in *benchmarks.Instruction) bool {
	if s.k >= s.maxDeg {
		return false
	}
	k, phase := s.k, s.phase
	switch {
	case phase == 1 && !s.hasWriters(k), phase == 4:
		s.k, s.phase = k+1, 0
	default:
		s.phase++
	}
	in.Write = phase >= 3
	for _, v := range s.front {
		if s.g.Degree(v) <= k {
			continue
		}
		e := int(s.g.Off[v]) + k
		u := int(s.g.Adj[e])
		switch {
		case phase == 0:
			benchmarks.AddLane(in, s.a.edges+rbfsEdgeBytes*uint64(e))
		case phase == 1:
			benchmarks.AddLane(in, s.a.visited+uint64(u))
		case s.depth[u] != s.curr+1: // visited: no write
		case phase == 2:
			benchmarks.AddLane(in, s.a.cost+4*uint64(v))
		case phase == 3:
			benchmarks.AddLane(in, s.a.cost+4*uint64(u))
		default:
			benchmarks.AddLane(in, s.a.updating+uint64(u))
		}
	}
	return true
}

// hasWriters reports whether some frontier node finds an unvisited
// neighbour at edge k.
func (s *rbfsStream) hasWriters(k int) bool {
	for _, v := range s.front {
		if s.g.Degree(v) > k && s.depth[s.g.Adj[int(s.g.Off[v])+k]] == s.curr+1 {
			return true
		}
	}
	return false
}
