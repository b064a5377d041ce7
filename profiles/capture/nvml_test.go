//go:build linux && cgo

package capture

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
)

// machine is a DGX A100 from go-nvml's mock, with the sampling calls filled in: each GPU's
// memory grows by step every call up to its cap, utilization and power are fixed per GPU.
type machine struct {
	*dgxa100.Server
	mu    sync.Mutex
	calls map[int]int
}

func newMachine(t *testing.T, caps []uint64) *machine {
	t.Helper()
	m := &machine{Server: dgxa100.New(), calls: map[int]int{}}
	for i, dev := range m.Devices {
		d := dev.(*dgxa100.Device)
		i := i
		cap := uint64(0)
		if i < len(caps) {
			cap = caps[i]
		}
		d.GetMemoryInfo_v2Func = func() (nvml.Memory_v2, nvml.Return) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.calls[i]++
			used := uint64(m.calls[i]) * gib
			if used > cap {
				used = cap
			}
			return nvml.Memory_v2{Total: d.MemoryInfo.Total, Used: used, Free: d.MemoryInfo.Total - used}, nvml.SUCCESS
		}
		d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
			return nvml.Utilization{Gpu: uint32(10 * (i + 1))}, nvml.SUCCESS
		}
		d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return uint32(100000 + 1000*i), nvml.SUCCESS }
		d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return nil, nvml.SUCCESS }
	}
	return m
}

func quick(lib Library, cmd ...string) Options {
	return Options{Library: lib, Interval: 10 * time.Millisecond, Command: cmd, Stdout: os.Stdout, Stderr: os.Stderr}
}

// Several GPUs: the peak is the largest use of any one GPU; utilization and power are over all.
func TestCaptureSeveralGPUs(t *testing.T) {
	m := newMachine(t, []uint64{3 * gib, 5 * gib, 2 * gib, 1 * gib, 1 * gib, 1 * gib, 1 * gib, 1 * gib})
	var snaps int
	o := quick(NewNVML(m), "sleep", "0.3")
	o.OnSample = func(Snapshot) { snaps++ }
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	me := res.Measured
	if me.GPUCount != 8 || me.GPUName != "Mock NVIDIA A100-SXM4-40GB" || me.MemoryTotalMiB != 40960 {
		t.Errorf("measured %+v", me)
	}
	if me.PeakMemoryMiB != 5120 {
		t.Errorf("peak %d MiB, want 5120 (GPU 1's 5 GiB)", me.PeakMemoryMiB)
	}
	if me.Samples < 5 || snaps != me.Samples || len(res.Timeline) != me.Samples {
		t.Errorf("%d samples, %d snapshots, %d in the timeline", me.Samples, snaps, len(res.Timeline))
	}
	// Utilization 10..80% in equal numbers of samples: mean 45, p50 40, p95 80.
	if u := me.GPUUtilization; u == nil || u.Mean != 45 || u.P50 != 40 || u.P95 != 80 {
		t.Errorf("utilization %+v", u)
	}
	if p := me.PowerWatts; p == nil || p.Max != 107 || p.Mean != 103.5 {
		t.Errorf("power %+v", p)
	}
	if len(me.PerGPU) != 8 || me.PerGPU[1].PeakMemoryMiB != 5120 || !strings.HasPrefix(me.PerGPU[1].UUID, "GPU-") {
		t.Errorf("per GPU %+v", me.PerGPU)
	}
	if res.ExitCode == nil || *res.ExitCode != 0 || res.Driver != "550.54.15" {
		t.Errorf("exit %v, driver %q", res.ExitCode, res.Driver)
	}
	// Only the selected GPUs are sampled.
	o = quick(NewNVML(newMachine(t, []uint64{3 * gib, 5 * gib})), "sleep", "0.1")
	o.GPUs = []string{"0"}
	res, err = Run(context.Background(), o)
	if err != nil || res.Measured.GPUCount != 1 || res.Measured.PeakMemoryMiB != 3072 {
		t.Fatalf("--gpus 0: %v %+v", err, res.Measured)
	}
	o.GPUs = []string{"9"}
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--gpus 9: no such GPU (there are: 0, 1, 2") {
		t.Errorf("--gpus 9: %v", err)
	}
}

