package platform

import (
	"reflect"
	"strings"

	"github.com/mgpu-sim/mgpu/stats"
)

type namedCount struct {
	name  string
	value uint64
}

func counterMap(c *stats.Counters) []namedCount {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	out := make([]namedCount, t.NumField())
	for i := range out {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[i] = namedCount{name: name, value: v.Field(i).Uint()}
	}
	return out
}
