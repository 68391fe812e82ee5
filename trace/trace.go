// Package trace is the wavefront instruction stream: what workloads produce
// and GPU models consume. It is a leaf, so a GPU model need not import the
// workloads to read their instructions, and a trace-replay front end can
// produce the same stream from a file: the file format (Writer, Open) is
// here; the front end that records a workload's kernels and objects into
// it and replays them is not built yet.
package trace

// WavefrontSize is the number of lanes in a wavefront (AMD GCN, as MGPUSim
// models it).
const WavefrontSize = 64

// Instruction is one wavefront memory instruction, preceded by Compute
// cycles of non-memory work. Addr holds a tagged pointer per active lane;
// lanes beyond Lanes are ignored. A compute-only instruction has Lanes 0.
type Instruction struct {
	Compute int
	Write   bool
	Lanes   int
	Addr    [WavefrontSize]uint64
}

// Reset clears every field but the lane buffer, which Lanes bounds. (A
// composite-literal reset copies the 512-byte buffer onto itself, which
// was 4% of a run.)
func (in *Instruction) Reset() { in.Compute, in.Write, in.Lanes = 0, false, 0 }

// Loop is a stream of N instructions generated on demand by Gen(i, in), so
// a workload never materialises a wavefront's instructions.
type Loop struct {
	N   int
	Gen func(i int, in *Instruction)
	i   int
}

// Next fills in the next instruction and reports false when all N have
// been generated. It keeps in's lane buffer and clears every other field,
// so Gen only sets what it uses.
func (l *Loop) Next(in *Instruction) bool {
	if l.i >= l.N {
		return false
	}
	in.Reset()
	l.Gen(l.i, in)
	l.i++
	return true
}
