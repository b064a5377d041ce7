package catalog

import (
	"fmt"
	"strings"
	"testing"
)

// Every NVIDIA GPU in the catalog has a CUDA compute capability, and GPU feature discovery's
// family follows from it as GFD names it; other makers' accelerators have neither.
func TestGPUFamily(t *testing.T) {
	c := MustDefault()
	want := map[string]string{
		"t4": "turing 7.5", "v100-16gb": "volta 7.0", "p4": "pascal 6.1", "a10g": "ampere 8.6", "a100-80gb": "ampere 8.0",
		"l4": "ada-lovelace 8.9", "l40s": "ada-lovelace 8.9", "h100-80gb": "hopper 9.0", "h200": "hopper 9.0",
		"b200": "blackwell 10.0", "rtx-pro-6000": "blackwell 12.0", "inferentia2": " 0.0", "radeon-pro-v520": " 0.0",
	}
	for _, g := range c.GPUs() {
		got := fmt.Sprintf("%s %d.%d", g.Family(), g.ComputeMajor, g.ComputeMinor)
		if w, ok := want[g.Key]; ok && got != w {
			t.Errorf("%s: %q, want %q", g.Key, got, w)
		}
		if (g.Vendor == "nvidia") != (g.ComputeMajor > 0 && g.Family() != "") {
			t.Errorf("%s (%s): compute capability %d.%d, family %q", g.Key, g.Vendor, g.ComputeMajor, g.ComputeMinor, g.Family())
		}
	}
}

// A compute capability that is not major.minor is an error at its row.
func TestComputeCapabilityErrors(t *testing.T) {
	const head = "gpu,name,vendor,memory_gib,reported_mib,reported_source,compute_capability\n"
	for _, cc := range []string{"8", "8.x", "0.5", "-1.0"} {
		_, err := Load(strings.NewReader("provider,instance_type,kind,gpu,gpu_count\n"), strings.NewReader("provider,instance_type,region,purchase_option,hourly_usd,date,source\n"),
			strings.NewReader(head+"l4,NVIDIA L4,nvidia,24,23034,x,"+cc+"\n"), strings.NewReader("gpu,profile,compute_sevenths,memory_gb,max_per_gpu\n"))
		if err == nil || !strings.Contains(err.Error(), "gpus.csv:2: column compute_capability: \""+cc+"\" is not major.minor") {
			t.Errorf("%s: %v", cc, err)
		}
	}
}
