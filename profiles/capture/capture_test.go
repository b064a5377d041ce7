package capture

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuguard/gpuguard/internal/testutil"
)

func u32(v uint32) *uint32 { return &v }

const gib = 1 << 30

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for p, want := range map[float64]float64{50: 5, 95: 10, 90: 9, 10: 1, 0: 1, 100: 10} {
		if got := percentile(xs, p); got != want {
			t.Errorf("p%.0f = %v, want %v", p, got, want)
		}
	}
	if xs[0] != 5 {
		t.Error("percentile sorted its input in place")
	}
}

// The timeline is an SVG a browser opens: reviewed once, kept as a golden file.
func TestTimelineSVG(t *testing.T) {
	var tl []Snapshot
	for i := 0; i <= 20; i++ {
		used := uint64(i) * 2 * gib
		if used > 30*gib {
			used = 30 * gib
		}
		tl = append(tl, Snapshot{Elapsed: time.Duration(i) * 3 * time.Second, GPUs: []GPUSample{
			{Label: "0", UsedBytes: used, TotalBytes: 40 * gib, Utilization: u32(uint32(4 * i))},
			{Label: "0/mig1", UsedBytes: used / 4, TotalBytes: 10 * gib},
		}})
	}
	var b bytes.Buffer
	if err := WriteTimeline(&b, "train.py: NVIDIA A100 <40GB>", tl); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, s := range []string{`<svg xmlns="http://www.w3.org/2000/svg"`, "train.py: NVIDIA A100 &lt;40GB&gt;", "<title>GPU 0 memory</title>",
		"<title>GPU 0 utilization</title>", "<title>GPU 0/mig1 memory</title>", ">60 s<", "</svg>"} {
		if !strings.Contains(svg, s) {
			t.Errorf("SVG lacks %q", s)
		}
	}
	if strings.Contains(svg, "GPU 0/mig1 utilization") {
		t.Error("a MIG device without utilization got a utilization line")
	}
	testutil.Golden(t, filepath.Join("testdata", "timeline.svg"), b.Bytes())
}

// The process tree holds the root's children and grandchildren.
func TestProcessTree(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 5 & sleep 5 & wait")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Process.Kill()
	var tree map[uint32]bool
	for i := 0; i < 50; i++ {
		tree = ProcessTree(cmd.Process.Pid)
		if len(tree) >= 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(tree) < 3 || !tree[uint32(cmd.Process.Pid)] {
		t.Fatalf("tree of %d: %v", cmd.Process.Pid, tree)
	}
	if !processAlive(cmd.Process.Pid) || processAlive(1<<30) {
		t.Error("processAlive")
	}
}

func TestNothingToMeasure(t *testing.T) {
	if _, err := Run(context.Background(), Options{Library: OpenNVML()}); err == nil || !strings.Contains(err.Error(), "nothing to measure") {
		t.Errorf("err = %v", err)
	}
}
