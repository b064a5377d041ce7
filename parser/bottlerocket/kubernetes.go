package bottlerocket

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpuguard/gpuguard/parser"
)

// Node is what Bottlerocket settings say of the Kubernetes node they boot
// (settings.kubernetes): the cluster it joins, and the labels and taints it registers with.
// node-labels maps each key to its value; node-taints maps each key to "value:Effect", or to a
// list of them for one key with several effects.
// https://bottlerocket.dev/en/os/1.54.x/api/settings/kubernetes/ (node-labels, node-taints).
type Node struct {
	Cluster string
	Labels  map[string]string
	Taints  []parser.Taint
}

// ReadNode parses Bottlerocket settings (TOML, or its base64). ok says whether they set
// settings.kubernetes at all: TOML without it is not a Kubernetes node's. Labels or taints that
// are not text, and taints that are not value:Effect, are errors.
func ReadNode(userData string) (n Node, ok bool, err error) {
	s, err := DecodeSettings(userData)
	if err != nil {
		return Node{}, false, err
	}
	return s.Node()
}

// Node reads what the settings say of the Kubernetes node; ok as ReadNode's.
func (s Settings) Node() (n Node, ok bool, err error) {
	k := s.kubernetes
	if k == nil {
		return Node{}, false, nil
	}
	n.Cluster, _ = k["cluster-name"].(string)
	if v, set := k["node-labels"]; set {
		labels, isTable := v.(map[string]any)
		if !isTable {
			return Node{}, false, fmt.Errorf("settings.kubernetes.node-labels is %v, not a table of labels", v)
		}
		n.Labels = make(map[string]string, len(labels))
		for key, value := range labels {
			s, isText := value.(string)
			if !isText {
				return Node{}, false, fmt.Errorf("settings.kubernetes.node-labels.%q is %v, not text", key, value)
			}
			n.Labels[key] = s
		}
	}
	if v, set := k["node-taints"]; set {
		taints, isTable := v.(map[string]any)
		if !isTable {
			return Node{}, false, fmt.Errorf("settings.kubernetes.node-taints is %v, not a table of taints", v)
		}
		for _, key := range slices.Sorted(maps.Keys(taints)) {
			var specs []any
			switch t := taints[key].(type) {
			case string:
				specs = []any{t}
			case []any:
				specs = t
			}
			if len(specs) == 0 {
				return Node{}, false, fmt.Errorf("settings.kubernetes.node-taints.%q is %v, not \"value:Effect\" or a list of them", key, taints[key])
			}
			for _, spec := range specs {
				s, isText := spec.(string)
				if !isText {
					return Node{}, false, fmt.Errorf("settings.kubernetes.node-taints.%q has %v, not \"value:Effect\"", key, spec)
				}
				t, err := parser.ParseTaint(key + "=" + s)
				if err != nil {
					return Node{}, false, fmt.Errorf("settings.kubernetes.node-taints.%q: %v", key, err)
				}
				n.Taints = append(n.Taints, t)
			}
		}
	}
	return n, true, nil
}
