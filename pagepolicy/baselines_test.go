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
		d := mustNew(t, c.policy).Decide(c.fault, c.page)
		if d.Action != c.want || d.Bits != c.bits {
			t.Errorf("%s on %+v / %+v: %v %v, want %v %v", c.policy, c.fault, c.page, d.Action, d.Bits, c.want, c.bits)
		}
	}
	if tr, err := TraitsOf("ideal"); err != nil || !tr.Incoherent {
		t.Error("ideal must declare itself a bound")
	}
	if tr, _ := TraitsOf("duplication"); tr.Incoherent {
		t.Error("duplication is a coherent mechanism")
	}
}

// mustNew builds a policy over an 8-page table of host pages.
func mustNew(t *testing.T, name string) Policy {
	t.Helper()
	p, err := New(name, DefaultConfig(), Env{Table: hostTable(8)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hostTable is a table of n pages that all live on the host.
func hostTable(n int) table {
	t := make(table, n)
	for i := range t {
		t[i] = Page{Owner: Host}
	}
	return t
}
