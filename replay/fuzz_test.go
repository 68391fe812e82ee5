package replay

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"testing"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/objtable"
	"github.com/mgpu-sim/mgpu/trace"
)

// FuzzReplayMeta: no metadata, and no lane address, makes the reader
// panic; a recording it accepts sets up, and replays only addresses
// inside its objects, tagged as theirs. The blocks are small's, the
// first lane of the first instruction replaced by lane unless it is 0.
func FuzzReplayMeta(f *testing.F) {
	m, _ := small(f)
	good, err := json.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, uint64(0))
	f.Add(good, m.Objects[1].Ptr+99)
	f.Add(good, m.Objects[0].Ptr+4096)
	m.Kernels[0].WavefrontsPerWorkgroup = 3
	bad, _ := json.Marshal(m)
	f.Add(bad, uint64(0))
	f.Add([]byte(`{"Info":{"Name":"x"},"Tagging":{"IDBits":1,"ConfigBit":0}}`), uint64(0))
	f.Fuzz(func(t *testing.T, meta []byte, lane uint64) {
		_, wgs := small(t)
		if lane != 0 {
			wgs[0][0][0].Addr[0] = lane
		}
		data := storedTrace(meta, wgs)
		p, err := Read(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			return
		}
		drainAll(t, p)
	})
}

// drainAll sets p up at its recording's tagging and replays every
// wavefront, failing on a lane outside the allocated objects.
func drainAll(t *testing.T, p *Program) {
	alloc, err := objtable.NewAllocator(p.m.Tagging, 2<<20)
	if err != nil {
		t.Fatalf("an accepted tagging: %v", err)
	}
	ks, err := p.Setup(alloc, p.Params())
	if err != nil {
		return // pointers recorded at another alignment: refused, not replayed
	}
	var in trace.Instruction
	for _, k := range ks {
		for wg := range k.Workgroups {
			for wf := range k.WavefrontsPerWorkgroup {
				for s := k.Wavefront(wg, wf, 0); s.Next(&in); {
					checkLanes(t, alloc, &in)
				}
			}
		}
	}
	if err := benchmarks.CheckAccess(ks, len(alloc.Objects())); err != nil {
		t.Fatalf("accepted accesses: %v", err)
	}
}

// checkLanes fails unless every lane of in is in an object of alloc and
// carries that object's pointer's tag.
func checkLanes(t *testing.T, alloc *objtable.Allocator, in *trace.Instruction) {
	for l := range in.Lanes {
		a := in.Addr[l]
		o := alloc.ObjectAt(objtable.Strip(a))
		if o == nil || a>>objtable.AddrBits != o.Ptr>>objtable.AddrBits {
			t.Fatalf("lane %d: %#x accepted, in no object or tagged otherwise", l, a)
		}
	}
}

// storedZ stores rather than compresses; it is made once.
var storedZ, _ = flate.NewWriter(nil, flate.NoCompression)

// storedTrace is the file write makes, built here by the format of
// trace/file.go with its blocks stored rather than compressed: a fuzz
// run makes one a call, and trace.NewWriter's compressor took most of it.
func storedTrace(meta []byte, wgs [][]insts) []byte {
	out := binary.AppendUvarint([]byte("mgpu-trace\n"), trace.FileVersion)
	index := binary.AppendUvarint(nil, uint64(len(wgs)))
	prev := uint64(0)
	block := func(raw []byte) {
		var b bytes.Buffer
		storedZ.Reset(&b)
		storedZ.Write(raw)
		storedZ.Close()
		off := uint64(len(out))
		index = binary.AppendUvarint(index, off-prev)
		index = binary.AppendUvarint(index, uint64(b.Len()))
		index = binary.AppendUvarint(index, uint64(crc32.ChecksumIEEE(raw)))
		out, prev = append(out, b.Bytes()...), off
	}
	var in trace.Instruction
	for _, wg := range wgs {
		raw := binary.AppendUvarint(nil, uint64(len(wg)))
		for _, wf := range wg {
			c := append(insts(nil), wf...)
			enc := trace.AppendWavefront(nil, &c, &in)
			raw = append(binary.AppendUvarint(raw, uint64(len(enc))), enc...)
		}
		block(raw)
	}
	prev = 0 // the metadata's offset is absolute
	block(meta)
	ioff := uint64(len(out))
	out = append(out, index...)
	return append(binary.LittleEndian.AppendUint64(out, ioff), "mgpu-end"...)
}

// TestStoredTrace: the fuzz target's files are what trace.Writer writes,
// but for the compression: both read back the same.
func TestStoredTrace(t *testing.T) {
	m, wgs := small(t)
	meta, _ := json.Marshal(m)
	for _, data := range [][]byte{write(t, meta, wgs), storedTrace(meta, wgs)} {
		p, err := Read(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.file.Workgroups() != 3 || p.m.Info.Name != "small" {
			t.Fatalf("%d workgroups, workload %q", p.file.Workgroups(), p.m.Info.Name)
		}
	}
}
