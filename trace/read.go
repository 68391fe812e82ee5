package trace

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sync"
)

// FormatError is a trace file that cannot be read: truncated, corrupt or
// of another version. Offset is the byte of the file at fault.
type FormatError struct {
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("trace file, byte %d: %s", e.Offset, e.Msg)
}

// File is an open trace file. Its workgroups are read on demand.
type File struct {
	r      io.ReaderAt
	size   int64
	blocks []blockRef
	meta   blockRef
	// verified is set once Verify has walked every instruction: later
	// reads trust the CRC alone.
	verified bool
	// z is one decompressor, reset for each block: a new one per
	// workgroup was a fifth of a replay's time.
	mu sync.Mutex
	z  io.ReadCloser
}

// Open reads a trace file's header, footer and index.
func Open(r io.ReaderAt, size int64) (*File, error) {
	head := make([]byte, len(fileMagic)+binary.MaxVarintLen64)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte(fileMagic)) {
		return nil, &FormatError{0, "not an mgpu trace (no \"mgpu-trace\" header)"}
	}
	v, k := binary.Uvarint(head[len(fileMagic):])
	if k <= 0 {
		return nil, &FormatError{int64(len(fileMagic)), "truncated version"}
	}
	if v != FileVersion {
		return nil, &FormatError{int64(len(fileMagic)), fmt.Sprintf("version %d; this mgpu reads version %d", v, FileVersion)}
	}
	start := int64(len(fileMagic) + k)
	if size < start+int64(footerBytes) {
		return nil, &FormatError{size, "truncated: no footer (the recording did not finish)"}
	}
	foot := make([]byte, footerBytes)
	if _, err := r.ReadAt(foot, size-int64(footerBytes)); err != nil {
		return nil, &FormatError{size - int64(footerBytes), err.Error()}
	}
	if string(foot[8:]) != endMagic {
		return nil, &FormatError{size - int64(len(endMagic)), "truncated: no end marker (the recording did not finish)"}
	}
	ioff := int64(binary.LittleEndian.Uint64(foot))
	iend := size - int64(footerBytes)
	if ioff < start || ioff > iend {
		return nil, &FormatError{size - int64(footerBytes), fmt.Sprintf("index offset %d outside the file", ioff)}
	}
	f := &File{r: r, size: size}
	return f, f.readIndex(ioff, iend, start)
}

func (f *File) readIndex(ioff, iend, start int64) error {
	idx := make([]byte, iend-ioff)
	if _, err := f.r.ReadAt(idx, ioff); err != nil {
		return &FormatError{ioff, err.Error()}
	}
	p := 0
	next := func() (uint64, error) {
		v, k := binary.Uvarint(idx[p:])
		if k <= 0 {
			return 0, &FormatError{ioff + int64(p), "truncated index"}
		}
		p += k
		return v, nil
	}
	n, err := next()
	if err != nil {
		return err
	}
	if n > uint64(len(idx)) || n > MaxWorkgroups {
		return &FormatError{ioff, fmt.Sprintf("index claims %d workgroups in %d bytes (a trace holds at most %d)", n, len(idx), MaxWorkgroups)}
	}
	f.blocks = make([]blockRef, n)
	prev, end := uint64(0), uint64(start)
	for i := range f.blocks {
		at := ioff + int64(p)
		d, err := next()
		if err != nil {
			return err
		}
		l, err := next()
		if err != nil {
			return err
		}
		c, err := next()
		if err != nil {
			return err
		}
		b := blockRef{prev + d, l, uint32(c)}
		if b.off < end || b.off+b.n > uint64(ioff) || b.off+b.n < b.off {
			return &FormatError{at, fmt.Sprintf("workgroup %d at bytes %d+%d: out of order or outside the blocks", i, b.off, b.n)}
		}
		f.blocks[i] = b
		prev, end = b.off, b.off+b.n
	}
	at := ioff + int64(p)
	mo, err := next()
	if err != nil {
		return err
	}
	ml, err := next()
	if err != nil {
		return err
	}
	mc, err := next()
	if err != nil {
		return err
	}
	if mo < end || mo+ml > uint64(ioff) || mo+ml < mo {
		return &FormatError{at, "metadata outside the file"}
	}
	if p != len(idx) {
		return &FormatError{ioff + int64(p), "bytes after the index"}
	}
	f.meta = blockRef{mo, ml, uint32(mc)}
	return nil
}

// Workgroups is the number of workgroups recorded.
func (f *File) Workgroups() int { return len(f.blocks) }

// Meta is the metadata record Close stored.
func (f *File) Meta() ([]byte, error) { return f.inflate(f.meta) }

// MetaOffset is the byte of the file where the metadata record starts,
// for errors about its contents.
func (f *File) MetaOffset() int64 { return int64(f.meta.off) }

// blockLimit is MaxBlockBytes, lowered by tests.
var blockLimit = MaxBlockBytes

// inflate decompresses block b, at most MaxBlockBytes of it: a few
// kilobytes of deflate can claim gigabytes.
func (f *File) inflate(b blockRef) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sr := io.NewSectionReader(f.r, int64(b.off), int64(b.n))
	if f.z == nil {
		f.z = flate.NewReader(sr)
	} else if err := f.z.(flate.Resetter).Reset(sr, nil); err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(4*b.n, 1<<20)))
	_, err := buf.ReadFrom(io.LimitReader(f.z, int64(blockLimit)+1))
	out := buf.Bytes()
	if err != nil {
		return nil, &FormatError{int64(b.off), "corrupt block: " + err.Error()}
	}
	if len(out) > blockLimit {
		return nil, &FormatError{int64(b.off), fmt.Sprintf("block decompresses to more than %d bytes, the most a trace holds", blockLimit)}
	}
	if crc32.ChecksumIEEE(out) != b.crc {
		return nil, &FormatError{int64(b.off), "corrupt block: checksum mismatch"}
	}
	return out, nil
}

