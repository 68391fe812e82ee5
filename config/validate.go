package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/eviction"
	"github.com/mgpu-sim/mgpu/gpu"
	"github.com/mgpu-sim/mgpu/interconnect"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
)

// positiveCounts are the integer keys for which zero would mean "no such
// hardware" (a cache with no ways, a batch of no faults) and would divide by
// zero or stall a run. Keys are checked against the struct by the tests.
var positiveCounts = []struct {
	key string
	get func(*Config) int
}{
	{"sample_workgroups", func(c *Config) int { return c.SampleWorkgroups }},
	{"gpu.cus", func(c *Config) int { return c.GPU.CUs }},
	{"gpu.wavefronts_per_cu", func(c *Config) int { return c.GPU.WavefrontsPerCU }},
	{"gpu.l1tlb_entries", func(c *Config) int { return c.GPU.L1TLBEntries }},
	{"gpu.l1tlb_ways", func(c *Config) int { return c.GPU.L1TLBWays }},
	{"gpu.l2tlb_entries", func(c *Config) int { return c.GPU.L2TLBEntries }},
	{"gpu.l2tlb_ways", func(c *Config) int { return c.GPU.L2TLBWays }},
	{"gpu.l1v_ways", func(c *Config) int { return c.GPU.L1VWays }},
	{"gpu.l2_ways", func(c *Config) int { return c.GPU.L2Ways }},
	{"gmmu.walkers", func(c *Config) int { return c.GMMU.Walkers }},
	{"link.pcie_gpus_per_switch", func(c *Config) int { return c.Link.PCIeGPUsPerSwitch }},
	{"gmmu.levels", func(c *Config) int { return c.GMMU.Levels }},
	{"gmmu.pwc_entries", func(c *Config) int { return c.GMMU.PWCEntries }},
	{"gmmu.pwc_ways", func(c *Config) int { return c.GMMU.PWCWays }},
	{"uvm.fault_batch", func(c *Config) int { return c.UVM.FaultBatch }},
	{"policy.ac_threshold", func(c *Config) int { return c.Policy.ACThreshold }},
	{"policy.reset_threshold", func(c *Config) int { return c.Policy.ResetThreshold }},
	{"policy.grit_threshold", func(c *Config) int { return c.Policy.GRITThreshold }},
	{"policy.otable_entries", func(c *Config) int { return c.Policy.OTableEntries }},
	{"policy.pa_cache_entries", func(c *Config) int { return c.Policy.PACacheEntries }},
	{"policy.pa_cache_ways", func(c *Config) int { return c.Policy.PACacheWays }},
	{"policy.host_llc_ways", func(c *Config) int { return c.Policy.HostLLCWays }},
}

// choices are the keys whose value is one of a list: Validate checks
// them, and the result schema lists each one's values (Schema). A
// runtime's list is its registry's, so that a runtime registered later
// is one of the values. Keys are checked against the struct by the tests.
var choices = []struct {
	key   string
	get   func(*Config) string
	valid func() []string
}{
	{"placement", func(c *Config) string { return c.Placement }, these("host", "spread")},
	{"distribution", func(c *Config) string { return c.Distribution }, benchmarks.Schemes},
	{"im2col", func(c *Config) string { return c.Im2col }, benchmarks.Im2colKernels},
	{"topology", func(c *Config) string { return c.Topology }, these("full", "switch")},
	{"uvm.per_fault_charge", func(c *Config) string { return c.UVM.PerFaultCharge }, these(uvm.ChargeEvery, uvm.ChargeNewPages)},
	{"uvm.eviction", func(c *Config) string { return c.UVM.Eviction }, eviction.Names},
	{"uvm.prefetch.policy", func(c *Config) string { return c.UVM.Prefetch.Policy }, prefetch.Names},
	{uvm.KeyPrefetchControl, func(c *Config) string { return c.UVM.PrefetchControl }, func() []string { return uvm.RuntimeNames(uvm.KeyPrefetchControl) }},
	{"uvm.fault_handling", func(c *Config) string { return c.UVM.FaultHandling }, uvm.HandlingNames},
	{uvm.KeyAdaptive, func(c *Config) string { return c.UVM.Adaptive }, func() []string { return uvm.RuntimeNames(uvm.KeyAdaptive) }},
	{"link.pcie_model", func(c *Config) string { return c.Link.PCIeModel }, interconnect.PCIeModels},
	{"link.pcie_topology", func(c *Config) string { return c.Link.PCIeTopology }, interconnect.PCIeTopologies},
	{"link.future_sends", func(c *Config) string { return c.Link.FutureSends }, these(interconnect.FutureReserve, interconnect.FutureHold)},
	{"policy.ac_migrate", func(c *Config) string { return c.Policy.ACMigrate }, these(pagepolicy.ACMigratePage, pagepolicy.ACMigrateGroup)},
	{"policy.ac_host", func(c *Config) string { return c.Policy.ACHost }, these(pagepolicy.ACHostRemote, pagepolicy.ACHostMigrate)},
	{"policy.ac_evict", func(c *Config) string { return c.Policy.ACEvict }, these(pagepolicy.ACEvictUnmap, pagepolicy.ACEvictRemote)},
	{"policy.dup_write_first", func(c *Config) string { return c.Policy.DupWriteFirst }, these(pagepolicy.DupReadOnlyCopy, pagepolicy.DupMigrate)},
	{"policy.grit_pa_lookup", func(c *Config) string { return c.Policy.GRITPALookup }, these(pagepolicy.GRITLookupOverlapped, pagepolicy.GRITLookupSerial)},
}

