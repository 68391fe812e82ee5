package sweep

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Every run that would fail is found before any runs: Expand finds the
// runs whose configs are invalid (a key without effect among them),
// CheckRuns also those that only the workload's set-up or the driver
// refuse. Each is listed by its label with its reason.
func TestRunsThatWouldFailAreListed(t *testing.T) {
	const base = "policies: [on-touch]\ngpus: [2]\nscale: 0.05\n"
	for _, c := range []struct {
		name, body string
		expand     bool // Expand already refuses
		bad, total int
		want       []string // in the error: labels and reasons
	}{
		{"threshold with prefetch off", "workloads: [mm, private]\n" + base + "sets: {uvm.prefetch.threshold: ['1', '51', '100']}\n", true, 4, 6,
			[]string{"mm/on-touch/2gpu/seed1 uvm.prefetch.threshold=1: uvm.prefetch.threshold = 1: has no effect while uvm.prefetch.policy = \"off\"",
				"private/on-touch/2gpu/seed1 uvm.prefetch.threshold=100:"}},
		{"EA key with EA off", "workloads: [mm]\n" + base + "sets: {uvm.ea.step: ['10', '25']}\n", true, 1, 2,
			[]string{"uvm.ea.step=10: uvm.ea.step = 10: has no effect while uvm.prefetch_control"}},
		{"SUV on a workload without hints", "workloads: [mm, gmm]\n" + base + "sets: {uvm.adaptive: [none, suv], oversubscribe: ['1.5']}\n", false, 1, 4,
			[]string{"mm/on-touch/2gpu/seed1 oversubscribe=1.5 uvm.adaptive=suv: workload mm: uvm.adaptive=suv plans from the hints a workload declares, and mm declares none"}},
		{"hardware handling with OASIS", "workloads: [mm]\npolicies: [on-touch, oasis]\ngpus: [2]\nscale: 0.05\nsets: {uvm.fault_handling: [software, hardware]}\n", false, 1, 4,
			[]string{"mm/oasis/2gpu/seed1 uvm.fault_handling=hardware:", "--policy oasis cannot apply"}},
		{"footprint over memory", "workloads: [mm]\n" + base + "sets: {gpu.memory: [4GB, 256KB]}\n", false, 1, 2,
			[]string{"gpu.memory=256KB: footprint", "exceeds the total GPU memory", "--oversubscribe"}},
		{"topology on one GPU", "workloads: [mm]\npolicies: [on-touch]\ngpus: [1, 2]\nscale: 0.05\nsets: {topology: [full, switch]}\n", true, 1, 4,
			[]string{"mm/on-touch/1gpu/seed1 topology=switch: topology = \"switch\": has no effect while gpus = 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Load(writeSpec(t, c.body))
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Expand()
			if (err != nil) != c.expand {
				t.Fatalf("Expand: %v", err)
			}
			if err == nil {
				runs, _ := s.Expand()
				err = CheckRuns(runs)
			} else if runs, rerr := s.Runs(); rerr != nil || CheckRuns(runs) == nil {
				t.Fatalf("CheckRuns accepts what Expand refuses (%v)", rerr)
			}
			var bad *InvalidRuns
			if !errors.As(err, &bad) {
				t.Fatalf("%T %v, want *InvalidRuns", err, err)
			}
			if bad.Bad != c.bad || bad.Total != c.total {
				t.Errorf("%d of %d bad, want %d of %d:\n%v", bad.Bad, bad.Total, c.bad, c.total, err)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("%d of the sweep's %d runs would fail, so none was started:\n", c.bad, c.total)) {
				t.Errorf("error does not start with the count:\n%v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// The list stops at MaxListed runs and counts the rest.
func TestInvalidRunsListIsCapped(t *testing.T) {
	var seeds []string
	for i := 1; i <= 30; i++ {
		seeds = append(seeds, fmt.Sprint(i))
	}
	s, err := Load(writeSpec(t, "workloads: [mm]\npolicies: [on-touch]\ngpus: [2]\nseeds: ["+strings.Join(seeds, ", ")+
		"]\nsets: {uvm.prefetch.threshold: ['75']}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Expand()
	var bad *InvalidRuns
	if !errors.As(err, &bad) || bad.Bad != 30 || len(bad.Listed) != MaxListed {
		t.Fatalf("%v", err)
	}
	if n := strings.Count(err.Error(), "\n  mm/on-touch"); n != MaxListed || !strings.HasSuffix(err.Error(), "\n  ... and 10 more") {
		t.Errorf("%d runs listed:\n%v", n, err)
	}
}

// Count answers without expanding, so a spec of a million runs (which
// would take minutes and gigabytes to expand) is counted at once; a
// product beyond an int saturates.
func TestCountWithoutExpanding(t *testing.T) {
	ten := "['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']"
	body := "workloads: [mm]\npolicies: [on-touch]\ngpus: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nseeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n" +
		"sets: {gpu.cus: " + ten + ", gpu.l2_cycles: " + ten + ", gpu.l1v_cycles: " + ten + ", gpu.l2tlb_cycles: " + ten + "}\n"
	s, err := Load(writeSpec(t, body))
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Count()
	if err != nil || n != 1_000_000 || s.SetCombinations() != 10_000 {
		t.Fatalf("Count = %d, %v; %d set combinations", n, err, s.SetCombinations())
	}
	if p := product(math.MaxInt/2, 3, 0); p != 0 {
		t.Errorf("product with a zero = %d", p)
	}
	if p := product(math.MaxInt/2, 3, 1); p != math.MaxInt {
		t.Errorf("product beyond an int = %d", p)
	}
	// Count reports what is wrong with the lists, as Expand does.
	s, _ = Load(writeSpec(t, "workloads: [mm]\npolicies: [on-touch]\ngpus: [4]\nsize: 32gpu\nsets: {gpu.cus: ['x']}\n"))
	if _, err := s.Count(); err == nil || !strings.Contains(err.Error(), `size "32gpu"`) || !strings.Contains(err.Error(), "gpu.cus") {
		t.Errorf("Count: %v", err)
	}
}

// Count, without expanding, leaves out the runs that a policy or workload
// ignoring a sets key would repeat, as Runs does.
func TestCountLeavesOutIgnoredKeys(t *testing.T) {
	body := "workloads: [mm, lenet]\npolicies: [on-touch, oasis, grit]\ngpus: [4]\nseeds: [1, 2]\n" +
		"sets: {policy.reset_threshold: ['4', '8', '32'], policy.grit_threshold: ['2', '4'], im2col: [mgpusim, per-element], gpu.cus: ['16', '32']}\n"
	s, err := Load(writeSpec(t, body))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Count()
	// per workload and seed, with 2 CU counts: on-touch 1, oasis 3, grit 2;
	// lenet reads im2col (x2), mm does not.
	want := 2 * 2 * (1 + 3 + 2) * (1 + 2)
	if err != nil || n != want || len(runs) != want || s.Product() != 2*3*2*3*2*2*2 {
		t.Fatalf("Count %d (%v), %d runs, product %d; want %d", n, err, len(runs), s.Product(), want)
	}
	for _, r := range runs {
		if _, ok := r.Sets["im2col"]; ok != (r.Workload == "lenet") {
			t.Errorf("%s: im2col in its sets is %v", r.Label(), ok)
		}
	}
}
