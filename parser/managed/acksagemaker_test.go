package managed

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// SageMaker jobs declared with ACK's sagemaker controller are priced as the instances they run
// for one run, bounded by their stopping conditions.
const ackSageMakerJobs = `apiVersion: v1
kind: Namespace
metadata:
  name: ml
  annotations: {services.k8s.aws/default-region: us-west-2}
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: TrainingJob
metadata: {name: pretrain, namespace: ml}
spec:
  trainingJobName: pretrain
  resourceConfig: {instanceType: ml.p4d.24xlarge, instanceCount: 2, volumeSizeInGB: 100}
  stoppingCondition: {maxRuntimeInSeconds: 21600}
  tags: [{key: team, value: research}]
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: TrainingJob
metadata:
  name: finetune
  namespace: ml
  annotations: {services.k8s.aws/region: us-east-1}
spec:
  trainingJobName: finetune
  enableManagedSpotTraining: true
  resourceConfig: {instanceType: ml.g5.12xlarge, keepAlivePeriodInSeconds: 1800}
  stoppingCondition: {maxWaitTimeInSeconds: 172800}
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: TrainingJob
metadata: {name: hetero, namespace: ml}
spec:
  trainingJobName: hetero
  resourceConfig:
    instanceGroups:
      - {instanceGroupName: data, instanceType: ml.c5.4xlarge, instanceCount: 4}
      - {instanceGroupName: gpu, instanceType: ml.p4d.24xlarge, instanceCount: 1}
  stoppingCondition: {maxRuntimeInSeconds: 3600}
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: HyperParameterTuningJob
metadata: {name: sweep, namespace: ml}
spec:
  hyperParameterTuningJobName: sweep
  hyperParameterTuningJobConfig:
    strategy: Bayesian
    resourceLimits: {maxNumberOfTrainingJobs: 10, maxParallelTrainingJobs: 4}
  trainingJobDefinition:
    resourceConfig: {instanceType: ml.g5.2xlarge, instanceCount: 1}
    stoppingCondition: {maxRuntimeInSeconds: 3600}
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: ProcessingJob
metadata: {name: embed, namespace: ml}
spec:
  processingJobName: embed
  processingResources: {clusterConfig: {instanceType: ml.g4dn.xlarge, instanceCount: 1, volumeSizeInGB: 30}}
  stoppingCondition: {maxRuntimeInSeconds: 7200}
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: ProcessingJob
metadata: {name: cpu, namespace: ml}
spec:
  processingJobName: cpu
  processingResources: {clusterConfig: {instanceType: ml.m5.xlarge, instanceCount: 8, volumeSizeInGB: 30}}
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: TransformJob
metadata: {name: score, namespace: ml}
spec:
  transformJobName: score
  transformResources: {instanceType: ml.g5.xlarge, instanceCount: 2}
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: TrainingJob
metadata: {name: untyped, namespace: ml}
spec:
  trainingJobName: untyped
  resourceConfig: {instanceCount: 3}
`

