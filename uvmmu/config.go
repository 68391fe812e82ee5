package uvmmu

import (
	"fmt"
	"math"
	"strings"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/mgpu-sim/mgpu/units"
)

// Resume points: when the faulting SM gets its PTE back (see
// Config.Resume).
const (
	// ResumeCritical returns the PTE once the critical 4 KB page has
	// arrived: the paper's "about 1.3 us" per migration with the critical
	// page first (§V-A2) is 1 us RTT + 4 KB at 16 GB/s + 10 cycles (our
	// arithmetic from §V-A1 and Table I; the paper does not break it down).
	ResumeCritical = "critical"
	// ResumeGroup returns it once the whole page-group has arrived (and,
	// for a swap, the victim has left): "Once the transfer is complete,
	// UVMMU updates the PTE" (§IV-D).
	ResumeGroup = "group"
)

// MaxPagesPerGroup bounds GroupBytes/PageBytes: a transfer's pages are a
// 64-bit mask.
const MaxPagesPerGroup = 64

// Config is one GPU's UVMMU. Each field names its source: a section of
// the paper (§ is the paper's own numbering), or "no source" with the
// value chosen.
type Config struct {
	// HandlingCycles is the migration handling latency: "to select a
	// destination page group and configure the PME engine ... 10 cycles
	// with UVMMU" (§V-A1, Table I). Cycles of the GPU clock (Setup).
	HandlingCycles int `yaml:"handling_cycles" doc:"fault handling per migration in GPU cycles (UVMMU §V-A1, Table I: 10)"`
	// DCQEntries is the Destination Candidate Queue's size: "In our
	// evaluation, DCQ has 64 entries" (§IV-D). A power of two.
	DCQEntries int `yaml:"dcq_entries" doc:"destination candidate queue entries, a power of two (UVMMU §IV-D: 64)"`
	// Watermark starts a refill when the DCQ "goes below a threshold ...
	// the threshold value is 32 entries" (§IV-D).
	Watermark int `yaml:"watermark" doc:"the AFM refills when the DCQ holds fewer entries (UVMMU §IV-D: 32)"`
	// RefillTo is where a refill stops: "AFM repeats this procedure over
	// chunks until DCQ has more entries than the threshold" (§IV-D), so
	// Watermark+1, a region at a time (a region adds up to 32, which 64
	// entries always hold). DCQEntries fills the queue instead.
	RefillTo int `yaml:"refill_to" doc:"a refill stops once the DCQ holds this many entries (UVMMU §IV-D: more than the threshold, 33; dcq_entries fills it)"`
	// FrABWordBits is the FrAB SRAM's access width: "a wide SRAM (e.g.,
	// 256-bit) to check multiple regions with single access" (§IV-D). A
	// power of two.
	FrABWordBits int `yaml:"frab_word_bits" doc:"FrAB SRAM word in bits = regions checked per read, a power of two (UVMMU §IV-D: 256)"`
	// FrABReadCycles is one FrAB SRAM read. No source; chosen 1 (a
	// 40 Kb single-port SRAM at the GPU clock).
	FrABReadCycles int `yaml:"frab_read_cycles" doc:"cycles per FrAB SRAM read (no source; 1)"`
	// IPgTReadCycles is one IPgT read from GPU DRAM, where the table lives
	// (§IV-B1): a region's 32 entries (256 B) or one victim's entry. No
	// source; chosen 100, the cycles this simulator charges per
	// page-table level, a DRAM access by the MMU (gmmu level_cycles, GRIT
	// Table I). IPgT writes are posted and cost no AFM time.
	IPgTReadCycles int `yaml:"ipgt_read_cycles" doc:"cycles per IPgT read in GPU DRAM (no source; 100 = gmmu.level_cycles)"`
	// PushCycles is the AFM's time to write one DCQ entry. No source;
	// chosen 1.
	PushCycles int `yaml:"push_cycles" doc:"AFM cycles per DCQ entry written (no source; 1)"`
	// VictimTries is how many PRNG draws the AFM makes for one victim
	// before it probes frame-groups in order from the last draw. The paper
	// redraws on a protected frame-group with no bound (§IV-D); no source,
	// chosen 8 (eviction's redraws), which bounds a refill's time when
	// most frame-groups are protected or busy.
	VictimTries int `yaml:"victim_tries" doc:"PRNG draws per victim before a linear probe (no source; 8)"`
	// PageBytes is the base page: the critical page's size. 4 KB, not
	// stated in the paper, which speaks of pages within a 64 KB page-group
	// (§II-A, §IV) without giving their size; chosen: the GPU's small page.
	PageBytes units.Bytes `yaml:"page_bytes" doc:"base page, the critical page's size (UVMMU: 4KB)"`
	// GroupBytes is the page-group / frame-group, the migration unit:
	// "64KB as the migration granularity" (§IV).
	GroupBytes units.Bytes `yaml:"group_bytes" doc:"page-group = frame-group, the migration and swap unit (UVMMU §IV: 64KB)"`
	// RegionBytes is a FrAB bit's frame-region: "32 64KB frame-groups into
	// a 2MB frame-region" (§IV-B2).
	RegionBytes units.Bytes `yaml:"region_bytes" doc:"frame-region covered by one FrAB bit (UVMMU §IV-B2: 2MB)"`
	// Resume is when the faulting SM gets its PTE: ResumeCritical or
	// ResumeGroup. The paper supports both: the PTE is updated "once the
	// transfer is complete" (§IV-D), yet its 1.3 us per migration needs the
	// critical page alone (§V-A2); chosen critical.
	Resume string `yaml:"resume" doc:"critical (PTE back when the critical page lands; UVMMU's 1.3 us) | group (after the whole group)"`
}

