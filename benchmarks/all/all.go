// Package all registers every workload: it imports each suite package of
// benchmarks for its init, which registers the suite's workloads. Import
// it wherever workloads are looked up by name (benchmarks.New, Names).
package all

import (
	_ "github.com/mgpu-sim/mgpu/benchmarks/amdappsdk"  // mm, mt
	_ "github.com/mgpu-sim/mgpu/benchmarks/cuda"       // blackscholes, gemv, mm-tiled, spgemm
	_ "github.com/mgpu-sim/mgpu/benchmarks/dnn"        // c2d, i2c, lenet, resnet18, vgg16; alexnet, squeezenet
	_ "github.com/mgpu-sim/mgpu/benchmarks/hecbench"   // floyd-warshall, hellinger, xsbench
	_ "github.com/mgpu-sim/mgpu/benchmarks/heteromark" // pr
	_ "github.com/mgpu-sim/mgpu/benchmarks/hpcc"       // ra
	_ "github.com/mgpu-sim/mgpu/benchmarks/papers"     // bicgstab, btree
	_ "github.com/mgpu-sim/mgpu/benchmarks/polybench"  // 2dconv, atax, bicg, doitgen, fdtd2d, gmm, gramschmidt, lu, mvt, syr2k, syrk
	_ "github.com/mgpu-sim/mgpu/benchmarks/rodinia"    // backprop, hotspot, nw, pathfinder, rbfs, srad
	_ "github.com/mgpu-sim/mgpu/benchmarks/shoc"       // bfs, fft, st
	_ "github.com/mgpu-sim/mgpu/benchmarks/synthetic"  // countercap-*, phases, pingpong, private, prodcons, shared-read, swap
)
