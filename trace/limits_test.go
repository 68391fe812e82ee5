package trace

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
)

// stored is a deflate writer that stores rather than compresses, made
// once: a fuzz run writes a file a call, and a compressor's set-up took
// most of it. The reader reads either.
var stored, _ = flate.NewWriter(nil, flate.NoCompression)

// rawTrace writes workgroups given as their decompressed bytes, with
// correct checksums, so that a test can hand the reader what the Writer
// refuses to write.
func rawTrace(t testing.TB, raws [][]byte, meta []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := &Writer{w: &buf, z: stored}
	if err := w.write(binary.AppendUvarint([]byte(fileMagic), FileVersion)); err != nil {
		t.Fatal(err)
	}
	for _, raw := range raws {
		off, n, err := w.compressed(raw)
		if err != nil {
			t.Fatal(err)
		}
		w.blocks = append(w.blocks, blockRef{off, n, crc32.ChecksumIEEE(raw)})
	}
	if err := w.Close(meta); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawWorkgroup encodes a workgroup of the given wavefront encodings.
func rawWorkgroup(wfs ...[]byte) []byte {
	b := binary.AppendUvarint(nil, uint64(len(wfs)))
	for _, wf := range wfs {
		b = binary.AppendUvarint(b, uint64(len(wf)))
		b = append(b, wf...)
	}
	return b
}

// rawInst encodes one instruction field by field, deltas as given.
func rawInst(compute uint64, flags byte, lanes uint64, deltas ...int64) []byte {
	b := binary.AppendUvarint(nil, compute)
	b = append(b, flags)
	b = binary.AppendUvarint(b, lanes)
	for _, d := range deltas {
		b = binary.AppendVarint(b, d)
	}
	return b
}

// TestReaderLimits: a workgroup past the format's limits, or malformed,
// is refused with the byte of its block, before its wavefronts are
// allocated or replayed.
func TestReaderLimits(t *testing.T) {
	wide := make([][]byte, MaxWavefronts+1)
	for i := range wide {
		wide[i] = []byte{}
	}
	long := bytes.Repeat(rawInst(1, 0, 0), 100)
	for _, tc := range []struct {
		name  string
		raw   []byte
		limit int
		want  string
	}{
		{"more wavefronts than a workgroup holds", rawWorkgroup(wide...), 0, fmt.Sprintf("bad wavefront count (at most %d)", MaxWavefronts)},
		{"compute past the limit", rawWorkgroup(rawInst(MaxCompute+1, 0, 0)), 0, "1000000001 compute cycles (at most 1000000000)"},
		{"negative compute, as an int cast", rawWorkgroup(rawInst(1<<64-5, 0, 0)), 0, "18446744073709551611 compute cycles"},
		{"flags 2", rawWorkgroup(rawInst(0, 2, 0)), 0, "bad flags"},
		{"65 lanes", rawWorkgroup(rawInst(0, 0, WavefrontSize+1)), 0, "bad lane count (at most 64)"},
		{"a lane's address missing", rawWorkgroup(rawInst(0, 0, 2, 8)), 0, "truncated address"},
		{"a wavefront longer than its block", append(binary.AppendUvarint([]byte{1}, 50), 0, 0), 0, "wavefront 0 truncated"},
		{"bytes after the last wavefront", append(rawWorkgroup(rawInst(0, 0, 0)), 7), 0, "bytes after the last wavefront"},
		{"a block that decompresses past the limit", rawWorkgroup(long), 200, "decompresses to more than 200 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.limit > 0 {
				defer func(l int) { blockLimit = l }(blockLimit)
				blockLimit = tc.limit
			}
			data := rawTrace(t, [][]byte{tc.raw}, []byte("meta"))
			f, err := Open(bytes.NewReader(data), int64(len(data)))
			if err == nil {
				err = f.Verify()
			}
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a FormatError saying %q", err, tc.want)
			}
			if at := int64(len(fileMagic) + 1); fe.Offset != at {
				t.Fatalf("offset %d, want %d, where the block starts", fe.Offset, at)
			}
		})
	}
}

// TestWriterLimits: the writer refuses what the reader would, rather
// than record a file no replay can read.
func TestWriterLimits(t *testing.T) {
	one := func(in Instruction) Source { r := recorded{in}; return &r }
	for _, tc := range []struct {
		name string
		wfs  []Source
		want string
	}{
		{"negative compute", []Source{one(Instruction{Compute: -1})}, "compute cycles"},
		{"compute past the limit", []Source{one(Instruction{Compute: MaxCompute + 1})}, "compute cycles (at most"},
		{"more wavefronts than a workgroup holds", make([]Source, MaxWavefronts+1), fmt.Sprintf("at most %d a workgroup", MaxWavefronts)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, s := range tc.wfs {
				if s == nil {
					tc.wfs[i] = &recorded{}
				}
			}
			w, err := NewWriter(&bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Workgroup(tc.wfs...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestCheckHandsEveryWorkgroup: Check hands each workgroup to its
// function in order, and refuses the first it faults at that block's
// byte.
func TestCheckHandsEveryWorkgroup(t *testing.T) {
	raws := [][]byte{rawWorkgroup(rawInst(1, 0, 0)), rawWorkgroup(rawInst(2, 0, 0), nil), rawWorkgroup()}
	data := rawTrace(t, raws, []byte("meta"))
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	err = f.Check(func(i int, w *Workgroup) error {
		seen = append(seen, w.Wavefronts())
		if i == 1 {
			return errors.New("refused")
		}
		return nil
	})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != int64(f.blocks[1].off) || !strings.Contains(err.Error(), "workgroup 1: refused") {
		t.Fatalf("got %v, want workgroup 1 refused at byte %d", err, f.blocks[1].off)
	}
	if fmt.Sprint(seen) != "[1 2]" || f.verified {
		t.Fatalf("saw wavefront counts %v (want [1 2]), verified %v", seen, f.verified)
	}
	if err := f.Check(nil); err != nil || !f.verified {
		t.Fatalf("Check(nil): %v, verified %v", err, f.verified)
	}
}
