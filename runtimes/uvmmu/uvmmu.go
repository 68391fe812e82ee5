// Package uvmmu runs UVMMU (Park, Jeong, Kim, "UVMMU: Hardware-Offloaded
// Page Migration for Heterogeneous Computing", DATE 2023) as the driver's
// fault handling: each GPU's MMU (package uvmmu at the module root, one
// Unit per GPU) picks a destination frame-group and migrates the faulting
// 64 KB page-group itself, critical page first, swapping a victim out
// when memory is full. No fault reaches the host's software. Importing it
// registers uvm.fault_handling hardware and the uvm.uvmmu.* section.
package uvmmu

import (
	"fmt"

	core "github.com/mgpu-sim/mgpu/uvmmu"

	"github.com/mgpu-sim/mgpu/prefetch"
	"github.com/mgpu-sim/mgpu/units"
	"github.com/mgpu-sim/mgpu/uvm"
)

// Name is the value of uvm.fault_handling that selects UVMMU.
const Name = "hardware"

// Config holds UVMMU's parameters (the UVMMU paper, and the choices its
// doc comments give where the paper is silent), uvm.uvmmu.*: a section of
// every uvm.Config, listed after uvm.fault_handling.
var Config = uvm.RegisterSection(uvm.SectionSpec{Name: "uvmmu", Field: "UVMMU", After: "fault_handling", Order: 0,
	Doc: "UVMMU's parameters (package uvmmu), used with uvm.fault_handling=hardware."},
	core.DefaultConfig())

func init() {
	uvm.RegisterHandling(Name, uvm.HandlingSpec{New: New, Concurrent: true,
		Validate: func(c uvm.Config, _ units.Bytes) error {
			if err := Config.Of(c).Validate(); err != nil {
				return fmt.Errorf("uvm.uvmmu: %w", err)
			}
			return nil
		},
		Rules: rules, Dependencies: dependencies})
}

// rules are what UVMMU needs of the rest of the config.
var rules = []uvm.Rule{
	{Need: func(c uvm.Config, _ units.Bytes, _ func(string) string) string {
		if c.Prefetch.Policy == prefetch.Off {
			return ""
		}
		return "has no prefetcher beyond its 64KB page-group (UVMMU §V-B): set uvm.prefetch.policy=off"
	}},
	{Need: func(c uvm.Config, page units.Bytes, _ func(string) string) string {
		if pb := Config.Of(c).PageBytes; page != pb {
			return fmt.Sprintf("moves %v pages: set page_size=%v (or uvm.uvmmu.page_bytes)", pb, pb)
		}
		return ""
	}},
	{Need: func(_ uvm.Config, _ units.Bytes, get func(string) string) string {
		if get("placement") == "host" {
			return ""
		}
		return "starts with every page on the host (UVMMU §IV-C bring-up): set placement=host"
	}},
}

// dependencies are UVMMU's keys, which take effect while it handles
// faults, and the batches' keys it replaces.
var dependencies = []uvm.Dependency{
	{Keys: []string{"uvm.uvmmu.*"},
		On:    func(c uvm.Config) bool { return c.FaultHandling == Name },
		While: "uvm.fault_handling", Use: "uvm.fault_handling=hardware"},
	{Keys: []string{"uvm.fault_service_ns", "uvm.per_fault_ns", "uvm.host_threads"},
		On:    software,
		While: "uvm.fault_handling", Use: "uvm.fault_handling=software",
		Note: "UVMMU handles faults in the GPU: its time is uvm.uvmmu.handling_cycles"},
	{Keys: []string{"uvm.eviction_census"},
		On:    software,
		While: "uvm.fault_handling", Use: "uvm.fault_handling=software",
		Note: "UVMMU swaps each fault's victim in the GPU, outside the driver's eviction"},
}

// software reports whether the driver's batches handle faults.
func software(c uvm.Config) bool { return c.FaultHandling == uvm.HandlingSoftware }
