package userdata

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// word is a shell word, with whether some of it is computed at boot (a variable gpuguard cannot
// read, a command substitution); computed marks those bytes of text, so that splitting the word
// keeps the pieces without them known.
type word struct {
	text     string
	dynamic  bool
	computed []bool // nil unless dynamic
}

// kubeletFlags reads the kubelet flags among words (bootstrap.sh's --kubelet-extra-args, a
// NodeConfig's spec.kubelet.flags): --node-labels=k=v,... and --register-with-taints=k=v:Effect,...,
// either as one word or followed by their value. The kubelet merges repeated flags.
func (r *reader) kubeletFlags(words []word) error {
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, value, inline := strings.Cut(w.text, "=")
		if name != "--node-labels" && name != "--register-with-taints" {
			if strings.HasPrefix(w.text, "-") || !w.dynamic {
				continue
			}
			// A computed word may be any flags at all.
			r.node.LabelsUnknown, r.node.TaintsUnknown = true, true
			continue
		}
		dynamic := w.dynamic
		if !inline {
			if i+1 == len(words) {
				return fmt.Errorf("kubelet flag %s has no value", name)
			}
			i++
			value, dynamic = words[i].text, words[i].dynamic
		}
		if name == "--node-labels" {
			if err := r.nodeLabelsValue(value); err != nil {
				return err
			}
			continue
		}
		if dynamic {
			r.node.TaintsUnknown = true
			continue
		}
		if err := r.taintsValue(value); err != nil {
			return fmt.Errorf("kubelet flag --register-with-taints: %v", err)
		}
	}
	return nil
}

// taintsValue adds the taints of a --register-with-taints value (or of k3s's node-taint):
// key=value:Effect, separated by commas. One computed at boot makes the taints unknown.
func (r *reader) taintsValue(value string) error {
	if computed(value) {
		r.node.TaintsUnknown = true
		return nil
	}
	for spec := range strings.SplitSeq(value, ",") {
		if strings.TrimSpace(spec) == "" {
			continue
		}
		t, err := parser.ParseTaint(spec)
		if err != nil {
			return err
		}
		r.node.Taints = append(r.node.Taints, t)
	}
	return nil
}

// computed says whether text holds what is computed at boot: a script's expansion ("\x00", see
// expandOne) or a written file's (computedMark).
func computed(text string) bool {
	return strings.Contains(text, "\x00") || strings.Contains(text, computedMark)
}

// nodeLabelsValue adds the labels of a --node-labels value (or of k3s's node-label) that may
// hold what is computed at boot: a label whose name is known and whose value is computed is
// among UnknownValues; one whose name is computed makes any label possible (LabelsUnknown).
func (r *reader) nodeLabelsValue(value string) error {
	var known []string
	for pair := range strings.SplitSeq(value, ",") {
		if !computed(pair) {
			known = append(known, pair)
			continue
		}
		k, _, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || computed(k) {
			r.node.LabelsUnknown = true
			continue
		}
		if !selfLabelAllowed(k) {
			_, err := nodeLabels(k + "=")
			return err
		}
		delete(r.node.Labels, k)
		if !slices.Contains(r.node.UnknownValues, k) {
			r.node.UnknownValues = append(r.node.UnknownValues, k)
		}
	}
	labels, err := nodeLabels(strings.Join(known, ","))
	if err != nil {
		return err
	}
	for k := range labels {
		r.node.UnknownValues = slices.DeleteFunc(r.node.UnknownValues, func(u string) bool { return u == k })
	}
	r.labels(labels)
	return nil
}

// nodeLabels reads --node-labels: key=value pairs separated by commas. The kubelet refuses to
// start with a label under kubernetes.io or k8s.io that is not one a node may set on itself
// (the kubelet's flag validation, k8s.io/kubernetes cmd/kubelet/app/options, over
// IsKubeletLabel in k8s.io/kubelet pkg/apis/well_known_labels.go).
func nodeLabels(value string) (map[string]string, error) {
	out := map[string]string{}
	for pair := range strings.SplitSeq(value, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("kubelet flag --node-labels: %q is not key=value", pair)
		}
		if !selfLabelAllowed(k) {
			return nil, fmt.Errorf("kubelet flag --node-labels: the kubelet refuses to start with %s: a node may set labels under kubernetes.io or k8s.io only with the prefixes kubelet.kubernetes.io/ and node.kubernetes.io/, or the well-known ones (node.kubernetes.io/instance-type, topology.kubernetes.io/zone, ...)", k)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// allowedSelfLabels are the labels under kubernetes.io a kubelet may set on its own node
// (well_known_labels.go, kubeletLabels); kubelet.kubernetes.io and node.kubernetes.io are its
// kubeletLabelNamespaces.
var allowedSelfLabels = map[string]bool{
	"kubernetes.io/hostname": true, "topology.kubernetes.io/zone": true, "topology.kubernetes.io/region": true,
	"failure-domain.beta.kubernetes.io/zone": true, "failure-domain.beta.kubernetes.io/region": true,
	"node.kubernetes.io/instance-type": true, "beta.kubernetes.io/instance-type": true,
	"kubernetes.io/os": true, "kubernetes.io/arch": true, "beta.kubernetes.io/os": true, "beta.kubernetes.io/arch": true,
}

// selfLabelAllowed says whether a kubelet may register its node with the label key.
func selfLabelAllowed(key string) bool {
	prefix, _, named := strings.Cut(key, "/")
	if !named {
		return true
	}
	prefix = strings.ToLower(prefix)
	inK8s := prefix == "kubernetes.io" || strings.HasSuffix(prefix, ".kubernetes.io") || prefix == "k8s.io" || strings.HasSuffix(prefix, ".k8s.io")
	if !inK8s || allowedSelfLabels[key] {
		return true
	}
	return prefix == "kubelet.kubernetes.io" || strings.HasSuffix(prefix, ".kubelet.kubernetes.io") ||
		prefix == "node.kubernetes.io" || strings.HasSuffix(prefix, ".node.kubernetes.io")
}
