package benchmarks

// AliasesOf returns the papers' labels for w (Info.Aliases), or nil when
// it has none.
func AliasesOf(w Workload) []string { return w.Info().Aliases }

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
