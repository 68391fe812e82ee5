package uvmproto

import (
	"sync"

	"github.com/sarchlab/akita/v3/sim"
)

// MaxLines is the most cache lines one RDMA request names: one per lane of
// a 64-wide wavefront instruction.
const MaxLines = 64

// RDMAReq asks the GPU that owns some lines to read them (or to write
// them, carrying the data). One request per instruction and owner keeps
// the event count per access constant. The line addresses travel by value;
// Tag is the requester's own handle, echoed in the response. Requests come
// from a pool: the server releases a request once it has answered it.
type RDMAReq struct {
	sim.MsgMeta
	Lines [MaxLines]uint64
	N     int
	Write bool
	Tag   uint64
}

// RDMARsp returns the lines of an RDMAReq (or acknowledges the write).
type RDMARsp struct {
	sim.MsgMeta
	RespondTo string
	Tag       uint64
}

// Meta implements sim.Msg.
func (m *RDMAReq) Meta() *sim.MsgMeta { return &m.MsgMeta }

// Meta implements sim.Msg.
func (m *RDMARsp) Meta() *sim.MsgMeta { return &m.MsgMeta }

// GetRspTo implements sim.Rsp.
func (m *RDMARsp) GetRspTo() string { return m.RespondTo }

var (
	reqPool = sync.Pool{New: func() any { return new(RDMAReq) }}
	rspPool = sync.Pool{New: func() any { return new(RDMARsp) }}
)

// RDMA builds a request for lines (at most MaxLines) of lineBytes each. A
// read request carries 8-byte addresses; a write carries the lines.
func (b Builder) RDMA(lines []uint64, write bool, tag uint64, lineBytes int) *RDMAReq {
	r := reqPool.Get().(*RDMAReq)
	n := copy(r.Lines[:], lines)
	bytes := pageIDBytes * n
	if write {
		bytes = n * lineBytes
	}
	r.MsgMeta, r.N, r.Write, r.Tag = b.meta(bytes), n, write, tag
	return r
}

// RDMAResponse answers req: the lines for a read, an acknowledgement for a
// write.
func (b Builder) RDMAResponse(req *RDMAReq, lineBytes int) *RDMARsp {
	r := rspPool.Get().(*RDMARsp)
	bytes := ackBytes
	if !req.Write {
		bytes = req.N * lineBytes
	}
	r.MsgMeta, r.RespondTo, r.Tag = b.meta(bytes), req.ID, req.Tag
	return r
}

// Release returns a served request to the pool. The caller must hold no
// reference to it afterwards.
func (r *RDMAReq) Release() { reqPool.Put(r) }

// Release returns a consumed response to the pool.
func (r *RDMARsp) Release() { rspPool.Put(r) }
