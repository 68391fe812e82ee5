package gmmu

// Config holds the GPU memory-management unit's parameters (OASIS Table I /
// GRIT Table I).
type Config struct {
	// 8 shared page-table walkers (GRIT Table I).
	Walkers int `yaml:"walkers" doc:"page-table walkers per GPU (GRIT Table I: 8)"`
	// 4-level radix table, 100 cycles per level (GRIT Table I).
	Levels      int `yaml:"levels" doc:"page-table levels (x86-64/GRIT: 4)"`
	LevelCycles int `yaml:"level_cycles" doc:"cycles per page-table level (GRIT Table I: 100)"`
	// Page-walk cache of 128 entries (GRIT Table I); it caches upper-level
	// entries, so a hit skips the levels above the leaf.
	PWCEntries int `yaml:"pwc_entries" doc:"page-walk cache entries (GRIT Table I: 128)"`
	PWCWays    int `yaml:"pwc_ways" doc:"page-walk cache associativity (not in papers; 8)"`
}

// DefaultConfig returns GRIT Table I.
func DefaultConfig() Config {
	return Config{Walkers: 8, Levels: 4, LevelCycles: 100, PWCEntries: 128, PWCWays: 8}
}
