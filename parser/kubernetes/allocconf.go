package kubernetes

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// pytorchAllocConf is the PyTorch caching-allocator settings the container that uses the pod's
// GPUs (gpuContainer) starts with, and where they come from ("container trainer's
// PYTORCH_ALLOC_CONF"): PyTorch 2.9 and later read PYTORCH_ALLOC_CONF, else the older
// PYTORCH_CUDA_ALLOC_CONF (c10 AllocatorConfig::instance); a variable set to an empty value
// still wins. A variable comes from the container's env, else from its envFrom ConfigMaps
// (env wins, and a later source wins over an earlier one, as the kubelet builds the
// environment); a ConfigMap's value is read when the ConfigMap is among the manifests of the
// workload's build (cms). Empty when the container sets neither, or when the one PyTorch reads
// is known only in the cluster: a Secret, or a ConfigMap not among the manifests. An envFrom
// source that cannot be read is taken as setting neither: such sources usually carry tokens.
func pytorchAllocConf(c *container, o *object, cms configMaps) (conf, from string) {
	if c == nil {
		return "", ""
	}
	for _, name := range []string{"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"} {
		v, where, set := containerEnv(c, name, o, cms)
		if !set {
			continue
		}
		if v == nil {
			return "", ""
		}
		return *v, fmt.Sprintf("container %s's %s%s", c.Name, name, where)
	}
	return "", ""
}

// containerEnv is the value a container's environment gives name, as the kubelet builds it:
// set says the variable is there; value is nil when it is there but known only in the cluster;
// where says which ConfigMap gave it (" from ConfigMap ml/torch-env"), "" for a literal.
func containerEnv(c *container, name string, o *object, cms configMaps) (value *string, where string, set bool) {
	if v, set := envValue(&c.Env, name); set {
		if v != nil {
			return v, "", true
		}
		ref, ok := configMapKeyRef(&c.Env, name)
		if !ok {
			return nil, "", true // a Secret, a field or a resource: known only in the cluster
		}
		data, found := cms.lookup(o, ref.Name)
		if !found {
			return nil, "", true
		}
		if v, ok := data[ref.Key]; ok {
			return &v, fmt.Sprintf(" (from ConfigMap %s/%s, key %s)", o.namespace(), ref.Name, ref.Key), true
		}
		if ref.Optional {
			return nil, "", false // an optional key that is not there leaves the variable unset
		}
		return nil, "", true // the kubelet does not start the container
	}
	if c.EnvFrom.Kind != yaml.SequenceNode {
		return nil, "", false
	}
	for _, e := range c.EnvFrom.Content {
		var src struct {
			Prefix       string `yaml:"prefix"`
			ConfigMapRef *struct {
				Name string `yaml:"name"`
			} `yaml:"configMapRef"`
		}
		if e.Decode(&src) != nil || src.ConfigMapRef == nil || !strings.HasPrefix(name, src.Prefix) {
			continue
		}
		data, found := cms.lookup(o, src.ConfigMapRef.Name)
		if !found {
			continue
		}
		if v, ok := data[strings.TrimPrefix(name, src.Prefix)]; ok {
			value, where, set = &v, fmt.Sprintf(" (from ConfigMap %s/%s)", o.namespace(), src.ConfigMapRef.Name), true
		}
	}
	return value, where, set
}

// configMapKeyRef is the ConfigMap key the last env entry of name takes its value from.
func configMapKeyRef(n *yaml.Node, name string) (ref struct {
	Name     string `yaml:"name"`
	Key      string `yaml:"key"`
	Optional bool   `yaml:"optional"`
}, ok bool) {
	for _, e := range n.Content {
		var v struct {
			Name      string `yaml:"name"`
			ValueFrom struct {
				ConfigMapKeyRef *struct {
					Name     string `yaml:"name"`
					Key      string `yaml:"key"`
					Optional bool   `yaml:"optional"`
				} `yaml:"configMapKeyRef"`
			} `yaml:"valueFrom"`
		}
		if e.Decode(&v) != nil || v.Name != name {
			continue
		}
		ok = v.ValueFrom.ConfigMapKeyRef != nil
		if ok {
			ref.Name, ref.Key, ref.Optional = v.ValueFrom.ConfigMapKeyRef.Name, v.ValueFrom.ConfigMapKeyRef.Key, v.ValueFrom.ConfigMapKeyRef.Optional
		}
	}
	return ref, ok
}

// configMaps are the data of the ConfigMaps among the manifests, by build root and
// namespace/name: a workload reads those of its own build (kustomization or chart), as it is
// deployed with them.
type configMaps map[string]map[string]string

func (m configMaps) add(o *object) {
	data := map[string]string{}
	if n := o.topLevel("data"); n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := n.Content[i+1]; v.Kind == yaml.ScalarNode {
				data[n.Content[i].Value] = v.Value
			}
		}
	}
	m[o.root+"|"+o.namespace()+"/"+o.Metadata.Name] = data
}

// lookup is the data of the ConfigMap name in o's namespace and build.
func (m configMaps) lookup(o *object, name string) (map[string]string, bool) {
	data, ok := m[o.root+"|"+o.namespace()+"/"+name]
	return data, ok
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
