// Package all registers every runtime: it imports each package of
// runtimes for its init, which registers the runtime's names, config
// rules and constructor with uvm. Import it wherever a config is checked
// or a driver built from one (platform does).
package all

import (
	_ "github.com/mgpu-sim/mgpu/runtimes/earlyadaptor" // uvm.prefetch_control early-adaptor
	_ "github.com/mgpu-sim/mgpu/runtimes/griffin"      // uvm.adaptive griffin-dpc
	_ "github.com/mgpu-sim/mgpu/runtimes/observuvm"    // uvm.adaptive observuvm
	_ "github.com/mgpu-sim/mgpu/runtimes/suv"          // uvm.adaptive suv and sc
	_ "github.com/mgpu-sim/mgpu/runtimes/uvmmu"        // uvm.fault_handling hardware
	_ "github.com/mgpu-sim/mgpu/runtimes/uvmsmart"     // uvm.adaptive uvmsmart
)
