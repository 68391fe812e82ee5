package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"
)

// recorded is a wavefront's instructions as a test writes and expects them.
type recorded []Instruction

func (r *recorded) Next(in *Instruction) bool {
	if len(*r) == 0 {
		return false
	}
	*in = (*r)[0]
	*r = (*r)[1:]
	return true
}

// randomWavefront mixes what workloads produce: strided lanes, scattered
// lanes, tagged high bits, writes, compute-only instructions, partial
// wavefronts.
func randomWavefront(rng *rand.Rand, n int) recorded {
	out := make(recorded, n)
	for i := range out {
		in := &out[i]
		in.Compute = rng.IntN(3) * rng.IntN(1000)
		in.Write = rng.IntN(3) == 0
		in.Lanes = []int{0, 1, 17, WavefrontSize}[rng.IntN(4)]
		base := rng.Uint64()
		if rng.IntN(2) == 0 {
			base = uint64(rng.IntN(16))<<56 | uint64(rng.IntN(1<<30))
		}
		for l := 0; l < in.Lanes; l++ {
			switch rng.IntN(3) {
			case 0:
				in.Addr[l] = base + uint64(l)*4
			case 1:
				in.Addr[l] = base - uint64(l)*4096
			default:
				in.Addr[l] = rng.Uint64()
			}
		}
	}
	return out
}

// same compares two instructions on the lanes they use.
func same(a, b *Instruction) bool {
	if a.Compute != b.Compute || a.Write != b.Write || a.Lanes != b.Lanes {
		return false
	}
	for l := 0; l < a.Lanes; l++ {
		if a.Addr[l] != b.Addr[l] {
			return false
		}
	}
	return true
}

// writeTrace records wgs (workgroups of wavefronts) and meta.
func writeTrace(t testing.TB, wgs [][]recorded, meta []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, wg := range wgs {
		srcs := make([]Source, len(wg))
		for j := range wg {
			c := append(recorded(nil), wg[j]...)
			srcs[j] = &c
		}
		if n, err := w.Workgroup(srcs...); err != nil || n != i {
			t.Fatalf("workgroup %d: block %d, %v", i, n, err)
		}
	}
	if err := w.Close(meta); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRoundTrip: every instruction of every wavefront comes back as
// written, workgroups read in any order, and the metadata intact.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name            string
		wgs, wfs, insts int
	}{
		{"empty trace", 0, 0, 0},
		{"one empty wavefront", 1, 1, 0},
		{"one instruction", 1, 1, 1},
		{"many", 9, 4, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wgs := make([][]recorded, tc.wgs)
			for i := range wgs {
				for range tc.wfs {
					wgs[i] = append(wgs[i], randomWavefront(rng, tc.insts))
				}
			}
			meta := []byte(`{"workload":"test"}`)
			data := writeTrace(t, wgs, meta)
			f, err := Open(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Verify(); err != nil {
				t.Fatal(err)
			}
			if got, _ := f.Meta(); !bytes.Equal(got, meta) {
				t.Fatalf("meta %q, want %q", got, meta)
			}
			if f.Workgroups() != tc.wgs {
				t.Fatalf("%d workgroups, want %d", f.Workgroups(), tc.wgs)
			}
			for _, i := range rng.Perm(tc.wgs) {
				wg, err := f.Workgroup(i)
				if err != nil {
					t.Fatal(err)
				}
				if wg.Wavefronts() != tc.wfs {
					t.Fatalf("workgroup %d: %d wavefronts, want %d", i, wg.Wavefronts(), tc.wfs)
				}
				for j, want := range wgs[i] {
					r := wg.Wavefront(j)
					var in Instruction
					for k := range want {
						if !r.Next(&in) || !same(&in, &want[k]) {
							t.Fatalf("workgroup %d wavefront %d instruction %d: %+v, want %+v", i, j, k, in, want[k])
						}
					}
					if r.Next(&in) {
						t.Fatalf("workgroup %d wavefront %d: more than %d instructions", i, j, len(want))
					}
				}
			}
		})
	}
}

// TestBadFiles: a truncated, corrupt or other-version trace is refused
// with the byte at fault, never read as a shorter trace.
func TestBadFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	wgs := [][]recorded{{randomWavefront(rng, 50), randomWavefront(rng, 50)}, {randomWavefront(rng, 50)}}
	good := writeTrace(t, wgs, []byte("meta"))
	open := func(b []byte) error {
		f, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return err
		}
		return f.Verify()
	}
	if err := open(good); err != nil {
		t.Fatal(err)
	}
	version := append([]byte(fileMagic), binary.AppendUvarint(nil, FileVersion+1)...)
	cases := map[string][]byte{
		"empty":         nil,
		"not a trace":   []byte("kernelslist.g\n"),
		"other version": append(version, good[len(version):]...),
	}
	for _, cut := range []int{1, footerBytes, len(good) / 2, len(good) - 1} {
		cases["truncated by "+strconv.Itoa(cut)] = good[:len(good)-cut]
	}
	flipped := append([]byte(nil), good...)
	flipped[len(fileMagic)+3] ^= 0xff // inside workgroup 0's compressed block
	cases["corrupt block"] = flipped
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			err := open(b)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FormatError", err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(b)) {
				t.Fatalf("offset %d outside the %d-byte file", fe.Offset, len(b))
			}
		})
	}
}

// TestCompact: a streaming wavefront (64 lanes, 4-byte stride) costs a few
// bytes a lane before compression, far below the 8 of a raw address.
func TestCompact(t *testing.T) {
	var wf recorded
	for i := range 1000 {
		in := Instruction{Lanes: WavefrontSize, Compute: 4}
		for l := range in.Lanes {
			in.Addr[l] = 1<<56 | uint64(i*256+l*4)
		}
		wf = append(wf, in)
	}
	var in Instruction
	c := append(recorded(nil), wf...)
	raw := AppendWavefront(nil, &c, &in)
	if per := float64(len(raw)) / (1000 * WavefrontSize); per > 1.1 {
		t.Fatalf("%.2f bytes per lane, want about 1", per)
	}
	data := writeTrace(t, [][]recorded{{wf}}, nil)
	if len(data) > len(raw)/4 {
		t.Fatalf("compressed %d bytes of %d", len(data), len(raw))
	}
}

// TestEveryByteFlip: flipping any one byte of a trace, header, blocks,
// metadata, index or footer, is refused, never replayed as another trace.
func TestEveryByteFlip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	good := writeTrace(t, [][]recorded{{randomWavefront(rng, 20)}, {randomWavefront(rng, 20), randomWavefront(rng, 3)}}, []byte("meta"))
	for i := range good {
		b := append([]byte(nil), good...)
		b[i] ^= 0x5a
		f, err := Open(bytes.NewReader(b), int64(len(b)))
		if err == nil {
			err = f.Verify()
		}
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("byte %d of %d flipped: got %v, want a FormatError", i, len(b), err)
		}
	}
}
