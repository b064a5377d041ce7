package kubernetes

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// pytorchAllocConf is the PyTorch caching-allocator settings the container that uses the pod's
// GPUs (gpuContainer) starts with, and where they come from ("container trainer's
// PYTORCH_ALLOC_CONF"): PyTorch 2.9 and later read PYTORCH_ALLOC_CONF, else the older
// PYTORCH_CUDA_ALLOC_CONF (c10 AllocatorConfig::instance); a variable set to an empty value
// still wins. The variables come from the container's environment (environment). Empty when
// the container sets neither, or when the one PyTorch reads is known only in the cluster.
func pytorchAllocConf(c *container, o *object, cms configMaps) (conf, from string) {
	if c == nil {
		return "", ""
	}
	env := environment(c, o, cms)
	for _, name := range []string{"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"} {
		v, set := env[name]
		if !set {
			continue
		}
		if v.value == nil {
			return "", ""
		}
		return *v.value, fmt.Sprintf("container %s's %s%s", c.Name, name, v.where)
	}
	return "", ""
}

// envVar is one variable of a container's environment: its value, nil when it is known only in
// the cluster; where says which ConfigMap gave it (" (from ConfigMap ml/torch-env)"), "" for a
// literal.
type envVar struct {
	value *string
	where string
}

// environment is a container's environment as the kubelet builds it: its envFrom sources in
// order, a later one winning, then its env entries, which win over them, the last of a name
// winning. A ConfigMap's values are read when the ConfigMap is among the manifests of the
// workload's build and namespace (cms); an envFrom source that cannot be read (a Secret, a
// ConfigMap not among the manifests) is taken as setting nothing, since such sources usually
// carry tokens. An env entry from a Secret, a field, a resource or a ConfigMap not among the
// manifests is set to a value known only in the cluster; one from an optional ConfigMap key
// that is not there is not set.
func environment(c *container, o *object, cms configMaps) map[string]envVar {
	env := map[string]envVar{}
	if c.EnvFrom.Kind == yaml.SequenceNode {
		for _, e := range c.EnvFrom.Content {
			var src struct {
				Prefix       string `yaml:"prefix"`
				ConfigMapRef *struct {
					Name string `yaml:"name"`
				} `yaml:"configMapRef"`
			}
			if e.Decode(&src) != nil || src.ConfigMapRef == nil {
				continue
			}
			data, found := cms.lookup(o, src.ConfigMapRef.Name)
			if !found {
				continue
			}
			where := fmt.Sprintf(" (from ConfigMap %s/%s)", o.namespace(), src.ConfigMapRef.Name)
			for k, v := range data {
				env[src.Prefix+k] = envVar{value: &v, where: where}
			}
		}
	}
	if c.Env.Kind != yaml.SequenceNode {
		return env
	}
	for _, e := range c.Env.Content {
		var v struct {
			Name      string  `yaml:"name"`
			Value     *string `yaml:"value"`
			ValueFrom *struct {
				ConfigMapKeyRef *struct {
					Name     string `yaml:"name"`
					Key      string `yaml:"key"`
					Optional bool   `yaml:"optional"`
				} `yaml:"configMapKeyRef"`
			} `yaml:"valueFrom"`
		}
		if e.Decode(&v) != nil || v.Name == "" {
			continue
		}
		switch {
		case v.Value != nil:
			env[v.Name] = envVar{value: v.Value}
		case v.ValueFrom == nil && !hasKey(e, "valueFrom"):
			empty := "" // name only: the variable is set, to nothing
			env[v.Name] = envVar{value: &empty}
		case v.ValueFrom == nil || v.ValueFrom.ConfigMapKeyRef == nil:
			env[v.Name] = envVar{} // a Secret, a field or a resource: known only in the cluster
		default:
			ref := v.ValueFrom.ConfigMapKeyRef
			data, found := cms.lookup(o, ref.Name)
			val, ok := data[ref.Key]
			switch {
			case ok:
				env[v.Name] = envVar{value: &val, where: fmt.Sprintf(" (from ConfigMap %s/%s, key %s)", o.namespace(), ref.Name, ref.Key)}
			case found && ref.Optional:
				delete(env, v.Name) // an optional key that is not there leaves the variable unset
			default:
				env[v.Name] = envVar{} // not among the manifests, or the kubelet does not start the container
			}
		}
	}
	return env
}

// knownEnv is the variables of an environment whose values are known.
func knownEnv(env map[string]envVar) map[string]string {
	out := make(map[string]string, len(env))
	for k, v := range env {
		if v.value != nil {
			out[k] = *v.value
		}
	}
	return out
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

func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}
