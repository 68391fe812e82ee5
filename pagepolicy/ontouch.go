package pagepolicy

// onTouch migrates a page to whichever GPU touches it (GRIT §II-B, OASIS
// §II-B): the baseline every result is normalised to. A write to a
// read-only replica (which on-touch itself never makes) collapses.
type onTouch struct{ Base }

func init() {
	Register("on-touch", Traits{}, func(Config, Env) (Policy, error) { return onTouch{}, nil })
	ReadsKeys("on-touch")
}

func (onTouch) Name() string { return "on-touch" }

func (onTouch) Decide(f Fault, p Page) Decision {
	if f.Protection {
		return Decision{Action: Collapse, Bits: p.Bits}
	}
	return Decision{Action: Migrate, Bits: OnTouch}
}