// Workgroup decompresses workgroup i and checks every instruction in it,
// so that its wavefronts' streams cannot fail later.
func (f *File) Workgroup(i int) (*Workgroup, error) {
	if i < 0 || i >= len(f.blocks) {
		return nil, fmt.Errorf("trace: workgroup %d of %d", i, len(f.blocks))
	}
	raw, err := f.inflate(f.blocks[i])
	if err != nil {
		return nil, err
	}
	bad := func(p int, msg string) error {
		return &FormatError{int64(f.blocks[i].off), fmt.Sprintf("workgroup %d, decompressed byte %d: %s", i, p, msg)}
	}
	n, k := binary.Uvarint(raw)
	if k <= 0 || n > uint64(len(raw)) || n > MaxWavefronts {
		return nil, bad(0, fmt.Sprintf("bad wavefront count (at most %d)", MaxWavefronts))
	}
	w := &Workgroup{wfs: make([][]byte, n), at: make([]int, n)}
	p := k
	for j := range w.wfs {
		l, k := binary.Uvarint(raw[p:])
		if k <= 0 || uint64(len(raw)-p-k) < l {
			return nil, bad(p, fmt.Sprintf("wavefront %d truncated", j))
		}
		p += k
		w.wfs[j], w.at[j] = raw[p:p+int(l)], p
		if f.verified {
			p += int(l)
			continue
		}
		if at, msg := check(w.wfs[j]); msg != "" {
			return nil, bad(p+at, fmt.Sprintf("wavefront %d: %s", j, msg))
		}
		p += int(l)
	}
	if p != len(raw) {
		return nil, bad(p, "bytes after the last wavefront")
	}
	return w, nil
}

// check walks one wavefront's encoding and returns where and why it is
// malformed ("" when it is not).
func check(b []byte) (int, string) {
	p := 0
	for p < len(b) {
		c, k := binary.Uvarint(b[p:])
		if k <= 0 {
			return p, "truncated compute cycles"
		}
		if c > MaxCompute {
			return p, fmt.Sprintf("%d compute cycles (at most %d)", c, MaxCompute)
		}
		p += k
		if p >= len(b) || b[p] > 1 {
			return p, "bad flags"
		}
		p++
		lanes, k := binary.Uvarint(b[p:])
		if k <= 0 || lanes > WavefrontSize {
			return p, fmt.Sprintf("bad lane count (at most %d)", WavefrontSize)
		}
		p += k
		for range lanes {
			_, k := binary.Varint(b[p:])
			if k <= 0 {
				return p, "truncated address"
			}
			p += k
		}
	}
	return p, ""
}

// Verify reads every workgroup of f once, so that a bad trace is refused
// before a run starts. It holds one workgroup at a time.
func (f *File) Verify() error { return f.Check(nil) }

// Check is Verify that also hands each workgroup to fn, if not nil, for
// the checks of what its instructions mean (the reader of the metadata
// knows the objects and kernels); an error of fn is refused as a
// FormatError at the workgroup's block.
func (f *File) Check(fn func(i int, w *Workgroup) error) error {
	if _, err := f.Meta(); err != nil {
		return err
	}
	for i := range f.blocks {
		w, err := f.Workgroup(i)
		if err != nil {
			return err
		}
		if fn == nil {
			continue
		}
		if err := fn(i, w); err != nil {
			return &FormatError{int64(f.blocks[i].off), fmt.Sprintf("workgroup %d: %v", i, err)}
		}
	}
	f.verified = true
	return nil
}

// Workgroup is one decompressed workgroup: its wavefronts' encodings, and
// where each starts in the decompressed block.
type Workgroup struct {
	wfs [][]byte
	at  []int
}

// Wavefronts is the number of wavefronts recorded for the workgroup.
func (w *Workgroup) Wavefronts() int { return len(w.wfs) }

// Wavefront is wavefront j's stream, replayed from the start.
func (w *Workgroup) Wavefront(j int) *Replay { return &Replay{b: w.wfs[j]} }

// Offset is where wavefront j's instructions start in the decompressed
// block, for errors about them.
func (w *Workgroup) Offset(j int) int { return w.at[j] }

// Replay is a recorded wavefront's instruction stream (a benchmarks.Stream).
type Replay struct {
	b     []byte
	p     int
	first uint64
}

// Pos is where the next instruction starts in the wavefront's encoding.
func (r *Replay) Pos() int { return r.p }

// Next decodes the next instruction; the workgroup was checked when it
// was read, so it cannot fail.
func (r *Replay) Next(in *Instruction) bool {
	if r.p >= len(r.b) {
		return false
	}
	var c, l uint64
	c, r.p = uvarint(r.b, r.p)
	in.Compute = int(c)
	in.Write = r.b[r.p] == 1
	r.p++
	l, r.p = uvarint(r.b, r.p)
	in.Lanes = int(l)
	prev := r.first
	for i := 0; i < in.Lanes; i++ {
		var u uint64
		u, r.p = uvarint(r.b, r.p)
		prev += uint64(int64(u>>1) ^ -int64(u&1)) // zigzag, as binary.Varint
		in.Addr[i] = prev
		if i == 0 {
			r.first = prev
		}
	}
	return true
}

// uvarint decodes the varint at b[p], checked when its workgroup was
// read, and returns it and the position after it; most are one byte.
func uvarint(b []byte, p int) (uint64, int) {
	if c := b[p]; c < 0x80 {
		return uint64(c), p + 1
	}
	v, k := binary.Uvarint(b[p:])
	return v, p + k
}
