package kubernetes

import (
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An object of a kind gpuguard does not read (a CRD it has no extractor for) may still run pods
// that request GPUs. Skipping it quietly would price those GPUs at $0 in silence; instead Build
// warns when such an object holds container-style resource requirements that name a GPU
// resource (resources: {limits|requests: {nvidia.com/gpu: ...}}), or asks for GPUs in the other
// shapes operators use (gpuCountIn). Capacity and quota objects
// name GPU resources in other shapes (a NodePool's limits, a ResourceQuota's hard, a Kueue
// ClusterQueue's resource list) and are not warned about.

// Objects that declare cloud machines rather than pods (an operator's node pool, a VM) are the
// other way GPUs go uncounted: an object of a kind no reader here takes whose spec names a GPU
// instance type under an instance-type field (gpuTypeIn) is a warning too. readsMachineTypes
// lists the API groups whose objects gpuguard reads, or reports on, elsewhere.
func readsMachineTypes(o *object) bool {
	g := group(o.APIVersion)
	switch {
	case g == "": // the core kinds declare no machines (a ConfigMap's data is someone's settings)
		return true
	case g == capiGroup || strings.HasSuffix(g, "."+capiGroup): // clusterapi.go, clusterclass.go
		return true
	case isManaged(o): // Options.Managed (package managed)
		return true
	case g == "crossplane.io" || strings.HasSuffix(g, ".crossplane.io"): // Compositions: composition.go
		return true
	case g == kaitoGroup, g == "cloud.google.com" && o.Kind == "ComputeClass":
		return true
	}
	return isTemplateKind(o.Kind)
}

// GPUTypeIn finds, in the spec of an object, a field that names a GPU instance type (or a GPU
// attached by accelerator type), with the field's path ("spec.forProvider.instanceType"): for
// readers of objects this package hands on (Options.Managed) that meet a kind they do not price.
func GPUTypeIn(spec *yaml.Node) (typ, field string) {
	return gpuTypeIn(spec, "spec")
}

// gpuTypeInObject is gpuTypeIn over an object's spec, and over the fields some kinds keep beside
// it at the top level (Rancher's machine configurations: instanceType, region).
func gpuTypeInObject(o *object) (string, string) {
	if t, f := gpuTypeIn(&o.Spec, "spec"); t != "" {
		return t, f
	}
	if o.doc == nil || o.doc.Kind != yaml.MappingNode {
		return "", ""
	}
	for i := 0; i+1 < len(o.doc.Content); i += 2 {
		switch k := o.doc.Content[i]; k.Value {
		case "apiVersion", "kind", "metadata", "spec", "status":
		default:
			top := &yaml.Node{Kind: yaml.MappingNode, Content: o.doc.Content[i : i+2]}
			if t, f := gpuTypeIn(top, ""); t != "" {
				return t, f
			}
		}
	}
	return "", ""
}

// templateKinds describe pods for other objects rather than run them: a warning on them would
// repeat the one on the workload that uses them, or be wrong when nothing does. An Argo CD
// ApplicationSet's generators hold the parameters of the Applications it makes.
var templateKinds = map[string]bool{"PodTemplate": true, "LLMInferenceServiceConfig": true, "ServingRuntime": true, "ClusterServingRuntime": true,
	"ApplicationSet": true}

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
		if name, line := gpuCountIn(n); name != "" {
			return name, line
		}
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

// gpuCountKeys are the fields operators use for a GPU count outside resource requirements (Run:ai's
// gpu and gpuDevices, each wrapped as {value: N}; others' gpus, gpuCount, numGpus).
var gpuCountKeys = map[string]bool{"gpu": true, "gpus": true, "gpuDevices": true, "gpuCount": true, "numGpus": true, "numGPUs": true}

// gpuCountIn looks at the fields of one mapping for a GPU asked for in the other shapes operators
// use: a count field of gpuCountKeys (a number above zero, fractions included, or {value: N}); a
// GPU resource named with its amount ({name: nvidia.com/gpu, quantity: 1}, the Spark operator's
// shape); a device passed through by its resource name ({deviceName: nvidia.com/GA102GL_A10},
// KubeVirt's).
func gpuCountIn(n *yaml.Node) (string, *yaml.Node) {
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		fields[n.Content[i].Value] = n.Content[i+1]
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case gpuCountKeys[k.Value] && (positiveAmount(v) || v.Kind == yaml.MappingNode && len(v.Content) == 2 && v.Content[0].Value == "value" && positiveAmount(v.Content[1])):
			return k.Value, k
		case (k.Value == "name" || k.Value == "resourceName") && IsGPUResource(v.Value) && (positiveCount(orNull(fields["quantity"])) || positiveCount(orNull(fields["count"]))):
			return v.Value, k
		case k.Value == "deviceName" && strings.HasPrefix(v.Value, "nvidia.com/"):
			return v.Value, k
		}
	}
	return "", nil
}

// positiveAmount reports whether a node is a number above zero, a fraction included (Run:ai's
// gpu: 0.5).
func positiveAmount(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(n.Value), 64)
	return err == nil && f > 0 && !math.IsInf(f, 0)
}

func orNull(n *yaml.Node) *yaml.Node {
	if n == nil {
		return &yaml.Node{}
	}
	return n
}

// gpuInRequirements looks in the limits and requests of one resources mapping.
func gpuInRequirements(res *yaml.Node) (string, *yaml.Node) {
	for i := 0; i+1 < len(res.Content); i += 2 {
		k, v := res.Content[i], res.Content[i+1]
		if (k.Value != "limits" && k.Value != "requests") || v.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			if IsGPUResource(v.Content[j].Value) || implicitGPUClass(v.Content[j].Value) {
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
