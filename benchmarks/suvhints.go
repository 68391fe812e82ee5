package benchmarks

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/suv"
)

// SUVHint is what SUV's compiler passes derive for one object in one
// launch (SUV §V-A, §V-B), declared by the workload from its kernel's
// address expressions rather than measured: SUV never profiles. The
// runtime half of SUV-Host (the resident workgroups, which depend on the
// GPU) is the simulator's: it turns WorkgroupRangeBytes into a working-set
// size with the GPU's occupancy, as SUV's injected host code does with the
// SM count.
type SUVHint struct {
	// Object is the object's ID; it must be one of the launch's Args.
	Object int
	// Class is the declared tag: suv.Density for an analysable structure
	// (the working set then decides Temporal), suv.Iterative for one whose
	// addresses follow the host loop's induction variable, suv.Unknown for
	// a pointer chase or a data-dependent bound.
	Class suv.Class
	// Accesses are thread-level accesses in this launch: threads x trip
	// counts x the fraction of threads on the memop's branch path, summed
	// over the object's memops (§V-B). Density is Accesses over the size.
	// Ignored for Unknown.
	Accesses float64
	// WorkgroupRangeBytes is the bytes one workgroup's memops span
	// (interval arithmetic with the block index fixed); 0 when SUV cannot
	// compute it (an indirect access), which keeps the object Density.
	WorkgroupRangeBytes int64
	// Iter is the per-iteration span of an Iterative object (zero
	// otherwise); Iter.Index is this launch's iteration.
	Iter suv.Iteration
}

// HasSUVHints reports whether w declares SUV hints (Info.SUVHints).
func HasSUVHints(w Workload) bool { return w.Info().SUVHints }

// CheckSUVHints checks every launch's declarations against its arguments
// before a run, so that a bad declaration is an input error and not a
// failure halfway through: the object must be an argument of the launch,
// at most one hint per object, and a grid barrier declares nothing.
func CheckSUVHints(kernels []Kernel, objects int) error {
	for i, k := range kernels {
		if len(k.SUV) == 0 {
			continue
		}
		if k.Barrier {
			return fmt.Errorf("kernel %d (%s): a grid barrier is not a launch and declares no SUV hints", i, k.Name)
		}
		seen := map[int]bool{}
		for _, h := range k.SUV {
			if h.Object < 0 || h.Object >= objects {
				return fmt.Errorf("kernel %d (%s): SUV hint names object %d: no such object (valid IDs 0..%d)", i, k.Name, h.Object, objects-1)
			}
			if !hasArg(k.Args, h.Object) {
				return fmt.Errorf("kernel %d (%s): SUV hint names object %d, which is not an argument of the launch (args %v)", i, k.Name, h.Object, k.Args)
			}
			if seen[h.Object] {
				return fmt.Errorf("kernel %d (%s): two SUV hints for object %d", i, k.Name, h.Object)
			}
			seen[h.Object] = true
		}
	}
	return nil
}

func hasArg(args []int, id int) bool {
	for _, a := range args {
		if a == id {
			return true
		}
	}
	return false
}
