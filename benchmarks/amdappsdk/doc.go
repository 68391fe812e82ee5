// Package amdappsdk holds the AMD APP SDK workloads of the OASIS and GRIT
// papers, as MGPUSim ports them: mm (MatrixMultiplication) and mt
// (MatrixTranspose), both over 16x16 LDS tiles, and GRIT's sc
// (SimpleConvolution) and bitonicsort (BitonicSort); and GRIT's gemm,
// which MGPUSim has only as its tensor operator's kernel.
package amdappsdk
