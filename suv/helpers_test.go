package suv

import "github.com/mgpu-sim/mgpu/units"

func unitsBytes(b int64) units.Bytes { return units.Bytes(b) }
