package pagepolicy

import (
	"strings"
	"testing"
)

func TestOnTouchMigratesEveryFault(t *testing.T) {
	p := mustNew(t, "on-touch")
	cases := []struct {
		name  string
		fault Fault
		page  Page
		want  Action
	}{
		{"first touch from host", Fault{GPU: 0, Page: 7}, Page{Owner: Host}, Migrate},
		{"read of a page on another GPU", Fault{GPU: 1, Page: 7}, Page{Owner: 0, Copies: 1}, Migrate},
		{"write of a page on another GPU", Fault{GPU: 2, Page: 7, Write: true}, Page{Owner: 0, Copies: 1}, Migrate},
		{"protection fault collapses", Fault{GPU: 1, Page: 7, Write: true, Protection: true}, Page{Owner: 0, Copies: 3, Bits: Duplication}, Collapse},
	}
	for _, c := range cases {
		d := p.Decide(c.fault, c.page)
		if d.Action != c.want {
			t.Errorf("%s: action %v, want %v", c.name, d.Action, c.want)
		}
	}
}

func TestUnknownPolicyNamesValidOnes(t *testing.T) {
	_, err := New("lru-magic", DefaultConfig(), Env{})
	if err == nil || !strings.Contains(err.Error(), "on-touch") {
		t.Fatalf("error %v should list the valid policies", err)
	}
	if _, err := TraitsOf("lru-magic"); err == nil || !strings.Contains(err.Error(), "on-touch") {
		t.Fatalf("TraitsOf: error %v should list the valid policies", err)
	}
}

func TestSharedFault(t *testing.T) {
	cases := []struct {
		page Page
		gpu  int
		want bool
	}{
		{Page{Owner: Host}, 0, false},
		{Page{Owner: 0, Copies: 1}, 0, false},
		{Page{Owner: 0, Copies: 1}, 1, true},
		{Page{Owner: 1, Copies: 0b110}, 2, true},
	}
	for _, c := range cases {
		if got := c.page.Shared(c.gpu); got != c.want {
			t.Errorf("%+v.Shared(%d) = %v, want %v", c.page, c.gpu, got, c.want)
		}
	}
}
