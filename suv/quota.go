package suv

import (
	"fmt"

	"github.com/mgpu-sim/mgpu/recency"
)

// QuotaPool is the HBM one structure reserves on one GPU for OnDemand
// (Temporal, fault-driven) or EnableAC (Unknown, counter-driven)
// migration. SUV reserves WSS bytes so that the structure's slices "avoid
// thrashing of other data structures" (§IV); the pool makes that hard:
// it holds only the structure's pages, orders them by when each last
// migrated in (the driver's least-recently-migrated order, kept per page
// here since a pool is smaller than the driver's 2 MB chunks can resolve),
// and lists victims from its own pages only. A page of another structure
// is refused, so no sequence of calls can make it evict one.
//
// The driver keeps one pool per structure and GPU, calls Place when a page
// of the structure lands, Removed when it leaves, and evicts Victims(Over())
// after each batch of placements.
type QuotaPool struct {
	object   string
	first, n uint64 // the structure's pages: first .. first+n-1
	quota    uint64 // pages
	resident uint64
	order    *recency.List // held pages, by index from first, least recently migrated first
}

// NewQuotaPool returns an empty pool of quota pages for the structure
// named object, whose pages are first .. first+pages-1.
func NewQuotaPool(object string, first, pages, quota uint64) (*QuotaPool, error) {
	if pages == 0 || pages > 1<<31-1 {
		return nil, fmt.Errorf("suv pool %q: %d pages: must be in 1..%d", object, pages, 1<<31-1)
	}
	return &QuotaPool{object: object, first: first, n: pages, quota: quota, order: recency.NewList(int(pages))}, nil
}

// Owns reports whether page p belongs to the pool's structure.
func (q *QuotaPool) Owns(p uint64) bool { return p >= q.first && p-q.first < q.n }

// Holds reports whether the pool holds page p.
func (q *QuotaPool) Holds(p uint64) bool { return q.Owns(p) && q.order.Contains(int32(p-q.first)) }

// Place records that page p of the structure migrated in; it becomes the
// most recently migrated. A page of another structure is an error and
// changes nothing.
func (q *QuotaPool) Place(p uint64) error {
	if !q.Owns(p) {
		return fmt.Errorf("suv pool %q: page %d is not its structure's (pages %d..%d)", q.object, p, q.first, q.first+q.n-1)
	}
	i := int32(p - q.first)
	if !q.order.Contains(i) {
		q.resident++
	}
	q.order.Touch(i)
	return nil
}

// Removed records that page p left HBM. Pages the pool does not hold are
// ignored.
func (q *QuotaPool) Removed(p uint64) {
	if q.Holds(p) {
		q.order.Remove(int32(p - q.first))
		q.resident--
	}
}

// Over is how many pages the pool holds beyond its quota.
func (q *QuotaPool) Over() int {
	if q.resident <= q.quota {
		return 0
	}
	return int(q.resident - q.quota)
}

// Victims appends up to n of the pool's pages to dst, least recently
// migrated first. They are always the pool's own.
func (q *QuotaPool) Victims(n int, dst []uint64) []uint64 {
	for i := q.order.Front(); i >= 0 && n > 0; i = q.order.Next(i) {
		dst = append(dst, q.first+uint64(i))
		n--
	}
	return dst
}

// Resident is how many pages the pool holds; Quota its size in pages.
func (q *QuotaPool) Resident() uint64 { return q.resident }

// Quota is the pool's size in pages.
func (q *QuotaPool) Quota() uint64 { return q.quota }

// SetQuota resizes the pool, as a new launch's plan may; Over then says
// how many pages must go.
func (q *QuotaPool) SetQuota(pages uint64) { q.quota = pages }

// Object is the structure's name.
func (q *QuotaPool) Object() string { return q.object }
