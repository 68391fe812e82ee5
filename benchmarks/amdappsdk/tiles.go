package amdappsdk

import (
	"math"

	"github.com/mgpu-sim/mgpu/benchmarks"
)

// tileWavefronts is the wavefront count of a 16x16 workgroup.
const tileWavefronts = benchmarks.Tile * benchmarks.Tile / benchmarks.WavefrontSize

// fillFloat4Rows fills the 64 lanes with float4 accesses of four rows
// that are mtVec apart: lane r*16+c reads the float4 at row row0+mtVec*r,
// float column col0+mtVec*c, so each row is 256 consecutive bytes (MT's
// loads and stores: work-item (lix, liy) accesses rows 4*liy+k).
func fillFloat4Rows(in *benchmarks.Instruction, base uint64, pitch, row0, col0 int) {
	in.Lanes = benchmarks.WavefrontSize
	for r := 0; r < benchmarks.TileRows; r++ {
		a := base + uint64((row0+mtVec*r)*pitch+col0)*benchmarks.FloatBytes
		for c := 0; c < benchmarks.Tile; c++ {
			in.Addr[r*benchmarks.Tile+c] = a + uint64(mtVec*c)*benchmarks.FloatBytes
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
