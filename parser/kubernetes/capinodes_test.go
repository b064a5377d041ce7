package kubernetes

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// podOnGroups builds manifests without errors and returns the result, its pod, and the node
// groups the pod runs on, their addresses joined.
func podOnGroups(t *testing.T, manifests string) (parser.Result, parser.Resource, string) {
	t.Helper()
	res := build(t, manifests, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	for _, r := range res.Resources {
		if r.Pod == nil {
			continue
		}
		groups := ""
		for _, g := range r.Pod.NodeGroups {
			groups += g.Address
		}
		return res, r, groups
	}
	t.Fatalf("no pod among %d resources", len(res.Resources))
	return res, parser.Resource{}, ""
}

// capiCluster is an AWS cluster with two GPU MachineDeployments: "train" (g5.12xlarge) labelled
// through its machines' node-role label, which Cluster API syncs to the nodes, and through its
// KubeadmConfigTemplate's node-labels (v1beta1, a map), tainted for training; "serve"
// (g6.xlarge) labelled through a v1beta2 KubeadmConfigTemplate (a list of kubelet arguments).
// extra is appended.
func capiCluster(extra string) string {
	md := func(name, typ, config string) string {
		return `---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: ` + name + `, namespace: ml}
spec:
  clusterName: c
  replicas: 2
  template:
    metadata:
      labels: {node-role.kubernetes.io/` + name + `: "", team: ml}
    spec:
      clusterName: c
      bootstrap:
        configRef: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: KubeadmConfigTemplate, name: ` + config + `}
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: AWSMachineTemplate, name: ` + name + `}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSMachineTemplate
metadata: {name: ` + name + `, namespace: ml}
spec:
  template:
    spec: {instanceType: ` + typ + `}
`
	}
	return `apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c, namespace: ml}
spec:
  infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: AWSCluster, name: c}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSCluster
metadata: {name: c, namespace: ml}
spec: {region: us-west-2}
` + md("train", "g5.12xlarge", "train-workers") + md("serve", "g6.xlarge", "serve-workers") + `---
apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
kind: KubeadmConfigTemplate
metadata: {name: train-workers, namespace: ml}
spec:
  template:
    spec:
      joinConfiguration:
        nodeRegistration:
          kubeletExtraArgs: {node-labels: "workload=train,node.kubernetes.io/accelerator=a10g"}
          taints: [{key: dedicated, value: training, effect: NoSchedule}]
---
apiVersion: bootstrap.cluster.x-k8s.io/v1beta2
kind: KubeadmConfigTemplate
metadata: {name: serve-workers, namespace: ml}
spec:
  template:
    spec:
      joinConfiguration:
        nodeRegistration:
          kubeletExtraArgs:
            - {name: v, value: "2"}
            - {name: node-labels, value: "workload=serve"}
` + extra
}

// A GPU pod that selects the nodes of a Cluster API MachineDeployment, by a label the kubelet
// registers them with (kubeadm's node-labels) or one Cluster API syncs from the machines, runs
// on them: it is priced as its share of their type and counted within the machine set, as pods
// on an EKS node group are. A machine label Cluster API does not sync selects nothing; the
// training taint keeps off a pod that does not tolerate it; a machine set whose bootstrap is
// not among the files may carry any label.
func TestPodsSelectClusterAPIMachineSets(t *testing.T) {
	const tolerate = "  tolerations: [{key: dedicated, operator: Exists}]\n"
	// other is a machine set of the serving machines bootstrapped as bootstrap says, whose
	// labels are not known.
	other := func(bootstrap string) string {
		return `---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: other, namespace: ml}
spec:
  clusterName: c
  replicas: 1
  template:
    spec:
      bootstrap: {` + bootstrap + `}
      infrastructureRef: {kind: AWSMachineTemplate, name: serve}
`
	}
	const mayCarry = "the pod selects workload=batch; MachineDeployment/ml/other in m.yaml may carry it (some of its labels are known only at apply or boot)"
	for _, tc := range []struct {
		name, extra, spec string
		group, typ, says  string
	}{
		{name: "kubeadm node-labels", spec: "  nodeSelector: {workload: serve}", group: "MachineDeployment/ml/serve", typ: "g6.xlarge"},
		{name: "kubeadm node-labels, tolerating the taint", spec: "  nodeSelector: {workload: train}\n" + tolerate, group: "MachineDeployment/ml/train", typ: "g5.12xlarge"},
		{name: "a synced machine label", spec: "  nodeSelector: {node-role.kubernetes.io/train: \"\"}\n" + tolerate, group: "MachineDeployment/ml/train", typ: "g5.12xlarge"},
		{name: "a node.kubernetes.io label the kubelet may set", spec: "  nodeSelector: {node.kubernetes.io/accelerator: a10g}\n" + tolerate, group: "MachineDeployment/ml/train", typ: "g5.12xlarge"},
		{name: "the taint keeps the pod off", spec: "  nodeSelector: {workload: train}", group: "MachineDeployment/ml/train", typ: "g5.12xlarge",
			says: "do not tolerate the taints of the node groups that carry it"},
		{name: "a machine label that is not synced", spec: "  nodeSelector: {team: ml}", says: "the pod names no node"},
		{name: "a bootstrap not among the files", extra: other("configRef: {kind: TalosConfigTemplate, name: other}"), spec: "  nodeSelector: {workload: batch}", says: mayCarry},
		{name: "a bootstrap data secret", extra: other("dataSecretName: other-bootstrap"), spec: "  nodeSelector: {workload: batch}", says: mayCarry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, r, groups := podOnGroups(t, capiCluster(tc.extra)+"---\n"+gpuPod(tc.spec))
			if groups != tc.group || tc.typ != "" && r.InstanceType != tc.typ {
				t.Errorf("pod on %q as %s, want %q as %s; source %q, notes %q", groups, r.InstanceType, tc.group, tc.typ, r.Pod.NodeSource, r.Notes)
			}
			if tc.says != "" && !says(r, tc.says) && !slices.ContainsFunc(res.Warnings, func(e parser.Error) bool { return strings.Contains(e.Message, tc.says) }) {
				t.Errorf("nothing says %q: source %q, notes %q, unresolved %+v, warnings %v", tc.says, r.Pod.NodeSource, r.Notes, r.Unresolved, res.Warnings)
			}
		})
	}
}

