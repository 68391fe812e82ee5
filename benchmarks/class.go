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

// Classes lists the values Info.Class may take besides "".
func Classes() []string { return []string{ClassRegular, ClassIrregular, ClassMixed} }

// ClassOf returns w's class (Info.Class), or "" when it has none.
func ClassOf(w Workload) string { return w.Info().Class }
