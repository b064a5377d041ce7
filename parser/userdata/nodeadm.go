package userdata

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// nodeConfig reads nodeadm's NodeConfig documents (apiVersion node.eks.aws/v1alpha1): the
// cluster's name, the kubelet's flags (spec.kubelet.flags, the same --node-labels and
// --register-with-taints as bootstrap.sh's), and spec.kubelet.config.registerWithTaints, the
// KubeletConfiguration field. nodeadm merges every NodeConfig it is given, in order
// (https://awslabs.github.io/amazon-eks-ami/nodeadm/doc/api/ and .../doc/examples/).
// typed says the text came as a NodeConfig part, where YAML that is not one is an error.
func (r *reader) nodeConfig(text string, typed bool) error {
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var doc struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
			Spec       struct {
				Cluster struct {
					Name string `yaml:"name"`
				} `yaml:"cluster"`
				Kubelet struct {
					Flags  []string `yaml:"flags"`
					Config struct {
						RegisterWithTaints []struct {
							Key    string `yaml:"key"`
							Value  string `yaml:"value"`
							Effect string `yaml:"effect"`
						} `yaml:"registerWithTaints"`
					} `yaml:"config"`
				} `yaml:"kubelet"`
			} `yaml:"spec"`
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if !typed {
				return nil // looked like a NodeConfig, is not YAML: not one
			}
			return fmt.Errorf("NodeConfig: %v", err)
		}
		if !strings.HasPrefix(doc.APIVersion, "node.eks.aws/") || doc.Kind != "NodeConfig" {
			continue
		}
		r.set(Nodeadm, doc.Spec.Cluster.Name)
		var flags []word
		for _, f := range doc.Spec.Kubelet.Flags {
			flags = append(flags, splitFields(word{text: f})...)
		}
		if err := r.kubeletFlags(flags); err != nil {
			return fmt.Errorf("NodeConfig spec.kubelet.flags: %v", err)
		}
		for _, t := range doc.Spec.Kubelet.Config.RegisterWithTaints {
			spec := t.Key + "=" + t.Value + ":" + t.Effect
			taint, err := parser.ParseTaint(spec)
			if err != nil {
				return fmt.Errorf("NodeConfig spec.kubelet.config.registerWithTaints: %v", err)
			}
			r.node.Taints = append(r.node.Taints, taint)
		}
	}
}
