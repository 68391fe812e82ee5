package benchmarks

import (
	"math"
	"math/rand/v2"
)

// R-MAT edge probabilities: the Graph500 defaults (a, b, c; d = 1-a-b-c =
// 0.05), which give the skewed, power-law-like degree distribution of
// real graphs.
const (
	rmatA = 0.57
	rmatB = 0.19
	rmatC = 0.19
)

// RMATColumnBit is the chance that an R-MAT edge falls in the upper half
// of the columns at each level: b + d.
const RMATColumnBit = rmatB + (1 - rmatA - rmatB - rmatC)

// Graph is a graph in compressed sparse row form, the form the graph
// workloads of several suites (SHOC BFS, Hetero-Mark PageRank, Rodinia
// BFS) keep in their objects: the neighbours of v are Adj[Off[v]:Off[v+1]].
type Graph struct {
	Off []uint32
	Adj []uint32
}

// Vertices is the vertex count.
func (g *Graph) Vertices() int { return len(g.Off) - 1 }

// Degree is v's neighbour count.
func (g *Graph) Degree(v int) int { return int(g.Off[v+1] - g.Off[v]) }

// Edges is the directed edge count.
func (g *Graph) Edges() int { return len(g.Adj) }

// Nbrs is v's neighbours.
func (g *Graph) Nbrs(v int) []uint32 { return g.Adj[g.Off[v]:g.Off[v+1]] }

// RMATGraph generates an undirected R-MAT graph of 2^scale vertices and
// about edges directed edges (each generated pair is stored in both
// directions; self-loops are dropped and duplicate edges kept, as
// Graph500's generator does before its optional clean-up). The same seed
// gives the same graph. Neighbour lists are in generation order.
func RMATGraph(scale, edges int, seed uint64) *Graph {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	n := 1 << scale
	pairs := edges / 2
	src := make([]uint32, 0, pairs)
	dst := make([]uint32, 0, pairs)
	quad := func(p float64) uint32 { return uint32(p * math.MaxUint32) }
	ta, tb, tc := quad(rmatA), quad(rmatA+rmatB), quad(rmatA+rmatB+rmatC)
	for len(src) < pairs {
		var u, v uint32
		var bits uint64
		for bit := 0; bit < scale; bit++ {
			if bit%2 == 0 {
				bits = r.Uint64()
			}
			x := uint32(bits)
			bits >>= 32
			switch {
			case x < ta:
			case x < tb:
				v |= 1 << bit
			case x < tc:
				u |= 1 << bit
			default:
				u |= 1 << bit
				v |= 1 << bit
			}
		}
		if u != v {
			src = append(src, u)
			dst = append(dst, v)
		}
	}
	off := make([]uint32, n+1)
	for i := range src {
		off[src[i]+1]++
		off[dst[i]+1]++
	}
	for v := 1; v <= n; v++ {
		off[v] += off[v-1]
	}
	adj := make([]uint32, off[n])
	fill := make([]uint32, n)
	copy(fill, off[:n])
	for i := range src {
		u, v := src[i], dst[i]
		adj[fill[u]] = v
		fill[u]++
		adj[fill[v]] = u
		fill[v]++
	}
	return &Graph{Off: off, Adj: adj}
}

// GraphScale picks the vertex count, a power of two, for a graph whose
// arrays take bytes: perVertex bytes per vertex plus perEdge per edge at
// an average degree near 16 (log-nearest power of two), and returns the
// edge count that fills the rest exactly.
func GraphScale(bytes uint64, perVertex, perEdge int) (scale, edges int) {
	v := float64(bytes) / float64(perVertex+16*perEdge)
	scale = max(6, int(math.Round(math.Log2(v))))
	for scale > 6 && float64(bytes) < float64(uint64(perVertex)<<scale)*1.5 {
		scale--
	}
	rest := int64(bytes) - int64(perVertex)<<scale
	return scale, max(2, int(rest/int64(perEdge)))
}

// BFSDepths returns every vertex's BFS depth from src (-1: unreachable).
func BFSDepths(g *Graph, src int) []int32 {
	depth := make([]int32, g.Vertices())
	for i := range depth {
		depth[i] = -1
	}
	depth[src] = 0
	frontier := []uint32{uint32(src)}
	for d := int32(1); len(frontier) > 0; d++ {
		var next []uint32
		for _, u := range frontier {
			for _, v := range g.Nbrs(int(u)) {
				if depth[v] < 0 {
					depth[v] = d
					next = append(next, v)
				}
			}
		}
		frontier = next
	}
	return depth
}

// GraphCycles is the address arithmetic and compare per graph
// instruction (a few VALU instructions). An estimate.
const GraphCycles = 16

// GraphBytes is what a graph workload's objects take per vertex and per
// edge; it sizes the graph to the paper's footprint (GraphScale).
type GraphBytes struct{ Vertex, Edge int }