// A node-labels the kubelet refuses (a role label: only Cluster API may set it, from the
// machine's labels) is an error at the bootstrap configuration, as at a launch template: those
// nodes never join. The machine set is still priced.
func TestClusterAPIRefusedNodeLabel(t *testing.T) {
	src := strings.Replace(capiCluster(""), `node-labels: "workload=train,node.kubernetes.io/accelerator=a10g"`, `node-labels: "node-role.kubernetes.io/train="`, 1)
	res := build(t, src, Options{})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "KubeadmConfigTemplate/ml/train-workers: kubelet flag --node-labels: the kubelet refuses to start with node-role.kubernetes.io/train") ||
		res.Errors[0].Line == 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	if len(res.Resources) != 2 {
		t.Errorf("%d resources, want both machine sets priced", len(res.Resources))
	}
}

// The bootstrap kinds gpuguard reads: a Machine's KubeadmConfig, CAPA's EKSConfigTemplate and a
// Machine's EKSConfig (kubeletExtraArgs node-labels), and the node.cluster.x-k8s.io and
// node-restriction.kubernetes.io domains Cluster API syncs from a Machine's own labels. A
// bootstrap of a kind gpuguard does not read (Talos), among the files, may register any label.
func TestClusterAPIBootstrapKinds(t *testing.T) {
	machine := func(kind, name, typ, labels, config string) string {
		infra := "AWSMachine"
		if kind != "Machine" {
			infra = "AWSMachineTemplate"
		}
		spec := `  clusterName: c
  bootstrap:
    configRef: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: ` + config + `, name: ` + name + `}
  infrastructureRef: {kind: ` + infra + `, name: ` + name + "}\n"
		meta := "metadata: {name: " + name + ", namespace: ml, labels: {" + labels + "}}\n"
		infraSpec := "spec: {instanceType: " + typ + "}\n"
		if kind != "Machine" {
			spec = `  clusterName: c
  replicas: 1
  template:
    spec:
      bootstrap:
        configRef: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: ` + config + `, name: ` + name + `}
      infrastructureRef: {kind: ` + infra + `, name: ` + name + "}\n"
			meta = "metadata: {name: " + name + ", namespace: ml}\n"
			infraSpec = "spec: {template: {spec: {instanceType: " + typ + "}}}\n"
		}
		return "---\napiVersion: cluster.x-k8s.io/v1beta1\nkind: " + kind + "\n" + meta + "spec:\n" + spec +
			"---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta2\nkind: " + infra + "\nmetadata: {name: " + name + ", namespace: ml}\n" + infraSpec
	}
	config := func(kind, name, spec string) string {
		return "---\napiVersion: bootstrap.cluster.x-k8s.io/v1beta1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: ml}\nspec: " + spec + "\n"
	}
	manifests := strings.Split(capiCluster(""), "---\napiVersion: cluster.x-k8s.io/v1beta1\nkind: MachineDeployment")[0] +
		machine("Machine", "kubeadm", "g6.xlarge", "node.cluster.x-k8s.io/pool: kubeadm, team: ml", "KubeadmConfig") +
		config("KubeadmConfig", "kubeadm", `{joinConfiguration: {nodeRegistration: {kubeletExtraArgs: {node-labels: "via=kubeadmconfig"}}}}`) +
		machine("Machine", "eks", "g6.2xlarge", "sub.node-restriction.kubernetes.io/pool: eks", "EKSConfig") +
		config("EKSConfig", "eks", `{kubeletExtraArgs: {node-labels: "via=eksconfig"}}`) +
		machine("MachineDeployment", "eks-template", "g6.4xlarge", "", "EKSConfigTemplate") +
		config("EKSConfigTemplate", "eks-template", `{template: {spec: {kubeletExtraArgs: {node-labels: "via=ekstemplate"}}}}`)
	// A group open to any label makes every selection ambiguous: it is read beside capiCluster's
	// groups, whose workload label the pod selects.
	talos := machine("MachineDeployment", "talos", "g6.8xlarge", "", "TalosConfigTemplate") +
		config("TalosConfigTemplate", "talos", `{template: {spec: {generateType: worker}}}`)
	for _, tc := range []struct{ selector, group, says string }{
		{selector: "{via: kubeadmconfig}", group: "Machine/ml/kubeadm"},
		{selector: "{node.cluster.x-k8s.io/pool: kubeadm}", group: "Machine/ml/kubeadm"},
		{selector: "{via: eksconfig}", group: "Machine/ml/eks"},
		{selector: "{sub.node-restriction.kubernetes.io/pool: eks}", group: "Machine/ml/eks"},
		{selector: "{via: ekstemplate}", group: "MachineDeployment/ml/eks-template"},
		{selector: "{workload: batch}", says: "the pod selects workload=batch; MachineDeployment/ml/talos in m.yaml may carry it (some of its labels are known only at apply or boot)"},
	} {
		t.Run(tc.selector, func(t *testing.T) {
			src := manifests
			if tc.says != "" {
				src = capiCluster(talos)
			}
			_, r, groups := podOnGroups(t, src+"---\n"+gpuPod("  nodeSelector: "+tc.selector))
			if groups != tc.group || tc.says != "" && !says(r, tc.says) {
				t.Errorf("pod on %q, want %q; source %q, unresolved %+v", groups, tc.group, r.Pod.NodeSource, r.Unresolved)
			}
		})
	}
}