func TestACKSageMakerJobs(t *testing.T) {
	f := kubernetes.Decode("jobs.yaml", []byte(ackSageMakerJobs))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := checkResources(t, res, "jobs.yaml", map[string]string{
		"TrainingJob/ml/pretrain":          `ml.p4d.24xlarge ×2 (max 0) on_demand in "us-west-2" at line 7, 0 unresolved`,
		"TrainingJob/ml/finetune":          `ml.g5.12xlarge ×1 (max 0) spot in "us-east-1" at line 16, 0 unresolved`,
		`TrainingJob/ml/hetero["gpu"]`:     `ml.p4d.24xlarge ×1 (max 0) on_demand in "us-west-2" at line 28, 0 unresolved`,
		"HyperParameterTuningJob/ml/sweep": `ml.g5.2xlarge ×4 (max 0) on_demand in "us-west-2" at line 39, 0 unresolved`,
		"ProcessingJob/ml/embed":           `ml.g4dn.xlarge ×1 (max 0) on_demand in "us-west-2" at line 51, 0 unresolved`,
		"TransformJob/ml/score":            `ml.g5.xlarge ×2 (max 0) on_demand in "us-west-2" at line 66, 0 unresolved`,
		"TrainingJob/ml/untyped":           ` ×3 (max 0) on_demand in "us-west-2" at line 73, 1 unresolved`,
	})
	for addr, want := range map[string]struct {
		hours  float64
		noSpot bool
		note   string
	}{
		"TrainingJob/ml/pretrain":          {6, false, "stoppingCondition.maxRuntimeInSeconds 21600 bounds a training job (retries included) to 6.00 hours"},
		"TrainingJob/ml/finetune":          {24.5, false, "its warm pool keeps the instances 1800 seconds after the job (resourceConfig.keepAlivePeriodInSeconds): 24.50 hours in all"},
		`TrainingJob/ml/hetero["gpu"]`:     {1, false, "a SageMaker training job started by AWS Controllers for Kubernetes"},
		"HyperParameterTuningJob/ml/sweep": {3, false, "it runs up to 4 training jobs at once (resourceLimits.maxParallelTrainingJobs), 10 in all (maxNumberOfTrainingJobs): 3 rounds of at most 1.00 hours: 3.00 hours"},
		"ProcessingJob/ml/embed":           {2, true, "stoppingCondition.maxRuntimeInSeconds 7200 bounds the job to 2.00 hours"},
		"TransformJob/ml/score":            {0, true, "nothing in its spec bounds how long it runs: priced at the full month"},
	} {
		r := got[addr]
		if !r.RunsToCompletion || r.RunHours != want.hours || r.NoSpot != want.noSpot || r.NoMIG == "" || r.Kind != parser.KindKubernetes {
			t.Errorf("%s: runs to completion %v, %v hours, no spot %v, no MIG %q, kind %s; want %v hours, no spot %v", addr, r.RunsToCompletion, r.RunHours, r.NoSpot, r.NoMIG, r.Kind, want.hours, want.noSpot)
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), want.note) {
			t.Errorf("%s: notes %q\nwant %q", addr, r.Notes, want.note)
		}
	}
	if got["TrainingJob/ml/pretrain"].Tags["team"] != "research" {
		t.Errorf("tags %v", got["TrainingJob/ml/pretrain"].Tags)
	}
	if u := got["TrainingJob/ml/untyped"].Unresolved; len(u) != 1 || u[0].Attribute != "spec.resourceConfig.instanceType" {
		t.Errorf("unresolved %+v", u)
	}
	if n := strings.Join(got["TrainingJob/ml/finetune"].Notes, "\n"); !strings.Contains(n, "the default maxRuntimeInSeconds (1 day)") || !strings.Contains(n, "managed spot training") {
		t.Errorf("finetune notes %q", n)
	}
}

// A tuning job's run: rounds of its parallel jobs, within its own runtime limit; more parallel
// jobs than jobs in all run them all at once; nothing bounding the count leaves it unbounded.
func TestTuningRun(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		total, parallel, limit *int64
		hours                  float64
		width                  int64
	}{
		{n(10), n(4), nil, 6, 4},       // 3 rounds of 2 hours
		{n(10), n(4), n(9000), 2.5, 4}, // the tuning job stops first
		{n(3), n(8), nil, 2, 3},        // one round of all 3
		{nil, n(2), n(36000), 10, 2},   // only the tuning job's limit
		{nil, nil, nil, 0, 1},          // unbounded
	} {
		var spec sageMakerJobSpec
		l := &spec.HyperParameterTuningJobConfig.ResourceLimits
		l.MaxNumberOfTrainingJobs, l.MaxParallelTrainingJobs, l.MaxRuntimeInSeconds = tc.total, tc.parallel, tc.limit
		hours, width, why := tuningRun(spec, 2)
		if hours != tc.hours || width != tc.width {
			t.Errorf("%+v: %v hours, %d at once (%s); want %v, %d", tc, hours, width, why, tc.hours, tc.width)
		}
	}
}

// The hours-per-month annotation overrides the run's bound; one that is not a number of hours is
// an error at the manifest.
func TestACKSageMakerJobHoursAnnotation(t *testing.T) {
	job := func(hours string) string {
		return "apiVersion: sagemaker.services.k8s.aws/v1alpha1\nkind: TrainingJob\nmetadata:\n  name: nightly\n  annotations: {services.k8s.aws/region: us-east-1, gpuguard.dev/hours-per-month: \"" + hours +
			"\"}\nspec:\n  resourceConfig: {instanceType: ml.g5.xlarge}\n  stoppingCondition: {maxRuntimeInSeconds: 3600}\n"
	}
	res := kubernetes.Build([]*kubernetes.File{kubernetes.Decode("j.yaml", []byte(job("40")))}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Resources) != 1 || res.Resources[0].HoursPerMonth != 40 {
		t.Fatalf("errors %+v, resources %+v", res.Errors, res.Resources)
	}
	res = kubernetes.Build([]*kubernetes.File{kubernetes.Decode("j.yaml", []byte(job("lots")))}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 1 || len(res.Resources) != 0 || res.Errors[0].Line != 1 ||
		!strings.Contains(res.Errors[0].Message, `TrainingJob/nightly: annotation gpuguard.dev/hours-per-month="lots": hours must be a number between 0 and 744`) {
		t.Fatalf("errors %+v, resources %d", res.Errors, len(res.Resources))
	}
}
