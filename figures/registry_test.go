package figures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegistry: every registered figure has a unique name and names a
// paper's document that exists and mentions it, so the registration and
// docs/<paper>.md cannot drift apart; Names follows All.
func TestRegistry(t *testing.T) {
	docs := map[string]string{}
	seen := map[string]bool{}
	all, names := All(), Names()
	if len(all) < 40 {
		t.Fatalf("%d figures registered; an init function is missing", len(all))
	}
	for i, f := range all {
		if seen[f.Name] {
			t.Errorf("figure %s registered twice", f.Name)
		}
		seen[f.Name] = true
		if n := names[i]; n != f.Name {
			t.Errorf("Names()[%d] = %s, All()[%d] = %s", i, n, i, f.Name)
		}
		text, ok := docs[f.Doc]
		if !ok {
			b, err := os.ReadFile(filepath.Join("..", "docs", f.Doc+".md"))
			if err != nil {
				t.Errorf("%s: its paper's document: %v", f.Name, err)
			}
			text = string(b)
			docs[f.Doc] = text
		}
		if !strings.Contains(text, f.Name) {
			t.Errorf("%s: docs/%s.md does not mention it", f.Name, f.Doc)
		}
	}
}
