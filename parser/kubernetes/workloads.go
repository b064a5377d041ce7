package kubernetes

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
	"github.com/gpuguard/gpuguard/parser"
)

// role is one group of identical pods of a workload: the pods of a Deployment, the workers of a
// PyTorchJob, a Ray worker group.
type role struct {
	name     string // "" for single-role kinds
	replicas int
	note     string
	template podTemplate
	// runsToCompletion marks batch kinds (Jobs and training jobs): their hours are not a full
	// month unless something says so.
	runsToCompletion bool
	daemonSet        bool
	// jobAnnotations are a JobSet replicated job's template annotations (where its exclusive
	// placement may be set), read again only to warn of misnamed placement keys.
	jobAnnotations map[string]string
	// scalable is set on kinds an autoscaler can scale (Deployment, StatefulSet, ReplicaSet,
	// LeaderWorkerSet); perReplica is how many of this role's pods one replica runs (a
	// LeaderWorkerSet group's workers), 0 meaning 1.
	scalable   bool
	perReplica int
	// cron is set for CronJobs.
	cron *cronSchedule
	// deadline bounds the whole of one run of a batch kind without a schedule (a Job's
	// activeDeadlineSeconds, retries included), in seconds; deadlineField names the field. Nil
	// when nothing does, or when the run may be repeated (a Katib trial, a wrapped Job that its
	// AppWrapper retries).
	deadline      *int64
	deadlineField string
	// named keeps the role's name in the address even when it is the only role (a TrainJob's
	// "node", whether read through its runtime or from its own fields).
	named bool
	// maxPods is the most pods the kind's own autoscaling may run (a Ray worker group's
	// maxReplicas, a ScaledJob's maxReplicaCount); 0 when it declares none. maxFrom says where
	// it comes from. A HorizontalPodAutoscaler's maxReplicas, when one targets the kind, wins.
	maxPods int
	maxFrom string
	// unscaledNote is said only when no autoscaler sets the pods' count (a DeploymentConfig
	// that sets no replicas runs none, unless an HPA scales it).
	unscaledNote string
	// share, when set, is how many of an autoscaled workload's pods fall to this role when the
	// workload runs total of them (an OpenKruise UnitedDeployment's subset); nil means all.
	share func(total int) (int, error)
	// cloudRun, when set, says the pods are Cloud Run instances, not pods on a cluster's nodes.
	cloudRun *cloudRunPods
	// ownScaler, when set, is the kind's own autoscaler's cron triggers (a Seldon component's
	// kedaSpec), replayed over replicas as a ScaledObject's are.
	ownScaler *scaler
	// exclusive, when set, is the group of the role's pods placed alone in one topology domain
	// (a JobSet's Job, a LeaderWorkerSet's group: exclusive.go).
	exclusive *exclusiveGroup
	// jobPods is the pods of one Job of a JobSet's replicated job (the slice Kueue's
	// topology-aware scheduling places by default); 0 for other kinds.
	jobPods int
}

type cronSchedule struct {
	schedule          string
	timeZone          string
	deadlineSeconds   *int64
	concurrencyPolicy string
	line              int
	// noDeadline, when set, says why the kind has no deadline field to bound a run.
	noDeadline string
}

// extractor reads a workload's spec into its pod roles.
type extractor func(o *object) ([]role, error)

// partsError holds the errors of some parts of a workload (an AppWrapper's components) returned
// with the roles of the parts that could be read: each is reported, and those roles are built.
type partsError []error

func (e partsError) Error() string { return errors.Join(e...).Error() }

type workloadKind struct {
	group   string // API group the kind must come from ("" = core or any built-in)
	extract extractor
}

// workloads are the registered kinds by name; one name may belong to several API groups
// (batch Job and Volcano's Job, core Service and Knative's).
var workloads = map[string][]workloadKind{}

// register adds a workload kind: one function plus one line here. Registering a kind of one
// group twice is a programming error.
func register(kind, group string, e extractor) {
	for _, w := range workloads[kind] {
		if w.group == group || w.group == "" || group == "" {
			panic("kubernetes: workload kind registered twice: " + kind)
		}
	}
	workloads[kind] = append(workloads[kind], workloadKind{group: group, extract: e})
}

