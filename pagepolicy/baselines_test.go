package pagepolicy

import "testing"

func TestBaselineDecisions(t *testing.T) {
	host := Page{Owner: Host}
	single := Page{Owner: 0, Copies: 0b1}
	replicated := Page{Owner: 0, Copies: 0b11, Bits: Duplication}
	cases := []struct {
		policy string
		fault  Fault
		page   Page
		want   Action
		bits   Bits
	}{
		{"access-counter", Fault{GPU: 1}, host, Migrate, AccessCounter},
		{"access-counter", Fault{GPU: 1}, single, MapRemote, AccessCounter},
		{"access-counter", Fault{GPU: 1, Write: true}, single, MapRemote, AccessCounter},
		{"duplication", Fault{GPU: 1}, single, Duplicate, Duplication},
		{"duplication", Fault{GPU: 1}, host, Duplicate, Duplication},
		{"duplication", Fault{GPU: 1, Write: true, Protection: true}, replicated, Collapse, Duplication},
		{"duplication", Fault{GPU: 2, Write: true}, replicated, Collapse, Duplication},
		{"duplication", Fault{GPU: 1, Write: true}, single, Migrate, Duplication},
		{"ideal", Fault{GPU: 1, Write: true}, replicated, LocalCopy, Duplication},
		{"ideal", Fault{GPU: 1}, host, LocalCopy, Duplication},
	}
	for _, c := range cases {
		p, err := New(c.policy, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		d := p.Decide(c.fault, c.page)
		if d.Action != c.want || d.Bits != c.bits {
			t.Errorf("%s on %+v / %+v: %v %v, want %v %v", c.policy, c.fault, c.page, d.Action, d.Bits, c.want, c.bits)
		}
	}
	if b, ok := mustNew(t, "ideal").(Incoherent); !ok || !b.Incoherent() {
		t.Error("ideal must declare itself a bound")
	}
	if _, ok := mustNew(t, "duplication").(Incoherent); ok {
		t.Error("duplication is a coherent mechanism")
	}
}

func mustNew(t *testing.T, name string) Policy {
	p, err := New(name, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return p
}
