// Package units has the byte-size type that config files and --set flags
// use, so "4GB", "64KB" and "4096" all read the same way.
package units

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"regexp"
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

// decimal is a size's number, upper-cased: digits, an optional fraction and
// an optional exponent.
var decimal = regexp.MustCompile(`^\+?([0-9]*)(?:\.([0-9]*))?(?:E([+-]?[0-9]+))?$`)

// ErrNotWhole is a size with a fraction of a byte ("1.3KB", "0.5B").
var ErrNotWhole = errors.New("not a whole number of bytes")

// errRange is a size of 2^64 bytes or more; it wraps strconv.ErrRange.
var errRange = fmt.Errorf("%w: a size is below 16777216TB (2^64 bytes)", strconv.ErrRange)

// Parse reads "4096", "64KB", "2 MB", "1.5GB", "1e3": a non-negative
// decimal number, of bytes or of the unit its suffix names, that comes to
// a whole number of bytes below 2^64. Anything else is an error: a size is
// never rounded, wrapped or clamped.
func Parse(s string) (Bytes, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	shift := uint(0)
	for _, suf := range suffixes {
		if strings.HasSuffix(t, suf.s) {
			t = strings.TrimSpace(strings.TrimSuffix(t, suf.s))
			shift = uint(bits.TrailingZeros64(uint64(suf.v)))
			break
		}
	}
	m := decimal.FindStringSubmatch(t)
	if m == nil || m[1]+m[2] == "" {
		return 0, fmt.Errorf("size %q: expected a non-negative number with an optional KB/MB/GB/TB suffix", s)
	}
	// The value is digits x 10^exp x 2^shift, computed exactly.
	digits := strings.TrimLeft(m[1]+m[2], "0")
	if digits == "" {
		return 0, nil
	}
	exp, err := strconv.Atoi(m[3])
	if m[3] == "" {
		exp, err = 0, nil
	}
	exp -= len(m[2])
	// Beyond these the value is at least 10^41 or a fraction of one byte;
	// they also keep the arithmetic below small.
	switch {
	case err != nil && strings.HasPrefix(m[3], "-") || exp < -(len(digits)+20):
		return 0, notWhole(s, new(big.Int))
	case err != nil || exp > 40:
		return 0, fmt.Errorf("size %q: %w", s, errRange)
	}
	n, _ := new(big.Int).SetString(digits, 10)
	n.Lsh(n, shift)
	ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(exp, -exp))), nil)
	rem := new(big.Int)
	if exp >= 0 {
		n.Mul(n, ten)
	} else {
		n.QuoRem(n, ten, rem)
	}
	if n.BitLen() > 64 {
		return 0, fmt.Errorf("size %q: %w", s, errRange)
	}
	if rem.Sign() != 0 {
		return 0, notWhole(s, n)
	}
	return Bytes(n.Uint64()), nil
}

// notWhole is the error for size s, which lies between floor and floor+1
// bytes.
func notWhole(s string, floor *big.Int) error {
	return fmt.Errorf("size %q: %w: it lies between %v and %v bytes; write one of them, or a size in a smaller unit",
		s, ErrNotWhole, floor, new(big.Int).Add(floor, big.NewInt(1)))
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