// DefaultConfig returns the paper's values and the choices above.
func DefaultConfig() Config {
	return Config{HandlingCycles: 10, DCQEntries: 64, Watermark: 32, RefillTo: 33,
		FrABWordBits: 256, FrABReadCycles: 1, IPgTReadCycles: 100, PushCycles: 1, VictimTries: 8,
		PageBytes: 4 * units.KB, GroupBytes: 64 * units.KB, RegionBytes: 2 * units.MB, Resume: ResumeCritical}
}

// PagesPerGroup is GroupBytes/PageBytes (16 by default).
func (c Config) PagesPerGroup() int { return int(c.GroupBytes / c.PageBytes) }

// GroupsPerRegion is RegionBytes/GroupBytes (32 by default).
func (c Config) GroupsPerRegion() int { return int(c.RegionBytes / c.GroupBytes) }

func powerOfTwo(key string, v uint64, paper string) error {
	if v == 0 || v&(v-1) != 0 {
		return fmt.Errorf("uvmmu %s %d: must be a power of two (UVMMU: %s)", key, v, paper)
	}
	return nil
}

func nonNegative(key string, v int, paper string) error {
	if v < 0 {
		return fmt.Errorf("uvmmu %s %d: must be >= 0 (%s)", key, v, paper)
	}
	return nil
}

