package check

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/estimator/memory"
	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/profiles"
)

// The PyTorch allocator settings a training Job's GPU container starts with are what its job
// gets: with expandable segments, checkpointed training takes the 25% margin measured on an
// H100, not 20%. PYTORCH_ALLOC_CONF wins over the older PYTORCH_CUDA_ALLOC_CONF, even when
// empty, as PyTorch reads them; a value from a ConfigMap is not known here; a value PyTorch
// refuses is a note; the container is the first that uses the GPUs, as for a serving engine's
// command line; and the container's settings win over the profile's.
func TestCheckReadsTheContainersAllocatorSettings(t *testing.T) {
	const profile = `apiVersion: gpuguard.dev/v1
kind: WorkloadProfile
metadata: {name: train}
workload: {type: training}
model: {parameters: 1235814400, layers: 16, hidden_size: 2048, attention_heads: 32, kv_heads: 8, vocab_size: 128256, intermediate_size: 8192, mlp: swiglu, precision: bf16}
training: {method: full, optimizer: adamw, micro_batch_size: 8, sequence_length: 2048, activation_checkpointing: true, flash_attention: true}
`
	job := func(env string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train, namespace: ml, annotations: {gpuguard.dev/profile: train.yaml}}\nspec:\n  template:\n    spec:\n" +
			"      nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}\n      containers:\n        - name: sidecar\n          env: [{name: PYTORCH_ALLOC_CONF, value: 'expandable_segments:True'}]\n" +
			"        - name: trainer\n          resources: {limits: {nvidia.com/gpu: 8}}\n" + env
	}
	required := func(conf string) float64 {
		p, err := profiles.Parse([]byte(profile), "train.yaml")
		if err != nil {
			t.Fatal(err)
		}
		p.Runtime = &profiles.Runtime{PyTorchAllocConf: conf}
		e, err := memory.Of(p)
		if err != nil {
			t.Fatal(err)
		}
		return math.Round(e.PerGPUBytes/memory.GiB*100) / 100
	}
	plain, expandable := required(""), required("expandable_segments:True")
	if expandable <= plain {
		t.Fatalf("expandable segments %.2f GiB, without %.2f: the margins do not differ", expandable, plain)
	}
	cat := catalog.MustDefault()
	for _, c := range []struct {
		name, env, declared string
		want                float64
		note                string
	}{
		{name: "none", want: plain},
		{name: "expandable", env: "          env: [{name: PYTORCH_ALLOC_CONF, value: 'expandable_segments:True'}]\n", want: expandable,
			note: `the memory estimate uses container trainer's PYTORCH_ALLOC_CONF, "expandable_segments:True" (PyTorch allocator settings)`},
		{name: "the older variable", env: "          env: [{name: PYTORCH_CUDA_ALLOC_CONF, value: 'max_split_size_mb:512,expandable_segments:True'}]\n", want: expandable,
			note: "container trainer's PYTORCH_CUDA_ALLOC_CONF"},
		{name: "an empty PYTORCH_ALLOC_CONF wins", env: "          env: [{name: PYTORCH_CUDA_ALLOC_CONF, value: 'expandable_segments:True'}, {name: PYTORCH_ALLOC_CONF, value: ''}]\n", want: plain},
		{name: "from a ConfigMap", env: "          env: [{name: PYTORCH_ALLOC_CONF, valueFrom: {configMapKeyRef: {name: c, key: k}}}, {name: PYTORCH_CUDA_ALLOC_CONF, value: 'expandable_segments:True'}]\n", want: plain},
		{name: "refused", env: "          env: [{name: PYTORCH_ALLOC_CONF, value: 'expandable_segments:true'}]\n", want: plain,
			note: `container trainer's PYTORCH_ALLOC_CONF is "expandable_segments:true", which PyTorch refuses when the job starts`},
		{name: "over the profile's", env: "          env: [{name: PYTORCH_ALLOC_CONF, value: 'expandable_segments:False'}]\n", declared: "runtime: {pytorch_alloc_conf: 'expandable_segments:True'}\n", want: plain,
			note: `"expandable_segments:False" (PyTorch allocator settings), over the profile's runtime.pytorch_alloc_conf "expandable_segments:True"`},
		{name: "a later GPU container's", env: "        - name: second\n          resources: {limits: {nvidia.com/gpu: 0}}\n          env: [{name: PYTORCH_ALLOC_CONF, value: 'expandable_segments:True'}]\n", want: plain},
		{name: "the profile's alone", declared: "runtime: {pytorch_alloc_conf: 'expandable_segments:True'}\n", want: expandable},
	} {
		e := checkOneJob(t, c.name, cat, map[string]string{"train.yaml": profile + c.declared, "job.yaml": job(c.env)})
		if e.Fit == nil || e.Fit.RequiredGiBPerGPU == nil || *e.Fit.RequiredGiBPerGPU != c.want {
			t.Errorf("%s: fit %+v, want %.2f GiB a GPU", c.name, e.Fit, c.want)
		}
		notes := strings.Join(e.Notes, "\n")
		if c.note == "" && strings.Contains(notes, "allocator") || !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
}

