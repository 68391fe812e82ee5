package sweep

import (
	"strings"
	"testing"
)

// Each of these specs would have run, and written data that lies or files
// where they do not belong; each must fail before any run, saying what is
// wrong.
func TestSpecRejectsMislabellingAndEscapes(t *testing.T) {
	const base = "workloads: [mm]\npolicies: [on-touch]\ngpus: [4]\n"
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"sets shadows gpus", base + "sets: {gpus: ['8']}\n", []string{"sets.gpus", `"gpus"`}},
		{"sets shadows seeds", base + "sets: {seed: ['2']}\n", []string{"sets.seed", `"seeds"`}},
		{"duplicate workload", "workloads: [fft, mm, fft]\npolicies: [on-touch]\ngpus: [4]\n", []string{"workloads: fft listed more than once"}},
		{"duplicate policy", "workloads: [mm]\npolicies: [oasis, oasis]\ngpus: [4]\n", []string{"policies: oasis"}},
		{"duplicate gpus", "workloads: [mm]\npolicies: [oasis]\ngpus: [4, 4]\n", []string{"gpus: 4"}},
		{"duplicate seeds", base + "seeds: [1, 2, 1]\n", []string{"seeds: 1"}},
		{"duplicate set value", base + "sets: {page_size: [4KB, 4KB]}\n", []string{"sets.page_size: 4KB"}},
		{"same value spelt twice", base + "sets: {page_size: [2MB, '2097152']}\n", []string{"same run"}},
		{"scale zero", base + "scale: 0\n", []string{"scale 0", "positive"}},
		{"scale negative", base + "scale: -0.5\n", []string{"scale -0.5", "positive"}},
		{"name with ..", base + "name: ../../etc/evil\n", []string{"name", "path separators"}},
		{"name with separator", base + "name: sub/fig\n", []string{"name", "path separators"}},
		{"name is ..", base + "name: ..\n", []string{"name"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Load(writeSpec(t, c.body))
			if err == nil {
				_, err = s.Expand()
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// No scale means the paper's size; a spec built in code (figures) may leave
// it zero too.
func TestSpecWithoutScaleRunsAtOne(t *testing.T) {
	s, err := Load(writeSpec(t, "name: fig-15_a.b\nworkloads: [mm]\npolicies: [on-touch]\ngpus: [4]\n"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Expand()
	if err != nil || len(runs) != 1 || runs[0].Scale != 1 {
		t.Fatalf("%v %+v", err, runs)
	}
	runs, err = (&Spec{Workloads: []string{"mm"}, Policies: []string{"on-touch"}, GPUs: []int{4}}).Expand()
	if err != nil || runs[0].Scale != 1 {
		t.Fatalf("spec in code: %v %+v", err, runs)
	}
}

// No seeds, or a seeds key without a value, means seed 1; an empty list
// is an error (TestSpecErrorsBeforeAnyRun), not seed 1.
func TestSpecWithoutSeedsRunsSeedOne(t *testing.T) {
	for _, body := range []string{"", "seeds:\n", "seeds: ~\n"} {
		s, err := Load(writeSpec(t, "workloads: [mm]\npolicies: [on-touch]\ngpus: [4]\n"+body))
		if err != nil {
			t.Fatal(err)
		}
		runs, err := s.Expand()
		if err != nil || len(runs) != 1 || runs[0].Seed != 1 {
			t.Errorf("%q: %v %+v", body, err, runs)
		}
	}
}
