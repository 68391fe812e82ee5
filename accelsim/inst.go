package accelsim

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// fields is an instruction line's fields and a cursor over them.
type fields struct {
	line string
	f    []string
	p    int
}

// next is the next field; what names it in the error.
func (r *fields) next(what string) (string, error) {
	if r.p >= len(r.f) {
		return "", fmt.Errorf("instruction %q: truncated before its %s", r.line, what)
	}
	r.p++
	return r.f[r.p-1], nil
}

// count is the next field as a count of at most the fields left
// (destinations, sources, addresses), or any integer if open.
func (r *fields) count(what string, open bool) (int, error) {
	s, err := r.next(what)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil || !open && (v < 0 || v > len(r.f)-r.p) {
		return 0, fmt.Errorf("bad %s %q in %q", what, s, r.line)
	}
	return v, nil
}

// hex and dec are the next field as an address, and as a stride or delta.
func (r *fields) hex() (uint64, error) {
	s, err := r.next("addresses")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("bad address %q: want hex", s)
	}
	return v, nil
}

func (r *fields) dec() (int64, error) {
	s, err := r.next("addresses")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad stride or delta %q: want a decimal integer", s)
	}
	return v, nil
}

// parseInst reads "[line] PC mask ndst [dst...] opcode nsrc [src...]
// [commit] width [mode addresses] [immediate ...]": the source line with
// lineinfo, a GMMA's commit-group flag, and what follows the addresses
// (tracer version 5's immediate) as the tracer writes them.
func (k *kernelFile) parseInst(l string, in *parsed) error {
	r := &fields{line: l, f: strings.Fields(l)}
	in.global, in.write, in.addrs = false, false, in.addrs[:0]
	if k.lineinfo {
		r.p++
	}
	if len(r.f) < r.p+5 {
		return fmt.Errorf("instruction %q: too few fields", l)
	}
	mask, err := strconv.ParseUint(r.f[r.p+1], 16, 32)
	if err != nil {
		return fmt.Errorf("bad mask %q", r.f[r.p+1])
	}
	r.p += 2
	nd, err := r.count("destination count", false)
	if err != nil {
		return err
	}
	r.p += nd
	op, err := r.next("opcode")
	if err != nil {
		return err
	}
	ns, err := r.count("source count", false)
	if err != nil {
		return err
	}
	r.p += ns
	if strings.Contains(op, "GMMA") {
		if _, err := r.count("GMMA commit flag", true); err != nil {
			return err
		}
	}
	if width, err := r.count("memory width", true); err != nil || width == 0 {
		return err
	}
	c := classify(op)
	if c.tma {
		return tmaAddresses(r, mask, c, in)
	}
	mode, err := r.count("address mode", true)
	if err != nil {
		return err
	}
	if err := addresses(r, mask, mode, in); err != nil {
		return err
	}
	if c.generic {
		c.global = k.genericIsGlobal(in.addrs)
	}
	in.global, in.write = c.global, c.write
	return checkGlobal(in)
}

// class is what an opcode does to memory, as Accel-Sim's trace-driven
// model (trace_driven.cc) reads it.
type class struct {
	global, write, generic, tma bool
}

// classify classes an opcode: LDG, and LDGSTS (memcpy_async: a global
// load into shared memory), load; STG stores; ATOM, ATOMG, RED and REDG are
// global read-modify-writes, which write; LD and ST are generic (the
// header's windows tell); the TMA bulk copies (UTMALDG, UTMASTG,
// UTMAREDG, UBLKCP, UBLKRED) move global memory, UBLKCP by its direction
// (.S.G loads, .G.S stores) and the prefetches (UTMAPF, UBLKPF) nothing.
// Everything else (shared, local, constant, texture) is compute here.
func classify(op string) class {
	base, _, _ := strings.Cut(op, ".")
	switch base {
	case "LDG", "LDGSTS":
		return class{global: true}
	case "STG", "ATOM", "ATOMG", "RED", "REDG":
		return class{global: true, write: true}
	case "LD":
		return class{generic: true}
	case "ST":
		return class{generic: true, write: true}
	case "UTMALDG":
		return class{tma: true, global: true}
	case "UTMASTG", "UTMAREDG", "UBLKRED":
		return class{tma: true, global: true, write: true}
	case "UBLKCP":
		load, store := strings.Contains(op, ".S.G"), strings.Contains(op, ".G.S")
		return class{tma: true, global: load || store, write: store}
	case "UTMAPF", "UBLKPF":
		return class{tma: true}
	}
	return class{}
}

// localWindow is the size of a thread's local-memory window past the
// header's local base that Accel-Sim counts as local (its
// LOCAL_MEM_SIZE_MAX).
const localWindow = 16 << 10

