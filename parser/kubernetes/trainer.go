package kubernetes

import (
	"fmt"
	"maps"
)

// Kubeflow Trainer v2: a TrainJob (trainer.kubeflow.org) names a runtime (a ClusterTrainingRuntime
// or a namespaced TrainingRuntime) whose JobSet template describes the pods, and overrides parts
// of it: how many nodes train (trainer.numNodes over the runtime's mlPolicy.numNodes), what each
// node's trainer container requests (trainer.resourcesPerNode), and where pods land
// (podTemplateOverrides, podSpecOverrides in v2.0). https://www.kubeflow.org/docs/components/trainer/

func init() {
	register("TrainJob", "trainer.kubeflow.org", extractTrainJob)
}

// podOverride is one entry of podTemplateOverrides ({targetJobs, spec}) or of v2.0's
// podSpecOverrides ({targetJobs, nodeSelector, ...} inline).
type podOverride struct {
	TargetJobs []struct {
		Name string `yaml:"name"`
	} `yaml:"targetJobs"`
	Spec         *podSpec          `yaml:"spec"`
	NodeSelector map[string]string `yaml:"nodeSelector"`
	Affinity     *affinity         `yaml:"affinity"`
	Tolerations  []toleration      `yaml:"tolerations"`
}

type trainJobSpec struct {
	RuntimeRef struct {
		Name string `yaml:"name"`
		Kind string `yaml:"kind"`
	} `yaml:"runtimeRef"`
	Trainer struct {
		NumNodes         *int       `yaml:"numNodes"`
		ResourcesPerNode *resources `yaml:"resourcesPerNode"`
	} `yaml:"trainer"`
	PodTemplateOverrides []podOverride `yaml:"podTemplateOverrides"`
	PodSpecOverrides     []podOverride `yaml:"podSpecOverrides"`
	// ActiveDeadlineSeconds bounds the whole TrainJob, as a Job's does (kubeflow/trainer's
	// TrainJobSpec, trainer.kubeflow.org/v1alpha1).
	ActiveDeadlineSeconds *int64 `yaml:"activeDeadlineSeconds"`
}

// trainerJob is the name of the runtime's replicated job that trains, in the runtimes Kubeflow
// ships and documents; a job labelled as the trainer step counts as it too.
const (
	trainerJob        = "node"
	trainerStepLabel  = "trainer.kubeflow.org/trainjob-ancestor-step"
	trainerStepValue  = "trainer"
	defaultRuntimeRef = "ClusterTrainingRuntime"
)

// extractTrainJob prices a TrainJob through its runtime, found among the files read. Runtimes are
// often installed by the platform team and not in the repository: then, when the TrainJob itself
// says what a node requests (trainer.resourcesPerNode), it is priced from its own fields (numNodes
// nodes, default 1) with a note; otherwise a warning says its GPUs are not counted.
func extractTrainJob(o *object) ([]role, error) {
	var spec trainJobSpec
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	overrides := append(append([]podOverride{}, spec.PodSpecOverrides...), spec.PodTemplateOverrides...)
	fallback := func() ([]role, error) {
		if spec.Trainer.ResourcesPerNode == nil {
			return nil, nil
		}
		r := role{name: trainerJob, named: true, replicas: intOr(spec.Trainer.NumNodes, 1), runsToCompletion: true,
			template: podTemplate{Spec: podSpec{Containers: []container{{Name: trainerJob, Resources: *spec.Trainer.ResourcesPerNode}}}}}
		r.template.Spec = applyOverrides(r.template.Spec, trainerJob, overrides)
		r.note = fmt.Sprintf("%s × trainer.resourcesPerNode, from the TrainJob alone: its runtime is not among the files read", nodesText(r.replicas))
		r.deadline, r.deadlineField = spec.ActiveDeadlineSeconds, "activeDeadlineSeconds"
		return []role{r}, nil
	}
	name := spec.RuntimeRef.Name
	if name == "" {
		if roles, _ := fallback(); len(roles) > 0 {
			return roles, nil
		}
		return nil, fmt.Errorf("spec.runtimeRef.name is not set: the TrainJob names no runtime")
	}
	kind := spec.RuntimeRef.Kind
	if kind == "" {
		kind = defaultRuntimeRef
	}
	key := kind + "/" + name
	if kind != defaultRuntimeRef {
		key = kind + "/" + o.namespace() + "/" + name
	}
	ref := refTo(key, "GPUs its nodes request (set trainer.resourcesPerNode to price it without the runtime)",
		func(rt *object) ([]role, error) { return trainRoles(spec, overrides, rt, key) })
	ref.fallback = fallback
	return nil, ref
}

