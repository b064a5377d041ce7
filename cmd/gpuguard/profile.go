package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/profiles"
	"github.com/gpuguard/gpuguard/profiles/capture"
)

// openGPULibrary opens NVML; tests replace it.
var openGPULibrary = capture.OpenNVML

type captureOptions struct {
	output   string
	interval time.Duration
	base     string
	gpus     []string
	duration time.Duration
	pid      int
	timeline string
	name     string
	wtype    string
}

func newProfileCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "profile", Short: "Workload profiles"}
	cmd.AddCommand(newCaptureCommand(e))
	return cmd
}

func newCaptureCommand(e *env) *cobra.Command {
	var o captureOptions
	cmd := &cobra.Command{
		Use:   "capture [flags] [-- CMD [ARGS...]]",
		Short: "Measure a workload's GPU memory and utilization with NVML",
		Long: `capture runs CMD and samples every visible GPU through NVML while it runs, then writes a
WorkloadProfile whose measured section holds the GPU name and count, memory total, the peak memory
used (the largest on any GPU in any sample), GPU utilization (mean, p50, p95), power (mean, max),
the duration and the number of samples. With --profile BASE the declared fields of BASE are kept.

Without CMD, --duration D samples a workload that is already running, and --pid P follows one
process tree (its memory alone counts; sampling ends when it exits).

CMD's output passes through, SIGTERM (and SIGINT when not on a terminal, where the terminal
already delivers it) is forwarded to it, and capture exits with CMD's exit code, after writing
the profile (atomically) with a note when CMD failed. It needs Linux, the NVIDIA driver and a
gpuguard built with cgo; without NVML it fails before starting CMD.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCapture(e, &o, args, cmd.ArgsLenAtDash())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.output, "output", "gpuguard-profile.yaml", "profile file to write")
	f.DurationVar(&o.interval, "interval", 500*time.Millisecond, "time between samples")
	f.StringVar(&o.base, "profile", "", "a profile whose declared fields (model, training, ...) the captured one keeps")
	f.StringSliceVar(&o.gpus, "gpus", nil, "GPUs to sample: indices (0,1), MIG devices (0/mig1) or UUIDs (default: all)")
	f.DurationVar(&o.duration, "duration", 0, "sample for this long (without CMD, or to stop early)")
	f.IntVar(&o.pid, "pid", 0, "follow this process tree: only its memory counts (without CMD)")
	f.StringVar(&o.timeline, "timeline", "", "also write a chart of memory and utilization over time (SVG)")
	f.StringVar(&o.name, "name", "", "metadata.name of a new profile (default: the command's name)")
	f.StringVar(&o.wtype, "type", profiles.TypeBatch, "workload.type of a new profile: training, inference or batch")
	return cmd
}

func runCapture(e *env, o *captureOptions, args []string, dash int) error {
	if dash < 0 && len(args) > 0 {
		return withCode(exitError, fmt.Errorf("put the command after --: gpuguard profile capture [flags] -- %s", strings.Join(args, " ")))
	}
	if o.interval < 10*time.Millisecond {
		return withCode(exitError, fmt.Errorf("--interval must be at least 10ms, got %s", o.interval))
	}
	if len(args) > 0 && o.pid > 0 {
		return withCode(exitError, fmt.Errorf("--pid follows a running process; a command after -- is followed already"))
	}
	if len(args) == 0 && o.duration <= 0 && o.pid <= 0 {
		return withCode(exitError, fmt.Errorf("nothing to measure: give a command after --, or --duration, or --pid"))
	}
	switch o.wtype {
	case profiles.TypeTraining, profiles.TypeInference, profiles.TypeBatch:
	default:
		return withCode(exitError, fmt.Errorf("--type must be training, inference or batch, got %q", o.wtype))
	}
	var base []byte
	if o.base != "" {
		// Read and check the base before anything runs: a typo must not cost a training run.
		if _, err := profiles.Load(o.base); err != nil {
			return withCode(exitError, err)
		}
		var err error
		if base, err = os.ReadFile(o.base); err != nil {
			return withCode(exitError, err)
		}
	}
	name := o.name
	if name == "" {
		name = "captured"
		if len(args) > 0 {
			name = filepath.Base(args[0])
		}
	}
	if dir := filepath.Dir(o.output); dir != "" {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return withCode(exitError, fmt.Errorf("--output %s: directory %s does not exist", o.output, dir))
		}
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer func() { signal.Stop(sigs); close(sigs) }()
	forward := make(chan os.Signal, 4)
	go func() {
		for s := range sigs {
			// On a terminal, Ctrl-C already reached the command (same process group): sending
			// it again would make a second interrupt of it.
			if s == syscall.SIGINT && len(args) > 0 && e.stdinTerminal {
				continue
			}
			forward <- s
		}
	}()
	opts := capture.Options{
		Library: openGPULibrary(), Interval: o.interval, Command: args, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr,
		Duration: o.duration, PID: o.pid, GPUs: o.gpus, Signals: forward, Now: time.Now,
	}
	if e.stderrTerminal {
		start := time.Now()
		opts.OnSample = func(s capture.Snapshot) { fmt.Fprintf(e.stderr, "\r\033[K%s", statusLine(s, time.Since(start))) }
	}
	res, err := capture.Run(e.ctx, opts)
	if e.stderrTerminal {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if err != nil {
		return withCode(exitError, err)
	}
	code := 0
	if res.ExitCode != nil {
		code = *res.ExitCode
	}
	fail := func(err error) error {
		if code == 0 {
			code = exitError
		}
		return withCode(code, err)
	}
	m := res.Measured
	if m.PeakMemoryMiB <= 0 {
		return fail(fmt.Errorf("no GPU memory use was seen in %d samples over %.1f s: no profile written", m.Samples, m.DurationSeconds))
	}
	comment := "Written by gpuguard profile capture with NVML"
	if res.Driver != "" {
		comment += " (driver " + res.Driver + ")"
	}
	// The command inherits this environment: PyTorch's allocator settings in it shaped the peak
	// (PyTorch reads PYTORCH_ALLOC_CONF first, then the older PYTORCH_CUDA_ALLOC_CONF). A job
	// followed by --pid or sampled by --duration started elsewhere, with settings not known here.
	allocConf := ""
	if len(args) > 0 {
		if allocConf = e.getenv("PYTORCH_ALLOC_CONF"); allocConf == "" {
			allocConf = e.getenv("PYTORCH_CUDA_ALLOC_CONF")
		}
	}
	out, err := profiles.WithMeasured(base, m, name, o.wtype, comment, allocConf)
	if err != nil {
		return fail(fmt.Errorf("the captured profile: %w", err))
	}
	if err := writeFileAtomic(o.output, func(w io.Writer) error { _, err := w.Write(out); return err }); err != nil {
		return fail(fmt.Errorf("--output: %w", err))
	}
	if o.timeline != "" {
		title := fmt.Sprintf("%s: %s", name, m.GPUName)
		if err := writeFileAtomic(o.timeline, func(w io.Writer) error { return capture.WriteTimeline(w, title, res.Timeline) }); err != nil {
			return fail(fmt.Errorf("--timeline: %w", err))
		}
	}
	fmt.Fprintf(e.stderr, "gpuguard: %s\n", captureSummary(m, o.output))
	for _, n := range m.Notes {
		fmt.Fprintf(e.stderr, "  note: %s\n", n)
	}
	if code != 0 {
		return withCode(code, nil)
	}
	return nil
}

func captureSummary(m *profiles.Measured, path string) string {
	s := fmt.Sprintf("%d samples over %.1f s on %d× %s: peak %s MiB of %s MiB per GPU", m.Samples, m.DurationSeconds, m.GPUCount, m.GPUName,
		money.Group(m.PeakMemoryMiB), money.Group(m.MemoryTotalMiB))
	if m.GPUUtilization != nil {
		s += fmt.Sprintf(", utilization mean %.0f%% (p95 %.0f%%)", m.GPUUtilization.Mean, m.GPUUtilization.P95)
	}
	return s + "; wrote " + path
}

// statusLine is the live one-line status: memory used of total and utilization per GPU.
func statusLine(s capture.Snapshot, elapsed time.Duration) string {
	parts := []string{fmt.Sprintf("gpuguard %s", elapsed.Truncate(100*time.Millisecond))}
	for i, g := range s.GPUs {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("+%d GPUs", len(s.GPUs)-4))
			break
		}
		p := fmt.Sprintf("GPU%s %.1f/%.0f GiB", g.Label, float64(g.UsedBytes)/(1<<30), float64(g.TotalBytes)/(1<<30))
		if g.Utilization != nil {
			p += fmt.Sprintf(" %d%%", *g.Utilization)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " · ")
}
