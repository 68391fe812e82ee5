package gmmu

import (
	"strings"
	"testing"
)

// Frames are handed out lowest first, a page keeps its frame, a freed
// frame is reused, a full memory refuses with an error, and each GPU's
// frames are dense from (GPU+1)·Span.
func TestFrames(t *testing.T) {
	f, err := NewFrames(2, 16, 3*4096, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if f.Span() != 4*4096 {
		t.Fatalf("span %d, want 3 pages rounded up to 4", f.Span())
	}
	steps := []struct {
		op   string
		gpu  int
		page uint64
		want uint64 // the page's address after the step; 0: none
		err  string
	}{
		{"place", 0, 7, 1*4*4096 + 0, ""},
		{"place", 0, 9, 1*4*4096 + 4096, ""},
		{"place", 0, 7, 1*4*4096 + 0, ""}, // kept
		{"place", 1, 7, 2*4*4096 + 0, ""}, // a replica on GPU 1
		{"release", 0, 7, 0, ""},
		{"place", 0, 5, 1*4*4096 + 0, ""}, // GPU 0's frame 0 again
		{"place", 0, 6, 1*4*4096 + 2*4096, ""},
		{"place", 0, 8, 0, "GPU 0 has no free frame for page 8: its memory holds 3 pages"},
	}
	for i, s := range steps {
		var err error
		if s.op == "place" {
			err = f.Place(s.gpu, s.page)
		} else {
			f.Release(s.gpu, s.page)
		}
		if s.err != "" {
			if err == nil || !strings.Contains(err.Error(), s.err) {
				t.Fatalf("step %d: %v, want %q", i, err, s.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		got, ok := f.Addr(s.gpu, s.page)
		if s.want == 0 {
			if ok {
				t.Fatalf("step %d: page %d still has a frame on GPU %d", i, s.page, s.gpu)
			}
			continue
		}
		if !ok || got != s.want {
			t.Fatalf("step %d: page %d on GPU %d at %#x (%v), want %#x", i, s.page, s.gpu, got, ok, s.want)
		}
	}
	if f.Held(0) != 3 || f.Held(1) != 1 {
		t.Fatalf("held %d and %d frames, want 3 and 1", f.Held(0), f.Held(1))
	}
	for _, c := range []struct {
		gpus      int
		mem, page uint64
		want      string
	}{{0, 4096, 4096, "at least 1"}, {1, 4096, 3000, "power of two"}, {1, 100, 4096, "holds no"}} {
		if _, err := NewFrames(c.gpus, 16, c.mem, c.page); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewFrames(%d, %d, %d): %v, want %q", c.gpus, c.mem, c.page, err, c.want)
		}
	}
}
