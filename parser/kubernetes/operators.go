package kubernetes

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
	"github.com/gpuguard/gpuguard/parser"
)

// Workloads of operators that write their own pods: the manifest holds a few fields instead of
// a pod template, so the pod gpuguard prices is put together from them.

func init() {
	register("Rollout", "argoproj.io", extractArgoRollout)
	register("Job", "batch.volcano.sh", extractVolcanoJob)
	register("NIMService", "apps.nvidia.com", extractNIMService)
	register("SparkApplication", "sparkoperator.k8s.io", extractSparkApplication)
	register("ScheduledSparkApplication", "sparkoperator.k8s.io", extractScheduledSparkApplication)
	register("Notebook", "kubeflow.org", extractKubeflowNotebook)
	register("Experiment", "kubeflow.org", extractKatibExperiment)
	register("Workflow", "argoproj.io", extractArgoWorkflow)
	register("CronWorkflow", "argoproj.io", extractArgoCronWorkflow)
	register("NodeSet", "slinky.slurm.net", extractSlinkyNodeSet)
}

// extractSlinkyNodeSet reads a Slinky NodeSet (slinky.slurm.net, SchedMD's Slurm on
// Kubernetes): replicas pods (default 1), each a Slurm compute node that runs slurmd. The
// operator builds the pod from spec.template (its metadata and pod spec) and the slurmd
// container of spec.slurmd, where the GPUs are asked for; a container named slurmd in the
// template is merged over it, so its resources, when it sets any, are the ones that count.
// With scalingMode DaemonSet the NodeSet runs one pod on each node its pod spec matches,
// as a DaemonSet does. (SlinkyProject/slurm-operator api/v1beta1 nodeset_types.go and
// internal/builder/workerbuilder/worker_app.go, read 2026-11-28.) Its pods stay up whether or
// not Slurm has jobs for them, so they are priced for the whole month.
func extractSlinkyNodeSet(o *object) ([]role, error) {
	var spec struct {
		Replicas    *int        `yaml:"replicas"`
		ScalingMode string      `yaml:"scalingMode"`
		Slurmd      container   `yaml:"slurmd"`
		Template    podTemplate `yaml:"template"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	tpl := spec.Template
	slurmd := spec.Slurmd
	slurmd.Name = "slurmd"
	// The operator gives slurmd its port (Slurm's SlurmdPort, 6818): on the host's network
	// that is a host port, which keeps the pods one to a node (hostport.go).
	slurmd.Ports = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "containerPort"}, {Kind: yaml.ScalarNode, Tag: "!!int", Value: "6818"},
	}}}}
	containers := []container{slurmd}
	for _, c := range tpl.Spec.Containers {
		if c.Name != "slurmd" {
			containers = append(containers, c)
			continue
		}
		if len(c.Resources.Limits)+len(c.Resources.Requests)+len(c.Resources.Claims) > 0 {
			containers[0].Resources = c.Resources
		}
	}
	tpl.Spec.Containers = containers
	if spec.ScalingMode == "DaemonSet" {
		return []role{{replicas: 1, template: tpl, daemonSet: true}}, nil
	}
	return []role{{replicas: intOr(spec.Replicas, 1), template: tpl, scalable: true, note: "Slurm compute nodes (slurmd): they run whether or not Slurm has jobs for them"}}, nil
}

// extractArgoRollout reads an Argo Rollouts Rollout (argoproj.io), a Deployment that updates by
// canary or blue-green steps: spec.replicas pods (default 1) of its template, or of the template
// of the Deployment its workloadRef names. That is the steady state: an update in progress runs
// extra pods (the canary's, blue-green's preview) while it lasts. An autoscaler can target it.
// https://argoproj.github.io/argo-rollouts/features/specification/
func extractArgoRollout(o *object) ([]role, error) {
	var spec struct {
		Replicas    *int        `yaml:"replicas"`
		Template    podTemplate `yaml:"template"`
		WorkloadRef *struct {
			Kind string `yaml:"kind"`
			Name string `yaml:"name"`
		} `yaml:"workloadRef"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	replicas := intOr(spec.Replicas, 1)
	const note = "steady state: an update in progress runs extra pods (canary, blue-green preview) while it lasts"
	if ref := spec.WorkloadRef; ref != nil && ref.Name != "" {
		kind := ref.Kind
		if kind == "" {
			kind = "Deployment"
		}
		key := kind + "/" + o.namespace() + "/" + ref.Name
		return nil, refTo(key, "GPUs its pods request", func(d *object) ([]role, error) {
			var ds struct {
				Template podTemplate `yaml:"template"`
			}
			if err := decodeSpec(d, &ds); err != nil {
				return nil, err
			}
			return []role{{replicas: replicas, template: ds.Template, scalable: true, note: note + "; pod template from " + key}}, nil
		})
	}
	return []role{{replicas: replicas, template: spec.Template, scalable: true, note: note}}, nil
}

// extractKubeflowNotebook reads a Kubeflow Notebook (kubeflow.org): one pod of its template that
// runs until someone stops it (the notebook controller's kubeflow-resource-stopped annotation
// scales it to zero). https://www.kubeflow.org/docs/components/notebooks/
func extractKubeflowNotebook(o *object) ([]role, error) {
	var spec struct {
		Template podTemplate `yaml:"template"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	if _, stopped := o.Metadata.Annotations["kubeflow-resource-stopped"]; stopped {
		return []role{{replicas: 0, template: spec.Template, note: "stopped (kubeflow-resource-stopped): no pod runs"}}, nil
	}
	return []role{{replicas: 1, template: spec.Template, note: "a notebook: runs until someone stops it"}}, nil
}

// extractKatibExperiment reads a Katib Experiment (kubeflow.org), a hyperparameter search: up to
// parallelTrialCount trials (Katib's default 3) run at once, each the workload its
// trialTemplate.trialSpec describes (a Job, a PyTorchJob, ...), read as that kind is.
// https://www.kubeflow.org/docs/components/katib/user-guides/hp-tuning/configure-experiment/
func extractKatibExperiment(o *object) ([]role, error) {
	var spec struct {
		ParallelTrialCount *int `yaml:"parallelTrialCount"`
		TrialTemplate      struct {
			TrialSpec yaml.Node `yaml:"trialSpec"`
		} `yaml:"trialTemplate"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	ts := &spec.TrialTemplate.TrialSpec
	if ts.Kind == 0 {
		return nil, nil // a trial template kept in a ConfigMap (configMap:): not in the manifest
	}
	trial, err := o.embedded(ts, "trialSpec")
	if err != nil {
		return nil, err
	}
	w, ok := workloadOf(trial)
	if !ok {
		return nil, lineError{line: o.lineOf(ts), err: fmt.Errorf("trialSpec is a %s (%s), which gpuguard does not read: its GPUs are not counted", trial.Kind, trial.APIVersion)}
	}
	roles, err := w.extract(trial)
	if err != nil {
		return nil, err
	}
	parallel := intOr(spec.ParallelTrialCount, 3)
	if parallel < 0 || parallel > maxPods {
		return nil, fmt.Errorf("parallelTrialCount %d is not a number of trials", parallel)
	}
	for i := range roles {
		note := fmt.Sprintf("%d trials at once (parallelTrialCount) of a %s", parallel, trial.Kind)
		if roles[i].note != "" {
			note += ": " + roles[i].note
		}
		roles[i].replicas *= parallel
		roles[i].note = note
		roles[i].runsToCompletion = true
		roles[i].deadline = nil // a trial's deadline bounds one trial of many
		roles[i].scalable = false
	}
	return roles, nil
}

// extractVolcanoJob reads a Volcano Job (batch.volcano.sh): each task runs replicas pods of its
// template. https://volcano.sh/en/docs/vcjob/
func extractVolcanoJob(o *object) ([]role, error) {
	var spec struct {
		Tasks []struct {
			Name     string      `yaml:"name"`
			Replicas *int        `yaml:"replicas"`
			Template podTemplate `yaml:"template"`
		} `yaml:"tasks"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	var out []role
	for i, t := range spec.Tasks {
		name := orIndex(t.Name, "task", i)
		out = append(out, role{name: name, replicas: intOr(t.Replicas, 1), template: t.Template, runsToCompletion: true})
	}
	return out, nil
}

// extractNIMService reads an NVIDIA NIM Operator NIMService (apps.nvidia.com): replicas pods of
// the NIM container with the service's resources and placement; with the HPA on, its
// minReplicas. https://docs.nvidia.com/nim-operator/latest/service.html
func extractNIMService(o *object) ([]role, error) {
	var spec struct {
		Replicas     *int              `yaml:"replicas"`
		Resources    resources         `yaml:"resources"`
		NodeSelector map[string]string `yaml:"nodeSelector"`
		Tolerations  []toleration      `yaml:"tolerations"`
		Affinity     *affinity         `yaml:"affinity"`
		Scale        struct {
			Enabled bool `yaml:"enabled"`
			HPA     struct {
				MinReplicas *int `yaml:"minReplicas"`
				MaxReplicas *int `yaml:"maxReplicas"`
			} `yaml:"hpa"`
		} `yaml:"scale"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	r := role{replicas: intOr(spec.Replicas, 1), scalable: true, template: podTemplate{Metadata: o.Metadata, Spec: podSpec{
		Containers:   []container{{Name: "nim", Resources: spec.Resources}},
		NodeSelector: spec.NodeSelector, Tolerations: spec.Tolerations, Affinity: spec.Affinity,
	}}}
	if spec.Scale.Enabled && spec.Scale.HPA.MinReplicas != nil {
		r.replicas = *spec.Scale.HPA.MinReplicas
		r.note = fmt.Sprintf("%d pod%s: the minReplicas of the NIMService's autoscaler, the floor it always runs", r.replicas, parser.Plural(int64(r.replicas)))
	}
	if spec.Scale.Enabled && spec.Scale.HPA.MaxReplicas != nil {
		r.maxPods, r.maxFrom = *spec.Scale.HPA.MaxReplicas, "the maxReplicas of the NIMService's autoscaler"
	}
	return []role{r}, nil
}

// sparkGPU is a Spark operator pod's gpu field: {name: nvidia.com/gpu, quantity: 1}.
type sparkGPU struct {
	Name     string    `yaml:"name"`
	Quantity yaml.Node `yaml:"quantity"`
}

type sparkPod struct {
	GPU          *sparkGPU         `yaml:"gpu"`
	Instances    *int              `yaml:"instances"`
	NodeSelector map[string]string `yaml:"nodeSelector"`
	Tolerations  []toleration      `yaml:"tolerations"`
	Affinity     *affinity         `yaml:"affinity"`
	Labels       map[string]string `yaml:"labels"`
	Annotations  map[string]string `yaml:"annotations"`
}

// extractSparkApplication reads a Spark operator application (sparkoperator.k8s.io): the driver
// and instances executors, with the GPUs of their gpu fields; node selectors of the
// application apply to both unless a pod sets its own. With dynamic allocation the executors
// are priced at minExecutors. https://www.kubeflow.org/docs/components/spark-operator/user-guide/gpu/
func extractSparkApplication(o *object) ([]role, error) {
	var spec struct {
		NodeSelector      map[string]string `yaml:"nodeSelector"`
		Driver            sparkPod          `yaml:"driver"`
		Executor          sparkPod          `yaml:"executor"`
		DynamicAllocation struct {
			Enabled      bool `yaml:"enabled"`
			MinExecutors *int `yaml:"minExecutors"`
		} `yaml:"dynamicAllocation"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	pod := func(p sparkPod) podTemplate {
		t := podTemplate{Metadata: objectMeta{Labels: p.Labels, Annotations: p.Annotations}, Spec: podSpec{
			NodeSelector: p.NodeSelector, Tolerations: p.Tolerations, Affinity: p.Affinity}}
		if t.Spec.NodeSelector == nil {
			t.Spec.NodeSelector = spec.NodeSelector
		}
		c := container{Name: "spark"}
		if p.GPU != nil && p.GPU.Name != "" {
			c.Resources.Limits = map[string]yaml.Node{p.GPU.Name: p.GPU.Quantity}
		}
		t.Spec.Containers = []container{c}
		return t
	}
	executors := role{name: "executor", replicas: intOr(spec.Executor.Instances, 1), template: pod(spec.Executor), runsToCompletion: true}
	if spec.DynamicAllocation.Enabled && spec.DynamicAllocation.MinExecutors != nil {
		executors.replicas = *spec.DynamicAllocation.MinExecutors
		executors.note = fmt.Sprintf("dynamic allocation: priced at minExecutors (%d)", executors.replicas)
	}
	return []role{{name: "driver", replicas: 1, template: pod(spec.Driver), runsToCompletion: true}, executors}, nil
}

// extractScheduledSparkApplication reads the Spark operator's ScheduledSparkApplication: the
// SparkApplication of its template, run on its schedule (robfig/cron syntax, @every included).
// A Spark application sets no deadline, so a run's length comes from the hours annotation or the
// config's usage. Suspended (spec.suspend), it runs nothing.
// https://github.com/kubeflow/spark-operator/blob/master/docs/api-docs.md
func extractScheduledSparkApplication(o *object) ([]role, error) {
	var spec struct {
		Schedule          string    `yaml:"schedule"`
		TimeZone          string    `yaml:"timeZone"`
		Suspend           bool      `yaml:"suspend"`
		ConcurrencyPolicy string    `yaml:"concurrencyPolicy"`
		Template          yaml.Node `yaml:"template"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	app := *o
	app.Spec = spec.Template
	roles, err := extractSparkApplication(&app)
	if err != nil {
		return nil, err
	}
	for i := range roles {
		if spec.Suspend {
			roles[i].replicas = 0
			roles[i].note = "suspended (spec.suspend): no runs are scheduled while it stays so"
			continue
		}
		roles[i].cron = &cronSchedule{schedule: spec.Schedule, timeZone: spec.TimeZone, concurrencyPolicy: spec.ConcurrencyPolicy,
			line: o.lineOf(yamlpos.Value(&o.Spec, "schedule")), noDeadline: "a Spark application sets no deadline"}
	}
	return roles, nil
}

// argoWorkflowSpec is the part of an Argo Workflow spec that decides its GPU pods: each
// template that runs a container (container, script or containerSet) is one pod when it runs,
// placed by its own nodeSelector and tolerations, else the workflow's.
type argoWorkflowSpec struct {
	WorkflowTemplateRef *struct {
		Name         string `yaml:"name"`
		ClusterScope bool   `yaml:"clusterScope"`
	} `yaml:"workflowTemplateRef"`
	ActiveDeadlineSeconds *int64            `yaml:"activeDeadlineSeconds"`
	NodeSelector          map[string]string `yaml:"nodeSelector"`
	Tolerations           []toleration      `yaml:"tolerations"`
	Affinity              *affinity         `yaml:"affinity"`
	PodPriorityClassName  yaml.Node         `yaml:"podPriorityClassName"`
	Templates             []struct {
		Name         string            `yaml:"name"`
		NodeSelector map[string]string `yaml:"nodeSelector"`
		Tolerations  []toleration      `yaml:"tolerations"`
		Affinity     *affinity         `yaml:"affinity"`
		// PriorityClassName and ActiveDeadlineSeconds are the step pod's own (Argo sets them
		// on the pod); the workflow's podPriorityClassName is the default.
		PriorityClassName     yaml.Node  `yaml:"priorityClassName"`
		ActiveDeadlineSeconds yaml.Node  `yaml:"activeDeadlineSeconds"`
		Metadata              objectMeta `yaml:"metadata"`
		Container             *container `yaml:"container"`
		Script                *container `yaml:"script"`
		ContainerSet          *struct {
			Containers []container `yaml:"containers"`
		} `yaml:"containerSet"`
	} `yaml:"templates"`
}

// argoRoles: one role per template with containers. A step's pods run for the step's length,
// and steps may run one after another or side by side: each GPU template is priced as one pod
// for the workflow's hours, with a note saying so.
func argoRoles(spec argoWorkflowSpec) []role {
	var out []role
	for i, t := range spec.Templates {
		var cs []container
		switch {
		case t.Container != nil:
			cs = []container{*t.Container}
		case t.Script != nil:
			cs = []container{*t.Script}
		case t.ContainerSet != nil:
			cs = t.ContainerSet.Containers
		default:
			continue // steps, dag, suspend, resource: no pod of its own
		}
		ps := podSpec{Containers: cs, NodeSelector: t.NodeSelector, Tolerations: t.Tolerations, Affinity: t.Affinity,
			PriorityClassName: t.PriorityClassName, ActiveDeadlineSeconds: t.ActiveDeadlineSeconds}
		if ps.PriorityClassName.Kind == 0 {
			ps.PriorityClassName = spec.PodPriorityClassName
		}
		if ps.NodeSelector == nil {
			ps.NodeSelector = spec.NodeSelector
		}
		if ps.Tolerations == nil {
			ps.Tolerations = spec.Tolerations
		}
		if ps.Affinity == nil {
			ps.Affinity = spec.Affinity
		}
		name := orIndex(t.Name, "template", i)
		out = append(out, role{name: name, replicas: 1, template: podTemplate{Metadata: t.Metadata, Spec: ps}, runsToCompletion: true,
			note:     "an Argo workflow step: priced as one pod while the workflow runs (steps may run one after another or side by side)",
			deadline: spec.ActiveDeadlineSeconds, deadlineField: "activeDeadlineSeconds"})
	}
	return out
}

// extractArgoWorkflow reads an Argo Workflow (argoproj.io). https://argo-workflows.readthedocs.io/en/latest/fields/#workflowspec
func extractArgoWorkflow(o *object) ([]role, error) {
	var spec argoWorkflowSpec
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	if ref := argoRef(o, spec, nil); ref != nil {
		return nil, ref
	}
	return argoRoles(spec), nil
}

// reference is what an extractor returns (as its error) for a workload whose pods other objects
// describe: an Argo workflow's WorkflowTemplate, a Rollout's Deployment, a TrainJob's runtime,
// an LLMInferenceService's configurations. Build looks refs up among the objects read (in the
// workload's own kustomize build first) and build makes the roles from those found. When none
// is found, fallback (when set) may price the workload from its own fields. When some are absent
// and no pod built requests GPUs, a warning names them and says what is not counted (missing).
type reference struct {
	refs     []string
	build    func(found map[string]*object) ([]role, error)
	fallback func() ([]role, error)
	missing  string
}

func (r *reference) Error() string { return "runs " + strings.Join(r.refs, ", ") }

// refTo is a reference to one object, whose roles build makes when it is found.
func refTo(key, missing string, build func(obj *object) ([]role, error)) *reference {
	return &reference{refs: []string{key}, missing: missing, build: func(found map[string]*object) ([]role, error) {
		if obj, ok := found[key]; ok {
			return build(obj)
		}
		return nil, nil
	}}
}

// argoRef is the reference of a workflow that runs a WorkflowTemplate (workflowTemplateRef): the
// template's steps, with the workflow's own activeDeadlineSeconds and, for a CronWorkflow, its
// schedule.
func argoRef(o *object, spec argoWorkflowSpec, cron *cronSchedule) *reference {
	r := spec.WorkflowTemplateRef
	if r == nil || r.Name == "" {
		return nil
	}
	key := "WorkflowTemplate/" + o.namespace() + "/" + r.Name
	if r.ClusterScope {
		key = "ClusterWorkflowTemplate/" + r.Name
	}
	return refTo(key, "GPUs its steps use", func(tmpl *object) ([]role, error) {
		return templateRoles(tmpl, key, spec.ActiveDeadlineSeconds, cron)
	})
}

// referenceKey is how an object another workload refers to is found: Kind/namespace/name, or
// Kind/name for the cluster-scoped ClusterWorkflowTemplate and ClusterTrainingRuntime.
func referenceKey(o *object) string {
	if o.Kind == "ClusterWorkflowTemplate" || o.Kind == "ClusterTrainingRuntime" {
		return o.Kind + "/" + o.Metadata.Name
	}
	return o.Kind + "/" + o.namespace() + "/" + o.Metadata.Name
}

// templateRoles prices the steps of the template a workflow runs, with the workflow's own
// deadline (which wins) and schedule.
func templateRoles(tmpl *object, key string, deadline *int64, cron *cronSchedule) ([]role, error) {
	var spec argoWorkflowSpec
	if err := decodeSpec(tmpl, &spec); err != nil {
		return nil, err
	}
	if deadline != nil {
		spec.ActiveDeadlineSeconds = deadline
	}
	roles := argoRoles(spec)
	for i := range roles {
		roles[i].note += "; steps from " + key
		if cron != nil {
			c := *cron
			c.deadlineSeconds = spec.ActiveDeadlineSeconds
			roles[i].cron = &c
		}
	}
	return roles, nil
}

// extractArgoCronWorkflow reads an Argo CronWorkflow: its workflow's GPU steps, for the hours its
// schedule and activeDeadlineSeconds give, as a CronJob's.
func extractArgoCronWorkflow(o *object) ([]role, error) {
	var spec struct {
		Schedule          string           `yaml:"schedule"`
		Schedules         []string         `yaml:"schedules"`
		Timezone          string           `yaml:"timezone"`
		ConcurrencyPolicy string           `yaml:"concurrencyPolicy"`
		WorkflowSpec      argoWorkflowSpec `yaml:"workflowSpec"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	schedule := spec.Schedule
	if schedule == "" && len(spec.Schedules) > 0 {
		schedule = spec.Schedules[0]
	}
	cron := cronSchedule{schedule: schedule, timeZone: spec.Timezone, deadlineSeconds: spec.WorkflowSpec.ActiveDeadlineSeconds,
		concurrencyPolicy: spec.ConcurrencyPolicy, line: o.lineOf(yamlpos.Value(&o.Spec, "schedule"))}
	if ref := argoRef(o, spec.WorkflowSpec, &cron); ref != nil {
		return nil, ref
	}
	roles := argoRoles(spec.WorkflowSpec)
	for i := range roles {
		c := cron
		roles[i].cron = &c
	}
	return roles, nil
}
