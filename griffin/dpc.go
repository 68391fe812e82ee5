// Package griffin is an approximation of the Dynamic Page Classification
// (DPC) of Griffin (Baruah et al., "Griffin: Hardware-Software Support for
// Efficient Page Migration in Multi-GPU Systems", HPCA 2020), the scheme
// GRIT (HPCA 2024) compares itself against in §VI-C ("+27% over
// Griffin-DPC"). It is a pure state machine: no engine, no wall clock.
//
// Griffin's full text is not public. What is known, from its abstract and
// from GRIT §VI-C: its baseline is first-touch demand paging (a page moves
// from the CPU to the GPU that touches it first and stays there; other
// GPUs access it remotely), and DPC "tracks access information on each GPU
// periodically", classifies pages, and "triggers migration at a predefined
// time interval". The categories, thresholds and epoch are not given, so
// everything below is our choice, labelled approximate wherever results
// are shown:
//
//   - the access information is the GPUs' remote-access counter
//     notifications (the access-counter policy's counters: a notification
//     names a page after policy.ac_threshold remote accesses to its group);
//   - an epoch is EpochNs long; at its end each page notified in it is
//     classified by how its notifications split over GPUs: private (one
//     GPU), dominant (one GPU above Share of them) or shared (no GPU
//     above Share);
//   - private and dominant pages migrate to that GPU, all at once; shared
//     pages stay where they are, accessed remotely.
package griffin

import (
	"fmt"
	"math"
	"slices"
)

// Config is DPC's two parameters. Neither has a source (Griffin's values
// are not public; GRIT reused them without giving them).
type Config struct {
	// EpochNs is the interval between classifications: 10^5 cycles at
	// mgpu's 1 GHz clock (no source; the value our GRIT research notes
	// chose). Sweep it.
	EpochNs float64 `yaml:"epoch_ns" doc:"interval between DPC classifications in ns (Griffin's value is not public; chosen 10^5 cycles at 1 GHz: 100000)"`
	// Share is the fraction of a page's notifications in an epoch above
	// which one GPU dominates it: 0.5, a strict majority (no source).
	Share float64 `yaml:"share" doc:"share of a page's epoch notifications above which one GPU dominates it and the page migrates there (not public; chosen: 0.5, a majority)"`
}

// DefaultConfig returns the choices above.
func DefaultConfig() Config { return Config{EpochNs: 100000, Share: 0.5} }

// Validate reports a parameter out of range.
func (c Config) Validate() error {
	if !(c.EpochNs > 0) {
		return fmt.Errorf("uvm.griffin.epoch_ns %v: must be positive (default 100000, 10^5 cycles)", c.EpochNs)
	}
	if !(c.Share >= 0 && c.Share < 1) {
		return fmt.Errorf("uvm.griffin.share %v: must be in [0, 1) (default 0.5, a majority)", c.Share)
	}
	return nil
}

// Move is one migration an epoch's classification asks for.
type Move struct {
	GPU  int
	Page uint64
}

// Stats are DPC's counts over a run.
type Stats struct {
	Epochs        uint64 // epochs closed with at least one notified page
	Notifications uint64 // page notifications seen
	Private       uint64 // page-epochs notified by one GPU only
	Dominant      uint64 // page-epochs notified by several, one above Share
	Shared        uint64 // page-epochs left in place
}

// DPC classifies the pages GPUs notify within each epoch.
type DPC struct {
	cfg      Config
	gpus     int
	epochEnd float64
	// counts holds, per notified page, its notifications per GPU; pages
	// lists them in first-notified order.
	counts map[uint64][]uint32
	pages  []uint64
	moves  []Move
	stats  Stats
}

// New builds DPC for gpus GPUs; its first epoch ends at EpochNs.
func New(c Config, gpus int) (*DPC, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if gpus < 1 {
		return nil, fmt.Errorf("griffin: %d GPUs", gpus)
	}
	return &DPC{cfg: c, gpus: gpus, epochEnd: c.EpochNs, counts: map[uint64][]uint32{}}, nil
}

// Notify records GPU g's notification of pages in the current epoch.
func (d *DPC) Notify(g int, pages []uint64) {
	for _, p := range pages {
		c, ok := d.counts[p]
		if !ok {
			c = make([]uint32, d.gpus)
			d.counts[p] = c
			d.pages = append(d.pages, p)
		}
		c[g]++
		d.stats.Notifications++
	}
}

// Due reports whether the epoch ended by nowNs.
func (d *DPC) Due(nowNs float64) bool { return nowNs >= d.epochEnd }

// Close ends the epoch at nowNs (the next one ends at the first epoch
// boundary after it) and returns the migrations its classification asks
// for, in page order. The slice is valid until the next Close.
func (d *DPC) Close(nowNs float64) []Move {
	if d.epochEnd <= nowNs {
		d.epochEnd = (math.Floor(nowNs/d.cfg.EpochNs) + 1) * d.cfg.EpochNs
	}
	d.moves = d.moves[:0]
	if len(d.pages) == 0 {
		return d.moves
	}
	d.stats.Epochs++
	slices.Sort(d.pages)
	for _, p := range d.pages {
		if g, ok := d.classify(d.counts[p]); ok {
			d.moves = append(d.moves, Move{GPU: g, Page: p})
		}
		delete(d.counts, p)
	}
	d.pages = d.pages[:0]
	return d.moves
}

// classify returns the GPU a page's epoch counts say it belongs to, if any,
// and counts its class.
func (d *DPC) classify(c []uint32) (int, bool) {
	top, total, senders := 0, uint32(0), 0
	for g, n := range c {
		total += n
		if n > 0 {
			senders++
		}
		if n > c[top] {
			top = g
		}
	}
	switch {
	case senders == 1:
		d.stats.Private++
		return top, true
	case float64(c[top]) > d.cfg.Share*float64(total):
		d.stats.Dominant++
		return top, true
	}
	d.stats.Shared++
	return 0, false
}

// Stats returns the counts so far.
func (d *DPC) Stats() Stats { return d.stats }
