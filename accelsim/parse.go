package accelsim

import (
	"bufio"
	"fmt"
	"io"
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

// list is kernelslist.g: its copies to the GPU and its kernels, each
// with its line.
type list struct {
	copies  []object
	kernels []listedKernel
	// lines is the number of lines, where a fault of the whole list is.
	lines int
}

type listedKernel struct {
	file string
	line int
}

// openFile opens one of the trace's files; the fuzz test reads them from
// memory.
var openFile = func(name string) (io.ReadCloser, error) { return os.Open(name) }

// readList reads kernelslist.g.
func readList(path string) (*list, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dir := filepath.Dir(path)
	l := &list{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		l.lines++
		line := strings.TrimSpace(s.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "MemcpyHtoD"):
			c, msg := parseCopy(line)
			if msg != "" {
				return nil, &Error{path, l.lines, msg}
			}
			c.line = l.lines
			l.copies = append(l.copies, c)
		case strings.HasPrefix(line, "kernel"):
			l.kernels = append(l.kernels, listedKernel{filepath.Join(dir, line), l.lines})
		case strings.HasPrefix(line, "MemcpyDtoH"):
			// a copy back to the host moves nothing mgpu models
		default:
			return nil, &Error{path, l.lines, fmt.Sprintf("unknown command %q: want MemcpyHtoD, MemcpyDtoH or a kernel-N.traceg file", line)}
		}
	}
	if err := s.Err(); err != nil {
		return nil, &Error{path, l.lines + 1, err.Error()}
	}
	if len(l.kernels) == 0 {
		return nil, &Error{path, max(l.lines, 1), "no kernel: the list names no kernel-N.traceg file, so there is nothing to replay"}
	}
	return l, nil
}

// parseCopy reads "MemcpyHtoD,<address>,<bytes>"; the message says what
// is wrong with it, "" when nothing is.
func parseCopy(line string) (object, string) {
	p := strings.Split(line, ",")
	if len(p) != 3 {
		return object{}, "MemcpyHtoD wants 'MemcpyHtoD,<address>,<bytes>'"
	}
	a, err1 := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(p[1]), "0x"), 16, 64)
	b, err2 := strconv.ParseUint(strings.TrimSpace(p[2]), 10, 64)
	if err1 != nil || err2 != nil || b == 0 {
		return object{}, "MemcpyHtoD wants a hex address and a positive byte count"
	}
	if a >= addrLimit || b > addrLimit-a {
		return object{}, fmt.Sprintf("MemcpyHtoD of %d bytes at %#x: the copy must end at or below %#x, the top of the address space the conversion models", b, a, uint64(addrLimit))
	}
	return object{span: span{a, a + b}, copied: true}, ""
}

// kernelFile is one kernel-N.traceg: its header, and what a first pass
// found in it.
type kernelFile struct {
	path        string
	name        string
	grid, block [3]int
	version     int
	blocks      int
	// runs are the chunks its global memory instructions touch;
	// memInsts counts those instructions.
	runs     runs
	memInsts int
	// the second pass
	r    *bufio.Scanner
	f    io.ReadCloser
	line int
	wg   int
	wfs  []warp
	err  error
}