// The machine sets a managed topology creates, whose class's bootstrap template is not among the
// files, may carry any label: a pod that selects a label may run on them, and is not priced on a
// group of another kind that carries it.
func TestClusterAPITopologyNodesMayCarryAnyLabel(t *testing.T) {
	src, err := os.ReadFile("../../testdata/kubernetes/cluster-class.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := build(t, string(src)+"\n---\n"+gpuPod("  nodeSelector: {workload: train}"), Options{NodeGroups: []NodeGroup{{Address: "aws_eks_node_group.train", InstanceType: "g5.xlarge",
		Provider: parser.AWS, Region: "us-west-2", Purchase: parser.OnDemand, NodeLabels: parser.NodeLabels{Labels: map[string]string{"workload": "train"}}}}})
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	for _, r := range res.Resources {
		if r.Pod == nil {
			continue
		}
		if len(r.Pod.NodeGroups) != 0 || !says(r, "the pod selects workload=train, which node groups of different kinds carry (aws_eks_node_group.train: g5.xlarge on_demand in us-west-2; MachineDeployment/ml/training-a100 in m.yaml: p4d.24xlarge spot in us-west-2; MachineDeployment/ml/training-l40s in m.yaml: g6e.xlarge on_demand in us-west-2)") {
			t.Errorf("pod on %+v as %s; unresolved %+v", r.Pod.NodeGroups, r.InstanceType, r.Unresolved)
		}
		return
	}
	t.Fatal("no pod")
}

