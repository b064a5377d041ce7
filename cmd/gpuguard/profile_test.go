package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuguard/gpuguard/profiles"
	"github.com/gpuguard/gpuguard/profiles/capture"
)

// fakeGPU is a plain-Go capture.Library for the command's tests (the NVML adapter itself is
// tested against go-nvml's mocks in profiles/capture).
type fakeGPU struct {
	mu      sync.Mutex
	initErr error
	used    uint64
	inits   int
}

func (f *fakeGPU) Init() error           { f.inits++; return f.initErr }
func (f *fakeGPU) Shutdown()             {}
func (f *fakeGPU) DriverVersion() string { return "560.35.03" }
func (f *fakeGPU) Devices() ([]capture.Device, []string, error) {
	return []capture.Device{fakeDevice{f}}, nil, nil
}

type fakeDevice struct{ f *fakeGPU }

func (d fakeDevice) Index() int    { return 0 }
func (d fakeDevice) Name() string  { return "NVIDIA L4" }
func (d fakeDevice) UUID() string  { return "GPU-fake" }
func (d fakeDevice) MIG() bool     { return false }
func (d fakeDevice) Label() string { return "0" }
func (d fakeDevice) Memory() (capture.Memory, error) {
	d.f.mu.Lock()
	defer d.f.mu.Unlock()
	return capture.Memory{Total: 23034 << 20, Used: d.f.used}, nil
}
func (d fakeDevice) Utilization() (uint32, error)          { return 80, nil }
func (d fakeDevice) PowerMilliwatts() (uint32, error)      { return 0, capture.ErrNotSupported }
func (d fakeDevice) Processes() ([]capture.Process, error) { return nil, nil }
func useGPU(t *testing.T, f *fakeGPU) {
	t.Helper()
	old := openGPULibrary
	openGPULibrary = func() capture.Library { return f }
	t.Cleanup(func() { openGPULibrary = old })
}
func (f *fakeGPU) set(used uint64) {
	f.mu.Lock()
	f.used = used
	f.mu.Unlock()
}

func TestCaptureWritesTheProfileAndKeepsTheBase(t *testing.T) {
	repoRoot(t)
	gpu := &fakeGPU{used: 17000 << 20}
	useGPU(t, gpu)
	dir := t.TempDir()
	out, svg := filepath.Join(dir, "lora.yaml"), filepath.Join(dir, "lora.svg")
	r := runCLI(t, "", "profile", "capture", "--output", out, "--interval", "20ms", "--profile", "testdata/profiles/llama-7b-lora.yaml",
		"--timeline", svg, "--", "sh", "-c", "echo training; sleep 0.2")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != "training\n" {
		t.Errorf("the command's output did not pass through: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "on 1× NVIDIA L4: peak 17,000 MiB of 23,034 MiB per GPU, utilization mean 80% (p95 80%); wrote "+out) {
		t.Errorf("summary: %s", r.stderr)
	}
	p, err := profiles.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Metadata.Name != "llama-7b-lora" || p.Training == nil || p.Training.LoRARank != 16 || !p.Workload.Interruptible {
		t.Errorf("the base's declared fields were lost: %+v", p)
	}
	m := p.Measured
	if m.PeakMemoryMiB != 17000 || m.GPUCount != 1 || m.Samples < 3 || m.CommandExitCode == nil || *m.CommandExitCode != 0 {
		t.Errorf("measured %+v", m)
	}
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), "# Written by gpuguard profile capture with NVML (driver 560.35.03)") {
		t.Errorf("no provenance comment:\n%s", b)
	}
	if s, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(s), "<svg") {
		t.Errorf("timeline: %v", err)
	}
	// The captured profile is what fit then reads: the measured peak is the requirement.
	r = runCLI(t, "", "fit", out, "--instance-type", "g6.xlarge", "--format", "json")
	if r.code != exitOK || !strings.Contains(r.stdout, `"source": "measured"`) {
		t.Errorf("fit on the captured profile: %d %s %s", r.code, r.stdout, r.stderr)
	}
}

