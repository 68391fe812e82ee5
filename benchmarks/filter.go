package benchmarks

// Filter is the wavefront of a kernel whose work-items each sum Taps
// products of a data element and a coefficient into one output element
// (Hetero-Mark's FIR, the AMD APP SDK's SimpleConvolution): the
// kernel-argument load, then per tap the load of the lanes' data
// elements and of the tap's coefficient (a uniform address: one lane),
// in the kernel's order, and last the store of each lane's output.
type Filter struct {
	Kernarg    uint64
	Taps       int
	Lanes      int
	CoeffFirst bool
	Coeff      func(tap int) uint64
	Data       func(tap, lane int) uint64
	Out        func(lane int) uint64
}

// Stream is the wavefront's instruction stream.
func (f Filter) Stream() Stream {
	return &Loop{N: 2 + 2*f.Taps, Gen: func(i int, in *Instruction) {
		if i == 0 {
			GenKernarg(in, f.Kernarg)
			return
		}
		if i == 1+2*f.Taps {
			in.Compute, in.Write = FMACycles, true
			for l := range f.Lanes {
				AddLane(in, f.Out(l))
			}
			return
		}
		tap, second := (i-1)/2, (i-1)%2 == 1
		in.Compute = LoadCycles
		if !second {
			in.Compute = FMACycles
			if tap == 0 {
				in.Compute = IndexCycles
			}
		}
		if second == f.CoeffFirst {
			for l := range f.Lanes {
				AddLane(in, f.Data(tap, l))
			}
			return
		}
		AddLane(in, f.Coeff(tap))
	}}
}
