// Package replay turns a workload into a trace file and a trace file back
// into a workload. A recording holds what the workload declared (its Info),
// the parameters it was sized from, its objects in allocation order, its
// kernels' launch facts, and every wavefront's instructions
// (trace.Writer). Replayed, it is a benchmarks.Workload whose Setup makes
// the same allocations and returns the same kernels, so a run of it equals
// the run of the workload it was recorded from, byte for byte.
//
// Wavefront streams that depend on the GPU running them (the synthetic
// workloads' per-device kernels) are recorded on the GPU the contiguous
// split gives each workgroup, as the platform dispatches a PerDevice
// kernel; every other kernel's streams are recorded on GPU 0, as the
// workload contract says they ignore it.
package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"sync"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/trace"
)

// meta is a recording's metadata record.
type meta struct {
	Info   benchmarks.Info
	Params benchmarks.Params
	// Tagging is the recording allocator's; the objects' pointers carry it.
	Tagging objtable.Tagging
	Objects []object
	Kernels []kernel
}

type object struct {
	Name string
	Size uint64
	// Ptr is the tagged pointer the recording's allocator returned; a
	// replay must get the same one, or its addresses would point elsewhere.
	Ptr uint64
}

// kernel is a benchmarks.Kernel without its streams, which are blocks
// First to First+Workgroups-1 of the file.
type kernel struct {
	Name                   string
	Args, Frees            []int
	Workgroups             int
	WavefrontsPerWorkgroup int
	Barrier, PerDevice     bool
	Access                 []benchmarks.Access
	First                  int
}