// nodeLabelSummary writes a group's labels (k=v, k=prefix* for a prefix, and no:k for one its
// nodes are known to lack) and taints, sorted.
func nodeLabelSummary(nl *parser.NodeLabels) string {
	if nl == nil {
		return "<nil>"
	}
	var out []string
	for k, v := range nl.Labels {
		out = append(out, k+"="+v)
	}
	for k, p := range nl.Prefixes {
		out = append(out, k+"="+p+"*")
	}
	slices.Sort(out)
	for _, k := range nl.Without {
		out = append(out, "no:"+k)
	}
	for _, t := range nl.Taints {
		out = append(out, "taint "+t.String())
	}
	if nl.Partial || nl.TaintsUnknown {
		out = append(out, "partial")
	}
	return strings.Join(out, " ")
}

// managedPool is a MachinePool of the managed pool of kind, spec and name (in namespace ml, with
// metadata meta when set), bootstrapped by an empty data secret as CAPI's templates for managed
// pools are.
func managedPool(kind, name, meta, spec string) string {
	if meta == "" {
		meta = "{name: " + name + ", namespace: ml}"
	}
	return `---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: ` + name + `, namespace: ml}
spec:
  clusterName: c
  replicas: 2
  template:
    spec:
      bootstrap: {dataSecretName: ""}
      infrastructureRef: {kind: ` + kind + `, name: ` + strings.TrimSuffix(strings.TrimPrefix(strings.Split(meta, ",")[0], "{name: "), "}") + `}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: ` + kind + `
metadata: ` + meta + `
spec: ` + spec + "\n"
}

