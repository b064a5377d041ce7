package kubernetes

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// pytorchAllocConf is the PyTorch caching-allocator settings the container that uses the pod's
// GPUs (gpuContainer) starts with, and where they come from ("container trainer's
// PYTORCH_ALLOC_CONF"): PyTorch 2.9 and later read PYTORCH_ALLOC_CONF, else the older
// PYTORCH_CUDA_ALLOC_CONF (c10 AllocatorConfig::instance); a variable set to an empty value
// still wins. Empty when the container sets neither, or sets the one PyTorch reads from a
// ConfigMap or Secret (valueFrom), whose value is known only in the cluster.
func pytorchAllocConf(c *container) (conf, from string) {
	if c == nil {
		return "", ""
	}
	for _, name := range []string{"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"} {
		if v, set := envValue(&c.Env, name); set {
			if v == nil {
				return "", ""
			}
			return *v, fmt.Sprintf("container %s's %s", c.Name, name)
		}
	}
	return "", ""
}

// envValue is a container's env entry: set says the entry is there; value is nil when it comes
// from valueFrom. The last entry of a name wins, as the kubelet applies them.
func envValue(n *yaml.Node, name string) (value *string, set bool) {
	if n.Kind != yaml.SequenceNode {
		return nil, false
	}
	for _, e := range n.Content {
		var v struct {
			Name  string  `yaml:"name"`
			Value *string `yaml:"value"`
		}
		if e.Decode(&v) == nil && v.Name == name {
			value, set = v.Value, true
			if value == nil && e.Kind == yaml.MappingNode && !hasKey(e, "valueFrom") {
				empty := "" // name only: the variable is set, to nothing
				value = &empty
			}
		}
	}
	return value, set
}

func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}
