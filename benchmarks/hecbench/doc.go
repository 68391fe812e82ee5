// Package hecbench holds the HeCBench workloads (Jin and Vetter, "A
// Benchmark Suite for Improving Performance Portability of the SYCL
// Programming Model", ISPASS 2023) that ObservUVM and SUV run:
// floyd-warshall, hellinger and xsbench.
package hecbench
