package platform

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fullOnly skips t unless MGPU_TEST_FULL=1: the long part of a test matrix,
// which make test leaves out (keeping a slice) and make test-full runs. CI
// runs both, so no test is lost.
func fullOnly(t *testing.T) {
	t.Helper()
	if os.Getenv("MGPU_TEST_FULL") != "1" {
		t.Skip("long matrix: MGPU_TEST_FULL=1 (make test-full) runs it")
	}
}

// TestFullOnlyTestsRunInCI: make test-full runs the tests that call
// fullOnly by name (FULL_TESTS in the Makefile). Every test in the module
// that calls fullOnly must be named there, so none is skipped by both
// targets; and every name there must call fullOnly, so make test-full runs
// nothing make test already ran whole.
func TestFullOnlyTestsRunInCI(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^test-full:\n\tMGPU_TEST_FULL=1 \$\(GO\) test .*-run '\^\(\$\(FULL_TESTS\)\)\$\$' (\./platform )?\./\.\.\.$`).Match(mk) {
		t.Fatal("Makefile: test-full is not MGPU_TEST_FULL=1 $(GO) test ... -run '^($(FULL_TESTS))$$' ./...")
	}
	m := regexp.MustCompile(`(?m)^FULL_TESTS := ([A-Za-z0-9_|]+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile: no FULL_TESTS := TestA|TestB|... line")
	}
	names := strings.Split(string(m[1]), "|")
	var long []string
	fset := token.NewFileSet()
	err = filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			calls := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "fullOnly" {
						calls = true
					}
				}
				return !calls
			})
			if calls && (fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test")) {
				t.Errorf("%s: %s calls fullOnly; only a Test function may, so that this check sees which tests make test-full must run",
					path, fn.Name.Name)
			} else if calls {
				long = append(long, fn.Name.Name)
				if !slices.Contains(names, fn.Name.Name) {
					t.Errorf("%s: %s calls fullOnly but is not in the Makefile's FULL_TESTS, so no target runs its long part",
						path, fn.Name.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(long) == 0 {
		t.Fatal("no test calls fullOnly: the scan found nothing")
	}
	for _, n := range names {
		if !slices.Contains(long, n) {
			t.Errorf("the Makefile's FULL_TESTS names %s, which calls no fullOnly: make test runs it whole already", n)
		}
	}
}
