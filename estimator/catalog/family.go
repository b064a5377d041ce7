package catalog

import (
	"fmt"
	"strconv"
	"strings"
)

// computeCapability reads a CUDA compute capability written major.minor ("8.9").
func computeCapability(s string) (major, minor int, err error) {
	a, b, ok := strings.Cut(s, ".")
	major, err1 := strconv.Atoi(a)
	minor, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || major <= 0 || minor < 0 {
		return 0, 0, fmt.Errorf("column compute_capability: %q is not major.minor", s)
	}
	return major, minor, nil
}

// Family is the architecture NVIDIA's GPU feature discovery labels the GPU's nodes with
// (nvidia.com/gpu.family), from its compute capability, as GFD's getArchFamily names it
// (github.com/NVIDIA/k8s-device-plugin, internal/lm/resource.go): volta below 7.5, then turing;
// ampere below 8.9, then ada-lovelace (since v0.17.0, pull request #1060; "ampere" before);
// hopper for 9; blackwell for 10 (B200) and 12 (RTX PRO 6000), the two compute capabilities of
// Blackwell (since v0.17.2, pull request #1237; "undefined" before). It is "" for another
// maker's accelerator, which GFD does not label.
func (g GPU) Family() string {
	switch g.ComputeMajor {
	case 6:
		return "pascal"
	case 7:
		if g.ComputeMinor < 5 {
			return "volta"
		}
		return "turing"
	case 8:
		if g.ComputeMinor < 9 {
			return "ampere"
		}
		return "ada-lovelace"
	case 9:
		return "hopper"
	case 10, 12:
		return "blackwell"
	}
	return ""
}
