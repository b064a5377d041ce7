package parser

import (
	"cmp"
	"fmt"
	"strings"
)

// Capability is a CUDA compute capability, major.minor (8.9 for an L4).
type Capability struct {
	Major int `json:"major"`
	Minor int `json:"minor"`
}

func (c Capability) String() string { return fmt.Sprintf("%d.%d", c.Major, c.Minor) }

// Compare orders capabilities as CUDA does: by major, then minor.
func (c Capability) Compare(o Capability) int {
	return cmp.Or(cmp.Compare(c.Major, o.Major), cmp.Compare(c.Minor, o.Minor))
}

// ComputeBound is one end of a ComputeRange: the capability itself is in the range unless Strict.
type ComputeBound struct {
	Capability
	Strict bool `json:"strict,omitempty"`
}

// ComputeRange bounds a GPU's CUDA compute capability as a DRA claim's selector on NVIDIA's
// cudaComputeCapability attribute does (a semantic version: "9.0.0" for an H100). Either end
// may be open (nil).
type ComputeRange struct {
	Min *ComputeBound `json:"min,omitempty"`
	Max *ComputeBound `json:"max,omitempty"`
}

// Allows reports whether a GPU of this compute capability is in the range.
func (r ComputeRange) Allows(c Capability) bool {
	if r.Min != nil {
		if d := c.Compare(r.Min.Capability); d < 0 || d == 0 && r.Min.Strict {
			return false
		}
	}
	if r.Max != nil {
		if d := c.Compare(r.Max.Capability); d > 0 || d == 0 && r.Max.Strict {
			return false
		}
	}
	return true
}

// And is the range both r and o allow: the higher minimum and the lower maximum (the strict
// one of two at the same capability).
func (r ComputeRange) And(o ComputeRange) ComputeRange {
	pick := func(a, b *ComputeBound, sign int) *ComputeBound {
		switch {
		case a == nil:
			return b
		case b == nil:
			return a
		}
		d := a.Compare(b.Capability) * sign
		if d > 0 || d == 0 && a.Strict {
			return a
		}
		return b
	}
	return ComputeRange{Min: pick(r.Min, o.Min, 1), Max: pick(r.Max, o.Max, -1)}
}

// String writes the range for a message: "≥ 8.0", "> 8.0 and < 10.0", "= 9.0".
func (r ComputeRange) String() string {
	if r.Min != nil && r.Max != nil && !r.Min.Strict && !r.Max.Strict && r.Min.Capability == r.Max.Capability {
		return "= " + r.Min.String()
	}
	var parts []string
	if r.Min != nil {
		parts = append(parts, r.Min.write("≥ ", "> "))
	}
	if r.Max != nil {
		parts = append(parts, r.Max.write("≤ ", "< "))
	}
	return strings.Join(parts, " and ")
}

// write is the bound after its operator: inclusive's, or strict's when the bound is strict.
func (b ComputeBound) write(inclusive, strict string) string {
	if b.Strict {
		return strict + b.String()
	}
	return inclusive + b.String()
}
