package interconnect

// Config holds the link parameters. Bandwidths are per direction.
type Config struct {
	// NVLink-v2 300 GB/s between GPUs (OASIS Table I), taken as each GPU
	// pair's link bandwidth per direction, as MGPUSim configures one
	// connection per GPU pair.
	NVLinkGBps float64 `yaml:"nvlink_gbps" doc:"GPU-GPU link bandwidth per direction (OASIS Table I: 300)"`
	// NVLink one-way latency. No paper gives it; 250 ns makes an unloaded
	// remote cache-line read that hits the owner's L2 cost 2x250+100 = 600
	// cycles, the figure the MGPUSim documentation gives for remote lines.
	NVLinkLatencyNs float64 `yaml:"nvlink_latency_ns" doc:"GPU-GPU link latency; sets the remote cache-line latency (2x250+L2 = 600 cycles, MGPUSim)"`
	// PCIe-v4 32 GB/s CPU-GPU (OASIS Table I).
	PCIeGBps float64 `yaml:"pcie_gbps" doc:"CPU-GPU link bandwidth per direction (OASIS Table I: 32)"`
	// PCIe latency 150 cycles (Trans-FW), at 1 GHz.
	PCIeLatencyNs float64 `yaml:"pcie_latency_ns" doc:"CPU-GPU link latency (Trans-FW: 150 cycles)"`
	// How a PCIe message is timed (pcie.go). oneway is the link as it was
	// before the models existed, so it is the default; NVLink always uses
	// it with the nvlink_* keys.
	PCIeModel string `yaml:"pcie_model" doc:"PCIe time of an n-byte message (payload+header): oneway = pcie_latency_ns + n/pcie_gbps (the link before this key) | rtt = pcie_rtt_ns/2 + n/pcie_gbps (UVMMU setup, Table I) | uvmsmart = n at (2a/pi)atan(b n/1KB) GiB/s (UVMSmart gpu-sim.cc)"`
	// UVMMU evaluation setup / Table I: PCIe 3.0 x16 as delay queues with a
	// 1 us round trip. Used only by pcie_model rtt.
	PCIeRTTNs float64 `yaml:"pcie_rtt_ns" doc:"PCIe round-trip time; rtt charges half of it per message (UVMMU Table I: 1000)"`
	// UVMSmart's curve constants (DebashisGanguly/gpgpu-sim_UVMSmart,
	// src/gpgpu-sim/gpu-sim.cc, convert_byte_string): a = 12, 24, 48 GiB/s
	// for -pcie_bandwidth 16, 32, 64 GB/s; 24 matches the default
	// pcie_gbps of 32. b = 0.07292 per KB for all. Used only by pcie_model
	// uvmsmart.
	PCIeCurveA float64 `yaml:"pcie_curve_a" doc:"uvmsmart curve asymptote a in GiB/s (UVMSmart gpu-sim.cc: 12/24/48 for 16/32/64 GB/s; 24)"`
	PCIeCurveB float64 `yaml:"pcie_curve_b" doc:"uvmsmart curve steepness b per KB (UVMSmart gpu-sim.cc: 0.07292)"`
	// How the host reaches the GPUs over PCIe (tree.go). tree is the
	// platform of the OASIS paper's simulator (issue 29, step 2); pairs is
	// the link before this key, which the single-GPU presets keep.
	PCIeTopology string `yaml:"pcie_topology" doc:"tree = MGPUSim's R9 Nano PCIe: one link per GPU, pcie_gpus_per_switch GPUs per switch sharing its one link to the root complex, pcie_switch_latency_ns per switch crossed | pairs = a link per host-GPU port pair, so a GPU's fault and zero-copy traffic and other GPUs never share one (the link before this key)"`
	// MGPUSim's R9 Nano platform adds a PCIe switch for every second GPU
	// (v3.0.3 samples/runner/timingplatform.go, createGPUs), as DGX-1 puts
	// two GPUs under each PCIe switch.
	PCIeGPUsPerSwitch int `yaml:"pcie_gpus_per_switch" doc:"GPUs under one PCIe switch in the tree topology (MGPUSim R9 Nano platform: 2)"`
	// Akita's pcie.Connector: 140 cycles in each switch port ("default
	// PCIe Gen4" in MGPUSim's timing config), at 1 GHz. A GPU-host message
	// crosses its switch and the root complex.
	PCIeSwitchLatencyNs float64 `yaml:"pcie_switch_latency_ns" doc:"latency of each PCIe switch crossed in the tree, the root complex included (MGPUSim/Akita pcie.Connector: 140 cycles at 1 GHz)"`
	// Extra hop latency of the NVSwitch option. Not in the papers.
	SwitchLatencyNs float64 `yaml:"switch_latency_ns" doc:"added latency through the NVSwitch topology (not in papers; 100)"`
	// Bytes of header on every message (request or data).
	HeaderBytes int `yaml:"header_bytes" doc:"bytes of header per message (not in papers; 16)"`
	// What happens to a message sent for a later time (a shootdown's
	// acknowledgement for when the drain ends, a host line for when DRAM
	// answers). hold: the sender keeps it until due (uvmproto.Outbox), and
	// a link holds a dated message from another model likewise. reserve,
	// the behaviour before this key: the sender hands it over at once and
	// the link books its lane from its date, so messages handed over after
	// it but due earlier queue behind a message not yet sent: head-of-line
	// blocking no wire has. Found while embedding (issue 32); reserve stays
	// to reproduce the tables measured before the fix.
	FutureSends string `yaml:"future_sends" doc:"a message sent for later: hold (waits in its sender until due; default) | reserve (handed to the link at once, which books its lane from its date, so messages due earlier queue behind it; before this key)"`
}

// The values of future_sends.
const (
	FutureReserve = "reserve"
	FutureHold    = "hold"
)

// DefaultConfig returns the Table I links.
func DefaultConfig() Config {
	return Config{NVLinkGBps: 300, NVLinkLatencyNs: 250, PCIeGBps: 32, PCIeLatencyNs: 150,
		PCIeModel: PCIeOneWay, PCIeRTTNs: 1000, PCIeCurveA: 24, PCIeCurveB: 0.07292,
		PCIeTopology: PCIeTree, PCIeGPUsPerSwitch: 2, PCIeSwitchLatencyNs: 140,
		SwitchLatencyNs: 100, HeaderBytes: 16, FutureSends: FutureHold}
}