// Validate checks every field and names the first bad one by its key.
func (c Config) Validate() error {
	for _, e := range []error{
		nonNegative("handling_cycles", c.HandlingCycles, "UVMMU: 10"),
		powerOfTwo("dcq_entries", uint64(max(c.DCQEntries, 0)), "64"),
		powerOfTwo("frab_word_bits", uint64(max(c.FrABWordBits, 0)), "256"),
		nonNegative("frab_read_cycles", c.FrABReadCycles, "no source; 1"),
		nonNegative("ipgt_read_cycles", c.IPgTReadCycles, "no source; 100"),
		nonNegative("push_cycles", c.PushCycles, "no source; 1"),
		powerOfTwo("page_bytes", uint64(c.PageBytes), "4KB"),
		powerOfTwo("group_bytes", uint64(c.GroupBytes), "64KB"),
		powerOfTwo("region_bytes", uint64(c.RegionBytes), "2MB"),
	} {
		if e != nil {
			return e
		}
	}
	switch {
	case c.Watermark < 1 || c.Watermark >= c.DCQEntries:
		return fmt.Errorf("uvmmu watermark %d: must be in 1..dcq_entries-1 (%d) (UVMMU: 32 of 64)", c.Watermark, c.DCQEntries-1)
	case c.RefillTo <= c.Watermark || c.RefillTo > c.DCQEntries:
		return fmt.Errorf("uvmmu refill_to %d: must be in watermark+1..dcq_entries (%d..%d) (UVMMU: 33)", c.RefillTo, c.Watermark+1, c.DCQEntries)
	case c.FrABWordBits > 1<<16:
		return fmt.Errorf("uvmmu frab_word_bits %d: must be at most 65536 (UVMMU: 256)", c.FrABWordBits)
	case c.VictimTries < 1:
		return fmt.Errorf("uvmmu victim_tries %d: must be >= 1 (no source; 8)", c.VictimTries)
	case c.GroupBytes < c.PageBytes || c.PagesPerGroup() > MaxPagesPerGroup:
		return fmt.Errorf("uvmmu group_bytes %v: must hold 1..%d pages of page_bytes %v (UVMMU: 64KB = 16 x 4KB)", c.GroupBytes, MaxPagesPerGroup, c.PageBytes)
	case c.RegionBytes < c.GroupBytes || c.GroupsPerRegion() > 1<<16:
		return fmt.Errorf("uvmmu region_bytes %v: must hold 1..65536 groups of group_bytes %v (UVMMU: 2MB = 32 x 64KB)", c.RegionBytes, c.GroupBytes)
	case c.Resume != ResumeCritical && c.Resume != ResumeGroup:
		return fmt.Errorf("uvmmu resume %q: valid values are %s", c.Resume, strings.Join([]string{ResumeCritical, ResumeGroup}, ", "))
	}
	return nil
}

// Setup is what one GPU's unit needs from the platform, beside Config.
type Setup struct {
	// Frames is the GPU memory in frame-groups (memory / GroupBytes;
	// FramesFor).
	Frames uint32
	// Protected frame-groups (the top Protected ones) hold non-UM memory
	// (cudaMalloc, capacity ballast): the IPgT P flag, set at bring-up
	// (§IV-C). They are never handed out nor evicted.
	Protected uint32
	// ClockMHz is the GPU clock every cycle count runs at (gpu.freq_mhz;
	// UVMMU Table I: 1481).
	ClockMHz float64
	// Seed and Stream seed the victim PRNG (a PCG); give each GPU its own
	// Stream.
	Seed, Stream uint64
	// Start is bring-up time: the AFM's first refill starts then.
	Start sim.VTimeInSec
}

// FramesFor is the number of frame-groups in memory bytes of GPU memory.
func FramesFor(memory units.Bytes, c Config) uint32 {
	n := uint64(memory / c.GroupBytes)
	return uint32(min(n, math.MaxUint32))
}

// Validate checks the setup.
func (s Setup) Validate() error {
	switch {
	case s.Frames == 0:
		return fmt.Errorf("uvmmu: 0 frame-groups: the GPU memory must hold at least one page-group")
	case s.Protected >= s.Frames:
		return fmt.Errorf("uvmmu: %d of %d frame-groups protected: at least one must be left for unified memory", s.Protected, s.Frames)
	case !(s.ClockMHz > 0) || math.IsInf(s.ClockMHz, 1):
		return fmt.Errorf("uvmmu: clock %v MHz: must be a finite number > 0 (UVMMU Table I: 1481)", s.ClockMHz)
	case math.IsNaN(float64(s.Start)) || s.Start < 0:
		return fmt.Errorf("uvmmu: start time %v: must be >= 0", s.Start)
	}
	return nil
}
