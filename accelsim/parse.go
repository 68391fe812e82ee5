package accelsim

import (
	"bufio"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mgpu-sim/mgpu/trace"
)

// Error is a line of the trace that cannot be read.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// command is a line of kernelslist.g: a copy to the GPU or a kernel.
type command struct {
	memcpy     bool
	addr, size uint64
	file       string
}

// readList reads kernelslist.g.
func readList(path string) ([]command, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dir := filepath.Dir(path)
	var cmds []command
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "MemcpyHtoD"):
			p := strings.Split(line, ",")
			if len(p) != 3 {
				return nil, &Error{path, n, "MemcpyHtoD wants 'MemcpyHtoD,<address>,<bytes>'"}
			}
			a, err1 := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(p[1]), "0x"), 16, 64)
			b, err2 := strconv.ParseUint(strings.TrimSpace(p[2]), 10, 64)
			if err1 != nil || err2 != nil || b == 0 {
				return nil, &Error{path, n, "MemcpyHtoD wants a hex address and a positive byte count"}
			}
			cmds = append(cmds, command{memcpy: true, addr: a, size: b})
		case strings.HasPrefix(line, "kernel"):
			cmds = append(cmds, command{file: filepath.Join(dir, line)})
		case strings.HasPrefix(line, "MemcpyDtoH"):
			// a copy back to the host moves nothing mgpu models
		default:
			return nil, &Error{path, n, fmt.Sprintf("unknown command %q: want MemcpyHtoD, MemcpyDtoH or a kernel-N.traceg file", line)}
		}
	}
	return cmds, s.Err()
}

// kernelFile is one kernel-N.traceg: its header, and what a first pass
// found in it.
type kernelFile struct {
	path        string
	name        string
	grid, block [3]int
	version     int
	blocks      int
	chunks      map[uint64]bool
	// the second pass
	r    *bufio.Scanner
	f    *os.File
	line int
	wg   int
	wfs  [][]trace.Instruction
	err  error
}

// scan reads a kernel trace once: its header, its thread blocks, the
// chunks its global memory instructions touch.
func scan(path string) (*kernelFile, error) {
	k := &kernelFile{path: path, chunks: map[uint64]bool{}}
	if err := k.open(); err != nil {
		return nil, err
	}
	defer k.close()
	for {
		more, err := k.nextBlock(func(_ int, in *parsed) {
			if in.global {
				for _, a := range in.addrs {
					k.chunks[a/chunk] = true
				}
			}
		})
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		k.blocks++
	}
	if want := k.grid[0] * k.grid[1] * k.grid[2]; k.blocks != want {
		return nil, &Error{path, k.line, fmt.Sprintf("%d thread blocks, the grid (%d,%d,%d) has %d: the trace is truncated", k.blocks, k.grid[0], k.grid[1], k.grid[2], want)}
	}
	return k, nil
}

// open opens the file and reads its header, up to the first '#' line.
func (k *kernelFile) open() error {
	f, err := os.Open(k.path)
	if err != nil {
		return err
	}
	k.f, k.r, k.line = f, bufio.NewScanner(f), 0
	k.r.Buffer(make([]byte, 1<<16), 1<<22)
	for k.r.Scan() {
		k.line++
		l := strings.TrimSpace(k.r.Text())
		if strings.HasPrefix(l, "#") {
			break
		}
		key, val, ok := strings.Cut(strings.TrimPrefix(l, "-"), "=")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "kernel name":
			k.name = val
		case "grid dim":
			_, err = fmt.Sscanf(val, "(%d,%d,%d)", &k.grid[0], &k.grid[1], &k.grid[2])
		case "block dim":
			_, err = fmt.Sscanf(val, "(%d,%d,%d)", &k.block[0], &k.block[1], &k.block[2])
		case "accelsim tracer version":
			k.version, err = strconv.Atoi(val)
		}
		if err != nil {
			return &Error{k.path, k.line, fmt.Sprintf("bad %s: %q", key, val)}
		}
	}
	if k.grid[0] < 1 || k.grid[1] < 1 || k.grid[2] < 1 || k.block[0] < 1 || k.block[1] < 1 || k.block[2] < 1 {
		return &Error{k.path, k.line, "no grid dim or block dim in the header"}
	}
	if k.version < 3 {
		return &Error{k.path, k.line, fmt.Sprintf("accelsim tracer version %d: this converter reads version 3 and later (the tracer since Accel-Sim 1.1)", k.version)}
	}
	return k.r.Err()
}

func (k *kernelFile) close() {
	if k.f != nil {
		k.f.Close()
		k.f = nil
	}
}

func (k *kernelFile) warps() int { return (k.block[0]*k.block[1]*k.block[2] + WarpSize - 1) / WarpSize }

// parsed is one instruction line.
type parsed struct {
	global, write, generic bool
	addrs                  []uint64
}

