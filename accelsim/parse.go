package accelsim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mgpu-sim/mgpu/trace"
	"github.com/ulikunitz/xz"
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
		case strings.HasPrefix(line, "kernel") && strings.HasSuffix(line, ".trace"):
			return nil, &Error{path, l.lines, fmt.Sprintf("%s is the tracer's raw output: %s", line, RawHint)}
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

// RawHint names the step between the tracer and a conversion: the
// tracer writes kernelslist and kernel-N.trace; post-processing turns
// them into kernelslist.g and kernel-N.traceg.
const RawHint = "run the tracer's post-processing on it first (util/tracer_nvbit/tracer_tool/traces-processing/post-traces-processing DIR; older tracers take DIR/kernelslist) and give --accelsim the kernelslist.g it writes, beside its kernel-N.traceg files"

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
	return object{span: span{a, a + b}, origin: fromCopy}, ""
}

// kernelFile is one kernel-N.traceg (or .traceg.xz): its header, and
// what a first pass found in it.
type kernelFile struct {
	path        string
	name        string
	grid, block [3]int
	version     int
	blocks      int
	// lineinfo: each instruction starts with its source line (the
	// tracer's -enable lineinfo).
	lineinfo bool
	// shmem and local are the header's generic-address windows' bases:
	// how a generic LD or ST is told from a global one.
	shmem, local uint64
	// runs are the pages its global memory instructions touch;
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
// pages its global memory instructions touch; global is told of each of
// their addresses.
func scan(path string, global func(a uint64)) (*kernelFile, error) {
	k := &kernelFile{path: path}
	if err := k.open(); err != nil {
		return nil, err
	}
	defer k.close()
	pages := map[uint64]bool{}
	insts := 0
	for {
		more, err := k.nextBlock(func(_ int, in *parsed) {
			insts++
			if !in.global || len(pages) > maxPages {
				return
			}
			k.memInsts++
			for _, a := range in.addrs {
				pages[a/page] = true
				global(a)
			}
		})
		if err == nil && len(pages) > maxPages {
			err = &Error{path, k.line, fmt.Sprintf("the kernel touches more than %d pages of 4 KB, the most a conversion holds", maxPages)}
		}
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		if k.blocks++; k.blocks > k.gridBlocks() {
			return nil, &Error{path, k.line, fmt.Sprintf("more thread blocks than the grid (%d,%d,%d) has", k.grid[0], k.grid[1], k.grid[2])}
		}
	}
	if k.blocks == 0 {
		return nil, &Error{path, k.line, fmt.Sprintf("no thread block (#BEGIN_TB ... #END_TB): the grid (%d,%d,%d) has %d; %s", k.grid[0], k.grid[1], k.grid[2], k.gridBlocks(), truncatedOrRaw)}
	}
	if insts == 0 {
		return nil, &Error{path, k.line, fmt.Sprintf("no instruction in its %d thread blocks: an empty kernel", k.blocks)}
	}
	k.runs = runsOf(pages)
	return k, nil
}

// truncatedOrRaw says what a kernel file without thread blocks may be.
const truncatedOrRaw = "the file is truncated, or is the tracer's raw output (" + RawHint + ")"

// gridBlocks is the number of thread blocks the launch had. A file may
// hold fewer: post-processing leaves out the blocks that ran nothing.
func (k *kernelFile) gridBlocks() int { return k.grid[0] * k.grid[1] * k.grid[2] }

// xzMagic starts an xz stream: the tracer compresses its kernel files so.
var xzMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0}

