package eviction

// Switch is a policy that a runtime can change mid-run (UVMSmart turns on
// tree eviction at oversubscription). Both policies see every placement,
// removal and access from the start, so the second knows the resident set
// the moment it takes over.
type Switch struct {
	first, second Policy
	// touch are the policies that want every access, found once: Touch
	// is on the per-access path.
	touch []Toucher
	on    bool
}

// NewSwitch returns a Switch that picks victims with first until Use.
func NewSwitch(first, second Policy) *Switch {
	s := &Switch{first: first, second: second}
	for _, p := range []Policy{first, second} {
		if t, ok := p.(Toucher); ok {
			s.touch = append(s.touch, t)
		}
	}
	return s
}

// Use hands victim choice to the second policy, for good.
func (s *Switch) Use() { s.on = true }

// Switched reports whether the second policy chooses.
func (s *Switch) Switched() bool { return s.on }

func (s *Switch) Placed(g int, p uint64) {
	s.first.Placed(g, p)
	s.second.Placed(g, p)
}

func (s *Switch) Removed(g int, p uint64) {
	s.first.Removed(g, p)
	s.second.Removed(g, p)
}

// Touch passes an access to whichever policy wants it.
func (s *Switch) Touch(g int, p uint64) {
	for _, t := range s.touch {
		t.Touch(g, p)
	}
}

func (s *Switch) Victims(g, n int, pinned func(uint64) bool, dst []uint64) []uint64 {
	if s.on {
		return s.second.Victims(g, n, pinned, dst)
	}
	return s.first.Victims(g, n, pinned, dst)
}
