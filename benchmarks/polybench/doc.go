// Package polybench holds the PolyBench/GPU workloads (Grauer-Gray et
// al., "Auto-tuning a High-Level Language Targeted to GPU Codes", InPar
// 2012): 2dconv, atax, bicg and fdtd2d as UVMSmart ports them and
// Early-Adaptor runs them; gmm, syrk, syr2k and lu as ObservUVM runs
// them; doitgen, mvt and gramschmidt as SUV runs them. The 2-D kernels'
// 32x8 blocks and inner-loop shape are shared here (innerloop.go).
package polybench