// open opens the file, decompressing an xz one, and reads its header, up
// to the first '#' line.
func (k *kernelFile) open() error {
	f, err := openFile(k.path)
	if err != nil {
		return err
	}
	br := bufio.NewReader(f)
	var in io.Reader = br
	if magic, _ := br.Peek(len(xzMagic)); bytes.Equal(magic, xzMagic) {
		x, err := xz.NewReader(br)
		if err != nil {
			f.Close()
			return &Error{k.path, 1, fmt.Sprintf("an xz file that cannot be read (%v): check it with 'xz -t %s'", err, k.path)}
		}
		in = x
	}
	k.f, k.r, k.line = f, bufio.NewScanner(in), 0
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
			if l != "" {
				return &Error{k.path, k.line, fmt.Sprintf("%q in the header, before any '#' line: want '-key = value' lines; %s", l, truncatedOrRaw)}
			}
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
		case "enable lineinfo":
			var n int
			n, err = strconv.Atoi(val)
			k.lineinfo = n != 0
		case "shmem base_addr":
			k.shmem, err = strconv.ParseUint(strings.TrimPrefix(val, "0x"), 16, 64)
		case "local mem base_addr":
			k.local, err = strconv.ParseUint(strings.TrimPrefix(val, "0x"), 16, 64)
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
		return &Error{k.path, end, "no grid dim or block dim in the header: " + truncatedOrRaw}
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
	global, write bool
	addrs         []uint64
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
			return false, &Error{k.path, k.line, "instruction outside a thread block (#BEGIN_TB ... #END_TB): " + truncatedOrRaw}
		case blockHeader(l):
		case strings.HasPrefix(l, "warp"):
			if _, err := fmt.Sscanf(l, "warp = %d", &warp); err != nil || warp < 0 || warp >= k.warps() {
				return false, &Error{k.path, k.line, fmt.Sprintf("bad warp %q: a block of %d threads has warps 0 to %d", l, k.block[0]*k.block[1]*k.block[2], k.warps()-1)}
			}
		default:
			if warp < 0 {
				return false, &Error{k.path, k.line, fmt.Sprintf("instruction %q before 'warp =': want the block's 'thread block', 'cluster ...', 'warp =' and 'insts =' lines, then instructions", l)}
			}
			if insts++; insts > blockInsts {
				return false, &Error{k.path, k.line, fmt.Sprintf("a thread block of more than %d instructions, the most a conversion holds at once", blockInsts)}
			}
			if err := k.parseInst(l, in); err != nil {
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

// blockHeader tells a thread block's header lines other than 'warp =':
// its index, its instruction counts, and the cluster lines (id, cta,
// rank) that post-processing writes for Hopper's thread block clusters.
func blockHeader(l string) bool {
	for _, p := range []string{"thread block", "insts", "cluster id", "cluster cta", "cluster rank", "cluster dim"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
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
// (destinations, sources, addresses), or any integer if open.
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

// parseInst reads "[line] PC mask ndst [dst...] opcode nsrc [src...]
// [commit] width [mode addresses] [immediate ...]": the source line with
// lineinfo, a GMMA's commit-group flag, and what follows the addresses
// (tracer version 5's immediate) as the tracer writes them.
func (k *kernelFile) parseInst(l string, in *parsed) error {
	r := &fields{line: l, f: strings.Fields(l)}
	in.global, in.write, in.addrs = false, false, in.addrs[:0]
	if k.lineinfo {
		r.p++
	}
	if len(r.f) < r.p+5 {
		return fmt.Errorf("instruction %q: too few fields", l)
	}
	mask, err := strconv.ParseUint(r.f[r.p+1], 16, 32)
	if err != nil {
		return fmt.Errorf("bad mask %q", r.f[r.p+1])
	}
	r.p += 2
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
	if strings.Contains(op, "GMMA") {
		if _, err := r.count("GMMA commit flag", true); err != nil {
			return err
		}
	}
	if width, err := r.count("memory width", true); err != nil || width == 0 {
		return err
	}
	c := classify(op)
	if c.tma {
		return tmaAddresses(r, mask, c, in)
	}
	mode, err := r.count("address mode", true)
	if err != nil {
		return err
	}
	if err := addresses(r, mask, mode, in); err != nil {
		return err
	}
	if c.generic {
		c.global = k.genericIsGlobal(in.addrs)
	}
	in.global, in.write = c.global, c.write
	return checkGlobal(in)
}

// class is what an opcode does to memory, as Accel-Sim's trace-driven
// model (trace_driven.cc) reads it.
type class struct {
	global, write, generic, tma bool
}

// classify classes an opcode: LDG, and LDGSTS (memcpy_async: a global
// load into shared memory), load; STG stores; ATOM, ATOMG and RED are
// global read-modify-writes, which write; LD and ST are generic (the
// header's windows tell); the TMA bulk copies (UTMALDG, UTMASTG,
// UTMAREDG, UBLKCP, UBLKRED) move global memory, UBLKCP by its direction
// (.S.G loads, .G.S stores) and the prefetches (UTMAPF, UBLKPF) nothing.
// Everything else (shared, local, constant, texture) is compute here.
func classify(op string) class {
	base, _, _ := strings.Cut(op, ".")
	switch base {
	case "LDG", "LDGSTS":
		return class{global: true}
	case "STG", "ATOM", "ATOMG", "RED":
		return class{global: true, write: true}
	case "LD":
		return class{generic: true}
	case "ST":
		return class{generic: true, write: true}
	case "UTMALDG":
		return class{tma: true, global: true}
	case "UTMASTG", "UTMAREDG", "UBLKRED":
		return class{tma: true, global: true, write: true}
	case "UBLKCP":
		load, store := strings.Contains(op, ".S.G"), strings.Contains(op, ".G.S")
		return class{tma: true, global: load || store, write: store}
	case "UTMAPF", "UBLKPF":
		return class{tma: true}
	}
	return class{}
}

// localWindow is the size of a thread's local-memory window past the
// header's local base that Accel-Sim counts as local (its
// LOCAL_MEM_SIZE_MAX).
const localWindow = 16 << 10

// genericIsGlobal tells a generic access's space from its first active
// address, as Accel-Sim does: without both bases in the header, shared;
// from the shared base up to the local base, shared; in the local
// window, local; elsewhere global. A header whose local base lies below
// its shared base (Accel-Sim assumes the other order) has its shared
// window from the shared base as wide as the gap between the two.
func (k *kernelFile) genericIsGlobal(addrs []uint64) bool {
	if k.shmem == 0 || k.local == 0 || len(addrs) == 0 {
		return false
	}
	a := addrs[0]
	sharedEnd := k.local
	if k.local < k.shmem {
		sharedEnd = k.shmem + (k.shmem - k.local)
	}
	shared := a >= k.shmem && a < sharedEnd
	local := a >= k.local && a-k.local < localWindow
	return !shared && !local
}

// addresses reads an instruction's addresses in its mode, for the
// threads in mask.
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
		if err := baseDelta(r, a, max(active, 1), in); err != nil {
			return err
		}
	default:
		return fmt.Errorf("address mode %d: want 0 (list), 1 (base and stride) or 2 (base and deltas); 3 and 4 are for TMA instructions only", mode)
	}
	if active == 0 {
		in.addrs = in.addrs[:0]
	}
	return nil
}

// baseDelta reads n-1 deltas after the base a, each from the address
// before.
func baseDelta(r *fields, a uint64, n int, in *parsed) error {
	in.addrs = append(in.addrs, a)
	for range n - 1 {
		d, err := r.dec()
		if err != nil {
			return err
		}
		a += uint64(d)
		in.addrs = append(in.addrs, a)
	}
	return nil
}

// tmaAddresses reads a TMA instruction's memory fields: "mbarrier
// multicast [cta-mask] bytes oob-bytes mode", then mode 3, a count and
// that many addresses, or mode 4, a base, a count and count-1 deltas (the
// layout of Accel-Sim's trace parser). A warp whose mask is empty moves
// nothing.
func tmaAddresses(r *fields, mask uint64, c class, in *parsed) error {
	if _, err := r.hex(); err != nil { // the mbarrier
		return err
	}
	multicast, err := r.count("TMA multicast flag", true)
	if err != nil {
		return err
	}
	if multicast != 0 {
		if _, err := r.hex(); err != nil {
			return err
		}
	}
	if _, err := r.count("TMA byte count", true); err != nil {
		return err
	}
	if _, err := r.count("TMA out-of-bounds byte count", true); err != nil {
		return err
	}
	mode, err := r.count("address mode", true)
	if err != nil {
		return err
	}
	switch mode {
	case 3:
		n, err := r.count("TMA transfer count", false)
		if err != nil {
			return err
		}
		for range n {
			a, err := r.hex()
			if err != nil {
				return err
			}
			in.addrs = append(in.addrs, a)
		}
	case 4:
		base, err := r.hex()
		if err != nil {
			return err
		}
		n, err := r.count("TMA transfer count", true)
		if err != nil {
			return err
		}
		if n < 0 || n-1 > len(r.f)-r.p {
			return fmt.Errorf("bad TMA transfer count %d in %q: want a base and count-1 deltas", n, r.line)
		}
		if n > 0 {
			if err := baseDelta(r, base, n, in); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("TMA address mode %d: want 3 (count and list) or 4 (base, count and deltas)", mode)
	}
	if mask == 0 || !c.global {
		in.addrs = in.addrs[:0]
	}
	in.global, in.write = c.global && len(in.addrs) > 0, c.write
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
