// Package rodinia holds the Rodinia workloads (Che et al., "Rodinia: A
// Benchmark Suite for Heterogeneous Computing", IISWC 2009) as UVMSmart
// ports them for unified memory: backprop, hotspot, nw, pathfinder, srad
// and rbfs (Rodinia's BFS).
package rodinia