// Write records kernels, which w's Setup returned on alloc for p, to out.
func Write(out io.Writer, info benchmarks.Info, p benchmarks.Params, alloc *objtable.Allocator, kernels []benchmarks.Kernel) error {
	tw, err := trace.NewWriter(out)
	if err != nil {
		return err
	}
	m := meta{Info: info, Params: p, Tagging: alloc.Tagging()}
	for _, o := range alloc.Objects() {
		m.Objects = append(m.Objects, object{o.Name, o.Size, o.Ptr})
	}
	block := 0
	for _, k := range kernels {
		owner, err := owners(k, p.GPUs)
		if err != nil {
			return err
		}
		m.Kernels = append(m.Kernels, kernel{k.Name, k.Args, k.Frees, k.Workgroups, k.WavefrontsPerWorkgroup,
			k.Barrier, k.PerDevice, k.Access, block})
		srcs := make([]trace.Source, k.WavefrontsPerWorkgroup)
		for wg := range k.Workgroups {
			for wf := range srcs {
				srcs[wf] = k.Wavefront(wg, wf, owner(wg))
			}
			if _, err := tw.Workgroup(srcs...); err != nil {
				return err
			}
			block++
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return tw.Close(b)
}

// owners gives the GPU each of k's workgroups is recorded on.
func owners(k benchmarks.Kernel, gpus int) (func(wg int) int, error) {
	if !k.PerDevice {
		return func(int) int { return 0 }, nil
	}
	d, err := benchmarks.NewDispatcher(benchmarks.SchemeContiguous, k.Workgroups, gpus)
	if err != nil {
		return nil, err
	}
	of := make([]int, k.Workgroups)
	for g := range gpus {
		for wg, ok := d.Next(g); ok; wg, ok = d.Next(g) {
			of[wg] = g
		}
	}
	return func(wg int) int { return of[wg] }, nil
}

// Program is a recording opened for replay: a benchmarks.Workload.
type Program struct {
	f    *os.File
	file *trace.File
	m    meta
}

// Open opens a recording and checks it whole before any run (check.go):
// the file's index and every block, the metadata's counts against the
// blocks, every wavefront's addresses against the recorded objects, and,
// if params is not nil, the recorded parameters against what a run
// accepts (platform.CheckParams). A fault is a *trace.FormatError with
// the byte of the file at fault.
func Open(path string, params func(benchmarks.Params) error) (*Program, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%v)", st.Mode().Type())
	}
	var p *Program
	if err == nil {
		p, err = Read(f, st.Size(), params)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.f = f
	return p, nil
}

// Read is Open on a recording's size bytes in r, which must stay readable
// while the Program is used; its Close closes nothing.
func Read(r io.ReaderAt, size int64, params func(benchmarks.Params) error) (*Program, error) {
	tf, err := trace.Open(r, size)
	if err != nil {
		return nil, err
	}
	raw, err := tf.Meta()
	if err != nil {
		return nil, err
	}
	p := &Program{file: tf}
	bad := func(err error) error {
		return &trace.FormatError{Offset: tf.MetaOffset(), Msg: "metadata: " + err.Error()}
	}
	if err := json.Unmarshal(raw, &p.m); err != nil {
		return nil, bad(err)
	}
	if err := p.m.check(tf.Workgroups()); err != nil {
		return nil, bad(err)
	}
	if params != nil {
		if err := params(p.m.Params); err != nil {
			return nil, bad(fmt.Errorf("recorded parameters: %w", err))
		}
	}
	if err := tf.Check(p.m.blockCheck()); err != nil {
		return nil, err
	}
	return p, nil
}

// Close closes the file.
func (p *Program) Close() error {
	if p.f == nil {
		return nil
	}
	return p.f.Close()
}

// Info is the recorded workload's.
func (p *Program) Info() benchmarks.Info { return p.m.Info }

// Params are what the recording was sized from; a replay must be run with
// them.
func (p *Program) Params() benchmarks.Params { return p.m.Params }

// ErrParams is Setup's error when a run asks for other parameters than
// the recording's.
var ErrParams = errors.New("run parameters differ from the recording's")

// Setup allocates the recorded objects and returns the recorded kernels.
func (p *Program) Setup(alloc *objtable.Allocator, want benchmarks.Params) ([]benchmarks.Kernel, error) {
	if want != p.m.Params {
		return nil, fmt.Errorf("%w: recorded with %+v, run with %+v", ErrParams, p.m.Params, want)
	}
	// The platform sets a workload up again, with wider object IDs, when
	// it allocates more objects than its first tagging names; the pointers
	// can only match at the recording's tagging.
	tag, rec := alloc.Tagging(), p.m.Tagging
	final := tag == rec
	widen := tag.ConfigBit == 1 && rec.ConfigBit == 1 && tag.IDBits < rec.IDBits && bits.Len(uint(len(p.m.Objects)-1)) > tag.IDBits
	if !final && !widen {
		return nil, fmt.Errorf("%w: pointers recorded with %d object-ID bits (config bit %d), run with %d (%d): replay with the recording's policy and policy.id_bits",
			ErrParams, rec.IDBits, rec.ConfigBit, tag.IDBits, tag.ConfigBit)
	}
	for _, o := range p.m.Objects {
		ptr, err := alloc.MallocManaged(o.Size, o.Name)
		if err != nil {
			return nil, err
		}
		if final && ptr != o.Ptr {
			return nil, fmt.Errorf("object %s at %#x, recorded at %#x: replay with the recording's page size and policy (they set the pointer tags and alignment)", o.Name, ptr, o.Ptr)
		}
	}
	out := make([]benchmarks.Kernel, len(p.m.Kernels))
	for i, k := range p.m.Kernels {
		out[i] = benchmarks.Kernel{Name: k.Name, Args: k.Args, Frees: k.Frees, Workgroups: k.Workgroups,
			WavefrontsPerWorkgroup: k.WavefrontsPerWorkgroup, Barrier: k.Barrier, PerDevice: k.PerDevice,
			Access: k.Access, Wavefront: p.streams(k.First)}
	}
	return out, nil
}

// streams returns a kernel's Wavefront: the GPU asks for a workgroup's
// wavefronts one after another when it dispatches it, so the last
// workgroup read is kept for the next call.
func (p *Program) streams(first int) func(wg, wf, gpu int) benchmarks.Stream {
	var mu sync.Mutex
	last, lastWG := (*trace.Workgroup)(nil), -1
	return func(wg, wf, _ int) benchmarks.Stream {
		mu.Lock()
		defer mu.Unlock()
		if wg != lastWG {
			w, err := p.file.Workgroup(first + wg)
			if err != nil {
				// Open read every block: only a file changed since can fail.
				panic(fmt.Sprintf("trace file changed during the run: %v", err))
			}
			last, lastWG = w, wg
		}
		return last.Wavefront(wf)
	}
}
