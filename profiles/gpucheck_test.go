package profiles

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// scripts/gpu-check/run.sh captures each case with --profile profiles/CASE.yaml; device time is
// scarce, so a case whose base profile is missing or does not validate must fail here, not on
// the GPU machine. Every case in the script's order has a valid profile of its name, declaring
// a workload and no measurement, and every profile there is a case.
func TestGPUCheckCasesHaveProfiles(t *testing.T) {
	dir := filepath.Join("..", "scripts", "gpu-check")
	script, err := os.ReadFile(filepath.Join(dir, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	order := regexp.MustCompile(`(?s)\norder=\(([^)]*)\)`).FindSubmatch(script)
	if order == nil {
		t.Fatal("run.sh has no order=(...)")
	}
	cases := strings.Fields(string(order[1]))
	for _, c := range cases {
		if !strings.Contains(string(script), "\t["+c+"]=\"") {
			t.Errorf("case %s has no arguments in run.sh", c)
		}
		p, err := Load(filepath.Join(dir, "profiles", c+".yaml"))
		if err != nil {
			t.Errorf("case %s: %v", c, err)
			continue
		}
		if p.Metadata.Name != c || p.Measured != nil || (p.Training == nil && p.Inference == nil) {
			t.Errorf("case %s: name %q, measured %v, training %v, inference %v", c, p.Metadata.Name, p.Measured, p.Training, p.Inference)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "profiles", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if c := strings.TrimSuffix(filepath.Base(f), ".yaml"); !slices.Contains(cases, c) {
			t.Errorf("%s is not a case of run.sh", f)
		}
	}
	if len(cases) < 30 {
		t.Errorf("read %d cases from run.sh", len(cases))
	}
}
