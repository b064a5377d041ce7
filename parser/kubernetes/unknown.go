package kubernetes

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An object of a kind gpuguard does not read (a CRD it has no extractor for) may still run pods
// that request GPUs. Skipping it quietly would price those GPUs at $0 in silence; instead Build
// warns when such an object holds container-style resource requirements that name a GPU
// resource (resources: {limits|requests: {nvidia.com/gpu: ...}}). Capacity and quota objects
// name GPU resources in other shapes (a NodePool's limits, a ResourceQuota's hard, a Kueue
// ClusterQueue's resource list) and are not warned about.

// templateKinds describe pods for other objects rather than run them: a warning on them would
// repeat the one on the workload that uses them, or be wrong when nothing does.
var templateKinds = map[string]bool{"PodTemplate": true, "LLMInferenceServiceConfig": true, "ServingRuntime": true, "ClusterServingRuntime": true}

func isTemplateKind(kind string) bool {
	return templateKinds[kind] || strings.HasSuffix(kind, "Template") || strings.HasSuffix(kind, "TrainingRuntime")
}

// gpuRequestIn finds the first GPU resource named in resource requirements inside n, with its
// key's node (for its line), or "" when there is none.
func gpuRequestIn(n *yaml.Node) (string, *yaml.Node) {
	if n == nil {
		return "", nil
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if name, line := gpuRequestIn(c); name != "" {
				return name, line
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "resources" && v.Kind == yaml.MappingNode {
				if name, line := gpuInRequirements(v); name != "" {
					return name, line
				}
			}
			if name, line := gpuRequestIn(v); name != "" {
				return name, line
			}
		}
	}
	return "", nil
}

// gpuInRequirements looks in the limits and requests of one resources mapping.
func gpuInRequirements(res *yaml.Node) (string, *yaml.Node) {
	for i := 0; i+1 < len(res.Content); i += 2 {
		k, v := res.Content[i], res.Content[i+1]
		if (k.Value != "limits" && k.Value != "requests") || v.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			if IsGPUResource(v.Content[j].Value) {
				return v.Content[j].Value, v.Content[j]
			}
			// Operators' own shorthand for a GPU count (Dynamo v1alpha1's and others' gpu: "1").
			if name := v.Content[j].Value; (name == "gpu" || name == "gpus") && positiveCount(v.Content[j+1]) {
				return name, v.Content[j]
			}
		}
	}
	return "", nil
}

// positiveCount reports whether a node is a whole number above zero (written as a number or a
// string).
func positiveCount(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	i, err := strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64)
	return err == nil && i > 0
}
