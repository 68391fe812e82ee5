package benchmarks_test

import (
	"os"
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