func these(valid ...string) func() []string { return func() []string { return valid } }

// choicesOf is key's list of values, or nil for a key that takes any.
func choicesOf(key string) []string {
	for _, ch := range choices {
		if ch.key == key {
			return ch.valid()
		}
	}
	return nil
}

// Bounds of the generic rules by key suffix.
const (
	maxNs     = 1e12
	maxCycles = 1e9
	minGBps   = 1e-3
	maxGBps   = 1e9
)

// Validate reports every value the simulator cannot run with, and every
// key given a value that would have no effect (dependent.go), joined with
// errors.Join, each as "<key> = <value>: <what is valid>". It is separate
// from LoadConfig and Set so the final combination (file plus --set flags)
// is what gets checked.
func (c Config) Validate() error {
	var errs []error
	bad := func(key string, val any, format string, args ...any) {
		if s, ok := val.(string); ok {
			val = fmt.Sprintf("%q", s)
		}
		errs = append(errs, fmt.Errorf("%s = %v: %s", key, val, fmt.Sprintf(format, args...)))
	}

	// Generic rules by key suffix, so a latency or bandwidth field added
	// later is checked without editing this function.
	for _, l := range leaves(reflect.ValueOf(&c).Elem(), "", nil) {
		var x float64
		switch l.v.Kind() {
		case reflect.Float32, reflect.Float64:
			x = l.v.Float()
			if math.IsNaN(x) || math.IsInf(x, 0) {
				bad(l.key, l.v.Interface(), "must be a finite number")
				continue
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			x = float64(l.v.Int())
		default:
			continue // unsigned values (sizes) cannot be negative
		}
		// The upper bounds are far beyond any hardware, and keep a typo
		// (1e-300 GB/s, a latency of years) from an infinite stall or a
		// result JSON cannot hold.
		switch {
		case hasAnySuffix(l.key, "_cycles", "_ns", "_bytes") && x < 0:
			bad(l.key, l.v.Interface(), "must be >= 0")
		case strings.HasSuffix(l.key, "_ns") && x > maxNs:
			bad(l.key, l.v.Interface(), "must be at most %g ns (1000 s)", maxNs)
		case strings.HasSuffix(l.key, "_cycles") && x > maxCycles:
			bad(l.key, l.v.Interface(), "must be at most %g cycles", maxCycles)
		case strings.HasSuffix(l.key, "_gbps") && !(x >= minGBps && x <= maxGBps):
			bad(l.key, l.v.Interface(), "must be a bandwidth between %g and %g GB/s (1 MB/s to 1 EB/s)", minGBps, maxGBps)
		}
	}

	if c.TieOrder < 0 {
		bad("tie_order", c.TieOrder, "must be >= 0 (0: the documented order of simultaneous events; n > 0: the n-th permutation)")
	}
	if c.GPUs < 1 || c.GPUs > 64 {
		bad("gpus", c.GPUs, "must be between 1 and 64")
	}
	lineOK := c.GPU.LineSize.IsPowerOfTwo()
	if !lineOK {
		bad("gpu.line_size", c.GPU.LineSize, "must be a power of two (e.g. 64B)")
	}
	switch {
	case !c.PageSize.IsPowerOfTwo():
		bad("page_size", c.PageSize, "must be a power of two (e.g. 4KB or 2MB)")
	case lineOK && c.PageSize < c.GPU.LineSize:
		bad("page_size", c.PageSize, "must be >= gpu.line_size (%v)", c.GPU.LineSize)
	case c.PageSize > units.GB:
		bad("page_size", c.PageSize, "must be <= 1GB")
	}
	for _, ch := range choices {
		oneOf(&errs, ch.key, ch.get(&c), ch.valid()...)
	}
	// The uvmsmart curve divides by a·atan(b·KB): both must be positive
	// (NaN and Inf are reported above). Checked whatever the model, so a
	// file stays valid when only pcie_model is changed.
	if a := c.Link.PCIeCurveA; a <= 0 {
		bad("link.pcie_curve_a", a, "must be > 0 GiB/s (UVMSmart: 12, 24 or 48)")
	}
	if b := c.Link.PCIeCurveB; b <= 0 {
		bad("link.pcie_curve_b", b, "must be > 0 (UVMSmart: 0.07292)")
	}

	for _, p := range positiveCounts {
		if v := p.get(&c); v < 1 {
			bad(p.key, v, "must be >= 1")
		}
	}
	if cu, w := c.GPU.CUs, c.GPU.WavefrontsPerCU; cu >= 1 && w >= 1 && float64(cu)*float64(w) > gpu.MaxSlots {
		bad("gpu.wavefronts_per_cu", w, "gpu.cus (%d) x gpu.wavefronts_per_cu must be at most %d wavefront slots a GPU", cu, gpu.MaxSlots)
	}
	if f := c.GPU.FreqMHz; !math.IsNaN(f) && !math.IsInf(f, 0) && !(f >= 1 && f <= 1e5) {
		bad("gpu.freq_mhz", f, "must be between 1 and 100000 MHz")
	}
	if o := c.Oversubscribe; o != 0 && !(o >= 1) {
		bad("oversubscribe", o, "must be 0 (off) or a factor >= 1 (e.g. 1.5 for 150%%)")
	}
	if t := c.UVM.ThrashingThreshold; t < 1 || t > 7 {
		bad("uvm.thrashing_threshold", t, "must be 1..7 (the driver's 3-bit counter)")
	}
	if t := c.UVM.ThrashingPinThreshold; t < 1 || t > 255 {
		bad("uvm.thrashing_pin_threshold", t, "must be 1..255")
	}
	if c.UVM.HostThreads < 0 || c.UVM.HostThreads > 4096 {
		bad("uvm.host_threads", c.UVM.HostThreads, "must be 0 (one batch at a time) or 1..4096 threads")
	}
	if ch := c.UVM.EvictionChunk; !ch.IsPowerOfTwo() {
		bad("uvm.eviction_chunk", ch, "must be a power of two (NVIDIA: 2MB)")
	}
	if c.GPU.ACCounters < 0 || c.GPU.ACCounters > 1<<24 {
		bad("gpu.ac_counters", c.GPU.ACCounters, "must be 0 (one counter per group) to %d (ObservUVM Fig. 3: 256)", 1<<24)
	}
	if h, ok := c.UVM.Handling(); ok && h.Validate != nil {
		if err := h.Validate(c.UVM, c.PageSize); err != nil {
			errs = append(errs, err)
		}
	}
	// Each selected runtime checks its own settings; what each feature
	// needs of the other keys, and which keys take effect only with a
	// feature, are the tables of dependent.go and the runtimes'.
	for _, r := range c.UVM.Selected() {
		if r.Spec.Validate != nil {
			if err := r.Spec.Validate(c.UVM, c.PageSize); err != nil {
				errs = append(errs, err)
			}
		}
	}
	pf := c.UVM.Prefetch
	if t := pf.Threshold; t < prefetch.MinThreshold || t > prefetch.MaxThreshold {
		bad("uvm.prefetch.threshold", t, "must be 1..100 (driver default 51; 100 never prefetches)")
	}
	if !pf.BlockSize.IsPowerOfTwo() || !pf.VABlockSize.IsPowerOfTwo() || pf.BlockSize > pf.VABlockSize {
		bad("uvm.prefetch.block_size", pf.BlockSize, "and uvm.prefetch.va_block_size %v must be powers of two with block <= VA block (driver: 64KB and 2MB)", pf.VABlockSize)
	}
	if b := c.GMMU.BigPage; b != 0 && !b.IsPowerOfTwo() {
		bad("gmmu.big_page", b, "must be 0 (off) or a power of two (NVIDIA's big page: 64KB)")
	}
	if h := c.GMMU.HugePage; h != 0 && (!h.IsPowerOfTwo() || uint64(h) > c.AllocAlign()) {
		bad("gmmu.huge_page", h, "must be 0 (off) or a power of two up to %v, the allocation alignment, so that one never spans two allocations (NVIDIA's 2MB VA block)", units.Bytes(c.AllocAlign()))
	}
	if c.GPU.Memory == 0 {
		bad("gpu.memory", c.GPU.Memory, "must be > 0")
	}

	// Set-associative geometry: a cache holds a whole number of sets of
	// ways x line_size bytes, and a TLB a whole number of sets of ways.
	cacheSize := func(sizeKey string, size units.Bytes, waysKey string, ways int) {
		if !lineOK || ways < 1 {
			return // already reported; the set size is meaningless
		}
		set := c.GPU.LineSize * units.Bytes(ways)
		if size == 0 || size%set != 0 {
			bad(sizeKey, size, "must be a positive multiple of gpu.line_size x %s (%d bytes)", waysKey, uint64(set))
		}
	}
	cacheSize("gpu.l1v_size", c.GPU.L1VSize, "gpu.l1v_ways", c.GPU.L1VWays)
	cacheSize("gpu.l2_size", c.GPU.L2Size, "gpu.l2_ways", c.GPU.L2Ways)
	entries := func(key string, n int, waysKey string, ways int) {
		if n >= 1 && ways >= 1 && n%ways != 0 {
			bad(key, n, "must be a multiple of %s (%d)", waysKey, ways)
		}
	}
	entries("gpu.l1tlb_entries", c.GPU.L1TLBEntries, "gpu.l1tlb_ways", c.GPU.L1TLBWays)
	entries("gpu.l2tlb_entries", c.GPU.L2TLBEntries, "gpu.l2tlb_ways", c.GPU.L2TLBWays)
	entries("gmmu.pwc_entries", c.GMMU.PWCEntries, "gmmu.pwc_ways", c.GMMU.PWCWays)

	// Access counters track 64KB groups (GRIT) up to the driver's 2MB
	// regions; the group must be a power of two to be found by masking.
	if g := c.Policy.ACGroup; !g.IsPowerOfTwo() || g < 64*units.KB || g > 2*units.MB {
		bad("policy.ac_group", g, "must be a power of two from 64KB to 2MB")
	}

	entries("policy.pa_cache_entries", c.Policy.PACacheEntries, "policy.pa_cache_ways", c.Policy.PACacheWays)
	if b := c.Policy.IDBits; b < 1 || b > 15 {
		bad("policy.id_bits", b, "must be between 1 and 15 (OASIS §V-B)")
	}
	if b := c.Policy.ShadowIDBits; b < 1 || b > 32 {
		bad("policy.shadow_id_bits", b, "must be between 1 and 32")
	}
	if t := c.Policy.GRITThreshold; t > 255 {
		bad("policy.grit_threshold", t, "must be at most 255")
	}
	if w := c.Policy.HostLLCWays; w >= 1 {
		if set := units.Bytes(64 * w); c.Policy.HostLLCSize == 0 || c.Policy.HostLLCSize%set != 0 {
			bad("policy.host_llc_size", c.Policy.HostLLCSize, "must be a positive multiple of 64B x policy.host_llc_ways (%d bytes)", uint64(set))
		}
	}

	errs = append(errs, c.ruleErrors(errs)...)
	return errors.Join(errs...)
}

func oneOf(errs *[]error, key, val string, valid ...string) {
	if slices.Contains(valid, val) {
		return
	}
	*errs = append(*errs, fmt.Errorf("%s = %q: must be one of %s", key, val, strings.Join(valid, ", ")))
}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, suf := range suffixes {
		if strings.HasSuffix(s, suf) {
			return true
		}
	}
	return false
}
