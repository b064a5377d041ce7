package kubernetes

import (
	"cmp"
	"fmt"
	"maps"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/userdata"
)

// The nodes of a Cluster API machine set carry two kinds of labels that pods select:
//   - those of its machines' labels (a MachineDeployment's spec.template.metadata.labels, a
//     Machine's own) that Cluster API syncs to the machine's node: the node-role.kubernetes.io/
//     prefix and the node-restriction.kubernetes.io and node.cluster.x-k8s.io domains
//     (https://cluster-api.sigs.k8s.io/reference/api/metadata-propagation, read 2026-11-27;
//     the label sync proposal, docs/proposals/20220927-label-sync-between-machine-and-nodes.md);
//   - those its bootstrap configuration registers the node with: a kubeadm
//     KubeadmConfigTemplate's (or a Machine's KubeadmConfig's) joinConfiguration.nodeRegistration,
//     the kubelet's node-labels in kubeletExtraArgs (a map in v1beta1, a list of name and value
//     in v1beta2) and its taints, or an EKSConfigTemplate's (CAPA's EKS bootstrap)
//     kubeletExtraArgs node-labels.
//
// A bootstrap configuration gpuguard does not read (another provider's, one not among the
// files, a bootstrap data secret) may register any label: the group is open to any selection,
// as a self-managed node group whose user data gpuguard cannot read is.

// capiBootstrap is a machine's bootstrap: a configuration reference, or a secret of ready data.
type capiBootstrap struct {
	ConfigRef      capiRef `yaml:"configRef"`
	DataSecretName string  `yaml:"dataSecretName"`
}