// Without the NVIDIA library Init fails, nothing else is called, and the command never starts.
func TestCaptureLibraryMissing(t *testing.T) {
	lib := &mock.Interface{
		InitFunc: func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND },
	}
	marker := filepath.Join(t.TempDir(), "ran")
	_, err := Run(context.Background(), quick(NewNVML(lib), "touch", marker))
	if err == nil || !strings.Contains(err.Error(), "NVML (libnvidia-ml.so.1, part of the NVIDIA driver) could not be loaded") {
		t.Fatalf("err = %v", err)
	}
	if len(lib.InitCalls()) != 1 || len(lib.ShutdownCalls()) != 0 || len(lib.DeviceGetCountCalls()) != 0 {
		t.Errorf("calls after a failed Init: shutdown %d, count %d", len(lib.ShutdownCalls()), len(lib.DeviceGetCountCalls()))
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Error("the command ran although NVML was missing")
	}
	lib.InitFunc = func() nvml.Return { return nvml.ERROR_DRIVER_NOT_LOADED }
	if _, err := Run(context.Background(), quick(NewNVML(lib), "true")); err == nil || !strings.Contains(err.Error(), "kernel driver is not running") {
		t.Errorf("driver not loaded: %v", err)
	}
}

// A GPU that fails mid-run ends that GPU's sampling with a note; the capture goes on.
func TestCaptureGPULostMidRun(t *testing.T) {
	m := newMachine(t, []uint64{4 * gib, 4 * gib})
	lost := m.Devices[1].(*dgxa100.Device)
	calls := 0
	lost.GetMemoryInfo_v2Func = func() (nvml.Memory_v2, nvml.Return) {
		calls++
		if calls > 2 {
			return nvml.Memory_v2{}, nvml.ERROR_GPU_IS_LOST
		}
		return nvml.Memory_v2{Total: 40 * gib, Used: 9 * gib}, nvml.SUCCESS
	}
	o := quick(NewNVML(m), "sleep", "0.3")
	o.GPUs = []string{"0", "1"}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	me := res.Measured
	if me.PeakMemoryMiB != 9216 || me.GPUCount != 2 || calls != 3 {
		t.Errorf("peak %d, GPUs %d, calls to the lost GPU %d", me.PeakMemoryMiB, me.GPUCount, calls)
	}
	notes := strings.Join(me.Notes, "\n")
	if !strings.Contains(notes, "GPU 1 stopped answering after") || !strings.Contains(notes, "the GPU is lost") {
		t.Errorf("notes: %s", notes)
	}
	if last := res.Timeline[len(res.Timeline)-1]; len(last.GPUs) != 1 || last.GPUs[0].Label != "0" {
		t.Errorf("the lost GPU is still sampled: %+v", last)
	}
}

// A GPU in MIG mode is sampled through its MIG devices; NVML gives them no utilization, which is
// a note, not a failure.
func TestCaptureMIG(t *testing.T) {
	m := newMachine(t, nil)
	gpu := m.Devices[0].(*dgxa100.Device)
	gpu.MigMode = nvml.DEVICE_MIG_ENABLE
	var slices []*mock.Device
	for s := 0; s < 2; s++ {
		s := s
		slices = append(slices, &mock.Device{
			GetNameFunc:          func() (string, nvml.Return) { return "NVIDIA A100-SXM4-40GB MIG 3g.20gb", nvml.SUCCESS },
			GetUUIDFunc:          func() (string, nvml.Return) { return "MIG-slice-" + string(rune('a'+s)), nvml.SUCCESS },
			GetMemoryInfo_v2Func: func() (nvml.Memory_v2, nvml.Return) { return nvml.Memory_v2{}, nvml.ERROR_NOT_SUPPORTED },
			GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) {
				return nvml.Memory{Total: 20 * gib, Used: uint64(s+6) * gib}, nvml.SUCCESS
			},
			GetUtilizationRatesFunc:        func() (nvml.Utilization, nvml.Return) { return nvml.Utilization{}, nvml.ERROR_NOT_SUPPORTED },
			GetComputeRunningProcessesFunc: func() ([]nvml.ProcessInfo, nvml.Return) { return nil, nvml.SUCCESS },
		})
	}
	gpu.GetMaxMigDeviceCountFunc = func() (int, nvml.Return) { return 7, nvml.SUCCESS }
	gpu.GetMigDeviceHandleByIndexFunc = func(n int) (nvml.Device, nvml.Return) {
		if n < len(slices) {
			return slices[n], nvml.SUCCESS
		}
		return nil, nvml.ERROR_NOT_FOUND
	}
	o := quick(NewNVML(m), "sleep", "0.1")
	o.GPUs = []string{"0"}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	me := res.Measured
	if me.GPUCount != 2 || me.GPUName != "NVIDIA A100-SXM4-40GB MIG 3g.20gb" || me.MemoryTotalMiB != 20480 || me.PeakMemoryMiB != 7168 {
		t.Errorf("measured %+v", me)
	}
	if me.GPUUtilization != nil || me.PowerWatts != nil {
		t.Errorf("MIG devices have no utilization or power: %+v %+v", me.GPUUtilization, me.PowerWatts)
	}
	if !me.PerGPU[0].MIG || me.PerGPU[1].UUID != "MIG-slice-b" || res.Timeline[0].GPUs[1].Label != "0/mig1" {
		t.Errorf("per GPU %+v", me.PerGPU)
	}
	if !strings.Contains(strings.Join(me.Notes, "\n"), "NVML reports no utilization for MIG devices") {
		t.Errorf("notes %v", me.Notes)
	}
	// v2 is not supported there: the v1 call is used from then on, without asking v2 again.
	if n := len(slices[0].GetMemoryInfo_v2Calls()); n != 1 {
		t.Errorf("GetMemoryInfo_v2 called %d times after it said not supported", n)
	}
}

