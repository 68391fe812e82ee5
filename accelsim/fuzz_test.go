package accelsim

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"testing"

	"github.com/mgpu-sim/mgpu/platform"
	"github.com/mgpu-sim/mgpu/replay"
)

// FuzzAccelSim: no kernel list and kernel trace panics the converter;
// each is refused with an *Error naming a file and line, or converts to
// a recording that the replay's whole check (replay.Read with
// platform.CheckParams) accepts. The files are read from memory: writing
// them took most of a call.
func FuzzAccelSim(f *testing.F) {
	list, err := os.ReadFile("testdata/vecadd/kernelslist.g")
	if err != nil {
		f.Fatal(err)
	}
	kernel, err := os.ReadFile("testdata/vecadd/kernel-1.traceg")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(list), string(kernel))
	f.Add("MemcpyHtoD,0x7f0000000000,100\nkernel-1.traceg\n", string(kernel))
	f.Add("kernel-1.traceg\nkernel-1.traceg\n", "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 3\n#BEGIN_TB\nwarp = 0\n0000 00000003 0 LD.E 1 R2 4 2 0x1000 8\n0010 00000001 0 RED.E.ADD 1 R2 4 0 0x100fff0\n#END_TB\n")
	f.Add("MemcpyHtoD,0x7f0000000000,8192\nkernel-1.traceg\n", hopper)
	o, _ := options(f)
	defer func(open func(string) (io.ReadCloser, error)) { openFile = open }(openFile)
	var files map[string]string
	openFile = func(name string) (io.ReadCloser, error) {
		if s, ok := files[name]; ok {
			return io.NopCloser(bytes.NewReader([]byte(s))), nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	f.Fuzz(func(t *testing.T, list, kernel string) {
		files = map[string]string{"t/kernelslist.g": list, "t/kernel-1.traceg": kernel}
		tr, err := Read("t/kernelslist.g", o)
		var e *Error
		if err != nil {
			if !errors.As(err, &e) || e.Line < 1 || e.File == "" {
				t.Fatalf("refused without a file and line: %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := tr.Write(&out); err != nil {
			t.Fatalf("a trace Read accepted fails to write: %v", err)
		}
		if _, err := replay.Read(bytes.NewReader(out.Bytes()), int64(out.Len()), platform.CheckParams); err != nil {
			t.Fatalf("the replay refuses a conversion: %v", err)
		}
	})
}