// capiSyncedLabel reports whether Cluster API syncs a machine's label to its node.
func capiSyncedLabel(key string) bool {
	if strings.HasPrefix(key, "node-role.kubernetes.io/") {
		return true
	}
	domain, _, named := strings.Cut(key, "/")
	if !named {
		return false
	}
	for _, d := range []string{"node-restriction.kubernetes.io", "node.cluster.x-k8s.io"} {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}

// capiNodeLabels returns the labels and taints of a machine set's nodes. A label the kubelet refuses to register its node with is an error at the
// bootstrap configuration (those nodes never join), added to errs.
func capiNodeLabels(machineLabels map[string]string, b capiBootstrap, o *object, ix capiIndex, errs *[]parser.Error) *parser.NodeLabels {
	nl := &parser.NodeLabels{Labels: map[string]string{}}
	for k, v := range machineLabels {
		if capiSyncedLabel(k) {
			nl.Labels[k] = v
		}
	}
	// open marks the labels and taints the bootstrap registers as unknown: any selection may
	// pick the group, and its taints may keep pods off.
	open := func() *parser.NodeLabels {
		nl.Partial, nl.TaintsUnknown = true, true
		return nl
	}
	switch {
	case b.ConfigRef.Kind == "" && b.DataSecretName != "":
		return open()
	case b.ConfigRef.Kind == "":
		return nl
	}
	cfg, found := ix[b.ConfigRef.key(o)]
	if !found {
		return open()
	}
	var reg userdata.NodeRegistration
	var err error
	switch cfg.Kind {
	case "KubeadmConfigTemplate":
		var s struct {
			Template struct {
				Spec struct {
					JoinConfiguration struct {
						NodeRegistration userdata.NodeRegistration `yaml:"nodeRegistration"`
					} `yaml:"joinConfiguration"`
				} `yaml:"spec"`
			} `yaml:"template"`
		}
		err = decodeSpec(cfg, &s)
		reg = s.Template.Spec.JoinConfiguration.NodeRegistration
	case "KubeadmConfig":
		var s struct {
			JoinConfiguration struct {
				NodeRegistration userdata.NodeRegistration `yaml:"nodeRegistration"`
			} `yaml:"joinConfiguration"`
		}
		err = decodeSpec(cfg, &s)
		reg = s.JoinConfiguration.NodeRegistration
	case "EKSConfigTemplate":
		var s struct {
			Template struct {
				Spec struct {
					KubeletExtraArgs userdata.KubeletArgs `yaml:"kubeletExtraArgs"`
				} `yaml:"spec"`
			} `yaml:"template"`
		}
		err = decodeSpec(cfg, &s)
		reg.KubeletExtraArgs = s.Template.Spec.KubeletExtraArgs
	case "EKSConfig":
		var s struct {
			KubeletExtraArgs userdata.KubeletArgs `yaml:"kubeletExtraArgs"`
		}
		err = decodeSpec(cfg, &s)
		reg.KubeletExtraArgs = s.KubeletExtraArgs
	default:
		return open()
	}
	if err != nil {
		*errs = append(*errs, specError(cfg, err))
		return open()
	}
	labels, taints, err := reg.Registered()
	if err != nil {
		*errs = append(*errs, parser.Error{File: cfg.file, Line: cfg.line, Message: fmt.Sprintf("%s: %v", cfg.address(), err)})
		return nl
	}
	maps.Copy(nl.Labels, labels)
	nl.Taints = append(nl.Taints, taints...)
	return nl
}

// capiTaint is a taint a managed pool declares: CAPA writes its effect as no-schedule,
// no-execute or prefer-no-schedule (api/v1beta2 TaintEffect), CAPZ and CAPG as Kubernetes does.
type capiTaint struct {
	Key    string `yaml:"key"`
	Value  string `yaml:"value"`
	Effect string `yaml:"effect"`
}

// AKSSpotTaint is the taint AKS puts on a spot pool's nodes, however the pool is declared
// (https://learn.microsoft.com/azure/aks/spot-node-pool).
var AKSSpotTaint = parser.Taint{Key: labelAKSPriority, Value: "spot", Effect: "NoSchedule"}

// capaTaintEffects are Kubernetes' names for CAPA's taint effects.
var capaTaintEffects = map[string]string{"no-schedule": "NoSchedule", "no-execute": "NoExecute", "prefer-no-schedule": "PreferNoSchedule"}

// managedPoolLabels are the labels and taints a managed pool's cloud registers its nodes with
// (the pool's own configuration, not a bootstrap's): its name under the labels the cloud names
// groups by, its capacity's labels (SetCapacity) and AKS's spot taint, and the labels and taints
// the pool declares. A name known only by how it starts (CAPA's hashed name) is a prefix.
func managedPoolLabels(provider string, name groupName, capacity Capacity, labels map[string]string, taints []capiTaint) *parser.NodeLabels {
	nl := &parser.NodeLabels{Labels: maps.Clone(labels)}
	if nl.Labels == nil {
		nl.Labels = map[string]string{}
	}
	names := nl.Labels
	if name.prefix != "" {
		nl.Prefixes = map[string]string{}
		names = nl.Prefixes
	}
	for _, k := range groupNameLabels[provider] {
		names[k] = cmp.Or(name.prefix, name.name)
	}
	SetCapacity(nl, provider, capacity, true)
	for _, t := range taints {
		nl.Taints = append(nl.Taints, parser.Taint{Key: t.Key, Value: t.Value, Effect: cmp.Or(capaTaintEffects[t.Effect], t.Effect)})
	}
	if provider == parser.Azure && capacity == CapacitySpot {
		nl.Taints = append(nl.Taints, AKSSpotTaint)
	}
	return nl
}

// groupName is a managed pool's name, or how the name its controller generates starts.
type groupName struct{ name, prefix string }

// eksNodegroupName is the name of the EKS node group of a CAPA AWSManagedMachinePool: its
// spec.eksNodegroupName, else the one CAPA's webhook generates, namespace_name with the name's
// dots made underscores, or "capa_" and a hash when that is 64 characters or more
// (exp/api/v1beta2/awsmanagedmachinepool_webhook.go Default and pkg/eks GenerateEKSName, read
// 2026-11-27). For a pool a managed topology creates, whose name ends in a random suffix, only
// how the name starts is known.
func eksNodegroupName(spec string, o *object) groupName {
	if spec != "" {
		return groupName{name: spec}
	}
	name, suffix := o.Metadata.Name, 0
	if g := o.Metadata.GenerateName; g != "" {
		name, suffix = g, generatedSuffix
	}
	name = o.namespace() + "_" + strings.ReplaceAll(name, ".", "_")
	switch {
	case len(name)+suffix >= 64:
		return groupName{prefix: "capa_"}
	case suffix > 0:
		return groupName{prefix: name}
	}
	return groupName{name: name}
}

// generatedSuffix is how many random characters Cluster API adds to a generated name
// (apiserver's SimpleNameGenerator, which its topology controller uses).
const generatedSuffix = 5

// poolName is a managed pool's name: the one it declares, else its object's name, which for
// an object a managed topology creates is known only by how it starts.
func poolName(declared string, o *object) groupName {
	switch {
	case declared != "":
		return groupName{name: declared}
	case o.Metadata.GenerateName != "":
		return groupName{prefix: o.Metadata.GenerateName}
	}
	return groupName{name: o.Metadata.Name}
}

// mergePoolLabels adds what a managed pool's cloud registers its nodes with to the labels and
// taints a machine set's nodes carry otherwise.
func mergePoolLabels(nl, pool *parser.NodeLabels) {
	maps.Copy(nl.Labels, pool.Labels)
	for k, p := range pool.Prefixes {
		if nl.Prefixes == nil {
			nl.Prefixes = map[string]string{}
		}
		nl.Prefixes[k] = p
	}
	nl.Without = append(nl.Without, pool.Without...)
	nl.Taints = append(nl.Taints, pool.Taints...)
}
