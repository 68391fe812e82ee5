package suv

import (
	"fmt"
	"math"
	"strings"
)

// Class is a structure's tag in one launch (§V-A, §V-B, Table I).
type Class uint8

// Classes. Density is the zero value because it is SUV's default: every
// structure starts as Density and is re-classified by its access pattern.
const (
	// Density: placed by access density, pinned on HBM while space
	// remains (a prefix may be pinned), the rest pinned on the host.
	Density Class = iota
	// Temporal: the workgroups resident at once touch less than
	// TemporalCutoff of the structure; dense ones get a pool of WSS bytes
	// and migrate on demand into it.
	Temporal
	// Iterative: a kernel launched in a host loop touches a span that
	// moves with the loop's induction variable; the span is prefetched and
	// pinned at iteration boundaries and the previous one evicted.
	Iterative
	// Unknown: pointer chase or data-dependent loop bounds; the structure
	// gets an HBM share in proportion to its size and access-counter
	// migration into it.
	Unknown
)

func (c Class) String() string {
	switch c {
	case Density:
		return "density"
	case Temporal:
		return "temporal"
	case Iterative:
		return "iterative"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// MarshalText writes the class's name, for result files.
func (c Class) MarshalText() ([]byte, error) {
	if c > Unknown {
		return nil, fmt.Errorf("suv class %d: not a class", uint8(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads a class's name, for hints kept in files.
func (c *Class) UnmarshalText(b []byte) error {
	for k := Density; k <= Unknown; k++ {
		if string(b) == k.String() {
			*c = k
			return nil
		}
	}
	return fmt.Errorf("suv class %q: valid classes are density, temporal, iterative, unknown", b)
}

// Object is one allocation a launch may touch: the simulator's
// objtable.Object name and size.
type Object struct {
	Name  string
	Bytes int64
}

// Iteration describes an Iterative structure's per-iteration span, as
// SUV-Host evaluates the memop's expression tree with the host induction
// variable (§V-B "Calculating span"): iteration i touches
// [OffsetBytes + i*StrideBytes, that + SpanBytes). SUV evaluates only the
// current iteration; the affine form is what its released prefetcher
// assumes to batch the next ones (penguin-suv.h penguinSuperPrefetch).
// When several memops move with the iteration, declare their hull.
type Iteration struct {
	// Index is this launch's iteration, 0-based; Count is the trip count.
	Index int `yaml:"index"`
	Count int `yaml:"count"`
	// OffsetBytes is the span's start at iteration 0; StrideBytes its move
	// per iteration (may be negative); SpanBytes its length.
	OffsetBytes int64 `yaml:"offset_bytes"`
	StrideBytes int64 `yaml:"stride_bytes"`
	SpanBytes   int64 `yaml:"span_bytes"`
}

// offset is the span's start at iteration i.
func (it Iteration) offset(i int) int64 { return it.OffsetBytes + int64(i)*it.StrideBytes }

// Hint is what SUV's passes know of one object in one launch.
type Hint struct {
	Object string `yaml:"object"`
	// Class is the declared tag. Density and Temporal are both
	// "analysable": the WSS and TemporalCutoff decide between them, as
	// SUV-Host does (Classify), so a cutoff sweep needs no new hints.
	// Declare WSSBytes 0 for an indirect access, whose WSS SUV cannot
	// compute: it stays Density.
	Class Class `yaml:"class"`
	// Density is accesses per byte in this launch: thread-level accesses
	// (grid threads x trip counts x branch fraction, summed over memops)
	// over the object's size. Must be positive except for Unknown, where
	// it cannot be computed and is ignored.
	Density float64 `yaml:"density"`
	// WSSBytes is the bytes the concurrently resident workgroups touch
	// (per-workgroup range x concurrent workgroups); 0: not computed.
	WSSBytes int64 `yaml:"wss_bytes"`
	// Iter is set for, and only for, an Iterative hint.
	Iter Iteration `yaml:"iteration"`
}

// Hints are one launch's hints, at most one per object.
type Hints []Hint

// ValidateObjects checks a launch's object list: names unique and
// non-empty, sizes positive.
func ValidateObjects(objects []Object) error {
	seen := make(map[string]bool, len(objects))
	for i, o := range objects {
		if o.Name == "" {
			return fmt.Errorf("suv object %d: the name is empty", i)
		}
		if seen[o.Name] {
			return fmt.Errorf("suv object %q: listed twice", o.Name)
		}
		seen[o.Name] = true
		if o.Bytes <= 0 {
			return fmt.Errorf("suv object %q: size %d bytes: must be positive", o.Name, o.Bytes)
		}
	}
	return nil
}

// Validate checks every hint against the launch's objects and names the
// first bad object and key.
func (hs Hints) Validate(objects []Object) error {
	if err := ValidateObjects(objects); err != nil {
		return err
	}
	size := make(map[string]int64, len(objects))
	names := make([]string, len(objects))
	for i, o := range objects {
		size[o.Name], names[i] = o.Bytes, o.Name
	}
	seen := make(map[string]bool, len(hs))
	for _, h := range hs {
		n, ok := size[h.Object]
		if !ok {
			return fmt.Errorf("suv hint names object %q, which the launch does not have: valid objects are %s", h.Object, strings.Join(names, ", "))
		}
		if seen[h.Object] {
			return fmt.Errorf("suv hint for %q: given twice; one hint per object and launch", h.Object)
		}
		seen[h.Object] = true
		if err := h.validate(n); err != nil {
			return err
		}
	}
	return nil
}

// validate checks h for an object of size bytes.
func (h Hint) validate(size int64) error {
	bad := func(key string, v any, why string) error {
		return fmt.Errorf("suv hint for %q: %s %v: %s", h.Object, key, v, why)
	}
	if h.Class > Unknown {
		return bad("class", uint8(h.Class), "must be density, temporal, iterative or unknown")
	}
	if math.IsNaN(h.Density) || math.IsInf(h.Density, 0) {
		return bad("density", h.Density, "must be a finite number")
	}
	if h.Class == Unknown {
		if h.Density < 0 {
			return bad("density", h.Density, "must not be negative")
		}
	} else if h.Density <= 0 {
		return bad("density", h.Density, "must be positive for a "+h.Class.String()+" hint (accesses per byte)")
	}
	if h.WSSBytes < 0 {
		return bad("wss_bytes", h.WSSBytes, "must not be negative")
	}
	if h.Class == Temporal && h.WSSBytes == 0 {
		return bad("wss_bytes", 0, "a temporal hint needs its working-set size")
	}
	if h.Class != Iterative {
		if h.Iter != (Iteration{}) {
			return bad("iteration", fmt.Sprintf("%+v", h.Iter), "is only for an iterative hint")
		}
		return nil
	}
	it := h.Iter
	switch {
	case it.Count < 1:
		return bad("iteration.count", it.Count, "must be at least 1")
	case it.Index < 0 || it.Index >= it.Count:
		return bad("iteration.index", it.Index, fmt.Sprintf("must be in 0..%d (count %d)", it.Count-1, it.Count))
	case it.SpanBytes <= 0 || it.SpanBytes > size:
		return bad("iteration.span_bytes", it.SpanBytes, fmt.Sprintf("must be in 1..%d (the object's size)", size))
	case it.OffsetBytes < 0 || it.OffsetBytes >= size:
		return bad("iteration.offset_bytes", it.OffsetBytes, fmt.Sprintf("must be in 0..%d (inside the object)", size-1))
	}
	// The offsets are affine, so the last iteration's is the other extreme;
	// bound the stride first so that the product cannot overflow.
	if s := it.StrideBytes; s <= -size || s >= size || int64(it.Count-1) > (size-1)/max(1, abs(s)) {
		return bad("iteration.stride_bytes", it.StrideBytes, fmt.Sprintf("moves the span out of the object (size %d) within %d iterations", size, it.Count))
	}
	if last := it.offset(it.Count - 1); last < 0 || last >= size {
		return bad("iteration.stride_bytes", it.StrideBytes, fmt.Sprintf("puts iteration %d's span at offset %d, outside the object (size %d)", it.Count-1, last, size))
	}
	return nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Classify is the class Algorithm 1 acts on for h, on an object of size
// bytes, at c; c must be valid (PlanLaunch and Oracle check it). Unknown stays Unknown. Iterative stays Iterative unless one
// prefetch batch would cover the whole object, where prefetching gains
// nothing over placement. Otherwise a computed WSS below TemporalCutoff of
// the size makes it Temporal (strict, §V-B), and anything else is Density.
func Classify(c Config, h Hint, size int64) Class {
	switch h.Class {
	case Unknown:
		return Unknown
	case Iterative:
		k := batchIters(c, h.Iter)
		if windowPages(c, h.Iter, size, k)*c.page() < alignUp(size, c.page()) {
			return Iterative
		}
	}
	if h.WSSBytes > 0 && float64(h.WSSBytes) < c.TemporalCutoff*float64(size) {
		return Temporal
	}
	return Density
}
