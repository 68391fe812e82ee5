package sweep

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// Each streams a spec's runs in constant memory: a million runs (2 GB
// held) pass with the heap under 100 MB, in Runs' order, each index once.
func TestEachStreamsAMillionRuns(t *testing.T) {
	ten := "['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']"
	s, err := Load(writeSpec(t, "workloads: [mm]\npolicies: [on-touch]\ngpus: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nseeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"+
		"sets: {gpu.cus: "+ten+", gpu.l2_cycles: "+ten+", gpu.l1v_cycles: "+ten+", gpu.l2tlb_cycles: "+ten+"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var peak uint64
	var ms runtime.MemStats
	n := 0
	err = s.Each(func(i int, r Run) error {
		if i != n {
			t.Fatalf("run %d has index %d", n, i)
		}
		if n%100_000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		n++
		return nil
	})
	if err != nil || n != 1_000_000 {
		t.Fatalf("%d runs, %v", n, err)
	}
	if peak > 100<<20 {
		t.Errorf("heap reached %d MB while streaming", peak>>20)
	}
	// f's error stops it.
	stop := errors.New("stop")
	n = 0
	if err := s.Each(func(int, Run) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("after an error: %d runs, %v", n, err)
	}
}

// Each leaves out the runs that would repeat another because their policy
// ignores a sets key, keeping the first, as the spec's order has it, and
// gives every run its combination's config.
func TestEachKeepsTheFirstOfRepeatedRuns(t *testing.T) {
	s, err := Load(writeSpec(t, "workloads: [mm]\npolicies: [on-touch, oasis]\ngpus: [4]\nsets: {policy.reset_threshold: ['4', '32'], gpu.cus: ['16', '32']}\n"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.Label())
		if r.Sets["gpu.cus"] != "" && r.Config.GPU.CUs != map[string]int{"16": 16, "32": 32}[r.Sets["gpu.cus"]] {
			t.Errorf("%s: %d CUs", r.Label(), r.Config.GPU.CUs)
		}
	}
	// Keys combine in sorted order, the last varying fastest:
	// (gpu.cus, policy.reset_threshold) = (16,4) (16,32) (32,4) (32,32);
	// on-touch runs at (16,4) and (32,4) only.
	want := []string{
		"mm/on-touch/4gpu/seed1 gpu.cus=16", "mm/oasis/4gpu/seed1 gpu.cus=16 policy.reset_threshold=4",
		"mm/oasis/4gpu/seed1 gpu.cus=16 policy.reset_threshold=32",
		"mm/on-touch/4gpu/seed1 gpu.cus=32", "mm/oasis/4gpu/seed1 gpu.cus=32 policy.reset_threshold=4",
		"mm/oasis/4gpu/seed1 gpu.cus=32 policy.reset_threshold=32",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// CheckSize refuses more runs than MaxRuns, and more held runs than half
// the memory available, naming the limit and the ways around it.
func TestCheckSizeNamesTheLimit(t *testing.T) {
	old := availableMemory
	t.Cleanup(func() { availableMemory = old })
	availableMemory = func() (uint64, string) { return 1 << 30, "test" }
	if err := CheckSize(MaxRuns, 0); err != nil {
		t.Errorf("MaxRuns streamed: %v", err)
	}
	if err := CheckSize(MaxRuns+1, 0); err == nil || !strings.Contains(err.Error(), "10000001 runs, more than the 10000000 a sweep may have") {
		t.Errorf("MaxRuns+1: %v", err)
	}
	// Half a GB holds 65536 runs of 8 KB.
	if err := CheckSize(70000, 65536); err != nil {
		t.Errorf("65536 held: %v", err)
	}
	err := CheckSize(70000, 65537)
	for _, want := range []string{"65537 runs to hold in memory at once, about 512.01MB at 8.00KB each", "more than half the 1.00GB available (test)",
		"at most 65536 can run here", "--tasks T --task i", "--emit list or --emit slurm"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("65537 held: %v lacks %q", err, want)
		}
	}
}