// scan reads a kernel trace once: its header, its thread blocks, the
// chunks its global memory instructions touch; global is told of each of
// their addresses.
func scan(path string, global func(a uint64)) (*kernelFile, error) {
	k := &kernelFile{path: path}
	if err := k.open(); err != nil {
		return nil, err
	}
	defer k.close()
	chunks := map[uint64]bool{}
	insts := 0
	for {
		more, err := k.nextBlock(func(_ int, in *parsed) {
			insts++
			if !in.global || len(chunks) > maxChunks {
				return
			}
			k.memInsts++
			for _, a := range in.addrs {
				chunks[a/chunk] = true
				global(a)
			}
		})
		if err == nil && len(chunks) > maxChunks {
			err = &Error{path, k.line, fmt.Sprintf("the kernel touches more than %d chunks of 64 KB, the most a conversion holds (512 GB, the most mgpu simulates)", maxChunks)}
		}
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
	if insts == 0 {
		return nil, &Error{path, k.line, fmt.Sprintf("no instruction in its %d thread blocks: an empty kernel", k.blocks)}
	}
	k.runs = runsOf(chunks)
	return k, nil
}

// open opens the file and reads its header, up to the first '#' line.
func (k *kernelFile) open() error {
	f, err := openFile(k.path)
	if err != nil {
		return err
	}
	k.f, k.r, k.line = f, bufio.NewScanner(f), 0
	k.r.Buffer(make([]byte, 1<<16), 1<<22)
	if err := k.header(); err != nil {
		k.close()
		return err
	}
	return nil
}

// header reads the header's keys and checks them.
func (k *kernelFile) header() error {
	var gridLine, blockLine int
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
		var err error
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "kernel name":
			k.name = val
		case "grid dim":
			_, err = fmt.Sscanf(val, "(%d,%d,%d)", &k.grid[0], &k.grid[1], &k.grid[2])
			gridLine = k.line
		case "block dim":
			_, err = fmt.Sscanf(val, "(%d,%d,%d)", &k.block[0], &k.block[1], &k.block[2])
			blockLine = k.line
		case "accelsim tracer version":
			k.version, err = strconv.Atoi(val)
		}
		if err != nil {
			return &Error{k.path, k.line, fmt.Sprintf("bad %s: %q", key, val)}
		}
	}
	if err := k.r.Err(); err != nil {
		return &Error{k.path, k.line + 1, err.Error()}
	}
	end := max(k.line, 1) // the header's last line, or an empty file's first
	if gridLine == 0 || blockLine == 0 {
		return &Error{k.path, end, "no grid dim or block dim in the header"}
	}
	if k.version < 3 {
		return &Error{k.path, end, fmt.Sprintf("accelsim tracer version %d: this converter reads version 3 and later (the tracer since Accel-Sim 1.1)", k.version)}
	}
	return k.checkDims(gridLine, blockLine)
}

// checkDims checks the launch against CUDA's limits and the recording's,
// before the warps and blocks it counts are allocated.
func (k *kernelFile) checkDims(gridLine, blockLine int) error {
	g, b := k.grid, k.block
	if min(g[0], g[1], g[2]) < 1 || g[0] > maxGridX || g[1] > maxGridYZ || g[2] > maxGridYZ {
		return &Error{k.path, gridLine, fmt.Sprintf("grid dim = (%d,%d,%d): CUDA allows 1 to %d blocks in x, 1 to %d in y and z", g[0], g[1], g[2], maxGridX, maxGridYZ)}
	}
	if min(b[0], b[1], b[2]) < 1 || b[0] > maxBlockXY || b[1] > maxBlockXY || b[2] > maxBlockZ || b[0]*b[1]*b[2] > MaxBlockThreads {
		return &Error{k.path, blockLine, fmt.Sprintf("block dim = (%d,%d,%d): CUDA allows at most %d threads a block, %d in x and y and %d in z, at least 1 in each",
			b[0], b[1], b[2], MaxBlockThreads, maxBlockXY, maxBlockZ)}
	}
	if xy := g[0] * g[1]; xy > trace.MaxWorkgroups || xy*g[2] > trace.MaxWorkgroups {
		return &Error{k.path, gridLine, fmt.Sprintf("grid dim = (%d,%d,%d): more thread blocks than the %d a recording holds", g[0], g[1], g[2], trace.MaxWorkgroups)}
	}
	return nil
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
	warp, insts := -1, 0
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
				return false, &Error{k.path, k.line, fmt.Sprintf("bad warp %q: a block of %d threads has warps 0 to %d", l, k.block[0]*k.block[1]*k.block[2], k.warps()-1)}
			}
		default:
			if warp < 0 {
				return false, &Error{k.path, k.line, "instruction before 'warp ='"}
			}
			if insts++; insts > blockInsts {
				return false, &Error{k.path, k.line, fmt.Sprintf("a thread block of more than %d instructions, the most a conversion holds at once", blockInsts)}
			}
			if err := parseInst(l, in); err != nil {
				return false, &Error{k.path, k.line, err.Error()}
			}
			fn(warp, in)
		}
	}
	if err := k.r.Err(); err != nil {
		return false, &Error{k.path, k.line + 1, err.Error()}
	}
	if started {
		return false, &Error{k.path, k.line, "the file ends inside a thread block: truncated"}
	}
	return false, nil
}

