package trace

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// The trace file: what a replay front end reads instead of generating a
// workload's instructions. It holds one compressed block per workgroup
// (each of its wavefronts' instructions), an opaque metadata record (the
// workload, its objects and its kernels, which the replay front end
// writes and reads; this package only stores it) and an index at the end.
// Each block's CRC-32 is in the index, so a corrupt trace is refused
// rather than replayed as another program. Blocks are compressed one by one so that a reader decompresses only the
// workgroups it dispatches, in any order: replay memory is bounded by the
// workgroups resident at once, not by the trace's length.
//
//	"mgpu-trace\n" uvarint(version)
//	block...              flate(workgroup)
//	meta                  flate(metadata)
//	index                 uvarint(blocks) {uvarint(offset delta) uvarint(length) uvarint(crc)}... uvarint(meta offset) uvarint(meta length) uvarint(crc)
//	footer                uint64le(index offset) "mgpu-end"
//
// A workgroup is uvarint(wavefronts) then, per wavefront, uvarint(bytes)
// and its instructions (limits: MaxWavefronts, MaxWorkgroups,
// MaxBlockBytes, MaxCompute). An instruction is uvarint(compute), a flags byte
// (bit 0: write), uvarint(lanes), then its lanes' addresses as zigzag
// varint deltas: lane 0 from the previous instruction's lane 0 (0 at the
// wavefront's start), each later lane from the lane before it. Addresses
// of one instruction sit close together and move by small strides, so
// most deltas take one or two bytes.
const (
	fileMagic = "mgpu-trace\n"
	endMagic  = "mgpu-end"
	// FileVersion is the format this package writes and the only one it
	// reads.
	FileVersion = 1
	footerBytes = 8 + len(endMagic)
)

// Limits of the format, which the writer keeps and the reader checks
// before it allocates, so that a corrupt or hostile file is refused
// rather than exhausting memory.
const (
	// MaxWavefronts is the most wavefronts a workgroup holds: 1024, a
	// CUDA block's 1024 threads as 32-lane warps or an OpenCL
	// workgroup's as far more than the 16 wavefronts of 64 it allows.
	MaxWavefronts = 1024
	// MaxWorkgroups is the most workgroups a file holds: the index keeps
	// 24 bytes a workgroup in memory, 1.5 GB at the limit.
	MaxWorkgroups = 1 << 26
	// MaxBlockBytes is the most a workgroup (or the metadata) takes
	// decompressed: a replay holds each dispatched workgroup whole.
	MaxBlockBytes = 1 << 30
	// MaxCompute is the most compute cycles before one instruction: a
	// second at 1 GHz, the bound run puts on every *_cycles key.
	MaxCompute = 1_000_000_000
)

// Source is a stream of instructions to record (benchmarks.Stream).
type Source interface {
	Next(in *Instruction) bool
}

// Writer writes a trace file: its workgroups in order, then Close with the
// metadata.
type Writer struct {
	w      io.Writer
	off    uint64
	blocks []blockRef
	raw    []byte
	zbuf   bytes.Buffer
	z      *flate.Writer
	in     Instruction
	closed bool
}

// blockRef is where a block sits and the CRC-32 (IEEE) of its
// decompressed bytes.
type blockRef struct {
	off, n uint64
	crc    uint32
}

// NewWriter starts a trace on w.
func NewWriter(w io.Writer) (*Writer, error) {
	z, err := flate.NewWriter(nil, flate.DefaultCompression)
	if err != nil {
		return nil, err
	}
	tw := &Writer{w: w, z: z}
	head := binary.AppendUvarint([]byte(fileMagic), FileVersion)
	return tw, tw.write(head)
}

func (t *Writer) write(b []byte) error {
	n, err := t.w.Write(b)
	t.off += uint64(n)
	return err
}