// The nodes of a managed pool (CAPA's EKS, CAPG's GKE, CAPZ's AKS and ASO AKS pools) carry what
// their cloud registers them with: the pool's name under the cloud's group-name label (the
// declared name, else the one the provider derives from the object), the labels and taints the
// pool declares (CAPA's effects in its own spelling), and AKS's spot taint.
func TestClusterAPIManagedPoolNodes(t *testing.T) {
	long := strings.Repeat("x", 61) // ml_ and 61 characters: 64, CAPA hashes it
	src := managedPool("AWSManagedMachinePool", "eks-named", "", `{instanceType: g6.xlarge, eksNodegroupName: gpu-ng, labels: {workload: infer}, taints: [{key: nvidia.com/gpu, value: "true", effect: no-schedule}, {key: a, effect: prefer-no-schedule}, {key: b, effect: no-execute}]}`) +
		managedPool("AWSManagedMachinePool", "eks-default", "{name: pool.a, namespace: ml}", `{instanceType: g6.xlarge}`) +
		managedPool("AWSManagedMachinePool", "eks-long", "{name: "+long+", namespace: ml}", `{instanceType: g6.xlarge}`) +
		managedPool("GCPManagedMachinePool", "gke-named", "", `{instanceType: g2-standard-8, nodePoolName: l4, kubernetesLabels: {workload: infer}, kubernetesTaints: [{key: dedicated, value: gpu, effect: NoSchedule}], additionalLabels: {team: ml}}`) +
		managedPool("GCPManagedMachinePool", "gke-default", "", `{instanceType: g2-standard-8}`) +
		managedPool("GCPManagedMachinePool", "gke-spot", "", `{instanceType: g2-standard-8, spot: true}`) +
		managedPool("GCPManagedMachinePool", "gke-preemptible", "", `{instanceType: g2-standard-8, preemptible: true}`) +
		managedPool("AWSManagedMachinePool", "eks-spot", "", `{instanceType: g6.xlarge, capacityType: spot}`) +
		managedPool("AzureManagedMachinePool", "aks-named", "", `{sku: Standard_NC4as_T4_v3, name: t4pool, nodeLabels: {workload: infer}, taints: [{key: dedicated, value: gpu, effect: NoExecute}]}`) +
		managedPool("AzureManagedMachinePool", "aks-spot", "", `{sku: Standard_NC4as_T4_v3, scaleSetPriority: Spot}`) +
		managedPool("AzureASOManagedMachinePool", "aso", "", `{resources: [{kind: ManagedClustersAgentPool, metadata: {name: aso-pool}, spec: {vmSize: Standard_NC4as_T4_v3, azureName: asopool, nodeLabels: {workload: infer}, nodeTaints: ["dedicated=gpu:NoSchedule"], scaleSetPriority: Spot}}]}`) +
		managedPool("AzureASOManagedMachinePool", "aso-default", "", `{resources: [{kind: ManagedClustersAgentPool, metadata: {name: asodefault}, spec: {vmSize: Standard_NC4as_T4_v3}}]}`)
	res := build(t, src, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = nodeLabelSummary(r.NodeLabels)
	}
	want := map[string]string{
		"MachinePool/ml/eks-named":       "eks.amazonaws.com/capacityType=ON_DEMAND eks.amazonaws.com/nodegroup=gpu-ng workload=infer taint nvidia.com/gpu=true:NoSchedule taint a:PreferNoSchedule taint b:NoExecute",
		"MachinePool/ml/eks-default":     "eks.amazonaws.com/capacityType=ON_DEMAND eks.amazonaws.com/nodegroup=ml_pool_a",
		"MachinePool/ml/eks-spot":        "eks.amazonaws.com/capacityType=SPOT eks.amazonaws.com/nodegroup=ml_eks-spot",
		"MachinePool/ml/eks-long":        "eks.amazonaws.com/capacityType=ON_DEMAND eks.amazonaws.com/nodegroup=capa_*",
		"MachinePool/ml/gke-named":       "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=l4 workload=infer no:cloud.google.com/gke-flex-start no:cloud.google.com/gke-preemptible no:cloud.google.com/gke-spot taint dedicated=gpu:NoSchedule",
		"MachinePool/ml/gke-default":     "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=gke-default no:cloud.google.com/gke-flex-start no:cloud.google.com/gke-preemptible no:cloud.google.com/gke-spot",
		"MachinePool/ml/gke-spot":        "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=gke-spot cloud.google.com/gke-spot=true no:cloud.google.com/gke-flex-start no:cloud.google.com/gke-preemptible",
		"MachinePool/ml/gke-preemptible": "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=gke-preemptible cloud.google.com/gke-preemptible=true no:cloud.google.com/gke-flex-start no:cloud.google.com/gke-spot",
		"MachinePool/ml/aks-named":       "agentpool=t4pool kubernetes.azure.com/agentpool=t4pool workload=infer no:kubernetes.azure.com/scalesetpriority taint dedicated=gpu:NoExecute",
		"MachinePool/ml/aks-spot":        "agentpool=aks-spot kubernetes.azure.com/agentpool=aks-spot kubernetes.azure.com/scalesetpriority=spot taint kubernetes.azure.com/scalesetpriority=spot:NoSchedule",
		"MachinePool/ml/aso":             "agentpool=asopool kubernetes.azure.com/agentpool=asopool kubernetes.azure.com/scalesetpriority=spot workload=infer taint kubernetes.azure.com/scalesetpriority=spot:NoSchedule taint dedicated=gpu:NoSchedule",
		"MachinePool/ml/aso-default":     "agentpool=asodefault kubernetes.azure.com/agentpool=asodefault no:kubernetes.azure.com/scalesetpriority",
	}
	for addr, w := range want {
		if got[addr] != w {
			t.Errorf("%s: %q\n  want %q", addr, got[addr], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("resources %q", got)
	}
}

// A GPU pod that selects an EKS pool of Cluster API by its node group's name, tolerating its
// taint, runs on it; one that selects its declared label without the toleration is told that
// the taint keeps it off.
func TestPodsSelectClusterAPIManagedPools(t *testing.T) {
	pools := managedPool("AWSManagedMachinePool", "gpu", "", `{instanceType: g6.xlarge, eksNodegroupName: gpu-ng, labels: {workload: infer}, taints: [{key: dedicated, value: infer, effect: no-schedule}]}`) +
		managedPool("AWSManagedMachinePool", "big", "", `{instanceType: g6.12xlarge, eksNodegroupName: big-ng}`)
	for _, tc := range []struct{ spec, group, says string }{
		{spec: "  nodeSelector: {eks.amazonaws.com/nodegroup: gpu-ng}\n  tolerations: [{key: dedicated, operator: Exists}]", group: "MachinePool/ml/gpu"},
		{spec: "  nodeSelector: {eks.amazonaws.com/nodegroup: big-ng}", group: "MachinePool/ml/big"},
		{spec: "  nodeSelector: {workload: infer}", group: "MachinePool/ml/gpu", says: "do not tolerate the taints of the node groups that carry it"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			res, r, groups := podOnGroups(t, pools+"---\n"+gpuPod(tc.spec))
			if groups != tc.group || tc.says != "" && !says(r, tc.says) && !slices.ContainsFunc(res.Warnings, func(e parser.Error) bool { return strings.Contains(e.Message, tc.says) }) {
				t.Errorf("pod on %q, want %q; source %q, unresolved %+v", groups, tc.group, r.Pod.NodeSource, r.Unresolved)
			}
		})
	}
}

// A node taint the AKS API refuses, in an ASO agent pool, is an error at the pool's file and line.
func TestASOPoolRefusedTaint(t *testing.T) {
	res := build(t, managedPool("AzureASOManagedMachinePool", "aso", "", `{resources: [{kind: ManagedClustersAgentPool, spec: {vmSize: Standard_NC4as_T4_v3, nodeTaints: ["dedicated=gpu"]}}]}`), Options{})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "spec.resources[0].spec.nodeTaints[0]") || res.Errors[0].Line == 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
}

