package suv

import (
	"math"
	"strings"
	"testing"
)

const mb = 1 << 20

var hintObjects = []Object{{"A", 64 * mb}, {"x", 4 * mb}, {"y", 4 * mb}}

func iterHint(obj string, it Iteration) Hint {
	return Hint{Object: obj, Class: Iterative, Density: 1, Iter: it}
}

func TestHintsValidateNamesObjectAndKey(t *testing.T) {
	good := Iteration{Index: 0, Count: 64, OffsetBytes: 0, StrideBytes: mb, SpanBytes: mb}
	for _, tc := range []struct {
		name string
		hs   Hints
		want string // "" = valid
	}{
		{"all classes", Hints{{Object: "A", Density: 2, WSSBytes: 8 * mb}, {Object: "x", Class: Unknown}, {Object: "y", Class: Temporal, Density: 9, WSSBytes: mb}}, ""},
		{"iterative", Hints{iterHint("A", good)}, ""},
		{"unknown object", Hints{{Object: "Z", Density: 1}}, `object "Z", which the launch does not have: valid objects are A, x, y`},
		{"twice", Hints{{Object: "x", Density: 1}, {Object: "x", Density: 2}}, `"x": given twice`},
		{"bad class", Hints{{Object: "x", Class: 9, Density: 1}}, `"x": class 9`},
		{"density 0", Hints{{Object: "x", Density: 0}}, `"x": density 0: must be positive`},
		{"density negative", Hints{{Object: "A", Class: Temporal, Density: -1, WSSBytes: mb}}, `"A": density -1`},
		{"density NaN", Hints{{Object: "x", Density: math.NaN()}}, `"x": density NaN`},
		{"density Inf", Hints{{Object: "x", Density: math.Inf(1)}}, `"x": density +Inf`},
		{"iterative density 0", Hints{{Object: "A", Class: Iterative, Iter: good}}, `"A": density 0`},
		{"unknown density 0 ok", Hints{{Object: "x", Class: Unknown}}, ""},
		{"unknown density negative", Hints{{Object: "x", Class: Unknown, Density: -2}}, `"x": density -2: must not be negative`},
		{"wss negative", Hints{{Object: "y", Density: 1, WSSBytes: -4096}}, `"y": wss_bytes -4096`},
		{"temporal without wss", Hints{{Object: "y", Class: Temporal, Density: 1}}, `"y": wss_bytes 0: a temporal hint needs`},
		{"iteration on density", Hints{{Object: "A", Density: 1, Iter: good}}, `"A": iteration`},
		{"count 0", Hints{iterHint("A", Iteration{SpanBytes: mb})}, `"A": iteration.count 0`},
		{"index past count", Hints{iterHint("A", Iteration{Index: 64, Count: 64, StrideBytes: mb, SpanBytes: mb})}, `"A": iteration.index 64: must be in 0..63`},
		{"index negative", Hints{iterHint("A", Iteration{Index: -1, Count: 4, SpanBytes: mb})}, `"A": iteration.index -1`},
		{"span 0", Hints{iterHint("A", Iteration{Count: 4})}, `"A": iteration.span_bytes 0`},
		{"span negative", Hints{iterHint("A", Iteration{Count: 4, SpanBytes: -1})}, `"A": iteration.span_bytes -1`},
		{"span over size", Hints{iterHint("x", Iteration{Count: 1, SpanBytes: 5 * mb})}, `"x": iteration.span_bytes 5242880: must be in 1..4194304`},
		{"offset negative", Hints{iterHint("A", Iteration{Count: 4, OffsetBytes: -1, SpanBytes: mb})}, `"A": iteration.offset_bytes -1`},
		{"offset past end", Hints{iterHint("x", Iteration{Count: 1, OffsetBytes: 4 * mb, SpanBytes: mb})}, `"x": iteration.offset_bytes 4194304`},
		{"stride out", Hints{iterHint("A", Iteration{Count: 65, StrideBytes: mb, SpanBytes: mb})}, `"A": iteration.stride_bytes 1048576: moves the span out`},
		{"stride out backwards", Hints{iterHint("A", Iteration{Count: 2, OffsetBytes: 0, StrideBytes: -mb, SpanBytes: mb})}, `"A": iteration.stride_bytes -1048576`},
		{"stride huge", Hints{iterHint("A", Iteration{Count: 3, StrideBytes: math.MaxInt64 / 2, SpanBytes: mb})}, `"A": iteration.stride_bytes`},
		{"stride backwards ok", Hints{iterHint("A", Iteration{Count: 64, OffsetBytes: 63 * mb, StrideBytes: -mb, SpanBytes: mb})}, ""},
	} {
		err := tc.hs.Validate(hintObjects)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func TestObjectsValidate(t *testing.T) {
	for _, tc := range []struct {
		objs []Object
		want string
	}{
		{[]Object{{"", 1}}, "object 0: the name is empty"},
		{[]Object{{"a", 1}, {"a", 2}}, `"a": listed twice`},
		{[]Object{{"a", 0}}, `"a": size 0 bytes`},
		{[]Object{{"a", -4096}}, `"a": size -4096 bytes`},
	} {
		if err := (Hints{}).Validate(tc.objs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.objs, err, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	c := DefaultConfig()
	const size = 64 * mb
	for _, tc := range []struct {
		name string
		h    Hint
		want Class
	}{
		{"density without wss", Hint{Density: 1}, Density},
		{"density under cutoff is temporal", Hint{Density: 1, WSSBytes: size/2 - 1}, Temporal},
		{"temporal at cutoff is density", Hint{Class: Temporal, Density: 1, WSSBytes: size / 2}, Density},
		{"temporal under cutoff", Hint{Class: Temporal, Density: 1, WSSBytes: size/2 - 1}, Temporal},
		{"unknown stays", Hint{Class: Unknown, WSSBytes: 1}, Unknown},
		{"iterative small span", Hint{Class: Iterative, Density: 1, Iter: Iteration{Count: 64, StrideBytes: mb, SpanBytes: mb}}, Iterative},
		{"iterative one span, not batched", Hint{Class: Iterative, Density: 1, Iter: Iteration{Count: 2, StrideBytes: 32 * mb, SpanBytes: 32 * mb}}, Iterative},
		{"iterative span is the object", Hint{Class: Iterative, Density: 1, Iter: Iteration{Count: 3, SpanBytes: size}}, Density},
		{"iterative batch covers all, temporal wss", Hint{Class: Iterative, Density: 1, WSSBytes: mb, Iter: Iteration{Count: 1, SpanBytes: size}}, Temporal},
	} {
		if got := Classify(c, tc.h, size); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	c.TemporalCutoff = 1
	if got := Classify(c, Hint{Density: 1, WSSBytes: size/2 + 1}, size); got != Temporal {
		t.Errorf("cutoff 1: %v, want temporal", got)
	}
}

func TestClassText(t *testing.T) {
	for k := Density; k <= Unknown; k++ {
		b, err := k.MarshalText()
		var back Class
		if err != nil || back.UnmarshalText(b) != nil || back != k {
			t.Errorf("%v: %q %v, back %v", k, b, err, back)
		}
	}
	var c Class
	if err := c.UnmarshalText([]byte("dense")); err == nil || !strings.Contains(err.Error(), `"dense": valid classes are density`) {
		t.Errorf("bad name: %v", err)
	}
	if _, err := Class(7).MarshalText(); err == nil {
		t.Error("class 7 marshalled")
	}
}
