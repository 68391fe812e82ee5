package papers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
)

// BTree is ObservUVM's and SUV's BTR: bulk point lookups in Awad et al.'s
// GPU B-tree (owensgroup/GpuBTree, "Engineering a High-Performance GPU
// B-Tree", PPoPP 2019), its search_b_tree kernel over a B-link tree of
// 128-byte nodes, every cudaMalloc made managed.
//
// Tree: a node is 32 words (128 bytes, one coalesced warp load in Awad's
// design): 15 key / value-or-child pairs and the side link. The keys are 0 .. N-1 (Awad's
// test inserts them shuffled); the insertion phase is not modelled. Its
// result is: every node holds 7 to 15 pairs (uniform, from Params.Seed;
// a node splits into 7 and 8 when it overflows, so random insertion
// leaves nodes between half and completely full, 73% on average here),
// leaves in key order, each inner node over consecutive children, up to
// a single root. Awad's PoolAllocator hands out nodes with an atomic
// counter as splits happen, so the root is node 0 and the others lie in
// the pool in the order they were split off; random insertion makes that
// order unrelated to key order, which the model takes as a seeded random
// permutation of the pool slots.
//
// Queries: Q = N/8 lookups (rounded to whole 1024-thread blocks) of keys
// drawn uniformly from [0, 2N), half of which are absent, as in Awad's
// test_map_search (which draws from twice the key range) but with fewer
// queries than keys (the test defaults to as many): absent keys above N
// all descend the rightmost path.
//
// Shape: N makes the expected footprint closest to BTreeSize times
// Params.Scale: 12.2M keys in 1.1M leaves, 8 levels and 1.5M queries at
// scale 1 (160 MiB); ObservUVM's 5.0 GB and SUV's 5120 MB at --scale 32
// (389M keys and 48.6M queries; building the tree then takes under 1 GB
// of host memory).
//
// Objects, in allocation (ID) order (GpuBTreeMap's constructor, then the
// query arrays):
//
//	0 "d_pool"    the node pool, 128 bytes per node, read only here
//	1 "d_count"   the pool's allocation counter (4 bytes, not read)
//	2 "d_root"    the root's node index (4 bytes)
//	3 "d_queries" Q uint32 keys
//	4 "d_results" Q uint32 values
//
// One launch, search_b_tree, Q/1024 blocks of 1024 threads
// (BLOCKSIZE_SEARCH_). Awad's warp-cooperative search: a warp takes its 32
// threads' queries one at a time and all 32 lanes read the node (one
// coalesced 128-byte load), ballot for the child and descend, root to
// leaf; every query reads one node per level. A 64-lane wavefront is two
// such warps in step: after the load of its 64 queries and of d_root,
// instruction (j, l) reads, in lanes 0-31, level l's node of query j and,
// in lanes 32-63, that of query 32+j; then the store of the 64 results.
// That is 3 + 32 x levels instructions per wavefront, 6.2M at scale 1.
// BTree has no iterations.
//
// Class: irregular, assigned here as ObservUVM's Table II describes BTR:
// each lookup reads one node (two 64-byte lines) on each level, the nodes
// scattered over the pool. The upper levels (about a thousand nodes) and
// the rightmost path are read by every wavefront, the leaves rarely: the
// skew behind its LFU preference.
//
// Known simplifications: the tree is built at set-up, not by the insert
// kernel, and the program's d_keys and d_values (the insert's inputs,
// which the lookups never touch) are left out, as is the pool the
// constructor allocates and leaks before the one it keeps; the pool is
// sized to the nodes in use, not Awad's fixed MAX_SIZE.
//
// Access facts: d_pool is DataDependent. Each level's node address is the
// child index loaded from the node above: a pointer chase, under a descent
// whose length (to a leaf) is data-dependent. d_queries, d_root and
// d_results are Analysable. They are read or written outside the descent,
// at affine addresses: Q accesses each (64 lanes per wavefront; d_root's
// 64 lanes share one address). One block's range is 1024 words of queries
// or results and d_root's one word. SUV's Table I types BTR U, D the same
// way.
type BTree struct{}

const (
	// btreeNodeBytes is a node: 32 uint32 words.
	btreeNodeBytes = 128
	// btreeNodeWords is a node's words, read by one warp.
	btreeNodeWords = btreeNodeBytes / 4
	// btreeMinFill and btreeMaxFill bound the pairs in a node.
	btreeMinFill, btreeMaxFill = 7, 15
	// btreeQueryShare is keys per query.
	btreeQueryShare = 8
	// btreeBlock is BLOCKSIZE_SEARCH_.
	btreeBlock = 1024
	// btreeLevelCycles is a level's ballot, ffs and shuffles.
	btreeLevelCycles = 24
	// btreePaperScale is the --scale of ObservUVM's 5.0 GB and SUV's 5120 MB.
	btreePaperScale = 32
)