// Workgroup records one workgroup, its wavefronts' streams in order, and
// returns its block number.
func (t *Writer) Workgroup(wavefronts ...Source) (int, error) {
	if t.closed {
		return 0, errors.New("trace: workgroup after Close")
	}
	if len(t.blocks) >= MaxWorkgroups {
		return 0, fmt.Errorf("trace: more than %d workgroups, the most a trace holds", MaxWorkgroups)
	}
	if len(wavefronts) > MaxWavefronts {
		return 0, fmt.Errorf("trace: workgroup %d of %d wavefronts; a trace holds at most %d a workgroup", len(t.blocks), len(wavefronts), MaxWavefronts)
	}
	t.raw = binary.AppendUvarint(t.raw[:0], uint64(len(wavefronts)))
	var wf []byte
	for j, s := range wavefronts {
		wf = AppendWavefront(wf[:0], s, &t.in)
		// What the reader would refuse is not written.
		if at, msg := check(wf); msg != "" {
			return 0, fmt.Errorf("trace: workgroup %d wavefront %d, byte %d: %s", len(t.blocks), j, at, msg)
		}
		t.raw = binary.AppendUvarint(t.raw, uint64(len(wf)))
		t.raw = append(t.raw, wf...)
		if len(t.raw) > MaxBlockBytes {
			return 0, fmt.Errorf("trace: workgroup %d takes more than %d bytes, the most a trace holds", len(t.blocks), MaxBlockBytes)
		}
	}
	off, n, err := t.compressed(t.raw)
	if err != nil {
		return 0, err
	}
	t.blocks = append(t.blocks, blockRef{off, n, crc32.ChecksumIEEE(t.raw)})
	return len(t.blocks) - 1, nil
}

// compressed writes b deflated and returns where it starts and its length.
func (t *Writer) compressed(b []byte) (off, n uint64, err error) {
	t.zbuf.Reset()
	t.z.Reset(&t.zbuf)
	if _, err := t.z.Write(b); err != nil {
		return 0, 0, err
	}
	if err := t.z.Close(); err != nil {
		return 0, 0, err
	}
	off = t.off
	return off, uint64(t.zbuf.Len()), t.write(t.zbuf.Bytes())
}

// Close writes the metadata, the index and the footer. It does not close
// the underlying writer.
func (t *Writer) Close(meta []byte) error {
	if t.closed {
		return errors.New("trace: Close twice")
	}
	t.closed = true
	if len(meta) > MaxBlockBytes {
		return fmt.Errorf("trace: metadata of %d bytes; a trace holds at most %d", len(meta), MaxBlockBytes)
	}
	moff, mn, err := t.compressed(meta)
	if err != nil {
		return err
	}
	mcrc := crc32.ChecksumIEEE(meta)
	index := binary.AppendUvarint(nil, uint64(len(t.blocks)))
	prev := uint64(0)
	for _, b := range t.blocks {
		index = binary.AppendUvarint(index, b.off-prev)
		index = binary.AppendUvarint(index, b.n)
		index = binary.AppendUvarint(index, uint64(b.crc))
		prev = b.off
	}
	index = binary.AppendUvarint(index, moff)
	index = binary.AppendUvarint(index, mn)
	index = binary.AppendUvarint(index, uint64(mcrc))
	ioff := t.off
	index = binary.LittleEndian.AppendUint64(index, ioff)
	return t.write(append(index, endMagic...))
}

// AppendWavefront appends s's instructions, encoded, to dst; in is scratch.
func AppendWavefront(dst []byte, s Source, in *Instruction) []byte {
	var first uint64
	for s.Next(in) {
		dst = binary.AppendUvarint(dst, uint64(in.Compute))
		var flags byte
		if in.Write {
			flags = 1
		}
		dst = append(dst, flags)
		dst = binary.AppendUvarint(dst, uint64(in.Lanes))
		prev := first
		for l := 0; l < in.Lanes; l++ {
			a := in.Addr[l]
			dst = binary.AppendVarint(dst, int64(a-prev))
			prev = a
			if l == 0 {
				first = a
			}
		}
	}
	return dst
}
