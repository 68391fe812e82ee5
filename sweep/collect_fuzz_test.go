package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/mgpu-sim/mgpu/config"
	"github.com/mgpu-sim/mgpu/platform"
)

// FuzzCollect: each file of a results directory is, as collect reads it,
// exactly one of a whole result, a failure record, a stray file skipped,
// or a file meant as a result refused with a reason; never a panic. A
// result it accepts holds only values the file gave (every field a run
// writes was there: none is a zero the file left out), is consistent,
// reads back the same, and becomes one CSV row. A JSON object with a
// workload key is never skipped as stray.
func FuzzCollect(f *testing.F) {
	for _, s := range collectSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"d/r.json", "d/r.failed.json"} {
			var c Collection
			bad := &IncompleteResults{}
			c.take(name, data, bad)
			if n := len(c.Results) + len(c.Failures) + len(c.Skipped) + bad.Count; n != 1 {
				t.Fatalf("%s: taken %d times: %+v, %+v", name, n, c, bad)
			}
			switch {
			case bad.Count == 1 && strings.TrimSpace(bad.Files[0].Reason) == "":
				t.Fatalf("%s refused without a reason", name)
			case len(c.Results) == 1:
				checkAccepted(t, data, c.Results[0])
			case len(c.Skipped) == 1 && name == "d/r.json" && hasKey(data, "workload"):
				t.Fatalf("an object with a workload key was skipped as stray: %s", c.Skipped[0].Reason)
			}
		}
	})
}

// collectSeeds are whole results (a real run's, and made ones of one and
// four GPUs), then stubs, cuts and twists of them.
func collectSeeds(f *testing.F) [][]byte {
	cfg := config.DefaultConfig()
	cfg.GPUs = 2
	real, err := platform.Run(platform.Options{Workload: "private", Policy: "oasis", Seed: 1, Scale: 0.01, Config: cfg})
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := real.WriteJSON(&b); err != nil {
		f.Fatal(err)
	}
	whole := b.Bytes()
	cfg.GPUs = 4
	made, _ := json.Marshal(wholeResult(platform.Options{Workload: "mm", Policy: "on-touch", Scale: 0.5, Size: "auto", Config: cfg}))
	seeds := [][]byte{whole, made, whole[:len(whole)/2], whole[:len(whole)-2],
		bytes.Replace(whole, []byte(`"totals"`), []byte(`"TOTALS"`), 1),
		bytes.Replace(whole, []byte(`"totals"`), []byte(`"notals"`), 1),
		bytes.Replace(made, []byte(`"per_gpu": [`), []byte(`"per_gpu": [{}, `), 1),
		bytes.Replace(made, []byte(`"gpus":4`), []byte(`"gpus":-4`), 1),
		bytes.Replace(made, []byte(`"sets"`), []byte(`"x"`), 1),
	}
	for _, s := range []string{
		"", "null", "{}", "[]", "[1]", `"workload"`, `{"workload": "mm"}`, `{"workload": "mm", "policy": "oasis", "sim_time_ns": 1}`,
		`{"Workload": null}`, `{"workload": "mm", "pol`, `{"author": "me"}`, `{"author": `, `{"run": "mm/oasis", "error": "x"}`,
		`{"run": ""}`, `{"version": 1}`, `{"sim_time_ns": "fast"}`, "\ufeff{}", `{"workload": "mm", "workload": null}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// checkAccepted checks a result take accepted, independently of ReadResult.
func checkAccepted(t *testing.T, data []byte, r *platform.Result) {
	t.Helper()
	if r.Workload == "" || r.Policy == "" || r.Version == "" || r.GPUs < 1 || r.Config.GPUs != r.GPUs ||
		len(r.PerGPU) != r.GPUs || len(r.PerGPUStal) != r.GPUs || !(r.Scale > 0) || r.Config.Validate() != nil {
		t.Fatalf("accepted an inconsistent result: %+v", r)
	}
	again, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	// Every value the result reports was in the file, at its path.
	var in, out any
	if json.Unmarshal(data, &in) != nil || json.Unmarshal(again, &out) != nil {
		t.Fatal("accepted JSON that does not decode")
	}
	given := map[string]bool{}
	leaves(in, "", given)
	reported := map[string]bool{}
	leaves(out, "", reported)
	for p := range reported {
		if !given[p] {
			t.Fatalf("accepted a result without %s, which reads as zero", p)
		}
	}
	back, err := ReadResult(again)
	if err != nil {
		t.Fatalf("an accepted result, written again, is refused: %v", err)
	}
	if b2, _ := json.Marshal(back); !bytes.Equal(b2, again) {
		t.Fatalf("an accepted result reads back otherwise:\n%s\n%s", again, b2)
	}
	var csv bytes.Buffer
	if err := WriteCSV(&csv, []*platform.Result{r}); err != nil || strings.Count(csv.String(), "\n") < 2 {
		t.Fatalf("CSV of an accepted result: %v\n%s", err, csv.String())
	}
}

// leaves adds the path of every value under v to paths, with object keys
// folded as encoding/json matches them (ignoring case).
func leaves(v any, path string, paths map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			leaves(e, path+"."+fold(k), paths)
		}
	case []any:
		for i, e := range v {
			leaves(e, fmt.Sprintf("%s[%d]", path, i), paths)
		}
	}
	paths[path] = true
}

// fold maps each letter to the least of its case-folding orbit, so that
// two keys fold equal exactly when strings.EqualFold says they match.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// hasKey is whether data is a JSON object with key exactly.
func hasKey(data []byte, key string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return false
	}
	_, ok := obj[key]
	return ok
}
