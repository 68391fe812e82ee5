package benchmarks

// The square workgroup tile of the AMD APP SDK kernels: amdappsdk's mm
// and mt, and hecbench's floyd-warshall, a port of the SDK's.
const (
	// Tile is the side of the square workgroup tile: 16x16 = 256
	// work-items, 4 wavefronts of 64.
	Tile = 16
	// TileRows is the number of tile rows one wavefront covers: lane
	// r*16+c of wavefront wf is work-item (x = c, y = 4*wf + r).
	TileRows = WavefrontSize / Tile
)

// FillRows fills the 64 lanes with a 4-row by 16-column block of a
// row-major float32 matrix: lane r*16+c gets element [row0+r][col0+c].
// Lanes along a row are consecutive floats, so each row is one 64-byte line.
func FillRows(in *Instruction, base uint64, pitch, row0, col0 int) {
	in.Lanes = WavefrontSize
	for r := 0; r < TileRows; r++ {
		a := base + uint64((row0+r)*pitch+col0)*FloatBytes
		for c := 0; c < Tile; c++ {
			in.Addr[r*Tile+c] = a + uint64(c)*FloatBytes
		}
	}
}
