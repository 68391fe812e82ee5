package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mgpu-sim/mgpu/benchmarks"
	"github.com/mgpu-sim/mgpu/pagepolicy"
	"github.com/mgpu-sim/mgpu/platform"
)

func cmdList(args []string, w io.Writer) error {
	if err := noArgs(newFlagSet("list"), args, w); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKLOADS")
	for _, n := range benchmarks.Names() {
		wl, _ := benchmarks.New(n)
		fmt.Fprintf(tw, "  %s\t%s\n", n, wl.Description())
	}
	fmt.Fprintln(tw, "\nPOLICIES")
	for _, n := range pagepolicy.Names() {
		fmt.Fprintf(tw, "  %s\n", n)
	}
	fmt.Fprintln(tw, "\nDISTRIBUTION SCHEMES")
	for _, n := range benchmarks.Schemes() {
		fmt.Fprintf(tw, "  %s\n", n)
	}
	fmt.Fprintln(tw, "\nCONFIG KEYS (--set key=value)\tDEFAULT\tSOURCE")
	for _, k := range platform.Keys(platform.DefaultConfig()) {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", k.Key, k.Value, k.Doc)
	}
	return tw.Flush()
}
