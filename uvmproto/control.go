package uvmproto

import "github.com/sarchlab/akita/v3/sim"

// The GPU side of a GMMU, as messages on its Control port: the one way a
// GMMU reaches the GPU it sits in, mgpu's own GPU or another model's. A
// GMMU with a GPU port connected (gmmu.Comp.ConnectGPU) sends:
//   - ShootdownReq: drop or downgrade Entries in the GPU's TLBs and caches
//     and drain the work in flight on them; the GPU answers ShootdownRsp
//     when the drain is done (its SendTime is the drained time), and only
//     then does the driver hear the acknowledgement;
//   - DropTranslationsReq: the GMMU installed new PTEs for Pages; the GPU
//     drops any translation of them it holds (no answer);
//   - SendPagesReq: copy Pages to GPU To, part of the driver's batch
//     Batch; the GPU sends them on its own data path.
// and takes PagesArrivedMsg: page data of Batch landed in this GPU's
// memory, which the GMMU reports to the driver (a peer's pages; pages
// from the host arrive at the GMMU itself).

// ShootdownReq asks the GPU to drop Entries and drain. VAddrs are the
// virtual addresses, as the GPU's TLB keys them (with the pointer's tag,
// page-aligned), under which the GMMU answered the pages on its Top port:
// what the GPU flushes from an Akita TLB.
type ShootdownReq struct {
	sim.MsgMeta
	Entries []Inval
	VAddrs  []uint64
}

// ShootdownRsp says the GPU dropped and drained what RespondTo asked.
type ShootdownRsp struct {
	sim.MsgMeta
	RespondTo string
}

// DropTranslationsReq tells the GPU that Pages have new PTEs; VAddrs are
// as in ShootdownReq.
type DropTranslationsReq struct {
	sim.MsgMeta
	Pages  []uint64
	VAddrs []uint64
}

// CounterNotifyMsg is the GPU's access-counter notification: Pages, a
// group whose counter crossed its threshold, to migrate to this GPU (the
// GMMU's NotifyCounter, as a message).
type CounterNotifyMsg struct {
	sim.MsgMeta
	Pages []uint64
}

// LaunchMsg tells the driver, on its PCIe port, that a kernel using the
// objects Objects launches (the driver's Observe of a launch, as a
// message): OASIS's access-counter half learns per launch.
type LaunchMsg struct {
	sim.MsgMeta
	Objects []int
}

// SendPagesReq asks the GPU to copy Pages to GPU To for batch Batch.
type SendPagesReq struct {
	sim.MsgMeta
	To    int
	Pages []uint64
	Batch uint64
}

// PagesArrivedMsg says page data of batch Batch landed in the GPU.
type PagesArrivedMsg struct {
	sim.MsgMeta
	Batch uint64
}

func (m *ShootdownReq) Meta() *sim.MsgMeta        { return &m.MsgMeta }
func (m *ShootdownRsp) Meta() *sim.MsgMeta        { return &m.MsgMeta }
func (m *DropTranslationsReq) Meta() *sim.MsgMeta { return &m.MsgMeta }
func (m *SendPagesReq) Meta() *sim.MsgMeta        { return &m.MsgMeta }
func (m *PagesArrivedMsg) Meta() *sim.MsgMeta     { return &m.MsgMeta }
func (m *CounterNotifyMsg) Meta() *sim.MsgMeta    { return &m.MsgMeta }
func (m *LaunchMsg) Meta() *sim.MsgMeta           { return &m.MsgMeta }

// Shootdown builds a GMMU's shootdown request.
func (b Builder) Shootdown(entries []Inval) *ShootdownReq {
	return &ShootdownReq{MsgMeta: b.meta(invalBytes * len(entries)), Entries: entries}
}

// ShootdownDone answers req.
func (b Builder) ShootdownDone(req *ShootdownReq) *ShootdownRsp {
	return &ShootdownRsp{MsgMeta: b.meta(ackBytes), RespondTo: req.ID}
}

// DropTranslations builds a GMMU's notice of new PTEs.
func (b Builder) DropTranslations(pages []uint64) *DropTranslationsReq {
	return &DropTranslationsReq{MsgMeta: b.meta(pageIDBytes * len(pages)), Pages: pages}
}

// SendPages builds a GMMU's request to copy pages to GPU to.
func (b Builder) SendPages(to int, pages []uint64, batch uint64) *SendPagesReq {
	return &SendPagesReq{MsgMeta: b.meta(pageIDBytes * len(pages)), To: to, Pages: pages, Batch: batch}
}

// PagesArrived builds a GPU's report that batch's page data landed.
func (b Builder) PagesArrived(batch uint64) *PagesArrivedMsg {
	return &PagesArrivedMsg{MsgMeta: b.meta(ackBytes), Batch: batch}
}

// CounterNotify builds a GPU's access-counter notification.
func (b Builder) CounterNotify(pages []uint64) *CounterNotifyMsg {
	return &CounterNotifyMsg{MsgMeta: b.meta(pageIDBytes * len(pages)), Pages: pages}
}

// Launch builds a kernel launch's notice to the driver.
func (b Builder) Launch(objects []int) *LaunchMsg {
	return &LaunchMsg{MsgMeta: b.meta(pageIDBytes * len(objects)), Objects: objects}
}
