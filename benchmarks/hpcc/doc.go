// Package hpcc holds the HPC Challenge workload ra (RandomAccess), RA as
// the name is usually read; UVMMU's figures run UVMSmart's own RA
// (benchmarks/papers, uvmsmart-ra).
package hpcc
