package benchmarks

// Aliased is a workload with the abbreviations papers use for it (MM, GMM,
// SRK, ...). It is optional. `mgpu list` shows the aliases, and New accepts
// them, so a command line can follow a paper's figure labels.
type Aliased interface {
	// Aliases are the papers' names, each unique across the registry.
	Aliases() []string
}

// EvictionPreferring is a workload whose eviction policy of choice a paper
// names (ObservUVM Table II and §VI-A: LRU, LFU or CP). It is optional.
type EvictionPreferring interface {
	// PreferredEviction is the policy's paper name ("lru", "lfu", "cp")
	// and where the paper says so ("ObservUVM Table II").
	PreferredEviction() (policy, source string)
}

// AliasesOf returns w's aliases, or nil when w has none.
func AliasesOf(w Workload) []string {
	if a, ok := w.(Aliased); ok {
		return a.Aliases()
	}
	return nil
}

// aliasOf maps each alias to its workload's registered name. It is filled
// lazily, after every init has registered.
var aliasOf map[string]string

func resolveAlias(name string) (string, bool) {
	if aliasOf == nil {
		aliasOf = map[string]string{}
		for _, n := range Names() {
			for _, a := range AliasesOf(registry[n]()) {
				if other, dup := aliasOf[a]; dup {
					panic("benchmarks: alias " + a + " used by " + other + " and " + n)
				}
				if _, clash := registry[a]; clash {
					panic("benchmarks: alias " + a + " of " + n + " is a workload name")
				}
				aliasOf[a] = n
			}
		}
	}
	n, ok := aliasOf[name]
	return n, ok
}
