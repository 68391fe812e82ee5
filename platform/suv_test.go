package platform

import (
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/objtable"
	suvrt "github.com/mgpu-sim/mgpu/runtimes/suv"
	"github.com/mgpu-sim/mgpu/suv"
	"github.com/mgpu-sim/mgpu/uvm"
)

// suvProbe is a workload with one structure of each SUV class, sized so
// that at 1.5x oversubscription every treatment happens: "dense" is
// swept once a launch (Density), "temporal" is read 8 times by each
// workgroup over its own 8 KB slice (Temporal: a small window of the
// grid is resident at once), "chase" is gathered at hashed offsets
// (Unknown) and "iter" is touched one 512 KB span per launch (Iterative,
// 16 iterations). Every launch writes what it reads, so the checker sees
// stale data if a placement loses a write.
type suvProbe struct{ noHints bool }

const (
	probeWGs     = 256
	probeSlice   = 8 << 10
	probeReps    = 8
	probeIters   = 16
	probeSpan    = 512 << 10
	probeChaseRd = 16
)

func (p suvProbe) Info() benchmarks.Info {
	return benchmarks.Info{
		Name:           "suv-probe",
		Description:    "test workload: one structure of each SUV class",
		Suite:          benchmarks.SuiteSynthetic,
		DeclaresAccess: !p.noHints,
	}
}

