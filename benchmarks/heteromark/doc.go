// Package heteromark holds the Hetero-Mark workloads (Sun et al.,
// "Hetero-Mark, a Benchmark Suite for CPU-GPU Collaborative Computing",
// IISWC 2016) of the OASIS and GRIT papers: pr (PageRank, OASIS) and fir
// (FIR, GRIT).
package heteromark