// nextBlock reads the next thread block, calling fn on each instruction
// and its warp; it returns false at the end of the file.
func (k *kernelFile) nextBlock(fn func(warp int, in *parsed)) (bool, error) {
	in := &parsed{}
	started := false
	warp := -1
	for k.r.Scan() {
		k.line++
		l := strings.TrimSpace(k.r.Text())
		switch {
		case l == "" || (strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "#BEGIN_TB") && !strings.HasPrefix(l, "#END_TB")):
		case l == "#BEGIN_TB":
			if started {
				return false, &Error{k.path, k.line, "#BEGIN_TB before the previous #END_TB"}
			}
			started = true
		case l == "#END_TB":
			if !started {
				return false, &Error{k.path, k.line, "#END_TB without #BEGIN_TB"}
			}
			return true, nil
		case !started:
			return false, &Error{k.path, k.line, "instruction outside a thread block"}
		case strings.HasPrefix(l, "thread block"), strings.HasPrefix(l, "insts"):
		case strings.HasPrefix(l, "warp"):
			if _, err := fmt.Sscanf(l, "warp = %d", &warp); err != nil || warp < 0 || warp >= k.warps() {
				return false, &Error{k.path, k.line, fmt.Sprintf("bad warp (a block of %d threads has %d)", k.block[0]*k.block[1]*k.block[2], k.warps())}
			}
		default:
			if warp < 0 {
				return false, &Error{k.path, k.line, "instruction before 'warp ='"}
			}
			if err := parseInst(l, in); err != nil {
				return false, &Error{k.path, k.line, err.Error()}
			}
			fn(warp, in)
		}
	}
	if err := k.r.Err(); err != nil {
		return false, &Error{k.path, k.line, err.Error()}
	}
	if started {
		return false, &Error{k.path, k.line, "the file ends inside a thread block: truncated"}
	}
	return false, nil
}

// parseInst reads "PC mask ndst [dst...] opcode nsrc [src...] width
// [mode addresses]" (tracer version 3).
func parseInst(l string, in *parsed) error {
	f := strings.Fields(l)
	in.global, in.write, in.generic, in.addrs = false, false, false, in.addrs[:0]
	if len(f) < 5 {
		return fmt.Errorf("instruction %q: too few fields", l)
	}
	mask, err := strconv.ParseUint(f[1], 16, 32)
	if err != nil {
		return fmt.Errorf("bad mask %q", f[1])
	}
	p := 2
	next := func() (int, error) {
		if p >= len(f) {
			return 0, fmt.Errorf("instruction %q: truncated", l)
		}
		v, err := strconv.Atoi(f[p])
		p++
		return v, err
	}
	nd, err := next()
	if err != nil || nd < 0 {
		return fmt.Errorf("bad destination count in %q", l)
	}
	p += nd
	if p >= len(f) {
		return fmt.Errorf("instruction %q: truncated", l)
	}
	op := f[p]
	p++
	ns, err := next()
	if err != nil || ns < 0 {
		return fmt.Errorf("bad source count in %q", l)
	}
	p += ns
	width, err := next()
	if err != nil {
		return fmt.Errorf("bad memory width in %q", l)
	}
	if width == 0 {
		return nil
	}
	base, _, _ := strings.Cut(op, ".")
	switch base {
	case "LDG", "STG", "ATOM", "ATOMG", "RED":
		in.global = true
	case "LD", "ST":
		in.generic = true
	default:
		return nil // shared, local, constant, texture: compute here
	}
	in.write = base == "STG" || base == "ST" || base == "ATOM" || base == "ATOMG" || base == "RED"
	mode, err := next()
	if err != nil {
		return fmt.Errorf("bad address mode in %q", l)
	}
	return addresses(l, f[p:], mask, mode, in)
}

// addresses reads an instruction's addresses in its mode, from f, for the
// threads in mask.
func addresses(l string, f []string, mask uint64, mode int, in *parsed) error {
	p := 0
	active := bits.OnesCount64(mask)
	hex := func() (uint64, error) {
		if p >= len(f) {
			return 0, fmt.Errorf("instruction %q: truncated addresses", l)
		}
		v, err := strconv.ParseUint(strings.TrimPrefix(f[p], "0x"), 16, 64)
		p++
		return v, err
	}
	dec := func() (int64, error) {
		if p >= len(f) {
			return 0, fmt.Errorf("instruction %q: truncated addresses", l)
		}
		v, err := strconv.ParseInt(f[p], 10, 64)
		p++
		return v, err
	}
	switch mode {
	case 0: // list_all: one address per active thread
		for range active {
			a, err := hex()
			if err != nil {
				return err
			}
			in.addrs = append(in.addrs, a)
		}
	case 1: // base_stride: the active threads from the first up to the first gap
		a, err := hex()
		if err != nil {
			return err
		}
		s, err := dec()
		if err != nil {
			return err
		}
		run := bits.TrailingZeros64(^(mask >> bits.TrailingZeros64(mask)))
		for i := range run {
			in.addrs = append(in.addrs, a+uint64(int64(i)*s))
		}
	case 2: // base_delta: the first address, then one delta per later active thread
		a, err := hex()
		if err != nil {
			return err
		}
		in.addrs = append(in.addrs, a)
		for range active - 1 {
			d, err := dec()
			if err != nil {
				return err
			}
			a += uint64(d)
			in.addrs = append(in.addrs, a)
		}
	default:
		return fmt.Errorf("address mode %d: want 0 (list), 1 (base and stride) or 2 (base and deltas)", mode)
	}
	if active == 0 {
		in.addrs = in.addrs[:0]
	}
	return nil
}