// BTreeSize is BTree's scale-1 footprint: SUV's 5120 MB / 32.
var BTreeSize = benchmarks.FlatSize(5120 * benchmarks.MiB / btreePaperScale)

func init() {
	benchmarks.Register("btree", func() benchmarks.Workload { return BTree{} })
}

// Info implements Workload.
func (BTree) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:        "btree",
		Description: "Awad et al. GPU B-tree: bulk random point lookups, a warp per query descending 128-byte nodes",
		// Awad et al.'s owensgroup/GpuBTree.
		Suite:             "GpuBTree",
		Aliases:           []string{"BTR"},
		Class:             benchmarks.ClassIrregular,
		PaperSize:         BTreeSize,
		PreferredEviction: benchmarks.ObservUVMLFU,
		DeclaresAccess:    true,
	}
}

// btreeQueries is the query count for n keys: n/8 in whole blocks.
func btreeQueries(n int) int { return max(1, n/btreeQueryShare/btreeBlock) * btreeBlock }

// btreeExpectedBytes is the expected footprint of n keys: nodes of 11
// pairs on average, so n/10 nodes over all levels, and the query arrays.
func btreeExpectedBytes(n int) uint64 {
	meanFill := float64(btreeMinFill+btreeMaxFill) / 2
	nodes := float64(n) / (meanFill - 1)
	return uint64(math.Round(nodes*btreeNodeBytes)) + 8 + 8*uint64(btreeQueries(n))
}

// BTreeKeys returns the key count btree uses for p.
func BTreeKeys(p benchmarks.Params) (int, error) {
	fp, err := BTreeSize.Footprint(p)
	if err != nil {
		return 0, err
	}
	n := benchmarks.FitSide(fp, btreeBlock, btreeExpectedBytes)
	if 2*uint64(n) > math.MaxUint32-2 {
		return 0, fmt.Errorf("btree: scale %g: %d keys would overflow the tree's 31-bit keys", p.Scale, n)
	}
	return n, nil
}

// BTreeExpectedFootprint is the footprint btree is expected to allocate
// for p (the node count depends on the seed), without building the tree.
func BTreeExpectedFootprint(p benchmarks.Params) (uint64, error) {
	n, err := BTreeKeys(p)
	if err != nil {
		return 0, err
	}
	return btreeExpectedBytes(n), nil
}

// btreeLevel is one level of the tree, leaves first: each node's first
// key, where its children start in the level below (inner levels), and
// its pool slot.
type btreeLevel struct {
	first []uint32
	start []uint32
	slot  []uint32
}

// btreeTree is the built tree.
type btreeTree struct {
	keys   int
	levels []btreeLevel // levels[0] the leaves, the last the root
	nodes  int
}

// buildBTree builds the tree over keys 0 .. n-1 from seed.
func buildBTree(n int, seed uint64) *btreeTree {
	r := rand.New(rand.NewPCG(seed, 0xb7ee))
	fill := func() int { return btreeMinFill + r.IntN(btreeMaxFill-btreeMinFill+1) }
	t := &btreeTree{keys: n}
	var leaves btreeLevel
	for k := 0; k < n; k += fill() {
		leaves.first = append(leaves.first, uint32(k))
	}
	t.levels = append(t.levels, leaves)
	for below := leaves; len(below.first) > 1; {
		var up btreeLevel
		for c := 0; c < len(below.first); c += fill() {
			up.first = append(up.first, below.first[c])
			up.start = append(up.start, uint32(c))
		}
		up.start = append(up.start, uint32(len(below.first)))
		t.levels = append(t.levels, up)
		below = up
	}
	for _, l := range t.levels {
		t.nodes += len(l.first)
	}
	// The root is slot 0; the others a random permutation of 1 .. nodes-1.
	perm := make([]uint32, t.nodes-1)
	for i := range perm {
		perm[i] = uint32(i + 1)
	}
	r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	next := 0
	for i := range t.levels {
		l := &t.levels[i]
		l.slot = make([]uint32, len(l.first))
		if i == len(t.levels)-1 {
			break // the root: slot 0
		}
		for j := range l.slot {
			l.slot[j] = perm[next]
			next++
		}
	}
	return t
}