// The command failing: its exit code comes back and the profile notes it.
func TestCaptureCommandFails(t *testing.T) {
	m := newMachine(t, []uint64{2 * gib})
	o := quick(NewNVML(m), "sh", "-c", "sleep 0.1; exit 3")
	o.GPUs = []string{"0"}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == nil || *res.ExitCode != 3 || res.Measured.PeakMemoryMiB != 2048 {
		t.Errorf("exit %v, peak %d", res.ExitCode, res.Measured.PeakMemoryMiB)
	}
	if !strings.Contains(strings.Join(res.Measured.Notes, "\n"), "the command exited with code 3") {
		t.Errorf("notes %v", res.Measured.Notes)
	}
	if _, err := Run(context.Background(), quick(NewNVML(newMachine(t, nil)), "/nonexistent/train.py")); err == nil || !strings.Contains(err.Error(), "starting /nonexistent/train.py") {
		t.Errorf("a command that cannot start: %v", err)
	}
}

// SIGTERM reaches the command; the capture ends when it exits, with 128+15.
func TestCaptureForwardsSignals(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	o := quick(NewNVML(newMachine(t, []uint64{gib})), "sleep", "30")
	o.GPUs = []string{"0"}
	o.Signals = sigs
	go func() {
		time.Sleep(100 * time.Millisecond)
		sigs <- syscall.SIGTERM
	}()
	start := time.Now()
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == nil || *res.ExitCode != 143 || time.Since(start) > 10*time.Second {
		t.Errorf("exit %v after %s", res.ExitCode, time.Since(start))
	}
}

// Without a command: a duration, and a process tree whose memory alone counts.
func TestCaptureDurationAndPID(t *testing.T) {
	m := newMachine(t, []uint64{6 * gib})
	d := m.Devices[0].(*dgxa100.Device)
	self := uint32(os.Getpid())
	d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		return []nvml.ProcessInfo{{Pid: self, UsedGpuMemory: 2 * gib}, {Pid: 999999, UsedGpuMemory: 3 * gib}}, nvml.SUCCESS
	}
	o := Options{Library: NewNVML(m), Interval: 10 * time.Millisecond, Duration: 150 * time.Millisecond, GPUs: []string{"0"}}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != nil || res.Measured.Samples < 3 || res.Measured.DurationSeconds < 0.1 || res.Measured.ProcessMemoryMiB != nil {
		t.Errorf("duration capture: %+v", res.Measured)
	}
	o.PID = os.Getpid()
	res, err = Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	me := res.Measured
	if me.PeakMemoryMiB != 2048 || me.ProcessMemoryMiB == nil || *me.ProcessMemoryMiB != 2048 {
		t.Errorf("--pid: peak %d, process %v", me.PeakMemoryMiB, me.ProcessMemoryMiB)
	}
	if !strings.Contains(strings.Join(me.Notes, "\n"), "counts only the followed process tree; the devices' own peak was") {
		t.Errorf("notes %v", me.Notes)
	}
}
