// Package hpcc holds the HPC Challenge workload that UVMMU runs: ra
// (RandomAccess).
package hpcc
