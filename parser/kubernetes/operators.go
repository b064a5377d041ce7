package kubernetes

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Workloads of operators that write their own pods: the manifest holds a few fields instead of
// a pod template, so the pod gpuguard prices is put together from them.

func init() {
	register("Job", "batch.volcano.sh", extractVolcanoJob)
	register("NIMService", "apps.nvidia.com", extractNIMService)
	register("SparkApplication", "sparkoperator.k8s.io", extractSparkApplication)
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
		name := t.Name
		if name == "" {
			name = fmt.Sprintf("task-%d", i)
		}
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
		r.note = fmt.Sprintf("%d pods: the minReplicas of the NIMService's autoscaler, the floor it always runs", r.replicas)
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
