package kubernetes

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// NVIDIA Dynamo's DynamoGraphDeployment (nvidia.com): an inference graph of components
// (frontend, prefill and decode workers, planner), each run by the Dynamo operator as replicas of
// a pod, or of a group of nodeCount pods for a multinode component.
// https://github.com/ai-dynamo/dynamo (deploy/operator API reference, examples/backends/*/deploy)

func init() {
	register("DynamoGraphDeployment", "nvidia.com", extractDynamoGraphDeployment)
}

// dynamoResources is v1alpha1's resource shorthand: gpu is a count of gpuType devices
// (nvidia.com/gpu unless set), cpu and memory as in Kubernetes.
type dynamoResources struct {
	Requests dynamoResourceItem `yaml:"requests"`
	Limits   dynamoResourceItem `yaml:"limits"`
}

type dynamoResourceItem struct {
	CPU     yaml.Node `yaml:"cpu"`
	Memory  yaml.Node `yaml:"memory"`
	GPU     yaml.Node `yaml:"gpu"`
	GPUType string    `yaml:"gpuType"`
}

// kubernetes turns the shorthand into container resource names over base, the main container's
// own requests or limits.
func (it dynamoResourceItem) kubernetes(base map[string]yaml.Node) map[string]yaml.Node {
	out := make(map[string]yaml.Node, len(base)+3)
	for k, v := range base {
		out[k] = v
	}
	if it.CPU.Kind != 0 {
		out["cpu"] = it.CPU
	}
	if it.Memory.Kind != 0 {
		out["memory"] = it.Memory
	}
	if it.GPU.Kind != 0 && !(it.GPU.Kind == yaml.ScalarNode && (it.GPU.Value == "" || it.GPU.Value == "0")) {
		name := it.GPUType
		if name == "" {
			name = "nvidia.com/gpu"
		}
		out[name] = it.GPU
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

type dynamoMultinode struct {
	NodeCount *int `yaml:"nodeCount"`
}

// extractDynamoGraphDeployment reads both API versions: v1alpha1's services map (replicas, the
// resources shorthand, extraPodSpec with its mainContainer, multinode.nodeCount, autoscaling)
// and v1beta1's components list (replicas, a full podTemplate, multinode.nodeCount). Each
// component is a role named after it; components without GPUs (the frontend) are dropped by
// the build like any CPU pod. A multinode component's replica is nodeCount pods, each with the
// component's GPUs.
func extractDynamoGraphDeployment(o *object) ([]role, error) {
	var spec struct {
		Services map[string]struct {
			Replicas         *int            `yaml:"replicas"`
			Resources        dynamoResources `yaml:"resources"`
			Multinode        dynamoMultinode `yaml:"multinode"`
			ExtraPodMetadata objectMeta      `yaml:"extraPodMetadata"`
			ExtraPodSpec     struct {
				podSpec       `yaml:",inline"`
				MainContainer *container `yaml:"mainContainer"`
			} `yaml:"extraPodSpec"`
			Autoscaling struct {
				Enabled     bool `yaml:"enabled"`
				MinReplicas *int `yaml:"minReplicas"`
				MaxReplicas *int `yaml:"maxReplicas"`
			} `yaml:"autoscaling"`
		} `yaml:"services"`
		Components []struct {
			Name        string          `yaml:"name"`
			Replicas    *int            `yaml:"replicas"`
			Multinode   dynamoMultinode `yaml:"multinode"`
			PodTemplate podTemplate     `yaml:"podTemplate"`
		} `yaml:"components"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	nodes := func(m dynamoMultinode, name string) (int, error) {
		if m.NodeCount == nil {
			return 1, nil
		}
		if n := *m.NodeCount; n >= 1 && n <= maxPods {
			return n, nil
		}
		return 0, fmt.Errorf("component %q: multinode.nodeCount %d is not a number of nodes", name, *m.NodeCount)
	}
	var out []role
	for _, name := range slices.Sorted(maps.Keys(spec.Services)) {
		s := spec.Services[name]
		size, err := nodes(s.Multinode, name)
		if err != nil {
			return nil, err
		}
		main := container{Name: "main"}
		if s.ExtraPodSpec.MainContainer != nil {
			main = *s.ExtraPodSpec.MainContainer
		}
		main.Resources.Limits = s.Resources.Limits.kubernetes(main.Resources.Limits)
		main.Resources.Requests = s.Resources.Requests.kubernetes(main.Resources.Requests)
		pod := s.ExtraPodSpec.podSpec
		pod.Containers = append([]container{main}, pod.Containers...)
		replicas := intOr(s.Replicas, 1)
		r := role{name: name, perReplica: size, template: podTemplate{Metadata: dynamoPodMeta(o.Metadata, s.ExtraPodMetadata), Spec: pod}}
		var notes []string
		if size > 1 {
			notes = append(notes, fmt.Sprintf("multinode: %d pods a replica", size))
		}
		if a := s.Autoscaling; a.Enabled && a.MinReplicas != nil {
			replicas = *a.MinReplicas
			notes = append(notes, fmt.Sprintf("priced at the autoscaling minReplicas (%d)", replicas))
			if a.MaxReplicas != nil {
				r.maxPods, r.maxFrom = *a.MaxReplicas*size, fmt.Sprintf("the autoscaling maxReplicas of component %q", name)
			}
		}
		r.replicas, r.note = replicas*size, strings.Join(notes, "; ")
		out = append(out, r)
	}
	for _, c := range spec.Components {
		size, err := nodes(c.Multinode, c.Name)
		if err != nil {
			return nil, err
		}
		r := role{name: c.Name, replicas: intOr(c.Replicas, 1) * size, perReplica: size, template: c.PodTemplate}
		r.template.Metadata = dynamoPodMeta(o.Metadata, c.PodTemplate.Metadata)
		if size > 1 {
			r.note = fmt.Sprintf("multinode: %d pods a replica", size)
		}
		out = append(out, r)
	}
	return out, nil
}

// dynamoPodMeta is the pods' metadata: the graph's labels and annotations, the component's own
// over them (cost-allocation labels are usually set once, on the graph).
func dynamoPodMeta(graph, pod objectMeta) objectMeta {
	return layeredMeta(objectMeta{Name: graph.Name, Namespace: graph.Namespace}, graph, pod)
}

// layeredMeta is m with the labels and annotations of layers, each layer's over those before it,
// in maps of its own.
func layeredMeta(m objectMeta, layers ...objectMeta) objectMeta {
	m.Labels, m.Annotations = map[string]string{}, map[string]string{}
	for _, l := range layers {
		for k, v := range l.Labels {
			m.Labels[k] = v
		}
		for k, v := range l.Annotations {
			m.Annotations[k] = v
		}
	}
	return m
}
