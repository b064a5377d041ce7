package userdata

import (
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// KubeletArgs are kubeadm's kubeletExtraArgs: a map (kubeadm.k8s.io/v1beta3, Cluster API's
// v1beta1) or a list of {name, value} (v1beta4, Cluster API's v1beta2).
type KubeletArgs struct {
	Values map[string]string
}

func (a *KubeletArgs) UnmarshalYAML(n *yaml.Node) error {
	a.Values = map[string]string{}
	if n.Kind == yaml.SequenceNode {
		var list []struct {
			Name  string `yaml:"name"`
			Value string `yaml:"value"`
		}
		if err := n.Decode(&list); err != nil {
			return err
		}
		for _, e := range list {
			a.Values[e.Name] = e.Value // the kubelet takes the last of a flag given twice
		}
		return nil
	}
	return n.Decode(&a.Values)
}

// NodeRegistration is kubeadm's NodeRegistrationOptions, as far as a node's labels and taints
// go: the kubelet's node-labels among its extra arguments, and the taints it registers with.
type NodeRegistration struct {
	KubeletExtraArgs KubeletArgs `yaml:"kubeletExtraArgs"`
	Taints           []struct {
		Key    string `yaml:"key"`
		Value  string `yaml:"value"`
		Effect string `yaml:"effect"`
	} `yaml:"taints"`
}

// kubeadm reads the labels and taints of a node kubeadm join registers: its JoinConfiguration's
// nodeRegistration (the file --config names), which kubeadm hands to the kubelet as
// KUBELET_KUBEADM_ARGS, then KUBELET_EXTRA_ARGS, which kubeadm's kubelet service passes after
// them, from /etc/default/kubelet, /etc/sysconfig/kubelet or an Environment= line of a
// kubelet.service.d drop-in (https://kubernetes.io/docs/setup/production-environment/tools/kubeadm/kubelet-integration/).
// A configuration file the user data does not write is not known.
func (r *reader) kubeadm(l *launch) error {
	switch text, written := r.files.text[path.Clean(l.config)]; {
	case l.config == "":
	case !written:
		r.node.LabelsUnknown, r.node.TaintsUnknown = true, true
	default:
		if err := r.joinConfiguration(text, l); err != nil {
			if !strings.Contains(text, computedMark) {
				return fmt.Errorf("%s: %v", l.config, err)
			}
			r.node.LabelsUnknown, r.node.TaintsUnknown = true, true
		}
	}
	var envs []string
	for _, name := range []string{"/etc/default/kubelet", "/etc/sysconfig/kubelet"} {
		if text, ok := r.files.text[name]; ok {
			envs = append(envs, text)
		}
		if r.files.unknown(name) {
			r.node.LabelsUnknown, r.node.TaintsUnknown = true, true
		}
	}
	var dropIns []string
	for _, dir := range []string{"/etc/systemd/system/kubelet.service.d", "/usr/lib/systemd/system/kubelet.service.d", "/lib/systemd/system/kubelet.service.d"} {
		dropIns = append(dropIns, r.files.dropIns(dir, ".conf")...)
		if r.files.unknown(dir + "/*") {
			r.node.LabelsUnknown, r.node.TaintsUnknown = true, true
		}
	}
	slices.SortFunc(dropIns, func(a, b string) int { return strings.Compare(path.Base(a), path.Base(b)) })
	for _, name := range dropIns {
		// Environment="NAME=value" ...: systemd quotes whole assignments, which become the
		// environment file's NAME='value' lines.
		var env strings.Builder
		for line := range strings.SplitSeq(r.files.text[name], "\n") {
			rest, ok := strings.CutPrefix(strings.TrimSpace(line), "Environment=")
			if !ok {
				continue
			}
			commands, err := shellCommands(rest)
			if err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			for _, cmd := range commands {
				for _, w := range cmd.words {
					if n, v, ok := strings.Cut(w.text, "="); ok && !w.dynamic {
						env.WriteString(n + "='" + strings.ReplaceAll(v, "'", `'\''`) + "'\n")
					}
				}
			}
		}
		envs = append(envs, env.String())
	}
	for _, text := range envs {
		if err := r.kubeletExtraArgs(text); err != nil {
			return err
		}
	}
	return nil
}

// joinConfiguration reads a kubeadm configuration file's JoinConfiguration: the labels and
// taints of its nodeRegistration, and the API server it discovers the cluster by. A control
// plane node (controlPlane set) without taints gets kubeadm's control-plane taint.
func (r *reader) joinConfiguration(text string, l *launch) error {
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var doc struct {
			APIVersion       string           `yaml:"apiVersion"`
			Kind             string           `yaml:"kind"`
			NodeRegistration NodeRegistration `yaml:"nodeRegistration"`
			ControlPlane     *yaml.Node       `yaml:"controlPlane"`
			Discovery        struct {
				BootstrapToken struct {
					APIServerEndpoint string `yaml:"apiServerEndpoint"`
				} `yaml:"bootstrapToken"`
			} `yaml:"discovery"`
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !strings.HasPrefix(doc.APIVersion, "kubeadm.k8s.io/") || doc.Kind != "JoinConfiguration" {
			continue
		}
		if e := doc.Discovery.BootstrapToken.APIServerEndpoint; e != "" && !computed(e) {
			l.cluster = e
		}
		labels, taints, err := doc.NodeRegistration.Registered()
		if err != nil {
			return fmt.Errorf("nodeRegistration: %v", err)
		}
		if v := doc.NodeRegistration.KubeletExtraArgs.Values["node-labels"]; computed(v) {
			if err := r.nodeLabelsValue(v); err != nil {
				return fmt.Errorf("nodeRegistration: %v", err)
			}
		} else {
			r.labels(labels)
		}
		if doc.ControlPlane != nil && doc.NodeRegistration.Taints == nil {
			taints = []parser.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: "NoSchedule"}}
		}
		r.node.Taints = append(r.node.Taints, taints...)
	}
}

// Registered returns the labels and taints a node registration gives the node: node-labels in
// the kubelet's extra arguments (a label the kubelet refuses is an error) and the taints, with
// Kubernetes' effects.
func (n NodeRegistration) Registered() (map[string]string, []parser.Taint, error) {
	labels := map[string]string{}
	if v, ok := n.KubeletExtraArgs.Values["node-labels"]; ok && !computed(v) {
		var err error
		if labels, err = nodeLabels(v); err != nil {
			return nil, nil, err
		}
	}
	var taints []parser.Taint
	for _, t := range n.Taints {
		taint, err := parser.ParseTaint(t.Key + "=" + t.Value + ":" + t.Effect)
		if err != nil {
			return nil, nil, fmt.Errorf("taints: %v", err)
		}
		taints = append(taints, taint)
	}
	return labels, taints, nil
}

// kubeletExtraArgs reads KUBELET_EXTRA_ARGS from an environment file (NAME=value lines, quoted
// as the shell quotes them) and the kubelet flags in it.
func (r *reader) kubeletExtraArgs(text string) error {
	commands, err := shellCommands(text)
	if err != nil {
		return err
	}
	vars := map[string]*word{}
	for _, cmd := range commands {
		assigned(cmd, vars)
	}
	v, ok := vars["KUBELET_EXTRA_ARGS"]
	if !ok {
		return nil
	}
	flags := splitFields(*v)
	for i := range flags {
		if strings.Contains(flags[i].text, computedMark) {
			flags[i].dynamic = true
		}
	}
	if err := r.kubeletFlags(flags); err != nil {
		return fmt.Errorf("KUBELET_EXTRA_ARGS: %v", err)
	}
	return nil
}
