package uvm

import "github.com/mgpu-sim/mgpu/uvmproto"

// The protocol types the page table plans in; they live in uvmproto, the
// package every component shares.
type (
	// MapKind is how a GPU's local PTE maps a page.
	MapKind = uvmproto.MapKind
	// Inval is one page to shoot down on one GPU.
	Inval = uvmproto.Inval
	// Mapping is a PTE to install on a GPU.
	Mapping = uvmproto.Mapping
)

// Mapping kinds, as in uvmproto.
const (
	Unmapped = uvmproto.Unmapped
	LocalRO  = uvmproto.LocalRO
	LocalRW  = uvmproto.LocalRW
	RemoteRO = uvmproto.RemoteRO
	RemoteRW = uvmproto.RemoteRW
)