// fields is an instruction line's fields and a cursor over them.
type fields struct {
	line string
	f    []string
	p    int
}

// next is the next field; what names it in the error.
func (r *fields) next(what string) (string, error) {
	if r.p >= len(r.f) {
		return "", fmt.Errorf("instruction %q: truncated before its %s", r.line, what)
	}
	r.p++
	return r.f[r.p-1], nil
}

// count is the next field as a count of at most the fields left
// (destinations, sources), or any integer if open.
func (r *fields) count(what string, open bool) (int, error) {
	s, err := r.next(what)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil || !open && (v < 0 || v > len(r.f)-r.p) {
		return 0, fmt.Errorf("bad %s %q in %q", what, s, r.line)
	}
	return v, nil
}

// hex and dec are the next field as an address, and as a stride or delta.
func (r *fields) hex() (uint64, error) {
	s, err := r.next("addresses")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("bad address %q: want hex", s)
	}
	return v, nil
}

func (r *fields) dec() (int64, error) {
	s, err := r.next("addresses")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad stride or delta %q: want a decimal integer", s)
	}
	return v, nil
}

// parseInst reads "PC mask ndst [dst...] opcode nsrc [src...] width
// [mode addresses]" (tracer version 3).
func parseInst(l string, in *parsed) error {
	r := &fields{line: l, f: strings.Fields(l), p: 2}
	in.global, in.write, in.generic, in.addrs = false, false, false, in.addrs[:0]
	if len(r.f) < 5 {
		return fmt.Errorf("instruction %q: too few fields", l)
	}
	mask, err := strconv.ParseUint(r.f[1], 16, 32)
	if err != nil {
		return fmt.Errorf("bad mask %q", r.f[1])
	}
	nd, err := r.count("destination count", false)
	if err != nil {
		return err
	}
	r.p += nd
	op, err := r.next("opcode")
	if err != nil {
		return err
	}
	ns, err := r.count("source count", false)
	if err != nil {
		return err
	}
	r.p += ns
	if width, err := r.count("memory width", true); err != nil || width == 0 {
		return err
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
	mode, err := r.count("address mode", true)
	if err != nil {
		return err
	}
	return addresses(r, mask, mode, in)
}

// addresses reads an instruction's addresses in its mode, for the
// threads in mask; a global one must lie below addrLimit.
func addresses(r *fields, mask uint64, mode int, in *parsed) error {
	active := bits.OnesCount64(mask)
	switch mode {
	case 0: // list_all: one address per active thread
		for range active {
			a, err := r.hex()
			if err != nil {
				return err
			}
			in.addrs = append(in.addrs, a)
		}
	case 1: // base_stride: the active threads from the first up to the first gap
		a, err := r.hex()
		if err != nil {
			return err
		}
		s, err := r.dec()
		if err != nil {
			return err
		}
		run := bits.TrailingZeros64(^(mask >> bits.TrailingZeros64(mask)))
		for i := range run {
			in.addrs = append(in.addrs, a+uint64(int64(i)*s))
		}
	case 2: // base_delta: the first address, then one delta per later active thread
		a, err := r.hex()
		if err != nil {
			return err
		}
		in.addrs = append(in.addrs, a)
		for range active - 1 {
			d, err := r.dec()
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
	return checkGlobal(in)
}

// checkGlobal refuses a global address the conversion cannot group.
func checkGlobal(in *parsed) error {
	for _, a := range in.addrs {
		if in.global && a >= addrLimit {
			return fmt.Errorf("address %#x: beyond %#x, the top of the address space the conversion models", a, uint64(addrLimit))
		}
	}
	return nil
}
