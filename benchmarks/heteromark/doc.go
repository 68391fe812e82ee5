// Package heteromark holds the Hetero-Mark workload of the OASIS paper
// (Sun et al., "Hetero-Mark, a Benchmark Suite for CPU-GPU
// Collaborative Computing", IISWC 2016): pr (PageRank).
package heteromark
