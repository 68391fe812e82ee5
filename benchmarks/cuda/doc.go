// Package cuda holds the workloads that come from NVIDIA's CUDA samples
// and libraries, as ObservUVM and SUV run them: blackscholes and mm-tiled
// (the samples' BlackScholes and matrixMul), gemv (for cuBLAS sgemv) and
// spgemm (cuSPARSE SpGEMM, as the CUDA Library Samples call it).
package cuda
