package terraform

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// Cloud Run runs containers with GPUs as services, jobs and worker pools. Each one that asks for
// GPUs is listed unpriced with Cloud Run's reason and its GPU named (parser.Resource.CloudRunGPUs),
// its count read as Cloud Run runs it.
// https://cloud.google.com/run/docs/configuring/services/gpu
// https://cloud.google.com/run/docs/configuring/jobs/gpu
// https://cloud.google.com/run/docs/configuring/workerpools/gpu
func init() {
	register("google_cloud_run_v2_service", mapCloudRunService)
	register("google_cloud_run_v2_job", mapCloudRunJob)
	register("google_cloud_run_v2_worker_pool", mapCloudRunWorkerPool)
	register("google_cloud_run_service", mapCloudRunV1Service)
}

// cloudRunAccelerator is the node selector key of Cloud Run's v1 (Knative) API that names the
// GPU; the v2 API and its Terraform resources have node_selector.accelerator.
const cloudRunAccelerator = "run.googleapis.com/accelerator"

// cloudRunGPUs fills in the GPUs a Cloud Run instance asks for: the nvidia.com/gpu limits of
// its containers and the accelerator its node selector names. It reports false when it asks
// for none.
func cloudRunGPUs(r *parser.Resource, containers []*view, accel string) bool {
	gpus := 0
	for _, ct := range containers {
		if v, ok := ct.strMap("resources", "limits")["nvidia.com/gpu"]; ok {
			var n int
			if _, err := fmt.Sscanf(v, "%d", &n); err == nil && n > 0 {
				gpus += n
			}
		}
	}
	if gpus == 0 && accel == "" {
		return false
	}
	r.CloudRunGPUs(accel, gpus)
	return true
}

// cloudRunV2GPUs reads the GPUs of a v2 revision or task template: its node_selector's
// accelerator and its containers' limits.
func cloudRunV2GPUs(r *parser.Resource, t *view) bool {
	accel, _ := t.str("node_selector", "accelerator")
	return cloudRunGPUs(r, t.blocks("containers"), accel)
}

// cloudRunV2 starts a v2 service or worker pool: the resource, its view and its revision
// template's, or a nil resource when the template asks for no GPUs.
func cloudRunV2(c *mapContext) (*parser.Resource, *view, *view) {
	r, w := c.resource(parser.GCP, c.inst.addr)
	tmpl := w.blocks("template")
	if len(tmpl) == 0 || !cloudRunV2GPUs(r, tmpl[0]) {
		return nil, nil, nil
	}
	return r, w, tmpl[0]
}

// mapCloudRunService reads a Cloud Run service (v2): the instances it keeps running are its
// floor, the larger of the service-level scaling.min_instance_count and the revision's
// template.scaling.min_instance_count, or scaling.manual_instance_count in manual scaling;
// without either it scales to zero.
func mapCloudRunService(c *mapContext) []*parser.Resource {
	r, w, t := cloudRunV2(c)
	if r == nil {
		return nil
	}
	svc := w.blocks("scaling")
	if len(svc) > 0 && strings.EqualFold(str(svc[0], "scaling_mode"), "MANUAL") {
		cloudRunManual(r, svc[0])
	} else {
		floor, from := 0, ""
		for _, s := range []struct {
			v    []*view
			from string
		}{{svc, "scaling.min_instance_count"}, {t.blocks("scaling"), "template.scaling.min_instance_count"}} {
			if len(s.v) == 0 {
				continue
			}
			if n, ok := s.v[0].num("min_instance_count"); ok && n > floor {
				floor, from = n, s.from
			}
		}
		r.Quantity = floor
		if floor == 0 {
			r.Note("scales to zero (no min_instance_count): GPU instances run only while requests come in")
		} else {
			r.Note("%d instance%s always on (%s)", floor, parser.Plural(floor), from)
		}
		cloudRunMax(r, []cloudRunLimit{{svc, "scaling.max_instance_count"}, {t.blocks("scaling"), "template.scaling.max_instance_count"}})
	}
	c.gcpPlace(r, w, "location")
	return []*parser.Resource{r}
}

// mapCloudRunWorkerPool reads a Cloud Run worker pool (v2): instances that pull work and run,
// and bill, all the time. Its scaling mode defaults to manual (scaling.manual_instance_count);
// GPU worker pools cannot be autoscaled.
func mapCloudRunWorkerPool(c *mapContext) []*parser.Resource {
	r, w, _ := cloudRunV2(c)
	if r == nil {
		return nil
	}
	svc := w.blocks("scaling")
	switch {
	case len(svc) == 0:
		r.Quantity = 1
		r.Note("no scaling block: counted as 1 instance, which runs all the time")
	case strings.EqualFold(str(svc[0], "scaling_mode"), "AUTOMATIC"):
		n, _ := svc[0].num("min_instance_count")
		r.Quantity = n
		r.Note("%d instance%s always on (scaling.min_instance_count); Cloud Run does not autoscale GPU worker pools", n, parser.Plural(n))
		cloudRunMax(r, []cloudRunLimit{{svc, "scaling.max_instance_count"}})
	default:
		cloudRunManual(r, svc[0])
	}
	c.gcpPlace(r, w, "location")
	return []*parser.Resource{r}
}

