package kubernetes

import (
	"fmt"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// Cloud Run reads the YAML of its v1 API (gcloud run services replace, gcloud run jobs replace):
// a service is a Knative Service (serving.knative.dev/v1), a job a run.googleapis.com/v1 Job. Its
// instances run on Cloud Run, not on a cluster's nodes, so no node is looked for: each is listed
// unpriced with Cloud Run's reason (parser.Resource.CloudRunGPUs), in the region its
// cloud.googleapis.com/location label names.
// https://cloud.google.com/run/docs/reference/yaml/v1

const (
	// labelCloudRunLocation is the region label of Cloud Run's YAML.
	labelCloudRunLocation = "cloud.googleapis.com/location"
	// selectorCloudRunAccelerator is the node selector that names a Cloud Run instance's GPU.
	selectorCloudRunAccelerator = "run.googleapis.com/accelerator"
)

// cloudRunPods marks a role whose pods are Cloud Run instances.
type cloudRunPods struct {
	accelerator string
}

// onCloudRun reports whether a Knative Service is Cloud Run's: its pods select a Cloud Run GPU,
// it carries Cloud Run's location label, or a run.googleapis.com annotation.
func onCloudRun(o *object, t podTemplate) *cloudRunPods {
	accel, selects := t.Spec.NodeSelector[selectorCloudRunAccelerator]
	if selects || o.Metadata.Labels[labelCloudRunLocation] != "" || runAnnotated(o.Metadata.Annotations) || runAnnotated(t.Metadata.Annotations) {
		return &cloudRunPods{accelerator: accel}
	}
	return nil
}

// runAnnotated reports whether annotations hold one of Cloud Run's (run.googleapis.com/...).
func runAnnotated(annotations map[string]string) bool {
	for k := range annotations {
		if strings.HasPrefix(k, "run.googleapis.com/") {
			return true
		}
	}
	return false
}

// extractCloudRunJob reads a Cloud Run job: each execution runs spec.template.spec.taskCount
// tasks (default 1), parallelism of them at once (0 or unset: all of them), each a pod of the
// task template. It runs when something executes it, not all month.
func extractCloudRunJob(o *object) ([]role, error) {
	var spec struct {
		Template struct {
			Spec struct {
				Parallelism *int        `yaml:"parallelism"`
				TaskCount   *int        `yaml:"taskCount"`
				Template    podTemplate `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"template"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	s := spec.Template.Spec
	tasks, at := intOr(s.TaskCount, 1), intOr(s.Parallelism, 0)
	if tasks < 0 || tasks > maxPods || at < 0 {
		return nil, fmt.Errorf("taskCount %d / parallelism %d is not a number of tasks", tasks, at)
	}
	if at == 0 || at > tasks {
		at = tasks
	}
	return []role{{
		template: s.Template, replicas: at, runsToCompletion: true,
		cloudRun: &cloudRunPods{accelerator: s.Template.Spec.NodeSelector[selectorCloudRunAccelerator]},
		note:     fmt.Sprintf("a Cloud Run job: each execution runs %d task%s, %d at a time, only while it is executed (by hand, Cloud Scheduler or Workflows)", tasks, parser.Plural(int64(tasks)), at),
	}}, nil
}

// onCloudRunInstances turns a resource built from a Cloud Run role into Cloud Run instances: its
// GPUs the accelerator, its region the location label, and no pod on a node.
func onCloudRunInstances(res *parser.Resource, c *cloudRunPods, o *object) {
	res.CloudRunGPUs(c.accelerator, int(res.Pod.Requested))
	res.Pod = nil
	if res.ScaleMax != nil {
		res.Note("up to %d instances (%s)", res.ScaleMax.Quantity, res.ScaleMax.From)
	}
	if loc := o.Metadata.Labels[labelCloudRunLocation]; loc != "" {
		res.Region = parser.NormalizeRegion(loc)
	} else {
		res.Note("no %s label: the region is the run's default", labelCloudRunLocation)
	}
}
