package parser

import (
	"cmp"
	"fmt"
	"testing"
)

func TestCountRange(t *testing.T) {
	two, eight := 2, 8
	cases := []struct {
		c         CountRange
		allows    []float64
		refuses   []float64
		gpus      bool
		formatted string
	}{
		{CountRange{In: []int{1, 4}}, []float64{1, 4}, []float64{2, 0.5}, true, "1 or 4"},
		{CountRange{Min: &two}, []float64{2, 8}, []float64{1}, true, "≥ 2"},
		{CountRange{Min: &two, Max: &eight, In: []int{1, 4}}, []float64{4}, []float64{1, 8}, true, "1 or 4 and ≥ 2 and ≤ 8"},
		{CountRange{In: []int{0}}, []float64{0}, []float64{1}, false, "0"},
		{CountRange{Max: new(0)}, []float64{0}, []float64{1}, false, "≤ 0"},
	}
	for _, tc := range cases {
		for _, n := range tc.allows {
			if !tc.c.Allows(n) {
				t.Errorf("%s refuses %g", tc.c, n)
			}
		}
		for _, n := range tc.refuses {
			if tc.c.Allows(n) {
				t.Errorf("%s allows %g", tc.c, n)
			}
		}
		if tc.c.AllowsGPUs() != tc.gpus || tc.c.String() != tc.formatted {
			t.Errorf("%+v: AllowsGPUs %v, String %q", tc.c, tc.c.AllowsGPUs(), tc.c.String())
		}
	}
}

// Addresses are ordered with their numbers by value, the rest byte by byte.
func TestCompareAddresses(t *testing.T) {
	ordered := []string{
		"aws_instance.x",
		"aws_instance.x[2]",
		"aws_instance.x[10]",
		"aws_instance.x[10].y",
		"aws_instance.x[11]",
		"aws_instance.x[011]",
		`aws_instance.y["a9b"]`,
		`aws_instance.y["a10"]`,
		`module.a[2].aws_instance.z`,
		`module.a[10].aws_instance.b`,
	}
	for i, a := range ordered {
		for j, b := range ordered {
			if got := CompareAddresses(a, b); got != cmp.Compare(i, j) {
				t.Errorf("CompareAddresses(%q, %q) = %d", a, b, got)
			}
		}
	}
}

// A block's instances (one file and line) are listed in reading order after Sort.
func TestSortListsInstancesInReadingOrder(t *testing.T) {
	var r Result
	for _, a := range []string{"x[10]", "x[2]", "x[1]"} {
		r.Resources = append(r.Resources, Resource{Address: a, Source: Location{File: "main.tf", Line: 3}})
	}
	r.Resources = append(r.Resources, Resource{Address: "a[0]", Source: Location{File: "main.tf", Line: 9}})
	r.Sort()
	var got []string
	for _, res := range r.Resources {
		got = append(got, res.Address)
	}
	if want := "x[1] x[2] x[10] a[0]"; fmt.Sprint(got) != "["+want+"]" {
		t.Errorf("order %v, want %s", got, want)
	}
}