// workloadOf finds the registered kind of an object, by kind and API group. A kind registered
// without a group ("" — Pod) matches the core group only.
func workloadOf(o *object) (workloadKind, bool) {
	g := group(o.APIVersion)
	for _, w := range workloads[o.Kind] {
		if w.group == g {
			return w, true
		}
	}
	return workloadKind{}, false
}

func init() {
	register("Pod", "", extractPod)
	register("Deployment", "apps", extractReplicated)
	register("StatefulSet", "apps", extractReplicated)
	register("ReplicaSet", "apps", extractReplicated)
	register("DaemonSet", "apps", extractDaemonSet)
	// The extensions group served these three until Kubernetes 1.16 (removedAPIs).
	register("Deployment", "extensions", extractReplicated)
	register("ReplicaSet", "extensions", extractReplicated)
	register("DaemonSet", "extensions", extractDaemonSet)
	register("Job", "batch", extractJob)
	register("Job", "run.googleapis.com", extractCloudRunJob)
	register("CronJob", "batch", extractCronJob)
	register("PyTorchJob", "kubeflow.org", replicaSpecs("pytorchReplicaSpecs"))
	register("TFJob", "kubeflow.org", replicaSpecs("tfReplicaSpecs"))
	register("MPIJob", "kubeflow.org", replicaSpecs("mpiReplicaSpecs"))
	register("XGBoostJob", "kubeflow.org", replicaSpecs("xgbReplicaSpecs"))
	register("PaddleJob", "kubeflow.org", replicaSpecs("paddleReplicaSpecs"))
	register("JAXJob", "kubeflow.org", replicaSpecs("jaxReplicaSpecs"))
	register("JobSet", "jobset.x-k8s.io", extractJobSet)
	register("RayCluster", "ray.io", extractRayCluster)
	register("RayService", "ray.io", extractRayService)
	register("RayJob", "ray.io", extractRayJob)
	register("LeaderWorkerSet", "leaderworkerset.x-k8s.io", extractLeaderWorkerSet)
	register("InferenceService", "serving.kserve.io", extractInferenceService)
	register("Service", "serving.knative.dev", extractKnativeService)
	register("ScaledJob", "keda.sh", extractKEDAScaledJob)
}

// removedAPIs are the API versions of the built-in workload kinds that Kubernetes no longer
// serves: the release that stopped serving them, and the version to use instead
// (https://kubernetes.io/blog/2019/07/18/api-deprecations-in-1-16/ and
// https://kubernetes.io/docs/reference/using-api/deprecation-guide/). A manifest that uses one
// is refused by the API server; gpuguard prices it as the version it stands for, and says so.
var removedAPIs = map[string]struct{ release, use string }{
	"extensions/v1beta1": {"1.16", "apps/v1"},
	"apps/v1beta1":       {"1.16", "apps/v1"},
	"apps/v1beta2":       {"1.16", "apps/v1"},
	"batch/v1beta1":      {"1.25", "batch/v1"},
}

// removedAPI says why a workload's apiVersion is refused by current clusters; "" when it is not.
func removedAPI(o *object) string {
	r, ok := removedAPIs[o.APIVersion]
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s: Kubernetes stopped serving %s %s in %s, so the API server refuses this manifest; use %s (priced as if it did)", o.address(), o.Kind, o.APIVersion, r.release, r.use)
}

