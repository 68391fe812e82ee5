package griffin

import (
	"reflect"
	"testing"
)

func TestClassify(t *testing.T) {
	type note struct {
		gpu  int
		page uint64
	}
	cases := []struct {
		name  string
		share float64
		notes []note
		want  []Move
		stats Stats
	}{
		{"private page goes to its only accessor", 0.5, []note{{2, 7}, {2, 7}}, []Move{{2, 7}},
			Stats{Epochs: 1, Notifications: 2, Private: 1}},
		{"a strict majority dominates", 0.5, []note{{1, 3}, {1, 3}, {0, 3}}, []Move{{1, 3}},
			Stats{Epochs: 1, Notifications: 3, Dominant: 1}},
		{"an even split stays", 0.5, []note{{1, 3}, {0, 3}}, nil,
			Stats{Epochs: 1, Notifications: 2, Shared: 1}},
		{"a plurality is not a majority", 0.5, []note{{0, 9}, {0, 9}, {1, 9}, {2, 9}}, nil,
			Stats{Epochs: 1, Notifications: 4, Shared: 1}},
		{"a lower share lets a plurality dominate", 0.4, []note{{0, 9}, {0, 9}, {1, 9}, {2, 9}}, []Move{{0, 9}},
			Stats{Epochs: 1, Notifications: 4, Dominant: 1}},
		{"moves come in page order", 0.5, []note{{3, 40}, {1, 2}, {0, 17}}, []Move{{1, 2}, {0, 17}, {3, 40}},
			Stats{Epochs: 1, Notifications: 3, Private: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := New(Config{EpochNs: 100, Share: c.share}, 4)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range c.notes {
				d.Notify(n.gpu, []uint64{n.page})
			}
			got := d.Close(100)
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("moves %v, want %v", got, c.want)
			}
			if d.Stats() != c.stats {
				t.Errorf("stats %+v, want %+v", d.Stats(), c.stats)
			}
		})
	}
}

// An epoch forgets the one before: counts never carry over, and the next
// boundary is the first after the close.
func TestEpochs(t *testing.T) {
	d, _ := New(Config{EpochNs: 100, Share: 0.5}, 2)
	if d.Due(99) || !d.Due(100) {
		t.Fatal("the first epoch ends at EpochNs")
	}
	d.Notify(0, []uint64{5})
	if m := d.Close(250); len(m) != 1 {
		t.Fatalf("moves %v", m)
	}
	if d.Due(299) || !d.Due(300) {
		t.Fatal("after a close at 250 the next epoch ends at 300")
	}
	d.Notify(1, []uint64{5})
	d.Notify(0, []uint64{6})
	d.Notify(1, []uint64{6})
	// Page 5 is private to GPU 1 in this epoch, whatever GPU 0 did before.
	if m := d.Close(300); !reflect.DeepEqual(m, []Move{{1, 5}}) {
		t.Fatalf("moves %v, want page 5 to GPU 1 only", m)
	}
	// A close long after the last boundary jumps to the next one at once
	// (a 1 ns epoch in a run of seconds must not step through them).
	d.Close(1e12 + 50)
	if d.Due(1e12+99) || !d.Due(1e12+100) {
		t.Fatal("after a close at 1e12+50 the next epoch ends at 1e12+100")
	}
	if m := d.Close(2e12); len(m) != 0 || d.Stats().Epochs != 2 {
		t.Fatalf("an empty epoch moves nothing and is not counted: %v %+v", m, d.Stats())
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{EpochNs: 0, Share: 0.5}, {EpochNs: -1, Share: 0.5}, {EpochNs: 10, Share: 1}, {EpochNs: 10, Share: -0.1}} {
		if _, err := New(c, 4); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if _, err := New(DefaultConfig(), 0); err == nil {
		t.Error("0 GPUs accepted")
	}
}
