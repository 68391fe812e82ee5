package suv

import (
	"reflect"
	"slices"
	"testing"
)

func TestSCRanksByTotalCountWholeStructures(t *testing.T) {
	// counts: M 64MB x 1 = 64M, v 1MB x 20 = 20M, w 4MB x 8 = 32M,
	// s 2MB x 1 = 2M, T 40MB x 2 = 80M (temporal: SC cannot tell), p pointer chase.
	objs := []Object{{"M", 64 * mb}, {"v", mb}, {"w", 4 * mb}, {"s", 2 * mb}, {"T", 40 * mb}, {"p", 8 * mb}}
	hs := Hints{
		{Object: "M", Density: 1}, {Object: "v", Density: 20}, {Object: "w", Density: 8},
		{Object: "s", Density: 1}, {Object: "T", Class: Temporal, Density: 2, WSSBytes: 4 * mb}, {Object: "p", Class: Unknown},
	}
	for _, tc := range []struct {
		avail   int64
		hbm     []string // pinned whole on HBM
		host    []string // pinned whole on the host
		reasons map[string]string
	}{
		// Rank T, M, w, v, s. 48MB: T fits (8 left); M does not; w fits (4 left); v fits (3); s fits (1).
		{48 * mb, []string{"T", "w", "v", "s"}, []string{"M"}, nil},
		// 42MB: T (2 left); M, w no; v fits (1 left); s no.
		{42 * mb, []string{"T", "v"}, []string{"M", "w", "s"}, nil},
		{110 * mb, []string{"T", "M", "w", "v"}, []string{"s"}, nil},
		{0, nil, []string{"T", "M", "w", "v", "s"}, nil},
		{1 << 40, []string{"T", "M", "w", "v", "s"}, nil, nil},
	} {
		p, err := PlanSC(DefaultConfig(), tc.avail, objs, hs)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Verify(); err != nil {
			t.Fatal(err)
		}
		var hbm, host []string
		for _, a := range p.Actions {
			size := objs[slices.IndexFunc(objs, func(o Object) bool { return o.Name == a.Object })].Bytes
			if a.Range != (Range{Len: size}) {
				t.Errorf("avail %d: %v splits %s", tc.avail, a, a.Object)
			}
			switch a.Kind {
			case PinHBM:
				hbm = append(hbm, a.Object)
			case PinHost:
				host = append(host, a.Object)
			default:
				t.Errorf("avail %d: SC issued %v", tc.avail, a)
			}
		}
		if !reflect.DeepEqual(hbm, tc.hbm) || !reflect.DeepEqual(host, tc.host) {
			t.Errorf("avail %d: HBM %v host %v, want %v and %v", tc.avail, hbm, host, tc.hbm, tc.host)
		}
		if got := kindsOf(p, "p"); got != nil {
			t.Errorf("avail %d: pointer chase got %v, want no action", tc.avail, got)
		}
	}
}

// TestSCVersusSUVOnMVT is §VI-B's MVT observation: SC puts the big,
// low-density matrix on HBM because its total count is highest; SUV pins
// the dense vectors first and a prefix of the matrix.
func TestSCVersusSUVOnMVT(t *testing.T) {
	objs := []Object{{"A", 64 * mb}, {"x1", 64 * kb}, {"x2", 64 * kb}, {"y1", 64 * kb}}
	hs := Hints{{Object: "A", Density: 0.5}, {Object: "x1", Density: 128}, {Object: "x2", Density: 128}, {Object: "y1", Density: 64}}
	sc, _ := PlanSC(DefaultConfig(), 64*mb, objs, hs)
	if got := kindsOf(sc, "A"); !slices.Equal(got, []Kind{PinHBM}) || !slices.Equal(kindsOf(sc, "x1"), []Kind{PinHost}) {
		t.Errorf("SC: A %v x1 %v, want A on HBM and the vectors on the host", got, kindsOf(sc, "x1"))
	}
	suv := mustPlan(t, DefaultConfig(), 64*mb, objs, hs)
	for _, v := range []string{"x1", "x2", "y1"} {
		if got := kindsOf(suv, v); !slices.Equal(got, []Kind{PinHBM}) {
			t.Errorf("SUV: %s %v, want it on HBM", v, got)
		}
	}
	if got := kindsOf(suv, "A"); !slices.Equal(got, []Kind{PinHost, PinHBM}) {
		t.Errorf("SUV: A %v, want a prefix on HBM and the rest on the host", got)
	}
}