// path calls visit with the pool slot of each node a lookup of key reads,
// root first.
func (t *btreeTree) path(key uint32, visit func(level int, slot uint32)) {
	node := 0
	for li := len(t.levels) - 1; li >= 0; li-- {
		l := &t.levels[li]
		visit(len(t.levels)-1-li, l.slot[node])
		if li == 0 {
			return
		}
		lo, hi := int(l.start[node]), int(l.start[node+1])
		below := t.levels[li-1].first
		// The last child whose first key is at most key (the first if none).
		c := lo + sort.Search(hi-lo, func(i int) bool { return below[lo+i] > key }) - 1
		node = max(c, lo)
	}
}

// btreeQueryKey is query q's key, uniform in [0, 2n).
func btreeQueryKey(seed uint64, q, n int) uint32 {
	return uint32(draw(seed, uint64(q)) % (2 * uint64(n)))
}

// draw is the i-th random word of seed: splitmix64's finaliser, so a
// thread's draw needs no generator state.
func draw(seed, i uint64) uint64 {
	x := seed*0x9e3779b97f4a7c15 + i
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Setup implements Workload.
func (BTree) Setup(alloc *objtable.Allocator, p benchmarks.Params) ([]benchmarks.Kernel, error) {
	n, err := BTreeKeys(p)
	if err != nil {
		return nil, err
	}
	t := buildBTree(n, p.Seed)
	q := btreeQueries(n)
	pool, err := alloc.MallocManaged(uint64(t.nodes)*btreeNodeBytes, "d_pool")
	if err != nil {
		return nil, err
	}
	alloc.MustMalloc(4, "d_count")
	root := alloc.MustMalloc(4, "d_root")
	queries := alloc.MustMalloc(4*uint64(q), "d_queries")
	results := alloc.MustMalloc(4*uint64(q), "d_results")
	id := benchmarks.LastObjects(alloc, 5)
	levels := len(t.levels)
	wfs := btreeBlock / benchmarks.WavefrontSize
	seed := p.Seed
	qq, block := int64(q), benchmarks.FloatSpan(0, btreeBlock-1)
	ks := []benchmarks.Kernel{{
		Name: "search_b_tree", Args: []int{id[2], id[3], id[4], id[0]},
		Access: []benchmarks.Access{
			benchmarks.AnalysableAccess(id[2], qq, benchmarks.FloatBytes),
			benchmarks.AnalysableAccess(id[3], qq, block),
			benchmarks.AnalysableAccess(id[4], qq, block),
			benchmarks.DataDependentAccess(id[0]),
		},
		Workgroups: q / btreeBlock, WavefrontsPerWorkgroup: wfs,
		Wavefront: func(wg, wf, _ int) benchmarks.Stream {
			q0 := (wg*wfs + wf) * benchmarks.WavefrontSize
			// slots[h][j*levels+l]: the node query q0+32h+j reads at level l.
			var slots [2][]uint32
			for h := range slots {
				slots[h] = make([]uint32, 0, btreeNodeWords*levels)
				for j := 0; j < btreeNodeWords; j++ {
					t.path(btreeQueryKey(seed, q0+h*btreeNodeWords+j, n), func(_ int, s uint32) {
						slots[h] = append(slots[h], s)
					})
				}
			}
			return &benchmarks.Loop{N: 3 + btreeNodeWords*levels, Gen: func(i int, in *benchmarks.Instruction) {
				switch {
				case i == 0: // myQuery = d_queries[tid]
					in.Compute = benchmarks.IndexCycles
					for l := 0; l < benchmarks.WavefrontSize; l++ {
						benchmarks.AddLane(in, queries+4*uint64(q0+l))
					}
				case i == 1: // rootAddress = *d_root
					for l := 0; l < benchmarks.WavefrontSize; l++ {
						benchmarks.AddLane(in, root)
					}
				case i == 2+btreeNodeWords*levels: // d_results[tid] = myResult
					in.Write = true
					for l := 0; l < benchmarks.WavefrontSize; l++ {
						benchmarks.AddLane(in, results+4*uint64(q0+l))
					}
				default:
					in.Compute = btreeLevelCycles
					k := i - 2
					for h := range slots {
						node := pool + uint64(slots[h][k])*btreeNodeBytes
						for w := uint64(0); w < btreeNodeWords; w++ {
							benchmarks.AddLane(in, node+4*w)
						}
					}
				}
			}}
		},
	}}
	benchmarks.FinishAccess(alloc, ks)
	return ks, nil
}
