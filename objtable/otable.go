package objtable

import "fmt"

// Policy is an O-Table entry's one policy bit (OASIS §V-C).
type Policy uint8

// The two policies an O-Table entry can record; on-touch is the default for
// pages and never recorded.
const (
	PolicyDuplication   Policy = 0
	PolicyAccessCounter Policy = 1
)

func (p Policy) String() string {
	if p == PolicyAccessCounter {
		return "access-counter"
	}
	return "duplication"
}

// Entry is one O-Table entry: Obj_ID, the policy bit and the PF Count
// (OASIS Fig. 11). The LRU bits are the table's business.
type Entry struct {
	ID      int
	Policy  Policy
	PFCount int
	lru     uint64
	valid   bool
}

// OTable is OASIS's Object Table: a small LRU-managed table of per-object
// policy state (OASIS §V-C). Entries are created when an object is
// allocated and removed when it is freed; when more objects are live than
// the table holds, the least recently used entry makes room, and a later
// lookup of its object starts over with a fresh entry (PF Count 0, so the
// policy is relearned). Size 0 means unbounded, as the in-memory table of
// OASIS-InMem is.
type OTable struct {
	size    int
	entries []Entry
	index   map[int]int // ID -> slot
	clock   uint64
	// Hits and Misses count lookups; a miss (the entry was evicted or
	// never created) installs a fresh entry.
	Hits, Misses uint64
	// Evictions counts live entries the LRU replaced.
	Evictions uint64
}

// NewOTable makes a table of size entries (0: unbounded).
func NewOTable(size int) (*OTable, error) {
	if size < 0 {
		return nil, fmt.Errorf("O-Table size %d: must be >= 0 (0 = unbounded)", size)
	}
	return &OTable{size: size, index: map[int]int{}}, nil
}

// Len is the number of valid entries.
func (t *OTable) Len() int { return len(t.index) }

// Allocate creates the entry of a new object: policy bit 0, PF Count 0.
func (t *OTable) Allocate(id int) *Entry {
	t.clock++
	if i, ok := t.index[id]; ok {
		t.entries[i] = Entry{ID: id, lru: t.clock, valid: true}
		return &t.entries[i]
	}
	slot := len(t.entries)
	if t.size > 0 && len(t.entries) >= t.size {
		slot = 0
		for i := range t.entries {
			if t.entries[i].lru < t.entries[slot].lru {
				slot = i
			}
		}
		if old := t.entries[slot]; old.valid && t.index[old.ID] == slot {
			delete(t.index, old.ID)
			t.Evictions++
		}
	} else {
		t.entries = append(t.entries, Entry{})
	}
	t.entries[slot] = Entry{ID: id, lru: t.clock, valid: true}
	t.index[id] = slot
	return &t.entries[slot]
}

// Free removes an object's entry.
func (t *OTable) Free(id int) {
	i, ok := t.index[id]
	if !ok {
		return
	}
	delete(t.index, id)
	t.entries[i].valid = false
	t.entries[i].lru = 0 // reused first
}

// Lookup returns the object's entry, making it most recently used. A miss
// installs a fresh entry (PF Count 0) in place of the LRU one.
func (t *OTable) Lookup(id int) (e *Entry, hit bool) {
	if i, ok := t.index[id]; ok {
		t.clock++
		t.entries[i].lru = t.clock
		t.Hits++
		return &t.entries[i], true
	}
	t.Misses++
	return t.Allocate(id), false
}

// Peek returns the entry without touching the LRU order, or nil.
func (t *OTable) Peek(id int) *Entry {
	if i, ok := t.index[id]; ok {
		return &t.entries[i]
	}
	return nil
}
