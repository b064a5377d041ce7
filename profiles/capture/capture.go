package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/gpuguard/gpuguard/profiles"
)

// Options say what to run and what to sample.
type Options struct {
	Library Library
	// Interval between samples (default 500 ms).
	Interval time.Duration
	// Command runs while sampling; its exit ends the capture. Empty: sample for Duration, or
	// until PID exits, or until a signal.
	Command []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// Duration bounds the capture (0: until the command or PID exits).
	Duration time.Duration
	// PID counts only this process tree's memory (with no Command); with a Command the
	// command's tree is followed anyway.
	PID int
	// GPUs selects devices by index ("0"), MIG device ("0/mig1") or UUID; empty: all.
	GPUs []string
	// Signals are forwarded to the command (SIGINT, SIGTERM); without a command they end the
	// capture.
	Signals <-chan os.Signal
	// OnSample is called after each round of samples (the live status line).
	OnSample func(Snapshot)
	// Now is the clock (tests).
	Now func() time.Time
	// Tree finds a process tree's PIDs (default: ProcessTree, from /proc on Linux).
	Tree func(root int) map[uint32]bool
}

// Snapshot is one round of samples.
type Snapshot struct {
	Elapsed time.Duration
	GPUs    []GPUSample
}

// GPUSample is one device at one moment.
type GPUSample struct {
	Label       string
	UsedBytes   uint64
	TotalBytes  uint64
	Utilization *uint32 // nil where not available
	PowerMW     *uint32
	TreeBytes   *uint64 // the followed process tree's memory on it
}

// Result is a finished capture.
type Result struct {
	Measured *profiles.Measured
	Timeline []Snapshot
	// ExitCode is the command's (nil without one). A command killed by a signal exits 128+N.
	ExitCode *int
	// Driver is the NVIDIA driver's version.
	Driver string
}

type devState struct {
	d       Device
	active  bool
	peak    uint64
	total   uint64
	util    []float64
	power   []float64
	treePk  uint64
	samples int
}

