package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// configsDir holds the shipped config files, seen from this package.
const configsDir = "../configs"

// cited is one number a preset takes from a source: the value Config must
// hold for key once the file is loaded, whether the file sets it or it is
// a default the file's header says equals the source.
type cited struct {
	key, want, source string
}

// presetCites lists, for every preset in configs/ (all but the
// every-default oasis-4gpu.yaml), the numbers its comments cite.
var presetCites = map[string][]cited{
	"gtx1080ti.yaml": {
		{"gpus", "1", "UVMMU evaluation setup: one GTX 1080 Ti"},
		{"kernel_launch_ns", "150000", "UVMSmart: -gpgpu_kernel_launch_latency 222150 cycles at 1481 MHz"},
		{"gpu.cus", "28", "UVMMU Table I: 28 SMs"},
		{"gpu.freq_mhz", "1481", "UVMMU Table I: 1481 MHz"},
		{"gpu.wavefronts_per_cu", "32", "UVMMU Table I: 64 warps of 32 threads, as 64-lane wavefronts"},
		{"gpu.l1tlb_entries", "128", "UVMMU Table I: L1 TLB 128 entries"},
		{"gpu.l1tlb_ways", "128", "UVMMU Table I: fully associative"},
		{"gpu.line_size", "128", "UVMMU Table I: 128 B lines"},
		{"gpu.l1v_size", "48KB", "UVMMU Table I: L1 48 KB"},
		{"gpu.l1v_ways", "6", "UVMMU Table I: L1 6-way"},
		{"gpu.l2_size", "3MB", "UVMMU Table I: L2 3 MB"},
		{"gpu.l2_ways", "16", "UVMMU Table I: L2 16-way (the default)"},
		{"gpu.memory", "11GB", "UVMMU Table I: 11 GB"},
		{"gpu.dram_gbps", "484", "UVMMU Table I: 484 GB/s"},
		{"gpu.shootdown_flush_all", "false", "UVMSmart: an eviction drops the page's translations, no cache flush"},
		{"gpu.drain_cycles", "0", "UVMSmart: an eviction stalls no SM"},
		{"gmmu.walkers", "64", "UVMMU Table I: 64 page-table walkers"},
		{"link.pcie_model", "rtt", "UVMMU: delay queues with an RTT"},
		{"link.pcie_gbps", "16", "UVMMU Table I: PCIe 3.0 x16, 16 GB/s"},
		{"link.pcie_rtt_ns", "1000", "UVMMU Table I: 1 us RTT (the default)"},
		{"page_size", "4KB", "UVMMU: 4 KB pages (the default)"},
	},
	"rtx3090.yaml": {
		{"gpus", "1", "EA, ObservUVM, SUV: one RTX 3090"},
		{"gpu.cus", "82", "NVIDIA spec: 82 SMs"},
		{"gpu.freq_mhz", "1695", "NVIDIA spec: boost 1695 MHz"},
		{"gpu.wavefronts_per_cu", "24", "CUDA guide, CC 8.6: 1536 threads per SM, as 64-lane wavefronts"},
		{"gmmu.walkers", "64", "no source; UVMMU Table I, the single-GPU UVM simulator lineage"},
		{"gmmu.big_page", "64KB", "NVIDIA UVM driver: 64 KB big PTEs once a big page is mapped alike"},
		{"gmmu.huge_page", "2MB", "NVIDIA UVM driver: a 2 MB PTE once a whole VA block is mapped alike"},
		{"gpu.l1v_size", "128KB", "CUDA guide, CC 8.6: 128 KB unified L1, no shared memory carved out"},
		{"gpu.remote_l1v", "false", "NVIDIA UVM driver: mappings to remote memory are uncached"},
		{"gpu.l2_size", "6MB", "NVIDIA spec: 6 MB L2"},
		{"gpu.memory", "24GB", "ObservUVM, SUV: 24 GB"},
		{"gpu.dram_gbps", "936", "NVIDIA spec: 936 GB/s"},
		{"gpu.shootdown_flush_all", "false", "NVIDIA UVM driver: a ranged TLB invalidate, no cache flush"},
		{"gpu.drain_cycles", "0", "NVIDIA UVM driver: the invalidate stops no SM"},
		{"link.pcie_gbps", "32", "PCIe 4.0 x16: 32 GB/s (the default)"},
	},
}

func configFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(configsDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no config files in %s: %v", configsDir, err)
	}
	return files
}

// TestConfigFilesValidate: every file in configs/ loads and validates as
// it stands, with the GPU count it gives.
func TestConfigFilesValidate(t *testing.T) {
	for _, f := range configFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := LoadConfig(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(); err != nil {
				t.Fatalf("%s does not validate:\n%v", f, err)
			}
		})
	}
}

// TestPresetsHoldTheirSources: each preset's cited numbers are what the
// loaded Config holds, and every preset has such a table.
func TestPresetsHoldTheirSources(t *testing.T) {
	var seen []string
	for _, f := range configFiles(t) {
		name := filepath.Base(f)
		if name == "oasis-4gpu.yaml" {
			continue // every key at its default; cmd/mgpu's list tests check it
		}
		seen = append(seen, name)
		cites, ok := presetCites[name]
		if !ok {
			t.Errorf("%s has no table of cited numbers in presetCites", name)
			continue
		}
		c, err := LoadConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range cites {
			got, err := c.Get(ct.key)
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else if got != ct.want {
				t.Errorf("%s: %s = %s, want %s (%s)", name, ct.key, got, ct.want, ct.source)
			}
		}
	}
	for name := range presetCites {
		if !slices.Contains(seen, name) {
			t.Errorf("presetCites lists %s, which is not in %s", name, configsDir)
		}
	}
}

// TestPresetsAreMinimal: a preset sets only keys it changes from the
// defaults, and every key it sets has a comment (its source) on its line.
func TestPresetsAreMinimal(t *testing.T) {
	for name := range presetCites {
		path := filepath.Join(configsDir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		def := DefaultConfig()
		c, err := LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		var walk func(prefix string, m *yaml.Node)
		walk = func(prefix string, m *yaml.Node) {
			for i := 0; i+1 < len(m.Content); i += 2 {
				k, v := m.Content[i], m.Content[i+1]
				key := joinKey(prefix, k.Value)
				if v.Kind == yaml.MappingNode {
					walk(key, v)
					continue
				}
				n++
				if k.LineComment == "" && v.LineComment == "" {
					t.Errorf("%s:%d: %s has no comment giving its source", name, k.Line, key)
				}
				was, _ := def.Get(key)
				if now, _ := c.Get(key); now == was {
					t.Errorf("%s:%d: %s = %s is the default; a preset holds only the keys it changes (say it in the header instead)", name, k.Line, key, now)
				}
			}
		}
		walk("", doc.Content[0])
		if n == 0 {
			t.Errorf("%s sets no keys", name)
		}
	}
}

// A preset path that does not exist is an error that names it; the CLI
// reports LoadConfig errors as bad input (exit 2).
func TestMissingConfigFile(t *testing.T) {
	path := filepath.Join(configsDir, "no-such-preset.yaml")
	_, err := LoadConfig(path)
	if err == nil {
		t.Fatal("LoadConfig of a missing file: no error")
	}
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("LoadConfig(%s) = %v, want a not-exist error naming the path", path, err)
	}
}
