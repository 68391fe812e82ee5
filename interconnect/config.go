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
	// Extra hop latency of the NVSwitch option. Not in the papers.
	SwitchLatencyNs float64 `yaml:"switch_latency_ns" doc:"added latency through the NVSwitch topology (not in papers; 100)"`
	// Bytes of header on every message (request or data).
	HeaderBytes int `yaml:"header_bytes" doc:"bytes of header per message (not in papers; 16)"`
}

// DefaultConfig returns the Table I links.
func DefaultConfig() Config {
	return Config{NVLinkGBps: 300, NVLinkLatencyNs: 250, PCIeGBps: 32, PCIeLatencyNs: 150, SwitchLatencyNs: 100, HeaderBytes: 16}
}
