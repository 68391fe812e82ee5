package accelsim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
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
		case strings.HasPrefix(line, "kernel") && (strings.HasSuffix(line, ".trace") || strings.HasSuffix(line, ".trace.xz")):
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
