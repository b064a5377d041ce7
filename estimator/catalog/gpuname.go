package catalog

import (
	"regexp"
	"strings"
)

var gpuSuffix = regexp.MustCompile(`(-shared|-mig-.*)$`)

// GPUKeysForName maps the GPU names that node labels use to catalog GPU keys: Karpenter's
// instance-gpu-name ("a10g", "h100"), GKE's accelerator ("nvidia-tesla-a100",
// "nvidia-h100-80gb", "nvidia-l4") and GPU feature discovery's product ("NVIDIA-A100-SXM4-80GB",
// "Tesla-T4-SHARED"). A name that does not say the memory size matches every size ("a100" is
// both A100 40GB and 80GB).
func GPUKeysForName(name string) []string {
	n := strings.ToLower(strings.TrimSpace(name))
	n = gpuSuffix.ReplaceAllString(n, "")
	n = strings.NewReplacer("nvidia-", "", "nvidia ", "", "tesla-", "", "tesla ", "", "_", "-", " ", "-").Replace(n)
	has := func(s string) bool { return strings.Contains(n, s) }
	switch {
	case has("h100"):
		if has("nvl") {
			return []string{"h100-nvl"}
		}
		return []string{"h100-80gb"}
	case has("h200"):
		return []string{"h200"}
	case has("b200"):
		return []string{"b200"}
	case has("a100"):
		switch {
		case has("80gb") || has("80g"):
			return []string{"a100-80gb"}
		case has("40gb") || has("40g"):
			return []string{"a100-40gb"}
		}
		return []string{"a100-40gb", "a100-80gb"}
	case has("a10g"):
		return []string{"a10g"}
	case has("a10"):
		return []string{"a10"}
	case has("l40s"):
		return []string{"l40s"}
	case has("l4"):
		return []string{"l4"}
	case has("t4"):
		return []string{"t4"}
	case has("v100"):
		switch {
		case has("32gb"):
			return []string{"v100-32gb"}
		case has("16gb"):
			return []string{"v100-16gb"}
		}
		return []string{"v100-16gb", "v100-32gb"}
	case has("p100"):
		return []string{"p100"}
	case n == "p4":
		return []string{"p4"}
	case has("rtx-pro-6000") || has("rtx6000"):
		return []string{"rtx-pro-6000"}
	case has("inferentia2"):
		return []string{"inferentia2"}
	case has("trainium"):
		return []string{"trainium"}
	case has("v520"):
		return []string{"radeon-pro-v520"}
	}
	return nil
}
