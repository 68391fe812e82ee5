package pagepolicy

import "github.com/mgpu-sim/mgpu/units"

// Config holds the policy parameters shared by the page-management schemes.
type Config struct {
	// Access-counter threshold: 256 remote accesses (OASIS Table I, GRIT
	// §II-B, NVIDIA uvm_perf_access_counter_threshold).
	ACThreshold int `yaml:"ac_threshold" doc:"remote accesses per group that trigger migration (OASIS Table I: 256)"`
	// Counter group: 64 KB (GRIT §II-B). 2MB selects the driver's default
	// tracking granularity with 32 sub-regions (notes §3.4).
	ACGroup units.Bytes `yaml:"ac_group" doc:"access-counter group size: 64KB (GRIT) or 2MB with 32 sub-regions (driver)"`
}

// DefaultConfig returns the OASIS/GRIT defaults.
func DefaultConfig() Config {
	return Config{ACThreshold: 256, ACGroup: 64 * units.KB}
}
