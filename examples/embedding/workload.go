package embedding

// Workload is the example's accesses. Object A is read by both GPUs, so
// OASIS learns duplication for it at the second GPU's first fault; GPU 0
// then stores to A's first pages, which it holds read-only by then: a
// protection fault, and the replicas collapse onto GPU 0 while GPU 1 keeps
// reading them. Object B is written privately, each GPU on its own half.
func Workload() [2][]Access {
	objs := Objects()
	a := func(page, off uint64) uint64 { return objs[0].Ptr + page*PageSize + off }
	b := func(page, off uint64) uint64 { return objs[1].Ptr + page*PageSize + off }
	read := func(addr uint64) Access { return Access{Addr: addr} }
	write := func(addr uint64) Access { return Access{Addr: addr, Write: true} }
	return [2][]Access{
		{read(a(0, 0)), read(a(1, 64)), read(a(2, 128)), read(a(3, 192)),
			write(a(0, 512)), write(a(1, 512)), write(b(0, 0)), write(b(1, 8)),
			read(a(0, 256)), read(a(1, 0)), read(a(2, 0)), write(b(0, 1024))},
		{write(b(2, 0)), write(b(3, 8)), read(a(0, 0)), read(a(1, 64)),
			read(a(2, 128)), read(a(3, 192)), read(a(0, 4)), read(a(1, 4)),
			read(a(0, 8)), read(a(1, 8)), write(b(3, 16)), read(a(3, 0))},
	}
}
