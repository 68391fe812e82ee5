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
		{"access-counter", Fault{GPU: 1}, host, MapRemote, AccessCounter}, // zero-copy until the threshold (policy.ac_host)
		{"access-counter", Fault{GPU: 1}, single, MapRemote, AccessCounter},
		{"access-counter", Fault{GPU: 1, Write: true}, single, MapRemote, AccessCounter},
		{"duplication", Fault{GPU: 1}, single, Duplicate, Duplication},
		{"duplication", Fault{GPU: 1}, host, Duplicate, Duplication},
		{"duplication", Fault{GPU: 1, Write: true, Protection: true}, replicated, Collapse, Duplication},
		{"duplication", Fault{GPU: 2, Write: true}, replicated, Collapse, Duplication},
		{"duplication", Fault{GPU: 1, Write: true}, single, Duplicate, Duplication}, // read-only first copy (OASIS §IV-B)
		{"ideal", Fault{GPU: 1, Write: true}, replicated, LocalCopy, Duplication},
		{"ideal", Fault{GPU: 1}, host, LocalCopy, Duplication},
	}
	for _, c := range cases {
		d := mustNew(t, c.policy).Decide(c.fault, c.page)
		if d.Action != c.want || d.Bits != c.bits {
			t.Errorf("%s on %+v / %+v: %v %v, want %v %v", c.policy, c.fault, c.page, d.Action, d.Bits, c.want, c.bits)
		}
	}
	if d := mustNew(t, "access-counter").Decide(Fault{GPU: 1}, host); !d.HostRemote {
		t.Error("access-counter must allow the host page to stay on the host")
	}
	c := DefaultConfig()
	c.ACHost = ACHostMigrate
	if p, err := New("access-counter", c, Env{Table: hostTable(8)}); err != nil {
		t.Fatal(err)
	} else if d := p.Decide(Fault{GPU: 1}, host); d.Action != Migrate || d.HostRemote {
		t.Errorf("ac_host=migrate: %+v, want a first-touch migration", d)
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

// OASIS §IV-B: under duplication a first write makes a read-only copy, so
// the replayed write takes a protection fault and collapses.
func TestDuplicationReadOnlyFirstCopy(t *testing.T) {
	c := DefaultConfig()
	c.DupWriteFirst = DupReadOnlyCopy
	{
		p, err := New("duplication", c, Env{Table: hostTable(8)})
		if err != nil {
			t.Fatal(err)
		}
		for _, pg := range []Page{{Owner: Host}, {Owner: 0, Copies: 0b1}} {
			if d := p.Decide(Fault{GPU: 1, Write: true}, pg); d.Action != Duplicate {
				t.Errorf("first write on %+v: %v, want a read-only copy", pg, d.Action)
			}
		}
		if d := p.Decide(Fault{GPU: 1, Write: true, Protection: true}, Page{Owner: 1, Copies: 0b10}); d.Action != Collapse {
			t.Errorf("the write to the read-only copy: %v, want collapse", d.Action)
		}
	}
}

// TestEvictedMapping: only access-counter with ac_evict=remote maps an
// evicted page back, remotely on the host and counted; every other policy,
// and access-counter by default, leaves it unmapped.
func TestEvictedMapping(t *testing.T) {
	evicted := Page{Owner: Host, Bits: Duplication}
	for _, name := range Names() {
		for _, evict := range []string{ACEvictUnmap, ACEvictRemote} {
			c := DefaultConfig()
			c.ACEvict = evict
			p, err := New(name, c, Env{Table: hostTable(8)})
			if err != nil {
				t.Fatal(err)
			}
			d, ok := p.Evicted(evicted)
			want := name == "access-counter" && evict == ACEvictRemote
			if ok != want {
				t.Errorf("%s, ac_evict=%s: maps the evicted page %v, want %v", name, evict, ok, want)
			}
			if ok && (d.Action != MapRemote || !d.HostRemote || d.Bits != AccessCounter) {
				t.Errorf("%s: %+v, want a counted remote mapping of the host copy", name, d)
			}
		}
	}
}