// group returns the API group of an apiVersion ("apps/v1" -> "apps", "v1" -> "").
func group(apiVersion string) string {
	if i := strings.Index(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

func decodeSpec(o *object, v any) error {
	if o.Spec.Kind == 0 {
		return nil
	}
	if err := o.Spec.Decode(v); err != nil {
		return err
	}
	return nil
}

// orIndex names an unnamed role of a list by its kind and place ("task-2").
func orIndex(name, kind string, i int) string {
	if name == "" {
		return fmt.Sprintf("%s-%d", kind, i)
	}
	return name
}

func intOr(p *int, d int) int {
	if p == nil {
		return d
	}
	return *p
}

func extractPod(o *object) ([]role, error) {
	var spec podSpec
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	return []role{{replicas: 1, template: podTemplate{Metadata: o.Metadata, Spec: spec}}}, nil
}

func extractReplicated(o *object) ([]role, error) {
	var spec struct {
		Replicas *int        `yaml:"replicas"`
		Template podTemplate `yaml:"template"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	return []role{{replicas: intOr(spec.Replicas, 1), template: spec.Template, scalable: true}}, nil
}

func extractDaemonSet(o *object) ([]role, error) {
	var spec struct {
		Template podTemplate `yaml:"template"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	return []role{{replicas: 1, template: spec.Template, daemonSet: true}}, nil
}

type jobSpec struct {
	Parallelism           *int        `yaml:"parallelism"`
	Completions           *int        `yaml:"completions"`
	ActiveDeadlineSeconds *int64      `yaml:"activeDeadlineSeconds"`
	Template              podTemplate `yaml:"template"`
}

func extractJob(o *object) ([]role, error) {
	var spec jobSpec
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	r := jobRole(spec)
	r.deadline, r.deadlineField = spec.ActiveDeadlineSeconds, "activeDeadlineSeconds"
	return []role{r}, nil
}

// jobRole: a Job runs parallelism pods at once (default 1), never more than completions.
func jobRole(spec jobSpec) role {
	n := intOr(spec.Parallelism, 1)
	if spec.Completions != nil && *spec.Completions < n {
		n = *spec.Completions
	}
	return role{replicas: n, template: spec.Template, runsToCompletion: true}
}

func extractCronJob(o *object) ([]role, error) {
	var spec struct {
		Schedule          string `yaml:"schedule"`
		TimeZone          string `yaml:"timeZone"`
		ConcurrencyPolicy string `yaml:"concurrencyPolicy"`
		Suspend           bool   `yaml:"suspend"`
		JobTemplate       struct {
			Spec jobSpec `yaml:"spec"`
		} `yaml:"jobTemplate"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	r := jobRole(spec.JobTemplate.Spec)
	if spec.Suspend {
		// The CronJob's own suspend stops its schedule; its Jobs' suspend (jobTemplate.spec, which
		// Kueue sets until it admits them) does not.
		r.replicas, r.note = 0, "suspended (spec.suspend): no Jobs are scheduled while it stays so"
		return []role{r}, nil
	}
	r.cron = &cronSchedule{schedule: spec.Schedule, timeZone: spec.TimeZone, deadlineSeconds: spec.JobTemplate.Spec.ActiveDeadlineSeconds,
		concurrencyPolicy: spec.ConcurrencyPolicy, line: o.lineOf(yamlpos.Value(&o.Spec, "schedule"))}
	return []role{r}, nil
}

type replicaSpec struct {
	Replicas *int        `yaml:"replicas"`
	Template podTemplate `yaml:"template"`
}

// replicaSpecs reads Kubeflow training jobs: a map of roles (Master, Worker, PS, Launcher)
// each with replicas and a pod template.
func replicaSpecs(field string) extractor {
	return func(o *object) ([]role, error) {
		var spec map[string]yaml.Node
		if err := decodeSpec(o, &spec); err != nil {
			return nil, err
		}
		node, ok := spec[field]
		if !ok {
			return nil, nil
		}
		var roles map[string]replicaSpec
		if err := node.Decode(&roles); err != nil {
			return nil, err
		}
		// runPolicy.activeDeadlineSeconds bounds the whole job, restarts included: "the duration
		// in seconds relative to the startTime that the job may be active" (RunPolicy in
		// kubeflow/training-operator's kubeflow.org/v1 API and kubeflow/mpi-operator's v2beta1).
		var policy struct {
			ActiveDeadlineSeconds *int64 `yaml:"activeDeadlineSeconds"`
		}
		if n, ok := spec["runPolicy"]; ok {
			if err := n.Decode(&policy); err != nil {
				return nil, err
			}
		}
		var out []role
		for _, name := range keys(roles) {
			rs := roles[name]
			out = append(out, role{name: name, replicas: intOr(rs.Replicas, 1), template: rs.Template, runsToCompletion: true,
				deadline: policy.ActiveDeadlineSeconds, deadlineField: "runPolicy.activeDeadlineSeconds"})
		}
		return out, nil
	}
}

// extractJobSet reads a JobSet (jobset.x-k8s.io, large training runs): each replicated job runs
// replicas copies of a Job template, each copy as many pods as its parallelism.
func extractJobSet(o *object) ([]role, error) {
	var spec struct {
		ReplicatedJobs []struct {
			Name     string `yaml:"name"`
			Replicas *int   `yaml:"replicas"`
			Template struct {
				Metadata objectMeta `yaml:"metadata"`
				Spec     jobSpec    `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"replicatedJobs"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	jobs := 0
	for _, rj := range spec.ReplicatedJobs {
		jobs += max(intOr(rj.Replicas, 1), 0)
	}
	var out []role
	for i, rj := range spec.ReplicatedJobs {
		name := orIndex(rj.Name, "job", i)
		r := jobRole(rj.Template.Spec)
		copies := intOr(rj.Replicas, 1)
		r.name, r.note = name, fmt.Sprintf("%d jobs × %d pods", copies, r.replicas)
		r.exclusive = jobSetExclusive(o, rj.Template.Metadata.Annotations, r.template.Metadata.Annotations, r.replicas, jobs)
		r.jobPods, r.jobAnnotations = r.replicas, rj.Template.Metadata.Annotations
		r.replicas *= copies
		out = append(out, r)
	}
	return out, nil
}

// knativeMinScale is the annotation that keeps a Knative revision's pods running;
// knativeMaxScale bounds how many it may run.
const (
	knativeMinScale = "autoscaling.knative.dev/min-scale"
	knativeMaxScale = "autoscaling.knative.dev/max-scale"
)

// extractKnativeService reads a Knative Service: its revision template's pod, with the
// min-scale annotation's pods (Knative's default is 0: scale to zero).
func extractKnativeService(o *object) ([]role, error) {
	var spec struct {
		Template podTemplate `yaml:"template"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	r := role{template: spec.Template, replicas: 1, cloudRun: onCloudRun(o, spec.Template)}
	for _, a := range []string{knativeMaxScale, "autoscaling.knative.dev/maxScale"} {
		if v := spec.Template.Metadata.Annotations[a]; v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > maxPods {
				return nil, fmt.Errorf("%s: %q is not a number of pods", a, v)
			}
			r.maxPods, r.maxFrom = n, "the revision's "+a // 0: no limit
			break
		}
	}
	key := knativeMinScale
	v := spec.Template.Metadata.Annotations[key]
	if v == "" {
		key = "autoscaling.knative.dev/minScale" // the older spelling
		v = spec.Template.Metadata.Annotations[key]
	}
	n, err := strconv.Atoi(v)
	switch {
	case v != "" && (err != nil || n < 0 || n > 100000):
		return nil, fmt.Errorf("%s: %q is not a number of pods", key, v)
	case n > 0 && r.cloudRun != nil:
		r.replicas = n
		r.note = fmt.Sprintf("%d instance%s always on: the revision's %s", n, parser.Plural(int64(n)), key)
	case n > 0:
		r.replicas = n
		r.note = fmt.Sprintf("%d pod%s: the revision's %s, the floor it always runs", n, parser.Plural(int64(n)), key)
	case r.cloudRun != nil:
		r.replicas = 0
		r.note = "scales to zero (no " + knativeMinScale + "): GPU instances run only while requests come in"
	default:
		r.note = "scales to zero (no " + knativeMinScale + "): priced as 1 pod all month; set gpuguard.dev/hours-per-month for the hours it serves"
	}
	return []role{r}, nil
}

// extractKEDAScaledJob reads a KEDA ScaledJob (keda.sh): it starts Jobs of jobTargetRef as events
// arrive, keeping minReplicaCount of them (default 0). A scaled job that scales to zero is priced
// as one Job, as a scale-to-zero service is, with a note.
// https://keda.sh/docs/latest/reference/scaledjob-spec/
func extractKEDAScaledJob(o *object) ([]role, error) {
	var spec struct {
		JobTargetRef    jobSpec `yaml:"jobTargetRef"`
		MinReplicaCount *int    `yaml:"minReplicaCount"`
		MaxReplicaCount *int    `yaml:"maxReplicaCount"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	r := jobRole(spec.JobTargetRef)
	r.runsToCompletion = false // KEDA starts another job as one finishes: the notes below say how long
	perJob := r.replicas
	pods := "pod" + parser.Plural(int64(perJob))
	minJobs := intOr(spec.MinReplicaCount, 0)
	maxJobs := intOr(spec.MaxReplicaCount, 100) // KEDA's default
	switch {
	case minJobs < 0 || maxJobs < 0 || minJobs > maxPods || maxJobs > maxPods:
		return nil, fmt.Errorf("minReplicaCount %d / maxReplicaCount %d is not a number of jobs", minJobs, maxJobs)
	case minJobs > 0:
		r.note = fmt.Sprintf("%d jobs × %d %s: the ScaledJob's minReplicaCount, the floor it keeps running (up to %d while events wait)", minJobs, r.replicas, pods, maxJobs)
		r.replicas *= minJobs
	default:
		r.note = fmt.Sprintf("scales to zero (minReplicaCount 0): priced as 1 job of %d %s all month, up to %d while events wait; set gpuguard.dev/hours-per-month for the hours it runs", r.replicas, pods, maxJobs)
	}
	r.maxPods, r.maxFrom = maxJobs*perJob, fmt.Sprintf("maxReplicaCount (%d jobs)", maxJobs)
	return []role{r}, nil
}

type rayClusterSpec struct {
	HeadGroupSpec struct {
		Template podTemplate `yaml:"template"`
	} `yaml:"headGroupSpec"`
	WorkerGroupSpecs []struct {
		GroupName   string      `yaml:"groupName"`
		Replicas    *int        `yaml:"replicas"`
		MinReplicas *int        `yaml:"minReplicas"`
		MaxReplicas *int        `yaml:"maxReplicas"`
		Template    podTemplate `yaml:"template"`
	} `yaml:"workerGroupSpecs"`
}

// rayRoles: the head, and each worker group with replicas (else minReplicas, else 1).
func rayRoles(spec rayClusterSpec, batch bool) []role {
	out := []role{{name: "head", replicas: 1, template: spec.HeadGroupSpec.Template, runsToCompletion: batch}}
	for i, g := range spec.WorkerGroupSpecs {
		name := orIndex(g.GroupName, "worker", i)
		r := role{name: name, template: g.Template, runsToCompletion: batch}
		if g.MaxReplicas != nil {
			r.maxPods, r.maxFrom = *g.MaxReplicas, fmt.Sprintf("maxReplicas of worker group %q", name)
		}
		switch {
		case g.Replicas != nil:
			r.replicas = *g.Replicas
		case g.MinReplicas != nil:
			r.replicas = *g.MinReplicas
			r.note = fmt.Sprintf("worker group %q: no replicas, priced at minReplicas (%d)", name, *g.MinReplicas)
		default:
			r.replicas = 1
		}
		out = append(out, r)
	}
	return out
}

func extractRayCluster(o *object) ([]role, error) {
	var spec rayClusterSpec
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	return rayRoles(spec, false), nil
}

func extractRayService(o *object) ([]role, error) {
	var spec struct {
		RayClusterConfig rayClusterSpec `yaml:"rayClusterConfig"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	return rayRoles(spec.RayClusterConfig, false), nil
}

func extractRayJob(o *object) ([]role, error) {
	var spec struct {
		RayClusterSpec           *rayClusterSpec `yaml:"rayClusterSpec"`
		ActiveDeadlineSeconds    *int64          `yaml:"activeDeadlineSeconds"`
		ShutdownAfterJobFinishes bool            `yaml:"shutdownAfterJobFinishes"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	if spec.RayClusterSpec == nil {
		return nil, nil // runs on an existing cluster, priced there
	}
	roles := rayRoles(*spec.RayClusterSpec, true)
	if spec.ShutdownAfterJobFinishes {
		// The deadline ends the job; only with shutdownAfterJobFinishes does its cluster go too.
		// https://docs.ray.io/en/latest/cluster/kubernetes/getting-started/rayjob-quick-start.html
		for i := range roles {
			roles[i].deadline, roles[i].deadlineField = spec.ActiveDeadlineSeconds, "activeDeadlineSeconds"
		}
	}
	return roles, nil
}

// extractLeaderWorkerSet: replicas groups of size pods each; the leader uses leaderTemplate
// when given, else the worker template.
func extractLeaderWorkerSet(o *object) ([]role, error) {
	var spec struct {
		Replicas             *int `yaml:"replicas"`
		LeaderWorkerTemplate struct {
			Size           *int               `yaml:"size"`
			LeaderTemplate *podTemplate       `yaml:"leaderTemplate"`
			WorkerTemplate podTemplate        `yaml:"workerTemplate"`
			SubGroupPolicy *lwsSubGroupPolicy `yaml:"subGroupPolicy"`
		} `yaml:"leaderWorkerTemplate"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	groups := intOr(spec.Replicas, 1)
	size := intOr(spec.LeaderWorkerTemplate.Size, 1)
	ann := lwsAnnotations(o, spec.LeaderWorkerTemplate.LeaderTemplate, &spec.LeaderWorkerTemplate.WorkerTemplate)
	sub, err := lwsSubGroupsOf(ann, spec.LeaderWorkerTemplate.SubGroupPolicy, size)
	if err != nil {
		return nil, err
	}
	leader, leaderNote := spec.LeaderWorkerTemplate.LeaderTemplate, ""
	if leader == nil && sub.leaderApart(ann) {
		leader, leaderNote = &spec.LeaderWorkerTemplate.WorkerTemplate, sub.leaderNote()
	}
	if leader == nil {
		return []role{{replicas: groups * size, template: spec.LeaderWorkerTemplate.WorkerTemplate, scalable: true, perReplica: size,
			note: fmt.Sprintf("%d group%s × %d pods", groups, parser.Plural(int64(groups)), size), exclusive: lwsExclusive(ann, sub, lwsAll, size, groups)}}, nil
	}
	// With a leader of its own template, or one placed apart from its workers, each role's pods
	// pay their share of the node of their group (or subgroup).
	return []role{
		{name: "leader", replicas: groups, template: *leader, scalable: true, note: leaderNote, exclusive: lwsExclusive(ann, sub, lwsLeader, size, groups)},
		{name: "worker", replicas: groups * (size - 1), template: spec.LeaderWorkerTemplate.WorkerTemplate, scalable: true, perReplica: size - 1,
			note: fmt.Sprintf("%d group%s × %d worker%s", groups, parser.Plural(int64(groups)), size-1, parser.Plural(int64(size-1))), exclusive: lwsExclusive(ann, sub, lwsWorkers, size, groups)},
	}, nil
}

// kserveFrameworks are the predictor fields that hold a model server container.
var kserveFrameworks = []string{"model", "sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx", "huggingface", "lightgbm", "paddle", "pmml"}

// extractInferenceService reads a KServe predictor: its containers, or the model/framework
// container, with minReplicas (default 1).
func extractInferenceService(o *object) ([]role, error) {
	var spec struct {
		Predictor yaml.Node `yaml:"predictor"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	var pred struct {
		podSpec     `yaml:",inline"`
		MinReplicas *int `yaml:"minReplicas"`
		MaxReplicas *int `yaml:"maxReplicas"`
	}
	if spec.Predictor.Kind == 0 {
		return nil, nil
	}
	if err := spec.Predictor.Decode(&pred); err != nil {
		return nil, err
	}
	ps := pred.podSpec
	for _, fw := range kserveFrameworks {
		if n := yamlpos.Value(&spec.Predictor, fw); n != nil {
			var c container
			if err := n.Decode(&c); err != nil {
				return nil, err
			}
			if c.Name == "" {
				c.Name = fw
			}
			var model struct {
				Format struct {
					Name string `yaml:"name"`
				} `yaml:"modelFormat"`
				StorageURI string `yaml:"storageUri"`
			}
			if n.Decode(&model) == nil && (fw == "huggingface" || fw == "model" && strings.EqualFold(model.Format.Name, "huggingface")) {
				c.kserveHF = &model.StorageURI
			}
			ps.Containers = append(ps.Containers, c)
		}
	}
	r := role{name: "predictor", replicas: intOr(pred.MinReplicas, 1), template: podTemplate{Spec: ps}}
	if pred.MaxReplicas != nil {
		r.maxPods, r.maxFrom = *pred.MaxReplicas, "the predictor's maxReplicas"
	}
	if r.replicas == 0 {
		r.replicas = 1
		r.note = "minReplicas is 0 (scale to zero): priced as 1 replica all month; set gpuguard.dev/hours-per-month for the hours it serves"
	}
	return []role{r}, nil
}

func sortStrings(s []string) { sort.Strings(s) }
