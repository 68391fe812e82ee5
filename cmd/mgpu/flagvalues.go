package main

import (
	"flag"
	"fmt"
	"strconv"
)

// Numbers on the command line are decimal, as they are in config files and
// --set: the flag package's own integer flags read "010" as octal 8 and
// "0x10" as 16, so --gpus 010 ran 8 GPUs where --set gpus=010 ran 10.

// decimalInt is an int flag read in base 10 only.
type decimalInt struct{ p *int }

func (d decimalInt) String() string {
	if d.p == nil {
		return "0"
	}
	return strconv.Itoa(*d.p)
}

func (d decimalInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, strconv.IntSize)
	if err != nil {
		return notDecimal(s, err)
	}
	*d.p = int(v)
	return nil
}

// decimalUint64 is a uint64 flag read in base 10 only.
type decimalUint64 struct{ p *uint64 }

func (d decimalUint64) String() string {
	if d.p == nil {
		return "0"
	}
	return strconv.FormatUint(*d.p, 10)
}

func (d decimalUint64) Set(s string) error {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return notDecimal(s, err)
	}
	*d.p = v
	return nil
}

// notDecimal says what was wrong and what to write instead.
func notDecimal(s string, err error) error {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return fmt.Errorf("%q is out of range", s)
	}
	return fmt.Errorf("%q is not a decimal integer: write digits only, such as 8 (a leading zero is allowed and read as decimal)", s)
}

// intVar defines a decimal int flag.
func intVar(fs *flag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	fs.Var(decimalInt{p}, name, usage)
}

// intFlag defines a decimal int flag and returns where it is stored.
func intFlag(fs *flag.FlagSet, name string, value int, usage string) *int {
	p := new(int)
	intVar(fs, p, name, value, usage)
	return p
}

// uint64Var defines a decimal uint64 flag.
func uint64Var(fs *flag.FlagSet, p *uint64, name string, value uint64, usage string) {
	*p = value
	fs.Var(decimalUint64{p}, name, usage)
}

// numberFloat is a float64 flag read as strconv.ParseFloat reads it, as
// the flag package's own does, but whose error says what to write: the
// flag package says only "parse error".
type numberFloat struct{ p *float64 }

func (d numberFloat) String() string {
	if d.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*d.p, 'g', -1, 64)
}

func (d numberFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return fmt.Errorf("%q is out of range: write a number such as 1.5 or 2e-3", s)
		}
		return fmt.Errorf("%q is not a number: write a decimal number such as 1.5 or 2e-3", s)
	}
	*d.p = v
	return nil
}

// float64Var defines a float64 flag with numberFloat's errors.
func float64Var(fs *flag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fs.Var(numberFloat{p}, name, usage)
}

// plainBool is a boolean flag, given alone or as --flag=true/false, whose
// error says what to write: the flag package says only "parse error".
type plainBool struct{ p *bool }

func (b plainBool) String() string { return strconv.FormatBool(b.p != nil && *b.p) }

// IsBoolFlag lets the flag be given alone, as flag.Bool's is.
func (b plainBool) IsBoolFlag() bool { return true }

func (b plainBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q is not true or false: give the flag alone to turn it on, or write =true or =false", s)
	}
	*b.p = v
	return nil
}

// boolVar defines a boolean flag with plainBool's errors.
func boolVar(fs *flag.FlagSet, p *bool, name string, value bool, usage string) {
	*p = value
	fs.Var(plainBool{p}, name, usage)
}

// boolFlag defines a boolean flag and returns where it is stored.
func boolFlag(fs *flag.FlagSet, name string, value bool, usage string) *bool {
	p := new(bool)
	boolVar(fs, p, name, value, usage)
	return p
}

// onceString is a string flag that may be given once: a second --config
// used to replace the first without a word.
type onceString struct{ p *string }

func (o onceString) String() string {
	if o.p == nil {
		return ""
	}
	return *o.p
}

func (o onceString) Set(s string) error {
	if *o.p != "" {
		return fmt.Errorf("given twice (%q, then %q): give one file, and override its keys with --set key=value", *o.p, s)
	}
	if s == "" {
		return fmt.Errorf("empty: name a YAML config file")
	}
	*o.p = s
	return nil
}
