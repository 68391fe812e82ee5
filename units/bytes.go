// Package units has the byte-size type that config files and --set flags
// use, so "4GB", "64KB" and "4096" all read the same way.
package units

import (
	"fmt"
	"strconv"
	"strings"
)

// Bytes is a size in bytes. It parses and prints binary suffixes
// (KB = 1024 bytes, MB, GB, TB), as memory sizes in the papers do.
type Bytes uint64

// Common sizes.
const (
	KB Bytes = 1 << 10
	MB Bytes = 1 << 20
	GB Bytes = 1 << 30
	TB Bytes = 1 << 40
)

var suffixes = []struct {
	s string
	v Bytes
}{{"TB", TB}, {"GB", GB}, {"MB", MB}, {"KB", KB}, {"TIB", TB}, {"GIB", GB}, {"MIB", MB}, {"KIB", KB}, {"B", 1}}

// Parse reads "4096", "64KB", "2 MB", "1.5GB".
func Parse(s string) (Bytes, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := Bytes(1)
	for _, suf := range suffixes {
		if strings.HasSuffix(t, suf.s) {
			t = strings.TrimSpace(strings.TrimSuffix(t, suf.s))
			mult = suf.v
			break
		}
	}
	if t == "" {
		return 0, fmt.Errorf("size %q: expected a number with an optional KB/MB/GB/TB suffix", s)
	}
	if n, err := strconv.ParseUint(t, 10, 64); err == nil {
		return Bytes(n) * mult, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("size %q: expected a non-negative number with an optional KB/MB/GB/TB suffix", s)
	}
	return Bytes(f * float64(mult)), nil
}

// String prints the largest exact suffix.
func (b Bytes) String() string {
	for _, suf := range suffixes[:4] {
		if b >= suf.v && b%suf.v == 0 {
			return strconv.FormatUint(uint64(b/suf.v), 10) + suf.s
		}
	}
	return strconv.FormatUint(uint64(b), 10)
}

// UnmarshalText implements encoding.TextUnmarshaler (YAML and flags).
func (b *Bytes) UnmarshalText(text []byte) error {
	v, err := Parse(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (b Bytes) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// IsPowerOfTwo reports whether b is a positive power of two.
func (b Bytes) IsPowerOfTwo() bool { return b != 0 && b&(b-1) == 0 }

// Human prints a size for people: two decimals in the largest unit that
// fits ("63.99MB"). Unlike String it does not round-trip.
func (b Bytes) Human() string {
	for _, suf := range suffixes[:4] {
		if b >= suf.v {
			return strconv.FormatFloat(float64(b)/float64(suf.v), 'f', 2, 64) + suf.s
		}
	}
	return strconv.FormatUint(uint64(b), 10) + "B"
}
