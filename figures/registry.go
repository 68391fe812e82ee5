package figures

// registered holds the figures paper by paper. Each paper's file registers
// its builder in an init function, so a new figure touches only its
// paper's file; All, Names and Lookup, and with them mgpu figure --help,
// read this list in registration order: the files' order, one paper after
// another.
var registered []paperFigures

// paperFigures is one paper's builder; doc names docs/<doc>.md, which sets
// the figures beside the paper.
type paperFigures struct {
	doc   string
	build func() []Figure
}

// register adds a paper's figures, described in docs/<doc>.md.
func register(doc string, build func() []Figure) {
	registered = append(registered, paperFigures{doc, build})
}

// All lists the figures, paper by paper.
func All() []Figure {
	var out []Figure
	for _, p := range registered {
		for _, f := range p.build() {
			f.Doc = p.doc
			out = append(out, f)
		}
	}
	return out
}
