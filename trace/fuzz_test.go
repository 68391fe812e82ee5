package trace

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// FuzzTraceFile: no file, however corrupt, panics the reader or makes it
// allocate past the format's limits, and every file it accepts replays
// instructions within them. With block set, data is one workgroup's
// decompressed bytes, wrapped in a valid file (the checksum right), so
// that the fuzzer reaches the workgroup decoder past the compression.
func FuzzTraceFile(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	good := writeTrace(f, [][]recorded{{randomWavefront(rng, 5), randomWavefront(rng, 2)}, {randomWavefront(rng, 3)}}, []byte(`{"m":1}`))
	f.Add(good, false)
	f.Add(good[:len(good)-3], false)
	f.Add(writeTrace(f, nil, nil), false)
	var in Instruction
	for _, wf := range []recorded{randomWavefront(rng, 4), randomWavefront(rng, 1), nil} {
		c := append(recorded(nil), wf...)
		f.Add(rawWorkgroup(AppendWavefront(nil, &c, &in)), true)
	}
	f.Add(rawWorkgroup(rawInst(3, 1, 2, 8, -4), rawInst(0, 0, 0)), true)
	f.Fuzz(func(t *testing.T, data []byte, block bool) {
		if block {
			data = rawTrace(t, [][]byte{data}, []byte("meta"))
		}
		tf, err := Open(bytes.NewReader(data), int64(len(data)))
		if err == nil {
			err = tf.Verify()
		}
		if err != nil {
			return
		}
		for i := range tf.Workgroups() {
			drainChecked(t, tf, i)
		}
	})
}

// drainChecked replays every wavefront of workgroup i of a verified file
// and fails on an instruction outside the format's limits.
func drainChecked(t *testing.T, tf *File, i int) {
	w, err := tf.Workgroup(i)
	if err != nil {
		t.Fatalf("workgroup %d of a verified file: %v", i, err)
	}
	if w.Wavefronts() > MaxWavefronts {
		t.Fatalf("workgroup %d: %d wavefronts", i, w.Wavefronts())
	}
	var in Instruction
	for j := range w.Wavefronts() {
		for r := w.Wavefront(j); r.Next(&in); {
			if in.Lanes < 0 || in.Lanes > WavefrontSize || in.Compute < 0 || in.Compute > MaxCompute {
				t.Fatalf("workgroup %d wavefront %d: lanes %d, compute %d", i, j, in.Lanes, in.Compute)
			}
		}
	}
}
