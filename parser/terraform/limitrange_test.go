package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Kubernetes provider's LimitRange, whose limit blocks are its items, fills in what the
// namespace's containers leave out, as a manifest's does: its max gives the sidecar a GPU (a
// warning), its default requests the CPU and memory the containers do not request. A
// LimitRange of another namespace does nothing.
func TestTypedLimitRange(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terraform", "k8s_limit_range", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, from, to string
		gpus           int64
		cpu, memGiB    float64
		warning        string
	}{
		{"as written", "", "", 2, 8, 40, `LimitRange/speech/gpu gives container "log-shipper" 1 nvidia.com/gpu that it does not ask for`},
		{"another namespace", `namespace = "speech"
  }
  spec {
    limit {`, `namespace = "other"
  }
  spec {
    limit {`, 1, 0, 24, ""},
		{"a pod past its max", `memory = "96Gi"`, `memory = "16Gi"`, 2, 8, 40, // the shipper sets no memory limit
			"LimitRange/speech/gpu refuses them: a pod's memory limit of 24Gi passes the max of 16Gi a pod (priced as declared)"},
	} {
		res := ParseSource("main.tf", []byte(strings.Replace(string(src), c.from, c.to, 1)), Options{})
		if len(res.Errors) > 0 {
			t.Fatalf("%s: errors %v", c.name, res.Errors)
		}
		r := byAddress(t, res)["kubernetes_deployment_v1.transcribe"]
		if r.Pod == nil || r.Pod.Requested != c.gpus || r.Pod.CPU != c.cpu || r.Pod.MemoryGiB != c.memGiB {
			t.Errorf("%s: pod %+v, want %d GPUs, %g CPU, %g GiB", c.name, r.Pod, c.gpus, c.cpu, c.memGiB)
		}
		var warns []string
		for _, w := range res.Warnings {
			warns = append(warns, w.Message)
		}
		if got := strings.Join(warns, "\n"); c.warning == "" && got != "" || !strings.Contains(got, c.warning) {
			t.Errorf("%s: warnings %q, want %q", c.name, got, c.warning)
		}
	}
}
