package units

import "testing"

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want Bytes
		ok   bool
	}{
		{"4096", 4096, true}, {"64KB", 64 << 10, true}, {"2 MB", 2 << 20, true},
		{"1.5GB", 3 << 29, true}, {"4gb", 4 << 30, true}, {"", 0, false}, {"-1KB", 0, false}, {"abc", 0, false},
		// Exact or an error (issue 30): no fraction of a byte is dropped,
		// no size wraps past 2^64, NaN and Inf are not sizes.
		{"1e3", 1000, true}, {"1.5e1KB", 15 << 10, true}, {"+8", 8, true}, {"0e99999999999999999999", 0, true},
		{"18446744073709551615", 1<<64 - 1, true}, {"18446744073709551616", 0, false}, {"16777216TB", 0, false},
		{"16777217TB", 0, false}, {"1e30", 0, false}, {"1.3KB", 0, false}, {"0.5B", 0, false},
		{"1.00000000000000001KB", 0, false}, {"1e-99999999999999999999", 0, false}, {"NaN", 0, false},
		{"+Inf", 0, false}, {"-0", 0, false}, {"0x10", 0, false}, {"1_000", 0, false},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestStringRoundTrips(t *testing.T) {
	for _, b := range []Bytes{1, 4096, 64 << 10, 2 << 20, 4 << 30, 3000} {
		got, err := Parse(b.String())
		if err != nil || got != b {
			t.Errorf("%d -> %q -> %d, %v", uint64(b), b.String(), uint64(got), err)
		}
	}
	if !Bytes(4096).IsPowerOfTwo() || Bytes(3000).IsPowerOfTwo() || Bytes(0).IsPowerOfTwo() {
		t.Error("IsPowerOfTwo wrong")
	}
}
