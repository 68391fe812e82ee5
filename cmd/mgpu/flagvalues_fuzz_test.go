package main

import (
	"errors"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mgpu-sim/mgpu/config"
)

// The CLI's numbers are decimal everywhere: each fuzz target here checks
// that a number is either rejected with a message quoting it, or read as
// the decimal it spells. go test runs the seeds; make fuzz explores.

// numberSeeds are issue 30's numbers: octal-looking, other bases and
// notations, signs, spaces, infinities and values past every range.
var numberSeeds = []string{
	"8", "010", "08", "0", "-0", "+4", "-1", "0x10", "0o10", "0b10", "1e3", "4.0", "1_000", "", " 8", "8 ", "\t8",
	"+Inf", "Inf", "NaN", "1e-300", "1e309", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
	"18446744073709551615", "18446744073709551616", "99999999999999999999", "٣", "8\x00",
}

var (
	decimalIntText  = regexp.MustCompile(`^[+-]?[0-9]+$`)
	decimalUintText = regexp.MustCompile(`^[0-9]+$`)
)

// FuzzDecimalFlags: decimalInt and decimalUint64 accept exactly the
// decimal integers in their range (leading zeros and all) and print them
// back in canonical form; anything else is an error quoting the input,
// with the flag's value unchanged.
func FuzzDecimalFlags(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, _ := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
		inInt := decimalIntText.MatchString(s) && n.IsInt64() && n.Int64() >= math.MinInt && n.Int64() <= math.MaxInt
		inUint := decimalUintText.MatchString(s) && n.IsUint64()

		i := 7
		err := decimalInt{&i}.Set(s)
		checkNumber(t, "decimalInt", s, inInt, err, n, decimalInt{&i}.String(), i == 7)
		u := uint64(7)
		err = decimalUint64{&u}.Set(s)
		checkNumber(t, "decimalUint64", s, inUint, err, n, decimalUint64{&u}.String(), u == 7)
	})
}

// checkNumber checks one flag's Set of s: valid says s is a decimal in
// the flag's range, n is its value, got the flag's String afterwards and
// unchanged whether the value is still what it was before.
func checkNumber(t *testing.T, flag, s string, valid bool, err error, n *big.Int, got string, unchanged bool) {
	t.Helper()
	switch {
	case valid && err != nil:
		t.Fatalf("%s.Set(%q): %v; want %s", flag, s, err, n)
	case valid && got != n.String():
		t.Fatalf("%s.Set(%q) reads %s; want %s", flag, s, got, n)
	case !valid && err == nil:
		t.Fatalf("%s.Set(%q) accepted %s; want an error", flag, s, got)
	case !valid && !strings.Contains(err.Error(), strconv.Quote(s)):
		t.Fatalf("%s.Set(%q): error %q does not quote the input", flag, s, err)
	case !valid && !unchanged:
		t.Fatalf("%s.Set(%q) failed but changed the value to %s", flag, s, got)
	}
}

// FuzzRunFlags: mgpu run's numbers and one --set, parsed and built into
// a config as cmdRun does (nothing is simulated), either fail as bad input
// (exit 2) with a message naming the flag or key, or give a config that
// holds exactly what was asked.
func FuzzRunFlags(f *testing.F) {
	for i, s := range numberSeeds {
		f.Add(s, "1", "0.01", "0", "gpu.cus=32")
		f.Add("4", s, "1", "1.5", "link.pcie_gbps="+s)
		f.Add("2", "3", s, numberSeeds[(i+1)%len(numberSeeds)], "gpu.memory="+s)
	}
	for _, set := range []string{"gpus=8", "gpus=010", " gpus = 2", "oversubscribe=2", "check=true", "seed=3", "scale=2",
		"link.pcie_gbps=1e-300", "uvm.prefetch.threshold=075", "page_size=3000", "nope=1", "=", ""} {
		f.Add("4", "1", "1", "0", set)
	}
	f.Fuzz(func(t *testing.T, gpus, seed, scale, over, set string) {
		args := []string{"--gpus", gpus, "--seed", seed, "--scale", scale, "--oversubscribe", over, "--set", set}
		rf, fs, err := parseRunFlags(args, io.Discard)
		if err != nil {
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "-") {
				t.Fatalf("%q: %v (%T), want a usage error naming the flag", args, err, err)
			}
			return
		}
		cfg, err := rf.buildConfig(fs)
		if err != nil {
			var ie inputError
			if !errors.As(err, &ie) || strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("%q: %v (%T), want an input error (exit 2)", args, err, err)
			}
			return
		}
		if want, ok := decimalValue(gpus); !ok || strconv.Itoa(cfg.GPUs) != want {
			t.Fatalf("%q: %d GPUs", args, cfg.GPUs)
		}
		if want, ok := decimalValue(seed); !ok || strconv.FormatUint(rf.seed, 10) != want {
			t.Fatalf("%q: seed %d", args, rf.seed)
		}
		if v, err := strconv.ParseFloat(scale, 64); err != nil || v != rf.scale || !(v > 0) || math.IsInf(v, 0) {
			t.Fatalf("%q: scale %g", args, rf.scale)
		}
		if v, err := strconv.ParseFloat(over, 64); err != nil || v != cfg.Oversubscribe {
			t.Fatalf("%q: oversubscribe %g", args, cfg.Oversubscribe)
		}
		key, _, _ := strings.Cut(set, "=")
		key = strings.TrimSpace(key)
		if key == "gpus" || key == "oversubscribe" {
			t.Fatalf("%q: --set %s beside --%s was accepted", args, set, key)
		}
		want := config.DefaultConfig()
		if err := want.Set(set); err != nil {
			t.Fatalf("%q: --set %q accepted, but Set rejects it: %v", args, set, err)
		}
		w, _ := want.Get(key)
		if g, _ := cfg.Get(key); g != w {
			t.Fatalf("%q: %s = %s, want %s", args, key, g, w)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%q: built a config Validate rejects: %v", args, err)
		}
	})
}

// decimalValue is s as a canonical decimal, if it is one.
func decimalValue(s string) (string, bool) {
	n, ok := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
	if !ok || !decimalIntText.MatchString(s) {
		return "", false
	}
	return n.String(), true
}
