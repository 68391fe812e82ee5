package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestDecimalFlags: numbers are read in base 10 only, leading zeros and
// all, as config files and --set read them; anything else is an error that
// says what to write.
func TestDecimalFlags(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want int
		err  string
	}{
		{"8", 8, ""}, {"010", 10, ""}, {"08", 8, ""}, {"-1", -1, ""},
		{"0x10", 0, "not a decimal integer"}, {"0o10", 0, "not a decimal integer"}, {"1e3", 0, "not a decimal integer"},
		{"", 0, "not a decimal integer"}, {"4.0", 0, "not a decimal integer"},
		{"99999999999999999999", 0, "out of range"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var n int
		intVar(fs, &n, "gpus", 4, "")
		var seed uint64
		uint64Var(fs, &seed, "seed", 1, "")
		err := fs.Parse([]string{"-gpus", c.arg, "-seed", strings.TrimPrefix(c.arg, "-")})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("--gpus %q: error %v, want one saying %q", c.arg, err, c.err)
			}
			continue
		}
		if err != nil || n != c.want || seed != uint64(max(c.want, -c.want)) {
			t.Errorf("--gpus %q --seed %q: got %d, %d, %v; want %d", c.arg, strings.TrimPrefix(c.arg, "-"), n, seed, err, c.want)
		}
	}
}

func TestConfigOnce(t *testing.T) {
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"-config", "a.yaml"}, ""},
		{[]string{"-config", "a.yaml", "-config", "b.yaml"}, "given twice"},
		{[]string{"-config", ""}, "empty"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var f string
		fs.Var(onceString{&f}, "config", "")
		err := fs.Parse(c.args)
		if (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.err)
		}
	}
}