func (p suvProbe) Setup(alloc *objtable.Allocator, _ benchmarks.Params) ([]benchmarks.Kernel, error) {
	sizes := []uint64{1 << 20, probeWGs * probeSlice, 2 << 20, probeIters * probeSpan}
	var ptr []uint64
	for i, n := range []string{"dense", "temporal", "chase", "iter"} {
		q, err := alloc.MallocManaged(sizes[i], n)
		if err != nil {
			return nil, err
		}
		ptr = append(ptr, q)
	}
	lines := func(bytes int) int { return bytes / 256 } // 64 lanes x 4 bytes
	perWG := []int{lines(int(sizes[0]) / probeWGs), lines(probeSlice) * probeReps, probeChaseRd, lines(probeSpan / probeWGs)}
	var ks []benchmarks.Kernel
	for it := 0; it < probeIters; it++ {
		it := it
		n := perWG[0] + perWG[1] + perWG[2] + perWG[3]
		k := benchmarks.Kernel{Name: "probe", Args: []int{0, 1, 2, 3}, Workgroups: probeWGs, WavefrontsPerWorkgroup: 1,
			Wavefront: func(wg, _, _ int) benchmarks.Stream {
				return &benchmarks.Loop{N: n, Gen: func(i int, in *benchmarks.Instruction) {
					var base uint64
					switch {
					case i < perWG[0]:
						base = objtable.Strip(ptr[0]) + uint64(i*probeWGs+wg)*256 // interleaved: each workgroup spans the object
					case i < perWG[0]+perWG[1]:
						j := (i - perWG[0]) % lines(probeSlice)
						base = objtable.Strip(ptr[1]) + uint64(wg*probeSlice+j*256)
					case i < perWG[0]+perWG[1]+perWG[2]:
						h := uint64(wg*probeChaseRd+i+it*7919) * 2654435761 % (sizes[2] / 256)
						base = objtable.Strip(ptr[2]) + h*256
					default:
						j := i - perWG[0] - perWG[1] - perWG[2]
						base = objtable.Strip(ptr[3]) + uint64(it*probeSpan+wg*perWG[3]*256+j*256)
					}
					in.Lanes, in.Write = 64, i%2 == 0
					for l := 0; l < 64; l++ {
						in.Addr[l] = base + uint64(l*4)
					}
				}}
			}}
		if !p.noHints {
			k.Access = []benchmarks.Access{
				{Object: 0, Pattern: benchmarks.Analysable, Accesses: float64(sizes[0] / 4), WorkgroupBytes: int64(sizes[0])},
				{Object: 1, Pattern: benchmarks.Analysable, Accesses: float64(sizes[1] / 4 * probeReps), WorkgroupBytes: probeSlice},
				{Object: 2, Pattern: benchmarks.DataDependent},
				{Object: 3, Pattern: benchmarks.HostLoop, Accesses: float64(probeSpan / 4),
					Loop: benchmarks.LoopSpan{Index: it, Count: probeIters, StrideBytes: probeSpan, SpanBytes: probeSpan}},
			}
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// suvSmall is the probe's machine: 2 CUs, so that 80 workgroups of the
// 256 are resident at once and "temporal" is Temporal; the density
// threshold is 1 so that its 2 accesses per byte earn a pool.
func suvSmall(gpus int, mode string) config.Config {
	c := small(gpus)
	c.GPU.CUs = 2
	c.Oversubscribe = 1.5
	c.UVM.Adaptive = mode
	if mode == suvrt.Name { // SUV's alone: SC ranks by access count
		suvrt.Config.Edit(&c.UVM, func(s *suv.Config) { s.DensityThreshold = 1 })
		// "dense" (0.25 accesses per byte) would go to the host beside the
		// chase; pinned on HBM it keeps every treatment in the probe
		// (TestSUVSparseBesideChase tests the rule).
		suvrt.Config.Edit(&c.UVM, func(s *suv.Config) { s.SparseBesideChase = suv.SparseHBM })
	}
	return c
}

func probeRun(t *testing.T, gpus int, mode string) *Result {
	t.Helper()
	return mustRun(t, Options{Workload: "suv-probe", Policy: "on-touch", Config: suvSmall(gpus, mode), workload: suvProbe{}})
}

// SUV carries out every kind of placement on the probe and keeps every
// read coherent (the checker is on), whichever way a fault on the Unknown
// structure goes. When its faults migrate, the pool must overflow for its
// counters to have evicted pages to pull back: 3x oversubscription.
func TestSUVPlacesEveryClass(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		unknown string
		over    float64
	}{{suv.UnknownRemote, 1.5}, {suv.UnknownMigrate, 3}} {
		for _, gpus := range []int{1, 2} {
			cfg := suvSmall(gpus, suvrt.Name)
			cfg.Oversubscribe = c.over
			suvrt.Config.Edit(&cfg.UVM, func(s *suv.Config) { s.UnknownFault = c.unknown })
			r := mustRun(t, Options{Workload: "suv-probe", Policy: "on-touch", Config: cfg, workload: suvProbe{}})
			st := r.PolicyStats
			for _, k := range []string{"suv_pinned_hbm_pages", "suv_pinned_host_pages", "suv_pooled_pages", "suv_counted_pages", "suv_prefetched_pages", "suv_iteration_evicted_pages", "suv_ac_migrations"} {
				if st[k] == 0 && (gpus == 1 || k != "suv_pooled_pages") { // on 2 GPUs each holds 128 workgroups: too few for Temporal
					t.Errorf("%s, %d GPUs: %s is 0: %v", c.unknown, gpus, k, st)
				}
			}
			if st["suv_launches"] != probeIters {
				t.Errorf("%s, %d GPUs: %v launches planned, want %d", c.unknown, gpus, st["suv_launches"], probeIters)
			}
			if r.Totals.HostLines == 0 {
				t.Errorf("%s, %d GPUs: nothing was read from the host, though chase's evicted pages and the rest of dense stay there", c.unknown, gpus)
			}
		}
	}
}

// Pinned, host-mapped, counted and prefetched pages do not fault: with
// the Temporal structure pinned on the host too (density threshold 100),
// no fault on the probe reaches the driver's decision. The faults left
// are the Unknown structure's: under unknown_fault=remote, accesses that
// raced a counter migration and found the page mapped, at most one per
// page the counters moved; under migrate, also its first touches (two
// wavefronts may fault on a page before it arrives; an evicted page stays
// mapped over PCIe, so it does not fault again). The stock driver
// faults on every first touch and every refetch.
func TestSUVPlacedPagesDoNotFault(t *testing.T) {
	t.Parallel()
	base := probeRun(t, 1, uvm.AdaptiveNone)
	for _, unknown := range []string{suv.UnknownRemote, suv.UnknownMigrate} {
		c := suvSmall(1, suvrt.Name)
		suvrt.Config.Edit(&c.UVM, func(s *suv.Config) { s.DensityThreshold, s.UnknownFault = 100, unknown })
		r := mustRun(t, Options{Workload: "suv-probe", Policy: "on-touch", Config: c, workload: suvProbe{}})
		st := r.PolicyStats
		if st["suv_pooled_pages"] != 0 {
			t.Fatalf("%s: temporal still has a pool: %v", unknown, st)
		}
		if st["suv_placed_faults"] != 0 {
			t.Errorf("%s: %v faults on placed pages reached the driver's decision", unknown, st["suv_placed_faults"])
		}
		bound := st["suv_ac_migrations"]
		if unknown == suv.UnknownMigrate {
			bound += 2 * float64(2<<20) / float64(r.Config.PageSize) // chase's pages, each faulted by at most two wavefronts before it arrives
		}
		if f := float64(r.Totals.PageFaults); f > bound || r.Totals.PageFaults >= base.Totals.PageFaults/5 {
			t.Errorf("%s: SUV faulted %d times (bound %v), the stock driver %d", unknown, r.Totals.PageFaults, bound, base.Totals.PageFaults)
		}
	}
}

// TestSUVSparseBesideChase: beside the chase, the sparse "dense" (256
// pages) is pinned on the host rather than on HBM, and reads stay
// coherent.
func TestSUVSparseBesideChase(t *testing.T) {
	t.Parallel()
	hbm := probeRun(t, 1, suvrt.Name).PolicyStats
	c := suvSmall(1, suvrt.Name)
	suvrt.Config.Edit(&c.UVM, func(s *suv.Config) { s.SparseBesideChase = suv.SparseHost })
	host := mustRun(t, Options{Workload: "suv-probe", Policy: "on-touch", Config: c, workload: suvProbe{}}).PolicyStats
	dense := float64(1<<20) / float64(c.PageSize)
	if host["suv_pinned_hbm_pages"] != hbm["suv_pinned_hbm_pages"]-dense || host["suv_pinned_host_pages"] != hbm["suv_pinned_host_pages"]+dense {
		t.Errorf("beside the chase: pinned on HBM %v, on the host %v; placed like the rest: %v and %v (dense: %v pages)",
			host["suv_pinned_hbm_pages"], host["suv_pinned_host_pages"], hbm["suv_pinned_hbm_pages"], hbm["suv_pinned_host_pages"], dense)
	}
}

// SC pins whole structures by access count and leaves the rest on the
// host; it never reserves pools, counts or prefetches.
func TestSCPlacesWholeStructures(t *testing.T) {
	t.Parallel()
	r := probeRun(t, 1, suvrt.NameSC)
	st := r.PolicyStats
	if st["suv_pinned_hbm_pages"] == 0 || st["suv_pinned_host_pages"] == 0 {
		t.Errorf("SC pinned nothing on one side: %v", st)
	}
	for _, k := range []string{"suv_pooled_pages", "suv_counted_pages", "suv_prefetched_pages"} {
		if st[k] != 0 {
			t.Errorf("SC %s = %v, want 0", k, st[k])
		}
	}
}

// The same seed gives byte-identical results under SUV.
func TestSUVDeterministic(t *testing.T) {
	t.Parallel()
	o := Options{Workload: "suv-probe", Policy: "on-touch", Config: suvSmall(2, suvrt.Name), workload: suvProbe{}, Seed: 3}
	a, b := resultJSON(t, o), resultJSON(t, o)
	if string(a) != string(b) {
		t.Fatal("two SUV runs with one seed differ")
	}
}

// Bad SUV input is refused before the run, naming what is wrong.
func TestSUVBadInput(t *testing.T) {
	c := suvSmall(1, suvrt.Name)
	_, err := Build(Options{Workload: "suv-probe", Policy: "on-touch", Config: c, workload: suvProbe{noHints: true}})
	if err == nil || !strings.Contains(err.Error(), "declares none") {
		t.Errorf("a workload without hints: %v", err)
	}
	_, err = Build(Options{Workload: "suv-probe", Policy: "access-counter", Config: c, workload: suvProbe{}})
	if err == nil || !strings.Contains(err.Error(), "on-touch") {
		t.Errorf("SUV under access-counter: %v", err)
	}
	suvrt.Config.Edit(&c.UVM, func(s *suv.Config) { s.DensityThreshold = 0 })
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "uvm.suv.density_threshold") {
		t.Errorf("density threshold 0: %v", err)
	}
}

// The oracle measures what the probe declares: the declared density (the
// probe has no branches), the iteration span, and the same class for
// every structure but "dense": its workgroups each stride over the whole
// object, so interval arithmetic (what SUV computes, and the probe
// declares) gives a working set of all of it, while neighbouring
// workgroups in fact share pages and the measured window is smaller. The
// measured window never exceeds the declared one. A run on the oracle's
// hints is coherent.
func TestSUVOracleMatchesDeclared(t *testing.T) {
	t.Parallel()
	c := suvSmall(1, suvrt.Name)
	prog, err := Program(Options{Workload: "suv-probe", Policy: "on-touch", Config: c, workload: suvProbe{}})
	if err != nil {
		t.Fatal(err)
	}
	sc := suvrt.Config.Of(c.UVM).ForPageSize(c.PageSize)
	declared, err := suvrt.Hints(c.UVM, c.PageSize, c.GPUs, prog)
	if err != nil {
		t.Fatal(err)
	}
	oc := c
	suvrt.Config.Edit(&oc.UVM, func(s *suv.Config) { s.Hints = suv.HintsOracle })
	oracle, err := suvrt.Hints(oc.UVM, c.PageSize, c.GPUs, prog)
	if err != nil {
		t.Fatal(err)
	}
	for i, decl := range declared {
		if len(oracle[i].Hints) != len(decl.Hints) {
			t.Fatalf("launch %d: oracle %v, declared %v", i, oracle[i].Hints, decl.Hints)
		}
		for j, d := range decl.Hints {
			o := oracle[i].Hints[j]
			size := decl.Objects[j].Bytes
			if o.Object != d.Object || o.WSSBytes > d.WSSBytes && d.WSSBytes > 0 {
				t.Errorf("launch %d: oracle %+v, declared %+v", i, o, d)
			}
			if d.Object != "dense" && suv.Classify(sc, o, size) != suv.Classify(sc, d, size) {
				t.Errorf("launch %d: oracle class %v, declared %v", i, suv.Classify(sc, o, size), suv.Classify(sc, d, size))
			}
			if d.Class != suv.Unknown && (o.Density < d.Density*0.99 || o.Density > d.Density*1.01) {
				t.Errorf("launch %d %s: measured density %v, declared %v", i, d.Object, o.Density, d.Density)
			}
			if d.Class == suv.Iterative && o.Iter != d.Iter {
				t.Errorf("launch %d %s: measured span %+v, declared %+v", i, d.Object, o.Iter, d.Iter)
			}
		}
	}
	suvrt.Config.Edit(&c.UVM, func(s *suv.Config) { s.Hints = suv.HintsOracle })
	r := mustRun(t, Options{Workload: "suv-probe", Policy: "on-touch", Config: c, workload: suvProbe{}})
	if r.PolicyStats["suv_prefetched_pages"] == 0 || r.PolicyStats["suv_pooled_pages"] == 0 {
		t.Errorf("oracle run placed no pool or prefetch: %v", r.PolicyStats)
	}
}

// A pool's quota is a reservation, not a ceiling: with no
// oversubscription nothing is evicted, though the Temporal structure's
// pages exceed its quota; at 50% the pools give back their excess (the
// checking mode verifies after every batch that a pool on a full GPU
// holds no more than its quota and the batch). The probe fills its GPU at
// 2x: at 1.5x its pools and pins fit.
func TestSUVPoolQuotaIsAReservation(t *testing.T) {
	t.Parallel()
	c := suvSmall(1, suvrt.Name)
	c.Oversubscribe = 0
	r := mustRun(t, Options{Workload: "suv-probe", Policy: "on-touch", Config: c, workload: suvProbe{}})
	if r.Totals.Evictions != 0 || r.PolicyStats["suv_pool_evictions"] != 0 || r.PolicyStats["suv_pooled_pages"] == 0 {
		t.Errorf("no oversubscription: %d evictions, %v", r.Totals.Evictions, r.PolicyStats)
	}
	c.Oversubscribe = 2
	full := mustRun(t, Options{Workload: "suv-probe", Policy: "on-touch", Config: c, workload: suvProbe{}})
	if full.PolicyStats["suv_pool_evictions"] == 0 {
		t.Errorf("at 2x no pool gave anything back: %v", full.PolicyStats)
	}
}

// Every workload that declares its accesses translates into hints SUV
// accepts (suv.Hints.Validate, with each launch's objects) at two sizes
// on one GPU, and the working set never exceeds the object.
func TestDeclaredAccessTranslates(t *testing.T) {
	t.Parallel()
	var names []string
	for _, n := range benchmarks.Names() {
		if w, err := benchmarks.New(n); err == nil && benchmarks.DeclaresAccess(w) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		t.Fatal("no workload declares its accesses")
	}
	for _, n := range names {
		for _, scale := range []float64{1, 0.25} {
			c := small(1)
			c.Oversubscribe = 1.5
			c.UVM.Adaptive = suvrt.Name
			prog, err := Program(Options{Workload: n, Policy: "on-touch", Config: c, Scale: scale, Seed: 1})
			if err != nil {
				t.Fatalf("%s at scale %g: %v", n, scale, err)
			}
			ls, err := suvrt.Hints(c.UVM, c.PageSize, c.GPUs, prog)
			if err != nil {
				t.Fatalf("%s at scale %g: %v", n, scale, err)
			}
			for i, l := range ls {
				k := &prog.Kernels[i]
				if k.Barrier {
					continue
				}
				if err := l.Hints.Validate(l.Objects); err != nil {
					t.Errorf("%s at scale %g, kernel %d (%s): %v", n, scale, i, k.Name, err)
				}
			}
		}
	}
}

// suvrt.Classes, without simulating, gives the probe's structures the classes
// its design names on one GPU; on two, each holds more than half of its
// share of the grid at once, so SUV skips the working set and the
// Temporal structure is Density.
func TestSUVClasses(t *testing.T) {
	for _, c := range []struct {
		gpus     int
		temporal suv.Class
	}{{1, suv.Temporal}, {2, suv.Density}} {
		cfg := suvSmall(c.gpus, suvrt.Name)
		prog, err := Program(Options{Workload: "suv-probe", Policy: "on-touch", Config: cfg, workload: suvProbe{}})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := suvrt.Classes(cfg.UVM, cfg.PageSize, cfg.GPUs, prog)
		if err != nil {
			t.Fatal(err)
		}
		if len(cl) != probeIters {
			t.Fatalf("%d GPUs: %d launches, want %d", c.gpus, len(cl), probeIters)
		}
		want := map[string]suv.Class{"dense": suv.Density, "temporal": c.temporal, "chase": suv.Unknown, "iter": suv.Iterative}
		for i, l := range cl {
			for name, k := range want {
				if l[name] != k {
					t.Errorf("%d GPUs, launch %d: %s is %v, want %v (all: %v)", c.gpus, i, name, l[name], k, l)
				}
			}
		}
	}
}
