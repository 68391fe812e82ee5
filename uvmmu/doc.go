// Package uvmmu is UVMMU's hardware fault handling (Park, Jeong, Kim,
// "UVMMU: Hardware-Offloaded Page Migration for Heterogeneous Computing",
// DATE 2023) as a pure state machine, one Unit per GPU: no engine, no
// globals, no wall clock.
//
// When a page walk finds a remote PTE, UVMMU does not fault to the driver:
// its Destination Allocator (DA) hands out a local 64 KB frame-group from
// the Destination Candidate Queue (DCQ) in a few cycles, the Page
// Migration Engine (PME) brings the page-group in, critical 4 KB page
// first, and UVMMU rewrites the PTE (Fig. 2, steps 1-7, §IV-A). A DCQ
// entry with its swap flag set names a victim frame-group: the victim's
// page-group then leaves for the remote slot the incoming group frees (a
// swap, §IV-D). In the background the Available Frame Manager (AFM) keeps
// the DCQ filled: free frame-groups first, found through the
// Frame-region Availability Bitmap (FrAB, SRAM) and the Inverted
// Page-group Table (IPgT, DRAM), then random victims (Linear-Random,
// §IV-D, §V-C1).
//
// The unit decides; it sends nothing. Its Plan says which frame-group,
// which transfers in which order and when; the driver adapter turns plans
// into messages and reports back with Complete. Section signs (§) are the
// paper's own numbering. Every constant is a Config field naming its
// source, or "no source" and the value chosen.
package uvmmu
