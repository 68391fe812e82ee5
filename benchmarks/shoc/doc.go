// Package shoc holds the SHOC workloads (Danalis et al., "The Scalable
// HeterOgeneous Computing (SHOC) Benchmark Suite", GPGPU 2010) of the
// OASIS paper, as MGPUSim ports them: bfs, fft and st (Stencil2D).
package shoc
