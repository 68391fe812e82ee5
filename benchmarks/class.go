package benchmarks

// Access-pattern classes of Early-Adaptor (Go et al., ISPASS 2023, Table
// II), which sorts its benchmarks by how they touch 2 MB VABlocks:
//
//   - regular: dense accesses to a small number of VABlocks at a time;
//   - irregular: sparse accesses, generated consistently across a wide
//     range of VABlocks;
//   - mixed: both patterns, in different ranges of VABlocks.
const (
	ClassRegular   = "regular"
	ClassIrregular = "irregular"
	ClassMixed     = "mixed"
)

// Classes lists the values a Classed workload may return.
func Classes() []string { return []string{ClassRegular, ClassIrregular, ClassMixed} }

// Classed is a workload with an Early-Adaptor access-pattern class. It is
// optional: the OASIS and synthetic workloads have none. Each Classed
// workload's doc comment says whether its class is Early-Adaptor's own or
// assigned here from its access pattern.
type Classed interface {
	// Class is one of ClassRegular, ClassIrregular, ClassMixed.
	Class() string
}

// ClassOf returns w's class, or "" when w is not Classed.
func ClassOf(w Workload) string {
	if c, ok := w.(Classed); ok {
		return c.Class()
	}
	return ""
}