// Run captures. It fails before starting the command when NVML cannot be used, so a job never
// runs unmeasured by mistake.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Library == nil {
		return nil, errors.New("no GPU library")
	}
	if o.Interval <= 0 {
		o.Interval = 500 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Tree == nil {
		o.Tree = ProcessTree
	}
	if len(o.Command) == 0 && o.Duration <= 0 && o.PID <= 0 {
		return nil, errors.New("nothing to measure: give a command to run (after --), --duration, or --pid")
	}
	if err := o.Library.Init(); err != nil {
		return nil, err
	}
	defer o.Library.Shutdown()
	devices, notes, err := o.Library.Devices()
	if err != nil {
		return nil, err
	}
	devices, err = selectDevices(devices, o.GPUs)
	if err != nil {
		return nil, err
	}
	res := &Result{Driver: o.Library.DriverVersion()}

	var cmd *exec.Cmd
	done := make(chan error, 1)
	if len(o.Command) > 0 {
		cmd = exec.Command(o.Command[0], o.Command[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting %s: %w", o.Command[0], err)
		}
		go func() { done <- cmd.Wait() }()
	}
	root := o.PID
	if cmd != nil {
		root = cmd.Process.Pid
	}

	states := make([]*devState, len(devices))
	for i, d := range devices {
		states[i] = &devState{d: d, active: true}
	}
	start := o.Now()
	var deadline <-chan time.Time
	if o.Duration > 0 {
		t := time.NewTimer(o.Duration)
		defer t.Stop()
		deadline = t.C
	}
	ticker := time.NewTicker(o.Interval)
	defer ticker.Stop()
	noted := map[string]bool{}
	note := func(s string) {
		if !noted[s] {
			noted[s] = true
			notes = append(notes, s)
		}
	}
	rounds := 0
	sawTree := false
	sample := func() {
		elapsed := o.Now().Sub(start)
		var tree map[uint32]bool
		if root > 0 {
			tree = o.Tree(root)
		}
		snap := Snapshot{Elapsed: elapsed}
		for _, s := range states {
			if !s.active {
				continue
			}
			m, err := s.d.Memory()
			if err != nil {
				s.active = false
				note(fmt.Sprintf("GPU %s stopped answering after %.1f s (%v): its samples end there", s.d.Label(), elapsed.Seconds(), err))
				continue
			}
			s.samples++
			s.total = m.Total
			if m.Used > s.peak {
				s.peak = m.Used
			}
			g := GPUSample{Label: s.d.Label(), UsedBytes: m.Used, TotalBytes: m.Total}
			if u, err := s.d.Utilization(); err == nil {
				v := u
				g.Utilization = &v
				s.util = append(s.util, float64(u))
			} else if errors.Is(err, ErrNotSupported) {
				if s.d.MIG() {
					note("NVML reports no utilization for MIG devices: gpu_utilization is left out for them")
				} else {
					note(fmt.Sprintf("GPU %s reports no utilization", s.d.Label()))
				}
			} else {
				note(fmt.Sprintf("GPU %s: utilization could not be read (%v)", s.d.Label(), err))
			}
			if p, err := s.d.PowerMilliwatts(); err == nil {
				v := p
				g.PowerMW = &v
				s.power = append(s.power, float64(p)/1000)
			} else if !errors.Is(err, ErrNotSupported) {
				note(fmt.Sprintf("GPU %s: power could not be read (%v)", s.d.Label(), err))
			}
			if tree != nil {
				procs, err := s.d.Processes()
				if err == nil {
					var sum uint64
					for _, p := range procs {
						if tree[p.PID] {
							sum += p.UsedBytes
							sawTree = true
						}
					}
					g.TreeBytes = &sum
					if sum > s.treePk {
						s.treePk = sum
					}
				} else if !errors.Is(err, ErrNotSupported) {
					note(fmt.Sprintf("GPU %s: processes could not be listed (%v)", s.d.Label(), err))
				}
			}
			snap.GPUs = append(snap.GPUs, g)
		}
		rounds++
		res.Timeline = append(res.Timeline, snap)
		if o.OnSample != nil {
			o.OnSample(snap)
		}
	}

	var waitErr error
	exited := false
	sample()
loop:
	for {
		select {
		case <-ticker.C:
			sample()
			if cmd == nil && o.PID > 0 && !processAlive(o.PID) {
				note(fmt.Sprintf("process %d exited", o.PID))
				break loop
			}
		case waitErr = <-done:
			exited = true
			break loop
		case <-deadline:
			if cmd != nil {
				note(fmt.Sprintf("--duration %s ended the capture; the command was left running", o.Duration))
			}
			break loop
		case sig := <-o.Signals:
			if cmd != nil {
				_ = cmd.Process.Signal(sig)
				continue
			}
			note(fmt.Sprintf("the capture was ended early by %v", sig))
			break loop
		case <-ctx.Done():
			break loop
		}
	}
	duration := o.Now().Sub(start)
	if cmd != nil && exited {
		code := exitCode(cmd, waitErr)
		res.ExitCode = &code
		if code != 0 {
			note(fmt.Sprintf("the command exited with code %d: the capture may not show a full run's peak", code))
		}
	}
	if root > 0 && !sawTree && rounds > 0 {
		note(fmt.Sprintf("process_peak_memory_mib is left out: no GPU memory was seen under process %d's tree (a container's PIDs differ from the host's, or the work ran on other GPUs)", root))
	}
	res.Measured = summarize(states, duration, rounds, o.Now(), root > 0 && sawTree, o.PID > 0 && cmd == nil)
	res.Measured.Notes = append(res.Measured.Notes, notes...)
	res.Measured.CommandExitCode = res.ExitCode
	return res, nil
}

func exitCode(cmd *exec.Cmd, err error) int {
	if err == nil {
		return 0
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() >= 0 {
		return cmd.ProcessState.ExitCode()
	}
	return 1
}

// selectDevices keeps the devices a selector names: an index (a GPU and its MIG devices), a
// label such as 0/mig1, or a UUID.
func selectDevices(all []Device, sel []string) ([]Device, error) {
	if len(all) == 0 {
		return nil, errors.New("NVML sees no GPU on this machine")
	}
	if len(sel) == 0 {
		return all, nil
	}
	var out []Device
	for _, s := range sel {
		s = strings.TrimSpace(s)
		found := false
		for _, d := range all {
			if fmt.Sprint(d.Index()) == s || d.Label() == s || strings.EqualFold(d.UUID(), s) {
				out = append(out, d)
				found = true
			}
		}
		if !found {
			var have []string
			for _, d := range all {
				have = append(have, d.Label())
			}
			return nil, fmt.Errorf("--gpus %s: no such GPU (there are: %s)", s, strings.Join(have, ", "))
		}
	}
	return out, nil
}

const mib = 1 << 20

// summarize turns the samples into the measured section: the peak is the largest memory use of
// any GPU in any sample (what one GPU must hold); utilization and power are over all samples of
// all GPUs that report them.
func summarize(states []*devState, duration time.Duration, rounds int, now time.Time, tree, treeOnly bool) *profiles.Measured {
	m := &profiles.Measured{Samples: rounds, DurationSeconds: math.Round(duration.Seconds()*10) / 10, CapturedAt: now.UTC().Format(time.RFC3339)}
	var util, power []float64
	names := map[string]int{}
	var peak, treePeak, total uint64
	for _, s := range states {
		if s.samples == 0 {
			continue
		}
		m.GPUCount++
		names[s.d.Name()]++
		util = append(util, s.util...)
		power = append(power, s.power...)
		if s.peak > peak {
			peak = s.peak
		}
		if s.treePk > treePeak {
			treePeak = s.treePk
		}
		if s.total > total {
			total = s.total
		}
		m.PerGPU = append(m.PerGPU, profiles.GPUPeak{Index: s.d.Index(), UUID: s.d.UUID(), Name: s.d.Name(), PeakMemoryMiB: ceilMiB(s.peak), MIG: s.d.MIG()})
	}
	var nameList []string
	for n := range names {
		nameList = append(nameList, n)
	}
	sort.Strings(nameList)
	m.GPUName = strings.Join(nameList, ", ")
	m.MemoryTotalMiB = int64(total / mib)
	m.PeakMemoryMiB = ceilMiB(peak)
	if tree {
		v := ceilMiB(treePeak)
		m.ProcessMemoryMiB = &v
		if treeOnly {
			m.Notes = append(m.Notes, fmt.Sprintf("peak_memory_used_mib counts only the followed process tree; the devices' own peak was %d MiB", ceilMiB(peak)))
			m.PeakMemoryMiB = v
		}
	}
	if len(util) > 0 {
		m.GPUUtilization = &profiles.Stats{Mean: round1(mean(util)), P50: round1(percentile(util, 50)), P95: round1(percentile(util, 95))}
	}
	if len(power) > 0 {
		m.PowerWatts = &profiles.Power{Mean: round1(mean(power)), Max: round1(maxOf(power))}
	}
	return m
}

func ceilMiB(b uint64) int64 { return int64((b + mib - 1) / mib) }

func round1(f float64) float64 { return math.Round(f*10) / 10 }

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// percentile is the nearest-rank percentile (the smallest value with at least p% of the samples
// at or below it).
func percentile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	if rank < 1 {
		rank = 1
	}
	return s[rank-1]
}
