package userdata

import (
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// finish reads the nodes the scripts launch (k3s, RKE2, kubeadm), now that every file the user
// data writes is known. The first way of joining a cluster is the node's (Reader.set). An error
// comes with the index of the text whose launch it is in.
func (r *reader) finish() (source int, err error) {
	for _, l := range r.launches {
		switch l.bootstrap {
		case K3s, RKE2:
			err = r.distribution(&l)
		case Kubeadm:
			err = r.kubeadm(&l)
		}
		if err != nil {
			return l.source, fmt.Errorf("line %d: %s: %v", l.line, l.bootstrap, err)
		}
		r.set(l.bootstrap, l.cluster)
		if r.files.unknownPath {
			// A file written where the script computes at boot may be its configuration.
			r.node.LabelsUnknown, r.node.TaintsUnknown = true, true
		}
	}
	return 0, nil
}

// distribution reads the labels and taints k3s or RKE2 registers its node with: node-label and
// node-taint in its configuration file (/etc/rancher/k3s/config.yaml or
// /etc/rancher/rke2/config.yaml unless --config or K3S_CONFIG_FILE names another), then in the
// .yaml and .yml files of config.yaml.d in the order of their names, where a key replaces the
// one before it and a key ending in + appends to it; then --node-label and --node-taint on the
// command line, which add to the files'; and the node-labels and register-with-taints of its
// kubelet-arg, in the files or on the command line. k3s hands them to the kubelet as --node-labels and
// --register-with-taints, so a value may hold several, separated by commas. (k3s
// pkg/configfilearg/parser.go, readConfigFile; https://docs.k3s.io/installation/configuration,
// "Configuration File".)
func (r *reader) distribution(l *launch) error {
	config := l.config
	if config == "" {
		config = "/etc/rancher/k3s/config.yaml"
		if l.bootstrap == RKE2 {
			config = "/etc/rancher/rke2/config.yaml"
		}
	}
	config = path.Clean(config)
	if computed(config) || r.files.unknown(config) || r.files.unknown(config+".d/*") {
		// Its name is computed, or it is copied or downloaded: what it says is not known.
		r.node.LabelsUnknown, r.node.TaintsUnknown = true, true
	}
	var names []string
	if _, ok := r.files.text[config]; ok {
		names = append(names, config)
	}
	names = append(names, r.files.dropIns(config+".d", ".yaml", ".yml")...)
	values := map[string][]string{}
	for _, name := range names {
		if err := configValues(r.files.text[name], values); err != nil {
			if computed(r.files.text[name]) {
				r.node.LabelsUnknown, r.node.TaintsUnknown = true, true // what the script writes there decides
				continue
			}
			return fmt.Errorf("%s: %v", name, err)
		}
	}
	labels, taints := values["node-label"], values["node-taint"]
	kubeletArgs := values["kubelet-arg"]
	if l.cluster == "" && len(values["server"]) == 1 && !computed(values["server"][0]) {
		l.cluster = values["server"][0]
	}
	for i := 0; i < len(l.flags); i++ {
		w := l.flags[i]
		name, value, inline := strings.Cut(w.text, "=")
		if name != "--node-label" && name != "--node-taint" && name != "--kubelet-arg" {
			if w.dynamic && !strings.HasPrefix(w.text, "-") { // may be any flags at all
				r.node.LabelsUnknown, r.node.TaintsUnknown = true, true
			}
			continue
		}
		dynamic := w.dynamic
		if !inline {
			if i+1 == len(l.flags) {
				return fmt.Errorf("%s has no value", name)
			}
			i++
			value, dynamic = l.flags[i].text, l.flags[i].dynamic
		}
		if dynamic {
			value = markComputed(word{text: value, dynamic: true})
		}
		switch name {
		case "--node-label":
			labels = append(labels, value)
		case "--node-taint":
			taints = append(taints, value)
		default:
			kubeletArgs = append(kubeletArgs, value)
		}
	}
	// A kubelet-arg hands the kubelet a flag of its own: node-labels and register-with-taints
	// (with or without their leading --, and + or - to add to k3s's own rather than replace them)
	// register the node with more labels and taints. k3s applies its node-label labels to the
	// node after it registers, so the node carries both. (k3s pkg/util/args.go, GetArgs;
	// https://docs.k3s.io/cli/agent, "Customized Flags".)
	for _, v := range labels {
		if err := r.nodeLabelsValue(v); err != nil {
			return fmt.Errorf("node-label: %v", strings.TrimPrefix(err.Error(), "kubelet flag --node-labels: "))
		}
	}
	for _, v := range taints {
		if err := r.taintsValue(v); err != nil {
			return fmt.Errorf("node-taint: %v", err)
		}
	}
	for _, a := range kubeletArgs {
		flag, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		var err error
		switch strings.TrimRight(flag, "+-") {
		case "node-labels":
			err = r.nodeLabelsValue(value)
		case "register-with-taints":
			err = r.taintsValue(value)
		}
		if err != nil {
			return fmt.Errorf("kubelet-arg %s: %v", flag, err)
		}
	}
	return nil
}

// configValues reads the keys gpuguard needs from a k3s or RKE2 configuration file into
// values: node-label, node-taint, kubelet-arg and server, each a list (a single value is a list of one); a
// key ending in + appends to the value before it.
func configValues(text string, values map[string][]string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return err
	}
	if len(doc.Content) == 0 {
		return nil // empty
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: the configuration is not a map of flags", m.Line)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, v := m.Content[i].Value, m.Content[i+1]
		appending := strings.HasSuffix(key, "+")
		key = strings.TrimSuffix(key, "+")
		if key != "node-label" && key != "node-taint" && key != "server" && key != "kubelet-arg" {
			continue
		}
		var list []string
		switch v.Kind {
		case yaml.SequenceNode:
			for _, e := range v.Content {
				if e.Kind != yaml.ScalarNode {
					return fmt.Errorf("line %d: %s: an entry is not text", e.Line, key)
				}
				list = append(list, e.Value)
			}
		case yaml.ScalarNode: // one value; empty (null) ones add no label or taint
			list = []string{strings.TrimSpace(v.Value)}
		default:
			return fmt.Errorf("line %d: %s is not a list", v.Line, key)
		}
		if appending {
			values[key] = append(values[key], list...)
		} else {
			values[key] = list
		}
	}
	return nil
}
