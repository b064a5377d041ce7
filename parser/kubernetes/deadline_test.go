package kubernetes

import (
	"strings"
	"testing"
)

// A batch workload that runs once under a deadline that bounds the whole run (a Job's
// activeDeadlineSeconds, a Kubeflow job's runPolicy, an Argo Workflow's, a RayJob's that deletes
// its cluster) gets that bound as RunHours, with a note. A deadline that bounds one of many runs
// (a CronJob's, a Katib trial's, a Job an AppWrapper may retry) does not.
func TestRunDeadline(t *testing.T) {
	pod := "{spec: {nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}"
	job := func(deadline string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  " + deadline + "parallelism: 2\n  template: " + pod + "\n"
	}
	for _, tc := range []struct {
		name, manifest string
		hours          float64
		note           string
	}{
		{"a Job", job("activeDeadlineSeconds: 10800\n  "), 3, "Job: activeDeadlineSeconds 10800 bounds a run (retries included) to 3.00 hours"},
		{"a Job without a deadline", job(""), 0, ""},
		{"a Job with a deadline of 0", job("activeDeadlineSeconds: 0\n  "), 0, ""},
		{"a PyTorchJob's runPolicy", "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: t}\nspec:\n  runPolicy: {activeDeadlineSeconds: 86400, backoffLimit: 3}\n  pytorchReplicaSpecs:\n    Master: {replicas: 1, template: " + pod + "}\n",
			24, "PyTorchJob: runPolicy.activeDeadlineSeconds 86400 bounds a run"},
		{"a TrainJob priced from its own fields", "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\nspec:\n  activeDeadlineSeconds: 36000\n  trainer: {numNodes: 2, resourcesPerNode: {limits: {nvidia.com/gpu: 1}}}\n  podTemplateOverrides: [{targetJobs: [{name: node}], spec: {nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}}}]\n",
			10, "TrainJob: activeDeadlineSeconds 36000"},
		{"a TrainJob through its runtime", "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: torch}\nspec:\n  template:\n    spec:\n      replicatedJobs:\n      - name: node\n        template:\n          spec:\n            template: " + pod + "\n---\n" +
			"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\nspec:\n  runtimeRef: {name: torch}\n  activeDeadlineSeconds: 7200\n",
			2, "TrainJob: activeDeadlineSeconds 7200"},
		{"an Argo Workflow", "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {name: w}\nspec:\n  activeDeadlineSeconds: 1800\n  templates:\n  - name: train\n    nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n    container: {image: x, resources: {limits: {nvidia.com/gpu: 1}}}\n",
			0.5, "Workflow: activeDeadlineSeconds 1800"},
		{"a RayJob that deletes its cluster", "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: r}\nspec:\n  activeDeadlineSeconds: 7200\n  shutdownAfterJobFinishes: true\n  rayClusterSpec:\n    headGroupSpec: {template: " + pod + "}\n",
			2, "RayJob: activeDeadlineSeconds 7200"},
		{"a RayJob that keeps its cluster", "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: r}\nspec:\n  activeDeadlineSeconds: 7200\n  rayClusterSpec:\n    headGroupSpec: {template: " + pod + "}\n", 0, ""},
		{"a CronJob (its schedule decides)", "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: '0 0 * * *'\n  jobTemplate:\n    spec:\n      activeDeadlineSeconds: 3600\n      template: " + pod + "\n", 0, "CronJob: 30.4 runs a month"},
		{"a Katib trial's deadline", "apiVersion: kubeflow.org/v1beta1\nkind: Experiment\nmetadata: {name: e}\nspec:\n  parallelTrialCount: 1\n  trialTemplate:\n    trialSpec:\n      apiVersion: batch/v1\n      kind: Job\n      spec:\n        activeDeadlineSeconds: 3600\n        template: " + pod + "\n", 0, ""},
		{"a Job an AppWrapper wraps", "apiVersion: workload.codeflare.dev/v1beta2\nkind: AppWrapper\nmetadata: {name: a}\nspec:\n  components:\n  - template:\n      apiVersion: batch/v1\n      kind: Job\n      metadata: {name: j}\n      spec:\n        activeDeadlineSeconds: 3600\n        template: " + pod + "\n", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Build([]*File{Decode("k.yaml", []byte(tc.manifest))}, Options{})
			if len(res.Errors) > 0 || len(res.Resources) != 1 {
				t.Fatalf("errors %v, %d resources", res.Errors, len(res.Resources))
			}
			r := res.Resources[0]
			if r.RunHours != tc.hours || !r.RunsToCompletion {
				t.Errorf("run hours %g (runs to completion %v), want %g; notes %q", r.RunHours, r.RunsToCompletion, tc.hours, r.Notes)
			}
			notes := strings.Join(r.Notes, "\n")
			if tc.note != "" && !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q\nwant %q", r.Notes, tc.note)
			}
			if tc.hours == 0 && strings.Contains(notes, "bounds a run") {
				t.Errorf("notes %q speak of a bound", r.Notes)
			}
		})
	}
}