// The allocator settings the command starts with shaped its peak: the captured profile declares
// them, so that an estimate from its declared fields (on another GPU) uses the same margin.
// PyTorch reads PYTORCH_ALLOC_CONF before the older PYTORCH_CUDA_ALLOC_CONF.
func TestCaptureRecordsPyTorchAllocatorSettings(t *testing.T) {
	repoRoot(t)
	useGPU(t, &fakeGPU{used: 17000 << 20})
	dir := t.TempDir()
	capture := func(vars map[string]string, args ...string) *profiles.Profile {
		t.Helper()
		out := filepath.Join(dir, fmt.Sprintf("p%d.yaml", len(args)+len(vars)))
		r := runCLIEnv(t, vars, "", append([]string{"profile", "capture", "--output", out, "--interval", "20ms"}, args...)...)
		if r.code != exitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		p, err := profiles.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	both := map[string]string{"PYTORCH_ALLOC_CONF": "expandable_segments:True", "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:False"}
	p := capture(both, "--profile", "testdata/profiles/llama-7b-lora.yaml", "--", "sleep", "0.1")
	if p.Runtime == nil || p.Runtime.PyTorchAllocConf != "expandable_segments:True" || !p.Runtime.ExpandableSegments() {
		t.Errorf("runtime %+v, want PYTORCH_ALLOC_CONF's settings", p.Runtime)
	}
	if p.Training == nil || p.Training.LoRARank != 16 {
		t.Errorf("the base's declared fields were lost: %+v", p.Training)
	}
	old := map[string]string{"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:512"}
	if p := capture(old, "--type", "training", "--", "sleep", "0.1"); p.Runtime == nil || p.Runtime.PyTorchAllocConf != "max_split_size_mb:512" {
		t.Errorf("runtime %+v, want PYTORCH_CUDA_ALLOC_CONF's settings", p.Runtime)
	}
	// --duration samples whatever runs: its settings are not known here.
	if p := capture(both, "--duration", "100ms"); p.Runtime != nil {
		t.Errorf("runtime %+v recorded for work started elsewhere", p.Runtime)
	}
}

// The command's failure: gpuguard exits with its code and still writes the profile, noting it.
func TestCaptureExitsWithTheCommandsCode(t *testing.T) {
	gpu := &fakeGPU{used: 5 << 30}
	useGPU(t, gpu)
	out := filepath.Join(t.TempDir(), "p.yaml")
	r := runCLI(t, "", "profile", "capture", "--output", out, "--interval", "20ms", "--type", "inference", "--", "sh", "-c", "sleep 0.1; exit 7")
	if r.code != 7 {
		t.Fatalf("exit %d, want the command's 7: %s", r.code, r.stderr)
	}
	p, err := profiles.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Metadata.Name != "sh" || p.Workload.Type != "inference" || p.Measured.CommandExitCode == nil || *p.Measured.CommandExitCode != 7 {
		t.Errorf("profile %+v / %+v", p.Metadata, p.Measured)
	}
	if !strings.Contains(r.stderr, "note: the command exited with code 7") {
		t.Errorf("stderr: %s", r.stderr)
	}
	// No GPU memory seen at all: no profile, and still the command's code.
	gpu.set(0)
	out2 := filepath.Join(t.TempDir(), "none.yaml")
	r = runCLI(t, "", "profile", "capture", "--output", out2, "--interval", "20ms", "--", "sh", "-c", "exit 4")
	if r.code != 4 || !strings.Contains(r.stderr, "no GPU memory use was seen") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Error("a profile was written without a measurement")
	}
}

// Without NVML, and with a bad base profile, nothing runs.
func TestCaptureFailsBeforeTheCommand(t *testing.T) {
	repoRoot(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	gpu := &fakeGPU{initErr: capture.ErrLibraryMissing}
	useGPU(t, gpu)
	r := runCLI(t, "", "profile", "capture", "--output", filepath.Join(dir, "p.yaml"), "--", "touch", marker)
	if r.code != exitError || !strings.Contains(r.stderr, "NVML (libnvidia-ml.so.1, part of the NVIDIA driver) could not be loaded") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	gpu.initErr = nil
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--profile", "testdata/attach/profiles/broken.yaml"}, "testdata/attach/profiles/broken.yaml:"},
		{[]string{"--type", "serving"}, "--type must be training, inference or batch"},
		{[]string{"--interval", "1ms"}, "--interval must be at least 10ms"},
		{[]string{"--output", "/nonexistent/dir/p.yaml"}, "directory /nonexistent/dir does not exist"},
		{[]string{"--pid", "1"}, "--pid follows a running process"},
	} {
		r := runCLI(t, "", append(append([]string{"profile", "capture"}, tc.args...), "--", "touch", marker)...)
		if r.code != exitError || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: exit %d, %q; want 1 and %q", tc.args, r.code, r.stderr, tc.msg)
		}
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Error("the command ran")
	}
	r = runCLI(t, "", "profile", "capture")
	if r.code != exitError || !strings.Contains(r.stderr, "nothing to measure") {
		t.Errorf("no command: %d %s", r.code, r.stderr)
	}
	r = runCLI(t, "", "profile", "capture", "python", "train.py")
	if r.code != exitError || !strings.Contains(r.stderr, "put the command after --") {
		t.Errorf("no --: %d %s", r.code, r.stderr)
	}
}

func TestStatusLine(t *testing.T) {
	u := uint32(87)
	s := capture.Snapshot{GPUs: []capture.GPUSample{
		{Label: "0", UsedBytes: 31 << 30, TotalBytes: 40 << 30, Utilization: &u},
		{Label: "0/mig1", UsedBytes: 3 << 29, TotalBytes: 10 << 30},
	}}
	got := statusLine(s, 12345*time.Millisecond)
	want := "gpuguard 12.3s · GPU0 31.0/40 GiB 87% · GPU0/mig1 1.5/10 GiB"
	if got != want {
		t.Errorf("status %q, want %q", got, want)
	}
	var many capture.Snapshot
	for i := 0; i < 8; i++ {
		many.GPUs = append(many.GPUs, capture.GPUSample{Label: fmt.Sprint(i), TotalBytes: 80 << 30})
	}
	if got := statusLine(many, time.Second); !strings.HasSuffix(got, "· +4 GPUs") || strings.Count(got, "GiB") != 4 {
		t.Errorf("eight GPUs: %q", got)
	}
}
