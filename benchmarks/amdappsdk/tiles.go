package amdappsdk

import (
	"math"

	"github.com/mgpu-sim/mgpu/benchmarks"
)

// tileWavefronts is the wavefront count of a 16x16 workgroup.
const tileWavefronts = benchmarks.Tile * benchmarks.Tile / benchmarks.WavefrontSize

// fillColumns fills the 64 lanes with the transposed block: lane r*16+c
// gets element [col0+c][row0+r]. Lanes along c stride by the row pitch, so
// one instruction spans 16 rows (16 lines, and 16 pages once a row is a
// page or more).
func fillColumns(in *benchmarks.Instruction, base uint64, pitch, row0, col0 int) {
	in.Lanes = benchmarks.WavefrontSize
	for c := 0; c < benchmarks.Tile; c++ {
		a := base + uint64((col0+c)*pitch+row0)*benchmarks.FloatBytes
		for r := 0; r < benchmarks.TileRows; r++ {
			in.Addr[r*benchmarks.Tile+c] = a + uint64(r)*benchmarks.FloatBytes
		}
	}
}

// squareSide returns the side of the square float32 matrices, a multiple of
// tile, such that count of them come closest to footprint bytes. It is at
// least one tile.
func squareSide(footprint uint64, count, tile int) int {
	exact := math.Sqrt(float64(footprint) / float64(4*count))
	side := int(math.Round(exact/float64(tile))) * tile
	if side < tile {
		side = tile
	}
	return side
}