// trainRoles reads the runtime's replicated jobs with the TrainJob's overrides applied.
func trainRoles(spec trainJobSpec, overrides []podOverride, rt *object, key string) ([]role, error) {
	var rs struct {
		MLPolicy struct {
			NumNodes *int `yaml:"numNodes"`
		} `yaml:"mlPolicy"`
		Template struct {
			Spec struct {
				ReplicatedJobs []struct {
					Name     string `yaml:"name"`
					Replicas *int   `yaml:"replicas"`
					Template struct {
						Metadata objectMeta `yaml:"metadata"`
						Spec     jobSpec    `yaml:"spec"`
					} `yaml:"template"`
				} `yaml:"replicatedJobs"`
			} `yaml:"spec"`
		} `yaml:"template"`
	}
	if err := decodeSpec(rt, &rs); err != nil {
		return nil, fmt.Errorf("runtime %s: %w", key, err)
	}
	var out []role
	for i, rj := range rs.Template.Spec.ReplicatedJobs {
		name := orIndex(rj.Name, "job", i)
		r := jobRole(rj.Template.Spec)
		r.name, r.named = name, true
		copies := intOr(rj.Replicas, 1)
		r.replicas *= copies
		r.note = fmt.Sprintf("from runtime %s", key)
		if name == trainerJob || rj.Template.Metadata.Labels[trainerStepLabel] == trainerStepValue {
			// The trainer step runs one pod per node.
			nodes, from := 1, "default"
			if rs.MLPolicy.NumNodes != nil {
				nodes, from = *rs.MLPolicy.NumNodes, "the runtime's mlPolicy"
			}
			if spec.Trainer.NumNodes != nil {
				nodes, from = *spec.Trainer.NumNodes, "trainer.numNodes"
			}
			r.replicas = nodes
			r.note = fmt.Sprintf("%s (%s), from runtime %s", nodesText(nodes), from, key)
			if spec.Trainer.ResourcesPerNode != nil {
				r.template.Spec = withTrainerResources(r.template.Spec, *spec.Trainer.ResourcesPerNode)
			}
		}
		r.template.Spec = applyOverrides(r.template.Spec, name, overrides)
		r.deadline, r.deadlineField = spec.ActiveDeadlineSeconds, "activeDeadlineSeconds"
		out = append(out, r)
	}
	return out, nil
}

// withTrainerResources gives the trainer container (named "node", else the first) the
// TrainJob's resourcesPerNode, on a copy of the pod spec.
func withTrainerResources(ps podSpec, res resources) podSpec {
	if len(ps.Containers) == 0 {
		ps.Containers = []container{{Name: trainerJob, Resources: res}}
		return ps
	}
	cs := append([]container{}, ps.Containers...)
	i := 0
	for j, c := range cs {
		if c.Name == trainerJob {
			i = j
			break
		}
	}
	cs[i].Resources = res
	ps.Containers = cs
	return ps
}

// applyOverrides applies the overrides that target job, in order (later entries win): node
// selector labels are merged, an affinity replaces the runtime's, tolerations add up.
func applyOverrides(ps podSpec, job string, overrides []podOverride) podSpec {
	for _, ov := range overrides {
		targeted := false
		for _, t := range ov.TargetJobs {
			targeted = targeted || t.Name == job
		}
		if !targeted {
			continue
		}
		sel, aff, tol := ov.NodeSelector, ov.Affinity, ov.Tolerations
		if ov.Spec != nil {
			sel, aff, tol = ov.Spec.NodeSelector, ov.Spec.Affinity, ov.Spec.Tolerations
		}
		if len(sel) > 0 {
			merged := maps.Clone(ps.NodeSelector)
			if merged == nil {
				merged = map[string]string{}
			}
			maps.Copy(merged, sel)
			ps.NodeSelector = merged
		}
		if aff != nil {
			ps.Affinity = aff
		}
		ps.Tolerations = append(append([]toleration{}, ps.Tolerations...), tol...)
	}
	return ps
}

func nodesText(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}
