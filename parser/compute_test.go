package parser

import "testing"

// A compute capability range orders capabilities as CUDA does (8.10 would be above 8.9), keeps
// or leaves out its ends as written, and two ranges together keep the tighter end of each.
func TestComputeRange(t *testing.T) {
	at := func(major, minor int, strict bool) *ComputeBound {
		return &ComputeBound{Capability: Capability{major, minor}, Strict: strict}
	}
	l4, a100, h100, a10g := Capability{8, 9}, Capability{8, 0}, Capability{9, 0}, Capability{8, 6}
	for _, tc := range []struct {
		r       ComputeRange
		allowed []Capability
		refused []Capability
	}{
		{ComputeRange{Min: at(8, 6, false)}, []Capability{a10g, l4, h100, {12, 0}}, []Capability{a100, {7, 5}}},
		{ComputeRange{Min: at(8, 6, true)}, []Capability{l4, h100}, []Capability{a10g, a100}},
		{ComputeRange{Max: at(9, 0, true)}, []Capability{a100, l4, {7, 0}}, []Capability{h100, {10, 0}}},
		{ComputeRange{Max: at(9, 0, false)}, []Capability{h100, l4}, []Capability{{9, 1}, {10, 0}}},
		{ComputeRange{Min: at(8, 9, false), Max: at(8, 9, false)}, []Capability{l4}, []Capability{a10g, h100}},
		{ComputeRange{Min: at(8, 0, true), Max: at(8, 0, true)}, nil, []Capability{a100, l4}},
	} {
		for _, c := range tc.allowed {
			if !tc.r.Allows(c) {
				t.Errorf("%s refuses %s", tc.r, c)
			}
		}
		for _, c := range tc.refused {
			if tc.r.Allows(c) {
				t.Errorf("%s allows %s", tc.r, c)
			}
		}
	}
	for _, tc := range []struct {
		a, b ComputeRange
		want string
	}{
		{ComputeRange{Min: at(8, 0, false)}, ComputeRange{Min: at(8, 6, false)}, "≥ 8.6"},
		{ComputeRange{Min: at(8, 6, false)}, ComputeRange{Min: at(8, 6, true)}, "> 8.6"},
		{ComputeRange{Min: at(8, 6, true)}, ComputeRange{Min: at(8, 6, false)}, "> 8.6"},
		{ComputeRange{Max: at(9, 0, false)}, ComputeRange{Max: at(9, 0, true)}, "< 9.0"},
		{ComputeRange{Max: at(9, 0, true)}, ComputeRange{Max: at(10, 0, false)}, "< 9.0"},
		{ComputeRange{Min: at(8, 0, false)}, ComputeRange{Max: at(9, 0, true)}, "≥ 8.0 and < 9.0"},
		{ComputeRange{Min: at(9, 0, false)}, ComputeRange{Max: at(9, 0, false)}, "= 9.0"},
	} {
		if got := tc.a.And(tc.b).String(); got != tc.want {
			t.Errorf("%s and %s: %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}