// A measured profile's peak is what the capture's allocator held, so the pod's allocator
// settings cannot change it: where they turn expandable segments on or off against the
// capture's, a note says the peak was taken under other settings and is used as it is; where
// they agree, nothing is said.
func TestCheckSaysAMeasuredPeakWasTakenUnderOtherAllocatorSettings(t *testing.T) {
	const measured = `apiVersion: gpuguard.dev/v1
kind: WorkloadProfile
metadata: {name: captured}
workload: {type: training}
measured:
  gpu_name: NVIDIA H100 80GB HBM3
  gpu_count: 1
  memory_total_mib: 81559
  peak_memory_used_mib: 40960
  duration_seconds: 60
  samples: 600
  captured_at: "2026-11-27T23:56:00Z"
`
	job := func(env string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train, namespace: ml, annotations: {gpuguard.dev/profile: captured.yaml}}\nspec:\n  template:\n    spec:\n" +
			"      nodeSelector: {node.kubernetes.io/instance-type: p5.4xlarge}\n      containers:\n        - name: trainer\n          resources: {limits: {nvidia.com/gpu: 1}}\n" + env
	}
	const on, off = "          env: [{name: PYTORCH_ALLOC_CONF, value: 'expandable_segments:True'}]\n", "          env: [{name: PYTORCH_ALLOC_CONF, value: 'expandable_segments:False'}]\n"
	cat := catalog.MustDefault()
	for _, c := range []struct {
		name, env, runtime, note string
	}{
		{name: "turned on", env: on,
			note: `container trainer's PYTORCH_ALLOC_CONF is "expandable_segments:True", which turns expandable segments on, but the profile was captured with them off (runtime.pytorch_alloc_conf is not set): its measured peak is used as it is`},
		{name: "turned off", env: off, runtime: "runtime: {pytorch_alloc_conf: 'expandable_segments:True'}\n",
			note: `which turns expandable segments off, but the profile was captured with them on (runtime.pytorch_alloc_conf "expandable_segments:True")`},
		{name: "the same", env: on, runtime: "runtime: {pytorch_alloc_conf: 'max_split_size_mb:256,expandable_segments:True'}\n"},
		{name: "none", env: ""},
	} {
		e := checkOneJob(t, c.name, cat, map[string]string{"captured.yaml": measured + c.runtime, "job.yaml": job(c.env)})
		if e.Fit == nil || e.Fit.RequiredGiBPerGPU == nil || *e.Fit.RequiredGiBPerGPU != 40 || e.Fit.Source != "measured" {
			t.Errorf("%s: fit %+v, want the measured 40 GiB", c.name, e.Fit)
		}
		notes := strings.Join(e.Notes, "\n")
		if c.note == "" && strings.Contains(notes, "allocator") || !strings.Contains(notes, c.note) || strings.Contains(notes, "the memory estimate uses") {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
}

// checkOneJob writes files (a job.yaml and the profile it names) into a directory, checks
// job.yaml from there (profiles resolve from the working directory) and returns its one
// resource.
func checkOneJob(t *testing.T, name string, cat *catalog.Catalog, files map[string]string) estimator.Estimate {
	t.Helper()
	root := t.TempDir()
	testutil.WriteFiles(t, root, files)
	t.Chdir(root)
	doc := Run([]string{filepath.Join(root, "job.yaml")}, Options{Catalog: cat})
	if len(doc.Errors) > 0 || len(doc.Resources) != 1 {
		t.Fatalf("%s: resources %d, errors %v", name, len(doc.Resources), doc.Errors)
	}
	return doc.Resources[0]
}