// The machine sets a managed topology creates carry the labels their machines get from the
// class and the topology (those Cluster API syncs to nodes) and those their class's bootstrap
// template registers, patched for the worker as its infrastructure template is: a patch
// selected by class, with the worker's variables. A bootstrap template a patch to which cannot
// be evaluated, or that is not among the files, may register any label. A managed pool the
// topology creates is named with a random suffix: its cloud's group name is known by how it
// starts.
func TestClusterClassWorkerNodeLabels(t *testing.T) {
	const bootstrap = "bootstrap: {ref: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: KubeadmConfigTemplate, name: gpu}}"
	const infra = "infrastructure: {ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: AWSMachineTemplate, name: g6}}"
	selector := func(classes string) string {
		return "    - selector: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: KubeadmConfigTemplate, matchResources: {machineDeploymentClass: {names: [" + classes + "]}}}\n"
	}
	const nodeLabels = "/spec/template/spec/joinConfiguration/nodeRegistration/kubeletExtraArgs/node-labels"
	src := `apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {name: gpu, namespace: ml}
spec:
  infrastructure: {ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: AWSClusterTemplate, name: c}}
  workers:
    machineDeployments:
    - class: serve
      template:
        metadata: {labels: {node-role.kubernetes.io/serve: "", team: ml}}
        ` + bootstrap + `
        ` + infra + `
    - class: train
      metadata: {labels: {node-restriction.kubernetes.io/tier: gpu}} # v1beta2's place, beside class
      template: {` + bootstrap + `, ` + infra + `}
    - class: broken
      template: {` + bootstrap + `, ` + infra + `}
    - class: elsewhere
      template:
        bootstrap: {ref: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta1, kind: KubeadmConfigTemplate, name: missing}}
        ` + infra + `
    machinePools:
    - class: eks
      template:
        infrastructure: {ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: AWSManagedMachinePoolTemplate, name: eks}}
    - class: aks
      template:
        infrastructure: {ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureManagedMachinePoolTemplate, name: aks}}
  variables:
  - name: workload
    schema: {openAPIV3Schema: {type: string, default: serve}}
  patches:
  - name: labels
    definitions:
` + selector("serve, train") + `      jsonPatches:
      - {op: add, path: ` + nodeLabels + `, valueFrom: {template: "workload={{ .workload }}"}}
  - name: taint
    definitions:
` + selector("train") + `      jsonPatches:
      - {op: add, path: /spec/template/spec/joinConfiguration/nodeRegistration/taints, value: [{key: dedicated, value: training, effect: NoSchedule}]}
  - name: broken
    definitions:
` + selector("broken") + `      jsonPatches:
      - {op: add, path: ` + nodeLabels + `, valueFrom: {template: "{{ range .workload }}{{ end }}"}}
---
apiVersion: bootstrap.cluster.x-k8s.io/v1beta1
kind: KubeadmConfigTemplate
metadata: {name: gpu, namespace: ml}
spec:
  template:
    spec:
      joinConfiguration:
        nodeRegistration:
          kubeletExtraArgs: {cloud-provider: external}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSMachineTemplate
metadata: {name: g6, namespace: ml}
spec: {template: {spec: {instanceType: g6.xlarge}}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSManagedMachinePoolTemplate
metadata: {name: eks, namespace: ml}
spec: {template: {spec: {instanceType: g6.xlarge, labels: {pool: eks}}}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureManagedMachinePoolTemplate
metadata: {name: aks, namespace: ml}
spec: {template: {spec: {sku: Standard_NC4as_T4_v3}}}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSClusterTemplate
metadata: {name: c, namespace: ml}
spec: {template: {spec: {region: us-west-2}}}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c, namespace: ml}
spec:
  topology:
    class: gpu
    version: v1.31.2
    workers:
      machineDeployments:
      - {class: serve, name: chat, replicas: 2, metadata: {labels: {node-role.kubernetes.io/chat: ""}}}
      - {class: train, name: ft, replicas: 1, variables: {overrides: [{name: workload, value: train}]}}
      - {class: broken, name: b, replicas: 1}
      - {class: elsewhere, name: e, replicas: 1}
      machinePools:
      - {class: eks, name: p, replicas: 1}
      - {class: aks, name: q, replicas: 1}
`
	res := build(t, src, Options{})
	if len(res.Errors) > 0 || len(res.Warnings) > 0 {
		t.Fatalf("errors %v, warnings %v", res.Errors, res.Warnings)
	}
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = nodeLabelSummary(r.NodeLabels)
		if r.Address == "MachineDeployment/ml/c-b" && !slices.ContainsFunc(r.Notes, func(n string) bool {
			return strings.HasPrefix(n, "KubeadmConfigTemplate/ml/gpu could not be patched for it (patch broken (/spec/template/spec/joinConfiguration/nodeRegistration/kubeletExtraArgs/node-labels)") &&
				strings.HasSuffix(n, "its nodes may carry any label")
		}) {
			t.Errorf("c-b notes %q", r.Notes)
		}
	}
	want := map[string]string{
		"MachineDeployment/ml/c-chat": "node-role.kubernetes.io/chat= node-role.kubernetes.io/serve= workload=serve",
		"MachineDeployment/ml/c-ft":   "node-restriction.kubernetes.io/tier=gpu workload=train taint dedicated=training:NoSchedule",
		"MachineDeployment/ml/c-b":    "partial",
		"MachineDeployment/ml/c-e":    "partial",
		"MachinePool/ml/c-p":          "eks.amazonaws.com/capacityType=ON_DEMAND eks.amazonaws.com/nodegroup=ml_c-p-* pool=eks",
		"MachinePool/ml/c-q":          "agentpool=c-q-* kubernetes.azure.com/agentpool=c-q-* no:kubernetes.azure.com/scalesetpriority",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