// genericIsGlobal tells a generic access's space from its first active
// address, as Accel-Sim does: without both bases in the header, shared;
// from the shared base up to the local base, shared; in the local
// window, local; elsewhere global. A header whose local base lies below
// its shared base (Accel-Sim assumes the other order) has its shared
// window from the shared base as wide as the gap between the two.
func (k *kernelFile) genericIsGlobal(addrs []uint64) bool {
	if k.shmem == 0 || k.local == 0 || len(addrs) == 0 {
		return false
	}
	a := addrs[0]
	sharedEnd := k.local
	if k.local < k.shmem {
		sharedEnd = k.shmem + (k.shmem - k.local)
	}
	shared := a >= k.shmem && a < sharedEnd
	local := a >= k.local && a-k.local < localWindow
	return !shared && !local
}

// addresses reads an instruction's addresses in its mode, for the
// threads in mask.
func addresses(r *fields, mask uint64, mode int, in *parsed) error {
	active := bits.OnesCount64(mask)
	switch mode {
	case 0: // list_all: one address per active thread
		for range active {
			a, err := r.hex()
			if err != nil {
				return err
			}
			in.addrs = append(in.addrs, a)
		}
	case 1: // base_stride: the active threads from the first up to the first gap
		a, err := r.hex()
		if err != nil {
			return err
		}
		s, err := r.dec()
		if err != nil {
			return err
		}
		run := bits.TrailingZeros64(^(mask >> bits.TrailingZeros64(mask)))
		for i := range run {
			in.addrs = append(in.addrs, a+uint64(int64(i)*s))
		}
	case 2: // base_delta: the first address, then one delta per later active thread
		a, err := r.hex()
		if err != nil {
			return err
		}
		if err := baseDelta(r, a, max(active, 1), in); err != nil {
			return err
		}
	default:
		return fmt.Errorf("address mode %d: want 0 (list), 1 (base and stride) or 2 (base and deltas); 3 and 4 are for TMA instructions only", mode)
	}
	if active == 0 {
		in.addrs = in.addrs[:0]
	}
	return nil
}

// baseDelta reads n-1 deltas after the base a, each from the address
// before.
func baseDelta(r *fields, a uint64, n int, in *parsed) error {
	in.addrs = append(in.addrs, a)
	for range n - 1 {
		d, err := r.dec()
		if err != nil {
			return err
		}
		a += uint64(d)
		in.addrs = append(in.addrs, a)
	}
	return nil
}

// tmaAddresses reads a TMA instruction's memory fields: "mbarrier
// multicast [cta-mask] bytes oob-bytes mode", then mode 3, a count and
// that many addresses, or mode 4, a base, a count and count-1 deltas (the
// layout of Accel-Sim's trace parser). A warp whose mask is empty moves
// nothing.
func tmaAddresses(r *fields, mask uint64, c class, in *parsed) error {
	if _, err := r.hex(); err != nil { // the mbarrier
		return err
	}
	multicast, err := r.count("TMA multicast flag", true)
	if err != nil {
		return err
	}
	if multicast != 0 {
		if _, err := r.hex(); err != nil {
			return err
		}
	}
	if _, err := r.count("TMA byte count", true); err != nil {
		return err
	}
	if _, err := r.count("TMA out-of-bounds byte count", true); err != nil {
		return err
	}
	if err := tmaList(r, in); err != nil {
		return err
	}
	if mask == 0 || !c.global {
		in.addrs = in.addrs[:0]
	}
	in.global, in.write = c.global && len(in.addrs) > 0, c.write
	return checkGlobal(in)
}

// tmaList reads a TMA instruction's address mode and addresses.
func tmaList(r *fields, in *parsed) error {
	mode, err := r.count("address mode", true)
	if err != nil {
		return err
	}
	switch mode {
	case 3:
		n, err := r.count("TMA transfer count", false)
		if err != nil {
			return err
		}
		for range n {
			a, err := r.hex()
			if err != nil {
				return err
			}
			in.addrs = append(in.addrs, a)
		}
	case 4:
		base, err := r.hex()
		if err != nil {
			return err
		}
		n, err := r.count("TMA transfer count", true)
		if err != nil {
			return err
		}
		if n < 0 || n-1 > len(r.f)-r.p {
			return fmt.Errorf("bad TMA transfer count %d in %q: want a base and count-1 deltas", n, r.line)
		}
		if n > 0 {
			if err := baseDelta(r, base, n, in); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("TMA address mode %d: want 3 (count and list) or 4 (base, count and deltas)", mode)
	}
	return nil
}

// checkGlobal refuses a global address the conversion cannot group.
func checkGlobal(in *parsed) error {
	for _, a := range in.addrs {
		if in.global && a >= addrLimit {
			return fmt.Errorf("address %#x: beyond %#x, the top of the address space the conversion models", a, uint64(addrLimit))
		}
	}
	return nil
}