// mapCloudRunJob reads a Cloud Run job (v2): each execution runs template.task_count tasks
// (default 1), template.parallelism of them at once (0 or unset: all of them). It runs when
// something executes it (by hand, Cloud Scheduler, Workflows), not all month: the tasks that run
// at once are its quantity, and it is marked as running to completion.
// https://cloud.google.com/run/docs/create-jobs
func mapCloudRunJob(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.GCP, c.inst.addr)
	exec := w.blocks("template")
	if len(exec) == 0 {
		return nil
	}
	task := exec[0].blocks("template")
	if len(task) == 0 || !cloudRunV2GPUs(r, task[0]) {
		return nil
	}
	tasks, ok := exec[0].num("task_count")
	if !ok {
		tasks = 1
	}
	at, _ := exec[0].num("parallelism")
	if at == 0 || at > tasks {
		at = tasks
	}
	r.Quantity, r.RunsToCompletion = at, true
	r.Note("a job: each execution runs %d task%s, %d at a time, only while it is executed (by hand, Cloud Scheduler or Workflows)", tasks, parser.Plural(tasks), at)
	c.gcpPlace(r, w, "location")
	return []*parser.Resource{r}
}

// mapCloudRunV1Service reads a Cloud Run service through the v1 (Knative) API: the GPU is the
// template's node_selector run.googleapis.com/accelerator, the floor the revision's
// autoscaling.knative.dev/minScale annotation (0: scales to zero), the most instances its
// maxScale; labels are metadata.labels.
func mapCloudRunV1Service(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.GCP, c.inst.addr)
	tmpl := w.blocks("template")
	if len(tmpl) == 0 {
		return nil
	}
	var spec *view
	if s := tmpl[0].blocks("spec"); len(s) > 0 {
		spec = s[0]
	} else {
		return nil
	}
	accel := spec.strMap("node_selector")[cloudRunAccelerator]
	if !cloudRunGPUs(r, spec.blocks("containers"), accel) {
		return nil
	}
	var annotations map[string]string
	if m := tmpl[0].blocks("metadata"); len(m) > 0 {
		annotations = m[0].strMap("annotations")
	}
	floor := 0
	key, v, n, err := knativeScale(annotations, "autoscaling.knative.dev/minScale", "autoscaling.knative.dev/min-scale")
	switch {
	case err != nil:
		r.AddUnresolved("template.metadata.annotations."+key, fmt.Sprintf("%q is not a number of instances", v))
	case n > 0:
		floor = n
		r.Note("%d instance%s always on (%s)", floor, parser.Plural(floor), key)
	}
	if floor == 0 {
		r.Note("scales to zero (no autoscaling.knative.dev/minScale): GPU instances run only while requests come in")
	}
	r.Quantity = floor
	if key, _, n, err := knativeScale(annotations, "autoscaling.knative.dev/maxScale", "autoscaling.knative.dev/max-scale"); err == nil && n > floor {
		r.SetScaleMax(n, key)
		r.Note("up to %d instances (%s)", n, key)
	}
	if loc, ok := w.str("location"); ok {
		r.Region, _ = gcpRegionOf(loc)
	} else {
		r.Region = c.gcpProviderLocation(r)
	}
	if m := w.blocks("metadata"); len(m) > 0 {
		applyTags(r, m[0].strMap("labels"))
	}
	return []*parser.Resource{r}
}

// knativeScale reads the first of a Knative scale annotation's spellings that is set: its key,
// its text and the count it holds (0 when none is set; an error when the text is not a whole
// number of instances).
func knativeScale(annotations map[string]string, keys ...string) (string, string, int, error) {
	for _, k := range keys {
		if v, ok := annotations[k]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err == nil && n < 0 {
				err = fmt.Errorf("negative")
			}
			return k, v, n, err
		}
	}
	return keys[0], "", 0, nil
}

// cloudRunManual reads manual scaling: exactly scaling.manual_instance_count instances, which
// run and bill whether or not they have work.
func cloudRunManual(r *parser.Resource, s *view) {
	n, ok := s.num("manual_instance_count")
	if !ok {
		n = 1
		r.Note("manual scaling without manual_instance_count: counted as 1 instance")
	} else {
		r.Note("%d instance%s always on (scaling.manual_instance_count)", n, parser.Plural(n))
	}
	r.Quantity = n
}

type cloudRunLimit struct {
	v    []*view
	from string
}

// cloudRunMax sets the most instances the scaling blocks allow: the smallest max_instance_count
// set among them, when it is above the floor.
func cloudRunMax(r *parser.Resource, limits []cloudRunLimit) {
	most, from := 0, ""
	for _, l := range limits {
		if len(l.v) == 0 {
			continue
		}
		if n, ok := l.v[0].num("max_instance_count"); ok && n > 0 && (most == 0 || n < most) {
			most, from = n, l.from
		}
	}
	if most > r.Quantity {
		r.SetScaleMax(most, from)
		r.Note("up to %d instances (%s)", most, from)
	}
}

// str reads a string attribute of a view, "" when absent.
func str(w *view, path ...any) string {
	s, _ := w.str(path...)
	return s
}
