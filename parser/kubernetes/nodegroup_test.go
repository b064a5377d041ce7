package kubernetes

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuguard/gpuguard/parser"
)

// gpuPod is a Pod requesting one GPU with the spec fields given (nodeSelector, affinity), in
// YAML indented for spec.
func gpuPod(spec string) string {
	return `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
` + spec + `
  containers:
    - name: c
      resources: {limits: {nvidia.com/gpu: 1}}
`
}

// says reports whether a resource says why in a note, or as the reason its node is unresolved
// (followed by what to do).
func says(r parser.Resource, why string) bool {
	if slices.Contains(r.Notes, why) {
		return true
	}
	for _, u := range r.Unresolved {
		if u.Attribute == "node" && strings.HasPrefix(u.Reason, why+": ") {
			return true
		}
	}
	return false
}

// testGroups are three GKE pools: L4 on spot labelled serve, and two batch pools of different
// machines; and an EKS group whose name is known only at apply.
func testGroups() []NodeGroup {
	gke := func(name, machine string, purchase parser.PurchaseOption, labels map[string]string, gpus ...string) NodeGroup {
		labels["cloud.google.com/gke-nodepool"] = name
		g := NodeGroup{Address: "google_container_node_pool." + name, InstanceType: machine, Provider: parser.GCP, Region: "europe-west4",
			Purchase: purchase, NodeLabels: parser.NodeLabels{Labels: labels}}
		for _, t := range gpus {
			g.Accelerators = append(g.Accelerators, parser.Accelerator{Type: t, Count: 1})
		}
		return g
	}
	return []NodeGroup{
		gke("l4", "g2-standard-24", parser.Spot, map[string]string{"workload": "serve"}),
		gke("t4", "n1-standard-8", parser.OnDemand, map[string]string{"workload": "batch"}, "nvidia-tesla-t4"),
		gke("a100", "a2-highgpu-1g", parser.OnDemand, map[string]string{"workload": "batch"}),
		{Address: "aws_eks_node_group.gpu", InstanceType: "g5.xlarge", Provider: parser.AWS, Region: "us-east-1", Purchase: parser.OnDemand,
			NodeLabels: parser.NodeLabels{Labels: map[string]string{"team": "ml"}, Unknown: []string{"eks.amazonaws.com/nodegroup"}}},
	}
}

// A pod runs on the node group it selects by the cloud's group-name label or by labels the
// groups declare, through nodeSelector, required node affinity or a Kueue flavor's node labels;
// a selection no group carries, several kinds carry, or only a group whose labels are partly
// unknown may carry, leaves the node to the pod's own labels, with a note saying why.
func TestPodsSelectNodeGroups(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // type/purchase/region/gpus from source, or "" when the pod's node is unresolved
		note      string
	}{
		{"nodeSelector on the pool label", gpuPod("  nodeSelector: {cloud.google.com/gke-nodepool: l4}"),
			"g2-standard-24/spot/europe-west4/ from google_container_node_pool.l4 (the pod selects cloud.google.com/gke-nodepool=l4)", ""},
		{"affinity In on a declared label, with GPUs an N1 pool attaches", gpuPod(`  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: cloud.google.com/gke-nodepool, operator: In, values: [t4, h100]}`),
			"n1-standard-8/on_demand/europe-west4/nvidia-tesla-t4 from google_container_node_pool.t4 (the pod selects cloud.google.com/gke-nodepool=t4|h100)", ""},
		{"NotIn narrows to the one group left", gpuPod(`  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: workload, operator: In, values: [batch]}
              - {key: cloud.google.com/gke-nodepool, operator: NotIn, values: [t4]}`),
			"a2-highgpu-1g/on_demand/europe-west4/ from google_container_node_pool.a100 (the pod selects cloud.google.com/gke-nodepool not t4, workload=batch)", ""},
		{"the group's purchase and region win over the pod's spot label", gpuPod("  nodeSelector: {workload: serve, topology.kubernetes.io/region: us-central1}"),
			"g2-standard-24/spot/europe-west4/ from google_container_node_pool.l4 (the pod selects workload=serve)", ""},
		{"a Kueue flavor names the pool", `apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a100}
spec:
  nodeLabels: {cloud.google.com/gke-nodepool: a100}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: train}
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: ["nvidia.com/gpu"]
      flavors:
        - name: a100
          resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: train, namespace: ml}
spec: {clusterQueue: train}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: train}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          resources: {limits: {nvidia.com/gpu: 1}}
`, "a2-highgpu-1g/on_demand/europe-west4/ from google_container_node_pool.a100 (the pod selects cloud.google.com/gke-nodepool=a100)", ""},
		{"a pinned type the group does not run wins, with a note", gpuPod("  nodeSelector: {workload: serve, node.kubernetes.io/instance-type: g2-standard-8}"),
			"g2-standard-8/on_demand// from nodeSelector/affinity instance-type",
			"the pod selects workload=serve, which google_container_node_pool.l4 carries, but pins g2-standard-8, which that group does not run: priced at g2-standard-8"},
		{"two kinds", gpuPod("  nodeSelector: {workload: batch}"), "",
			"the pod selects workload=batch, which node groups of different kinds carry (google_container_node_pool.t4: n1-standard-8 with nvidia-tesla-t4 on_demand in europe-west4; google_container_node_pool.a100: a2-highgpu-1g on_demand in europe-west4)"},
		{"no group carries it", gpuPod("  nodeSelector: {cloud.google.com/gke-nodepool: h100}"), "",
			"the pod selects cloud.google.com/gke-nodepool=h100, which none of the node groups read with it carries"},
		{"only a partly known group may carry it", gpuPod("  nodeSelector: {eks.amazonaws.com/nodegroup: gpu-1}"), "",
			"the pod selects eks.amazonaws.com/nodegroup=gpu-1; aws_eks_node_group.gpu may carry it (some of its labels are known only at apply or boot)"},
		{"a group on another cloud than the pod's labels name", gpuPod("  nodeSelector: {workload: serve, karpenter.k8s.aws/instance-gpu-name: l4}"),
			"/on_demand// from nodeSelector/affinity karpenter instance-gpu-name",
			"the pod selects workload=serve, which none of the node groups read with it carries"},
		{"labels no group knows leave the pod as it was", gpuPod("  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}"),
			"/on_demand// from nodeSelector/affinity gke-accelerator", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := build(t, tc.src, Options{NodeGroups: testGroups()})
			r := one(t, res)
			if tc.note != "" && !says(r, tc.note) {
				t.Errorf("notes %q, unresolved %+v\nwant %q", r.Notes, r.Unresolved, tc.note)
			}
			if tc.want == "" {
				if r.InstanceType != "" || len(r.Unresolved) == 0 || r.Unresolved[0].Attribute != "node" {
					t.Fatalf("the pod was placed: %s from %q, unresolved %+v", r.InstanceType, r.Pod.NodeSource, r.Unresolved)
				}
				return
			}
			got := fmt.Sprintf("%s/%s/%s/%s from %s", r.InstanceType, r.PurchaseOption, r.Region, strings.Join(r.Pod.GPUNames, ","), r.Pod.NodeSource)
			if strings.HasPrefix(tc.want, "/") {
				// The pod's own labels narrow its node: no single type.
				got = fmt.Sprintf("/%s/%s/ from %s", r.PurchaseOption, r.Region, r.Pod.NodeSource)
			}
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// A pod that names no node runs on the node groups' one kind of node only when the caller says
// the manifests are applied to their cluster (AnyNodeGroup): manifests read beside a Terraform
// configuration are not, and a pod selecting a group label the groups do not carry never is.
func TestPodsNamingNoNodeAndNodeGroups(t *testing.T) {
	groups := testGroups()[:1]
	pod := gpuPod("  nodeSelector: {}")
	if r := one(t, build(t, pod, Options{NodeGroups: groups})); r.InstanceType != "" {
		t.Errorf("without AnyNodeGroup the pod ran on %s (%s)", r.InstanceType, r.Pod.NodeSource)
	}
	r := one(t, build(t, pod, Options{NodeGroups: groups, AnyNodeGroup: true}))
	if r.InstanceType != "g2-standard-24" || r.Pod.NodeSource != "google_container_node_pool.l4, the configuration's only GPU node group" {
		t.Errorf("with AnyNodeGroup: %s from %q", r.InstanceType, r.Pod.NodeSource)
	}
	other := gpuPod("  nodeSelector: {workload: train}")
	if r := one(t, build(t, other, Options{NodeGroups: groups, AnyNodeGroup: true})); r.InstanceType != "" {
		t.Errorf("a pod selecting workload=train, which the group does not carry, ran on %s (%s)", r.InstanceType, r.Pod.NodeSource)
	}
}

// A group on the pod's cloud whose labels are known only at apply may carry any of them: the
// pod runs on the group that carries its selection only when that one runs the same node.
func TestGroupsWithUnknownLabelsMayCarryASelection(t *testing.T) {
	groups := testGroups()[:1]
	unknown := NodeGroup{Address: "google_container_node_pool.x", InstanceType: "a2-highgpu-1g", Provider: parser.GCP, Region: "europe-west4",
		Purchase: parser.OnDemand, NodeLabels: parser.NodeLabels{Labels: map[string]string{"cloud.google.com/gke-nodepool": "x"}, Partial: true}}
	pod := gpuPod("  nodeSelector: {workload: serve}")
	r := one(t, build(t, pod, Options{NodeGroups: append(groups, unknown)}))
	want := "the pod selects workload=serve, which node groups of different kinds carry (google_container_node_pool.l4: g2-standard-24 spot in europe-west4; google_container_node_pool.x: a2-highgpu-1g on_demand in europe-west4)"
	if r.InstanceType != "" || !says(r, want) {
		t.Errorf("got %s from %q, notes %q", r.InstanceType, r.Pod.NodeSource, r.Notes)
	}
	// The same group's own pool name is known: a pod selecting another pool is not its.
	r = one(t, build(t, gpuPod("  nodeSelector: {cloud.google.com/gke-nodepool: l4}"), Options{NodeGroups: append(groups, unknown)}))
	if r.InstanceType != "g2-standard-24" {
		t.Errorf("selecting pool l4: %s from %q, notes %q", r.InstanceType, r.Pod.NodeSource, r.Notes)
	}
	// A group of the same kind whose labels are unknown does not stand in the way.
	same := unknown
	same.InstanceType, same.Purchase = "g2-standard-24", parser.Spot
	r = one(t, build(t, pod, Options{NodeGroups: append(groups, same)}))
	if r.InstanceType != "g2-standard-24" || r.PurchaseOption != parser.Spot {
		t.Errorf("with a same-kind group of unknown labels: %s %s from %q, notes %q", r.InstanceType, r.PurchaseOption, r.Pod.NodeSource, r.Notes)
	}
}

// A group whose name is generated from a prefix may be selected by a name that starts with it,
// and by no other; any name at all (Exists) selects it.
func TestGroupNamedFromAPrefix(t *testing.T) {
	groups := []NodeGroup{{Address: "aws_eks_node_group.gpu", InstanceType: "g6.xlarge", Provider: parser.AWS, Region: "us-east-1", Purchase: parser.OnDemand,
		NodeLabels: parser.NodeLabels{Labels: map[string]string{}, Prefixes: map[string]string{"eks.amazonaws.com/nodegroup": "gpu-"}}}}
	cases := []struct{ selection, typ, note string }{
		{"nodeSelector: {eks.amazonaws.com/nodegroup: gpu-20261123}", "",
			"the pod selects eks.amazonaws.com/nodegroup=gpu-20261123; aws_eks_node_group.gpu may carry it (some of its labels are known only at apply or boot)"},
		{"nodeSelector: {eks.amazonaws.com/nodegroup: cpu}", "",
			"the pod selects eks.amazonaws.com/nodegroup=cpu, which none of the node groups read with it carries"},
		{`affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions: [{key: eks.amazonaws.com/nodegroup, operator: Exists}]`, "g6.xlarge", ""},
	}
	for _, tc := range cases {
		r := one(t, build(t, gpuPod("  "+tc.selection), Options{NodeGroups: groups}))
		if r.InstanceType != tc.typ || tc.note != "" && !says(r, tc.note) {
			t.Errorf("%s: got %q from %q, notes %q, unresolved %+v", tc.selection, r.InstanceType, r.Pod.NodeSource, r.Notes, r.Unresolved)
		}
	}
}

// A selection that several groups of one kind carry (a pool per zone, labelled alike) puts the
// pod on all of them: the estimator counts them and the pods once.
func TestPodsSelectSeveralGroupsOfOneKind(t *testing.T) {
	zonal := func(name string) NodeGroup {
		return NodeGroup{Address: "aws_eks_node_group." + name, Root: "infra", InstanceType: "g6.xlarge", Provider: parser.AWS, Region: "us-east-1",
			Purchase: parser.OnDemand, NodeLabels: parser.NodeLabels{Labels: map[string]string{"eks.amazonaws.com/nodegroup": name, "gpu": "l4"}}}
	}
	groups := []NodeGroup{zonal("l4-a"), zonal("l4-b"), zonal("l4-c")}
	r := one(t, build(t, gpuPod(`  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: gpu, operator: In, values: [l4]}
              - {key: eks.amazonaws.com/nodegroup, operator: NotIn, values: [l4-c]}`), Options{NodeGroups: groups}))
	if r.InstanceType != "g6.xlarge" || r.Pod.NodeSource != "aws_eks_node_group.l4-a in infra, aws_eks_node_group.l4-b in infra (the pod selects eks.amazonaws.com/nodegroup not l4-c, gpu=l4)" {
		t.Errorf("%s from %q", r.InstanceType, r.Pod.NodeSource)
	}
	want := []parser.GroupRef{{Address: "aws_eks_node_group.l4-a", Root: "infra"}, {Address: "aws_eks_node_group.l4-b", Root: "infra"}}
	if !slices.Equal(r.Pod.NodeGroups, want) {
		t.Errorf("node groups %+v, want %+v", r.Pod.NodeGroups, want)
	}
}

// Taints keep pods off node groups: a pod that names no node runs on the groups whose taints it
// tolerates, and one that selects only groups it does not tolerate is priced there with a
// warning that its pods stay Pending. The taint named after the device a pod requests is
// tolerated for it (the ExtendedResourceToleration admission controller), PreferNoSchedule
// keeps nothing off, and taints known only at apply are not held against a pod.
func TestTaintsKeepPodsOffNodeGroups(t *testing.T) {
	group := func(name, typ, gpu string, taints ...parser.Taint) NodeGroup {
		return NodeGroup{Address: "aws_eks_node_group." + name, InstanceType: typ, Provider: parser.AWS, Region: "us-east-1", Purchase: parser.OnDemand,
			NodeLabels: parser.NodeLabels{Labels: map[string]string{"eks.amazonaws.com/nodegroup": name, "gpu": gpu}, Taints: taints}}
	}
	training := parser.Taint{Key: "dedicated", Value: "training", Effect: "NoSchedule"}
	device := parser.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}
	train := group("train", "p4d.24xlarge", "a100", training)
	l4 := group("l4", "g6.xlarge", "l4", device)
	tolerate := "  tolerations: [{key: dedicated, operator: Equal, value: training, effect: NoSchedule}]\n"
	refs := func(r parser.Resource) string {
		var out []string
		for _, g := range r.Pod.NodeGroups {
			out = append(out, g.Address)
		}
		return strings.Join(out, ",")
	}
	cases := []struct {
		name   string
		groups []NodeGroup
		spec   string
		any    bool
		typ    string // "" when the node is unresolved
		on     string // the groups the pods run on
		source string // the node's source, or the start of the unresolved reason
		warn   string // the warning, "" for none
	}{
		{"the groups a pod tolerates decide its node", []NodeGroup{train, l4}, "  nodeSelector: {}", true, "g6.xlarge", "aws_eks_node_group.l4",
			"the configuration's GPU node groups whose taints the pod tolerates (aws_eks_node_group.l4), all of g6.xlarge; not aws_eks_node_group.train (taint dedicated=training:NoSchedule)", ""},
		{"tolerating both leaves two kinds", []NodeGroup{train, l4}, tolerate + "  nodeSelector: {}", true, "", "",
			"the pod names no node: set node.kubernetes.io/instance-type", ""},
		{"tolerating none", []NodeGroup{train}, "  nodeSelector: {}", true, "", "",
			"the pod names no node, and does not tolerate the taints of the configuration's GPU node groups (aws_eks_node_group.train (taint dedicated=training:NoSchedule))", ""},
		{"a taint known only at apply is not held against the pod", []NodeGroup{func() NodeGroup { g := group("x", "g6.xlarge", "l4"); g.TaintsUnknown = true; return g }()},
			"  nodeSelector: {}", true, "g6.xlarge", "aws_eks_node_group.x", "aws_eks_node_group.x, the configuration's only GPU node group", ""},
		{"PreferNoSchedule keeps nothing off", []NodeGroup{group("p", "g6.xlarge", "l4", parser.Taint{Key: "dedicated", Value: "training", Effect: "PreferNoSchedule"})},
			"  nodeSelector: {gpu: l4}", false, "g6.xlarge", "aws_eks_node_group.p", "aws_eks_node_group.p (the pod selects gpu=l4)", ""},
		{"selected and tolerated", []NodeGroup{train, l4}, tolerate + "  nodeSelector: {gpu: a100}", false, "p4d.24xlarge", "aws_eks_node_group.train",
			"aws_eks_node_group.train (the pod selects gpu=a100)", ""},
		{"selected but not tolerated: priced there, with a warning", []NodeGroup{train, l4}, "  nodeSelector: {gpu: a100}", false, "p4d.24xlarge", "aws_eks_node_group.train",
			"aws_eks_node_group.train (the pod selects gpu=a100)",
			"Pod/ml/p: its pods select gpu=a100, but do not tolerate the taints of the node groups that carry it: aws_eks_node_group.train (taint dedicated=training:NoSchedule); the scheduler leaves them Pending until they tolerate them"},
		{"a toleration for another value", []NodeGroup{train}, "  tolerations: [{key: dedicated, value: serving}]\n  nodeSelector: {gpu: a100}", false, "p4d.24xlarge", "aws_eks_node_group.train",
			"aws_eks_node_group.train (the pod selects gpu=a100)", "Pod/ml/p: its pods select gpu=a100, but do not tolerate"},
		{"the device's taint with NoExecute is not tolerated for it", []NodeGroup{group("l4", "g6.xlarge", "l4", parser.Taint{Key: "nvidia.com/gpu", Effect: "NoExecute"})},
			"  nodeSelector: {gpu: l4}", false, "g6.xlarge", "aws_eks_node_group.l4", "aws_eks_node_group.l4 (the pod selects gpu=l4)",
			"Pod/ml/p: its pods select gpu=l4, but do not tolerate the taints of the node groups that carry it: aws_eks_node_group.l4 (taint nvidia.com/gpu:NoExecute)"},
		{"of two groups of one kind, the one it tolerates", []NodeGroup{group("a", "g6.xlarge", "l4", training), group("b", "g6.xlarge", "l4")},
			"  nodeSelector: {gpu: l4}", false, "g6.xlarge", "aws_eks_node_group.b", "aws_eks_node_group.b (the pod selects gpu=l4)", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := build(t, gpuPod(tc.spec), Options{NodeGroups: tc.groups, AnyNodeGroup: tc.any})
			r := one(t, res)
			var warns []string
			for _, w := range res.Warnings {
				warns = append(warns, w.Message)
			}
			switch {
			case tc.warn == "" && len(warns) > 0:
				t.Errorf("warnings %q", warns)
			case tc.warn != "" && (len(warns) != 1 || !strings.HasPrefix(warns[0], tc.warn) || res.Warnings[0].Line != 1):
				t.Errorf("warnings %+v, want one at line 1 starting %q", res.Warnings, tc.warn)
			}
			if tc.typ == "" {
				if r.InstanceType != "" || len(r.Unresolved) != 1 || !strings.HasPrefix(r.Unresolved[0].Reason, tc.source) {
					t.Fatalf("%s from %q, unresolved %+v\nwant unresolved %q", r.InstanceType, r.Pod.NodeSource, r.Unresolved, tc.source)
				}
				return
			}
			if r.InstanceType != tc.typ || r.Pod.NodeSource != tc.source || refs(r) != tc.on {
				t.Errorf("%s from %q on %q\nwant %s from %q on %q", r.InstanceType, r.Pod.NodeSource, refs(r), tc.typ, tc.source, tc.on)
			}
			// Taints known only at apply are said.
			const unsure = "some taints of aws_eks_node_group.x are known only at apply: they may keep the pods off"
			if said := slices.Contains(r.Notes, unsure); said != (tc.on == "aws_eks_node_group.x") {
				t.Errorf("notes %q: said %q %v", r.Notes, unsure, said)
			}
			// A group the selection matches but whose taints keep the pod off is named.
			const off = "the pod also selects aws_eks_node_group.a (taint dedicated=training:NoSchedule), whose taints keep it off"
			if said := slices.Contains(r.Notes, off); said != (tc.on == "aws_eks_node_group.b") {
				t.Errorf("notes %q: said %q %v", r.Notes, off, said)
			}
		})
	}
}

// Pods that run on a group whose nodes start without the GPU driver say so: the group's
// NoGPUDriver comes through NodeGroupsOf, and only the groups that lack it are named.
func TestPodsOnAGroupWithoutTheGPUDriver(t *testing.T) {
	groups := NodeGroupsOf([]parser.Resource{
		{Address: "aws_eks_node_group.std", InstanceType: "g6.xlarge", Provider: parser.AWS, Region: "us-east-1",
			NoGPUDriver: `ami_type = "AL2023_x86_64_STANDARD", an EKS AMI type without the NVIDIA driver`,
			NodeLabels:  &parser.NodeLabels{Labels: map[string]string{"eks.amazonaws.com/nodegroup": "std", "gpu": "l4"}}},
		{Address: "aws_eks_node_group.nv", InstanceType: "g6.xlarge", Provider: parser.AWS, Region: "us-east-1",
			NodeLabels: &parser.NodeLabels{Labels: map[string]string{"eks.amazonaws.com/nodegroup": "nv", "gpu": "l4"}}},
	})
	if len(groups) != 2 || groups[0].NoGPUDriver == "" || groups[1].NoGPUDriver != "" {
		t.Fatalf("groups %+v", groups)
	}
	const note = `the nodes of aws_eks_node_group.std start without the GPU driver (ami_type = "AL2023_x86_64_STANDARD", an EKS AMI type without the NVIDIA driver): they offer the pods no GPUs unless something else on the cluster installs it (GPU012)`
	for _, tc := range []struct {
		selector string
		said     bool
	}{
		{"{eks.amazonaws.com/nodegroup: std}", true},
		{"{gpu: l4}", true}, // both groups, one without the driver
		{"{eks.amazonaws.com/nodegroup: nv}", false},
	} {
		r := one(t, build(t, gpuPod("  nodeSelector: "+tc.selector), Options{NodeGroups: groups}))
		if said := slices.Contains(r.Notes, note); said != tc.said {
			t.Errorf("%s: notes %q, want the note %v", tc.selector, r.Notes, tc.said)
		}
	}
}

// A Karpenter NodePool whose EC2NodeClass selects only EKS-optimized AMIs without the NVIDIA
// driver (by name or SSM parameter) launches GPU nodes that offer no GPUs: the pods it places
// carry the finding (GPU012), since no node group is billed for them. An alias lets Karpenter
// pick the NVIDIA variant itself, and an AMI ID is not seen into: neither is judged.
func TestKarpenterNodeClassWithoutTheGPUDriver(t *testing.T) {
	classes := `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: standard}
spec:
  amiSelectorTerms:
    - name: amazon-eks-node-al2023-x86_64-standard-1.31-*
    - ssmParameter: /aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: alias}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: nvidia}
spec:
  amiSelectorTerms: [{ssmParameter: /aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id}]
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: mixed}
spec:
  amiSelectorTerms:
    - name: amazon-eks-node-al2023-x86_64-standard-1.31-*
    - id: ami-0123456789abcdef0
---
`
	pool := func(class string) string {
		return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: ` + class + `}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g6]}
---
`
	}
	const deploy = `apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  replicas: 2
  template:
    spec:
      containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]
`
	cases := map[string]string{
		"standard": `Karpenter launches them from NodePool/gpu, whose EC2NodeClass/standard selects its AMI by ` +
			`name "amazon-eks-node-al2023-x86_64-standard-1.31-*", an EKS-optimized Amazon Linux 2023 standard AMI, or ` +
			`ssmParameter "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id", an EKS-optimized Amazon Linux 2023 standard AMI, ` +
			`without the NVIDIA driver`,
		"alias":   "",
		"nvidia":  "",
		"mixed":   "",
		"missing": "", // a class not among the files
	}
	for class, want := range cases {
		r := one(t, build(t, classes+pool(class)+deploy, Options{}))
		if !strings.Contains(r.Pod.NodeSource, "NodePool/gpu") {
			t.Fatalf("%s: not placed by the pool: %+v", class, r.Pod)
		}
		if r.NoGPUDriver != want {
			t.Errorf("%s: NoGPUDriver %q, want %q", class, r.NoGPUDriver, want)
		}
	}
	// A karpenter.sh/v1beta1 NodePool names its class's group by apiVersion.
	v1beta1 := strings.NewReplacer("karpenter.sh/v1", "karpenter.sh/v1beta1", "group: karpenter.k8s.aws,", "apiVersion: karpenter.k8s.aws/v1beta1,").Replace(pool("standard"))
	if r := one(t, build(t, classes+v1beta1+deploy, Options{})); r.NoGPUDriver != cases["standard"] {
		t.Errorf("v1beta1 NodePool %q: NoGPUDriver %q", v1beta1, r.NoGPUDriver)
	}
	// A malformed class is an error at its cluster-wide address; the pods are still priced.
	bad := "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: standard}\nspec:\n  amiSelectorTerms: not-a-list\n---\n"
	res := build(t, bad+pool("standard")+deploy, Options{})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "EC2NodeClass/standard") || strings.Contains(res.Errors[0].Message, "EC2NodeClass/default/") ||
		len(res.Resources) != 1 || res.Resources[0].NoGPUDriver != "" {
		t.Errorf("malformed class: errors %v, resources %+v", res.Errors, res.Resources)
	}
	// A pod asking for another vendor's device is not judged by the NVIDIA driver.
	amd := strings.Replace(deploy, "nvidia.com/gpu", "amd.com/gpu", 1)
	if r := one(t, build(t, classes+pool("standard")+amd, Options{})); r.NoGPUDriver != "" {
		t.Errorf("amd.com/gpu: NoGPUDriver %q", r.NoGPUDriver)
	}
}

// On nodes whose GPUs are split into MIG slices, each nvidia.com/gpu a pod requests is one
// slice: the pod selects GKE's partition label, or runs on a group that declares a partition
// (selected by its name, or the configuration's only group; GKE's or AKS's). A pod asking for a MIG resource by
// name keeps it; elsewhere a GPU stays a GPU.
func TestPartitionsMakeEachGPUASlice(t *testing.T) {
	sliced := NodeGroup{Address: "google_container_node_pool.mig", InstanceType: "a2-highgpu-1g", Provider: parser.GCP, Region: "us-central1",
		Purchase: parser.OnDemand, NodeLabels: parser.NodeLabels{Labels: map[string]string{"cloud.google.com/gke-nodepool": "mig", LabelGKEGPUPartition: "1g.5gb"}}}
	whole := testGroups()[2] // a2-highgpu-1g, no partition
	aks := NodeGroup{Address: "azurerm_kubernetes_cluster_node_pool.mig", InstanceType: "Standard_NC24ads_A100_v4", Provider: parser.Azure, Region: "eastus",
		Purchase: parser.OnDemand, GPUPartition: "MIG1g", NodeLabels: parser.NodeLabels{Labels: map[string]string{"kubernetes.azure.com/agentpool": "mig"}}}
	shared := testGroups()[0]
	shared.Labels = map[string]string{"cloud.google.com/gke-nodepool": "l4", LabelGKESharedClients: "4"}
	for _, tc := range []struct {
		name, pod string
		opts      Options
		mig, note string
	}{
		{"selects the partition", gpuPod("  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-tesla-a100, cloud.google.com/gke-gpu-partition-size: 2g.10gb}"), Options{},
			"2g.10gb", "the pod selects cloud.google.com/gke-gpu-partition-size=2g.10gb: each nvidia.com/gpu it requests is one MIG 2g.10gb slice"},
		{"selects the group", gpuPod("  nodeSelector: {cloud.google.com/gke-nodepool: mig}"), Options{NodeGroups: []NodeGroup{sliced, whole}},
			"1g.5gb", "google_container_node_pool.mig splits its GPUs into MIG slices (1g.5gb): each nvidia.com/gpu the pod requests is one"},
		{"the only group", gpuPod("  nodeSelector: {}"), Options{NodeGroups: []NodeGroup{sliced}, AnyNodeGroup: true},
			"1g.5gb", "google_container_node_pool.mig splits its GPUs into MIG slices (1g.5gb): each nvidia.com/gpu the pod requests is one"},
		{"a whole-GPU group", gpuPod("  nodeSelector: {cloud.google.com/gke-nodepool: a100}"), Options{NodeGroups: []NodeGroup{sliced, whole}}, "", ""},
		{"a shared group", gpuPod("  nodeSelector: {cloud.google.com/gke-nodepool: l4}"), Options{NodeGroups: []NodeGroup{shared}},
			"", "google_container_node_pool.l4 shares each GPU between up to 4 containers (gpu_sharing_config): each nvidia.com/gpu the pod requests is that share of one"},
		{"a MIG resource", strings.Replace(gpuPod("  nodeSelector: {cloud.google.com/gke-nodepool: mig}"), "nvidia.com/gpu", "nvidia.com/mig-1g.10gb", 1), Options{NodeGroups: []NodeGroup{sliced}},
			"1g.10gb", ""},
		// An AKS pool's gpu_instance names the compute share; the estimator finds its slice.
		{"an AKS pool's GPU instances", gpuPod("  nodeSelector: {kubernetes.azure.com/agentpool: mig}"), Options{NodeGroups: []NodeGroup{aks, whole}},
			"MIG1g", "azurerm_kubernetes_cluster_node_pool.mig splits its GPUs into MIG slices (MIG1g): each nvidia.com/gpu the pod requests is one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, build(t, tc.pod, tc.opts))
			if r.Pod.MIGProfile != tc.mig {
				t.Errorf("MIG profile %q, want %q (node %s from %q)", r.Pod.MIGProfile, tc.mig, r.InstanceType, r.Pod.NodeSource)
			}
			if tc.note != "" && !slices.Contains(r.Notes, tc.note) {
				t.Errorf("notes %q lack %q", r.Notes, tc.note)
			}
			if shares := len(tc.opts.NodeGroups) > 0 && tc.opts.NodeGroups[0].Address == shared.Address; shares != (r.Pod.SharedReplicas == 4) {
				t.Errorf("shared by %d", r.Pod.SharedReplicas)
			}
			if want := map[bool]string{true: parser.Azure, false: parser.GCP}[tc.mig == "MIG1g"]; tc.mig != "" && r.Provider != want {
				t.Errorf("provider %q, want %s", r.Provider, want)
			}
		})
	}
}

// fakeGPUs is a GPUCatalog of a few instance types; a product names a GPU when it contains its
// key.
type fakeGPUs map[string]parser.NodeGPUs

func (f fakeGPUs) NodeGPUs(_, typ string, _ []parser.Accelerator) (parser.NodeGPUs, bool) {
	g, ok := f[typ]
	return g, ok
}

func (fakeGPUs) Names(key string, names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return strings.Contains(strings.ToLower(n), key) })
}

// Narrow keeps the names of names that name a GPU of the fake catalog that some name of others
// names too (Names: a name holds the GPU's key in lower case).
func (f fakeGPUs) Narrow(names, others []string) []string {
	var out []string
	for _, a := range names {
		for key := range f {
			k := f[key].Key
			if f.Names(k, []string{a}) && f.Names(k, others) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// Offers is true for a pod whose labels allow one of the types, as an instance type or its
// family (the part before the dot) and its GPU's name, and whose GPUs it holds (each shared by SharedReplicas
// pods, or split into seven MIG slices); as the catalog's, it offers
// anything on a cloud not known.
func (f fakeGPUs) Offers(provider string, pod *parser.PodGPUs) bool {
	if provider == "" || provider == parser.Unknown {
		return true
	}
	units := 1 // a GPU's MIG slices of the pod's profile
	if pod.MIGProfile != "" {
		units = 7
	}
	for typ, g := range f {
		family, _, _ := strings.Cut(typ, ".")
		if (len(pod.InstanceTypes) == 0 || slices.Contains(pod.InstanceTypes, typ)) && (len(pod.Families) == 0 || slices.Contains(pod.Families, family)) &&
			(len(pod.GPUNames) == 0 || f.Names(g.Key, pod.GPUNames)) &&
			int64(g.Count*units)*int64(max(pod.SharedReplicas, 1)) >= pod.Requested {
			return true
		}
	}
	return false
}

// With Options.GPUs, GPU feature discovery's labels select node groups by the GPUs their nodes
// run: nvidia.com/gpu.product In, NotIn and Exists, gpu.count and gpu.memory (the driver's
// total); a group whose type is not known may carry them; a group that declares the label
// itself keeps its value; without GPUs the labels leave the groups alone.
func TestGPUProductSelectsNodeGroups(t *testing.T) {
	gpus := fakeGPUs{"g6.xlarge": {Key: "l4", Count: 1, ReportedMiB: 23034, Family: "ada-lovelace", ComputeMajor: 8, ComputeMinor: 9},
		"p4de.24xlarge": {Key: "a100", Count: 8, ReportedMiB: 81920, Family: "ampere", ComputeMajor: 8},
		"g6f.xlarge":    {Key: "rtx-pro-6000", Count: 1, ReportedMiB: 98304, Family: "blackwell", ComputeMajor: 12},
		"p9.xlarge":     {Key: "next", Count: 1, ReportedMiB: 200000, ComputeMajor: 13}, // a family GFD's name for is not known
		"inf2.xlarge":   {Key: "inferentia2", Count: 1, ReportedMiB: 32768}}
	group := func(name, typ string, labels map[string]string) NodeGroup {
		return NodeGroup{Address: "aws_eks_node_group." + name, InstanceType: typ, Provider: parser.AWS, Region: "us-east-1", Purchase: parser.OnDemand,
			NodeLabels: parser.NodeLabels{Labels: labels}}
	}
	l4, a100 := group("l4", "g6.xlarge", map[string]string{}), group("a100", "p4de.24xlarge", map[string]string{})
	unknown := group("later", "", map[string]string{})
	blackwell, neuron := group("rtx", "g6f.xlarge", map[string]string{}), group("inf", "inf2.xlarge", map[string]string{})
	next := group("next", "p9.xlarge", map[string]string{})
	custom := group("custom", "g6.xlarge", map[string]string{"nvidia.com/gpu.product": "acme-board"})
	affinity := func(op, values string) string {
		return "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n" +
			"          - matchExpressions:\n              - {key: nvidia.com/gpu.product, operator: " + op + values + "}"
	}
	cases := []struct {
		name, spec string
		groups     []NodeGroup
		noHook     bool
		on         string // the group the pod runs on, "" for none
		note       string // a note or unresolved reason, when on is ""
	}{
		{"In", "  nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}", []NodeGroup{l4, a100}, false, "aws_eks_node_group.a100", ""},
		{"NotIn", affinity("NotIn", ", values: [NVIDIA-L4]"), []NodeGroup{l4, a100}, false, "aws_eks_node_group.a100", ""},
		{"Exists, one kind", affinity("Exists", ""), []NodeGroup{l4}, false, "aws_eks_node_group.l4", ""},
		{"Exists, two kinds", affinity("Exists", ""), []NodeGroup{l4, a100}, false, "",
			"the pod selects nvidia.com/gpu.product (exists), which node groups of different kinds carry (aws_eks_node_group.l4: g6.xlarge on_demand in us-east-1; aws_eks_node_group.a100: p4de.24xlarge on_demand in us-east-1)"},
		{"NotIn, a group of unknown type", affinity("NotIn", ", values: [NVIDIA-L4]"), []NodeGroup{l4, unknown}, false, "",
			"the pod selects nvidia.com/gpu.product not NVIDIA-L4; aws_eks_node_group.later may carry it (some of its labels are known only at apply or boot)"},
		{"In, a group of unknown type", "  nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}", []NodeGroup{unknown}, false, "",
			"the pod selects nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB; aws_eks_node_group.later may carry it (some of its labels are known only at apply or boot)"},
		{"no group runs it", "  nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}", []NodeGroup{l4, a100}, false, "",
			"the pod selects nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3, which none of the node groups read with it carries"},
		{"the group's own label", "  nodeSelector: {nvidia.com/gpu.product: acme-board}", []NodeGroup{custom, a100}, false, "aws_eks_node_group.custom", ""},
		{"count", "  nodeSelector: {nvidia.com/gpu.count: \"8\"}", []NodeGroup{l4, a100}, false, "aws_eks_node_group.a100", ""},
		{"count NotIn", strings.Replace(affinity("NotIn", ", values: [\"1\"]"), "gpu.product", "gpu.count", 1), []NodeGroup{l4, a100}, false, "aws_eks_node_group.a100", ""},
		{"count Lt", strings.Replace(affinity("Lt", ", values: [\"8\"]"), "gpu.product", "gpu.count", 1), []NodeGroup{l4, a100}, false, "aws_eks_node_group.l4", ""},
		{"memory", "  nodeSelector: {nvidia.com/gpu.memory: \"23034\"}", []NodeGroup{l4, a100}, false, "aws_eks_node_group.l4", ""},
		{"memory an H100 reports", "  nodeSelector: {nvidia.com/gpu.memory: \"81559\"}", []NodeGroup{l4, a100}, false, "",
			"the pod selects nvidia.com/gpu.memory=81559, which none of the node groups read with it carries"},
		{"memory Gt", strings.Replace(affinity("Gt", ", values: [\"40000\"]"), "gpu.product", "gpu.memory", 1), []NodeGroup{l4, a100}, false, "aws_eks_node_group.a100", ""},
		{"memory Gt, no group", strings.Replace(affinity("Gt", ", values: [\"90000\"]"), "gpu.product", "gpu.memory", 1), []NodeGroup{l4, a100}, false, "",
			"the pod selects nvidia.com/gpu.memory ≥ 90001, which none of the node groups read with it carries"},
		{"memory NotIn", strings.Replace(affinity("NotIn", ", values: [\"81920\"]"), "gpu.product", "gpu.memory", 1), []NodeGroup{l4, a100}, false, "aws_eks_node_group.l4", ""},
		{"without GPUs", "  nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}", []NodeGroup{l4, a100}, true, "", ""},
		{"family", "  nodeSelector: {nvidia.com/gpu.family: ampere}", []NodeGroup{l4, a100}, false, "aws_eks_node_group.a100", ""},
		{"family NotIn", strings.Replace(affinity("NotIn", ", values: [ampere]"), "gpu.product", "gpu.family", 1), []NodeGroup{l4, a100}, false, "aws_eks_node_group.l4", ""},
		{"a family no group has", "  nodeSelector: {nvidia.com/gpu.family: hopper}", []NodeGroup{l4, a100}, false, "",
			"the pod selects nvidia.com/gpu.family=hopper, which none of the node groups read with it carries"},
		{"Blackwell", "  nodeSelector: {nvidia.com/gpu.family: blackwell}", []NodeGroup{l4, blackwell}, false, "aws_eks_node_group.rtx", ""},
		{"a GPU whose family's name is not known may carry it", "  nodeSelector: {nvidia.com/gpu.family: hopper}", []NodeGroup{l4, next}, false, "",
			"the pod selects nvidia.com/gpu.family=hopper; aws_eks_node_group.next may carry it (some of its labels are known only at apply or boot)"},
		{"GFD labels no family on another maker's accelerator", "  nodeSelector: {nvidia.com/gpu.family: ampere}", []NodeGroup{neuron, a100}, false, "aws_eks_node_group.a100", ""},
		{"compute capability major Gt", strings.Replace(affinity("Gt", ", values: [\"8\"]"), "gpu.product", "gpu.compute.major", 1), []NodeGroup{l4, blackwell, neuron}, false, "aws_eks_node_group.rtx", ""},
		{"compute capability minor", "  nodeSelector: {nvidia.com/gpu.compute.major: \"8\", nvidia.com/gpu.compute.minor: \"9\"}", []NodeGroup{l4, a100}, false, "aws_eks_node_group.l4", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{NodeGroups: tc.groups, GPUs: gpus}
			if tc.noHook {
				opts.GPUs = nil
			}
			r := one(t, build(t, gpuPod(tc.spec), opts))
			var on []string
			for _, g := range r.Pod.NodeGroups {
				on = append(on, g.Address)
			}
			switch {
			case strings.Join(on, " ") != tc.on:
				t.Errorf("on groups %q (%s from %q), want %q; notes %q, unresolved %+v", on, r.InstanceType, r.Pod.NodeSource, tc.on, r.Notes, r.Unresolved)
			case tc.note != "" && !says(r, tc.note):
				t.Errorf("notes %q, unresolved %+v\nwant %q", r.Notes, r.Unresolved, tc.note)
			case tc.noHook && len(r.Notes) > 0:
				t.Errorf("without GPUs the groups were read: %q", r.Notes)
			}
		})
	}
}

// GPU feature discovery's nvidia.com/gpu.count and nvidia.com/gpu.memory narrow the pod's node
// (the GPUs a node has, the driver's total of each), say nothing of its cloud, and give way to
// Karpenter's GPU count when both are selected.
func TestGPUFeatureDiscoveryCountAndMemory(t *testing.T) {
	cases := []struct {
		name, spec      string
		count, reported string // CountRange strings, "" for none
		provider        string
	}{
		{"both", "  nodeSelector: {nvidia.com/gpu.count: \"8\", nvidia.com/gpu.memory: \"81920\"}", "8", "81920", parser.Unknown},
		{"memory above", "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n" +
			"          - matchExpressions:\n              - {key: nvidia.com/gpu.memory, operator: Gt, values: [\"40000\"]}", "", "≥ 40001", parser.Unknown},
		{"Karpenter's count first", "  nodeSelector: {nvidia.com/gpu.count: \"8\", karpenter.k8s.aws/instance-gpu-count: \"4\"}", "4", "", parser.AWS},
	}
	str := func(c *parser.CountRange) string {
		if c == nil {
			return ""
		}
		return c.String()
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, build(t, gpuPod(tc.spec), Options{}))
			if got := str(r.Pod.NodeGPUs); got != tc.count {
				t.Errorf("node GPUs %q, want %q", got, tc.count)
			}
			if got := str(r.Pod.GPUReportedMiB); got != tc.reported {
				t.Errorf("reported MiB %q, want %q", got, tc.reported)
			}
			if r.Provider != tc.provider || r.InstanceType != "" || len(r.Unresolved) != 0 {
				t.Errorf("provider %q, type %q, unresolved %+v", r.Provider, r.InstanceType, r.Unresolved)
			}
		})
	}
}

// GPU feature discovery's nvidia.com/gpu.family, gpu.compute.major and gpu.compute.minor narrow
// the pod's node to GPUs of that architecture, and say nothing of its cloud.
func TestGPUFeatureDiscoveryArchitecture(t *testing.T) {
	r := one(t, build(t, gpuPod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n"+
		"          - matchExpressions:\n              - {key: nvidia.com/gpu.family, operator: In, values: [hopper, blackwell]}\n"+
		"              - {key: nvidia.com/gpu.compute.major, operator: Gt, values: [\"8\"]}\n"+
		"              - {key: nvidia.com/gpu.compute.minor, operator: In, values: [\"0\"]}"), Options{}))
	if !slices.Equal(r.Pod.GPUFamilies, []string{"hopper", "blackwell"}) || r.Pod.GPUComputeMajor == nil || r.Pod.GPUComputeMajor.String() != "≥ 9" ||
		r.Pod.GPUComputeMinor == nil || r.Pod.GPUComputeMinor.String() != "0" {
		t.Errorf("families %q, compute major %v, minor %v", r.Pod.GPUFamilies, r.Pod.GPUComputeMajor, r.Pod.GPUComputeMinor)
	}
	if r.Provider != parser.Unknown || r.InstanceType != "" || len(r.Unresolved) != 0 || !r.Pod.ChoosesNode() {
		t.Errorf("provider %q, type %q, unresolved %+v", r.Provider, r.InstanceType, r.Unresolved)
	}
	r.Pod.ForgetNodeChoice()
	if r.Pod.ChoosesNode() || r.Pod.GPUFamilies != nil || r.Pod.GPUComputeMajor != nil || r.Pod.GPUComputeMinor != nil {
		t.Errorf("ForgetNodeChoice kept %+v", r.Pod)
	}
	for _, label := range []string{"major", "minor"} {
		r := one(t, build(t, gpuPod("  nodeSelector: {nvidia.com/gpu.compute."+label+": \"8\"}"), Options{}))
		if !r.Pod.ChoosesNode() || len(r.Unresolved) != 0 {
			t.Errorf("compute %s alone: the node is not chosen from it (unresolved %+v)", label, r.Unresolved)
		}
	}
}

// What a pod's selection rules out (NotIn) of the labels the estimator picks a node by travels
// with the pod's own node choice (parser.NodeExclusions): a selection that only rules nodes out
// still names no node.
func TestNotInExcludesFromThePodsNode(t *testing.T) {
	expr := func(key, op string, values ...string) string {
		return fmt.Sprintf("              - {key: %s, operator: %s, values: [%s]}\n", key, op, strings.Join(values, ", "))
	}
	affinity := func(exprs ...string) string {
		return "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n          - matchExpressions:\n" +
			strings.TrimSuffix(strings.Join(exprs, ""), "\n")
	}
	r := one(t, build(t, gpuPod(affinity(
		expr("nvidia.com/gpu.memory", "Gt", `"20000"`),
		expr("node.kubernetes.io/instance-type", "NotIn", "g5.48xlarge"),
		expr("karpenter.k8s.aws/instance-family", "NotIn", "g6", "g6e"),
		expr("nvidia.com/gpu.product", "NotIn", "NVIDIA-L4"),
		expr("karpenter.azure.com/sku-gpu-name", "NotIn", "T4"),
		expr("karpenter.k8s.aws/instance-category", "NotIn", "p"),
		expr("nvidia.com/gpu.family", "NotIn", "ada-lovelace"),
		expr("karpenter.k8s.aws/instance-gpu-count", "NotIn", `"8"`, "many"),
		expr("karpenter.k8s.aws/instance-generation", "NotIn", `"4"`),
		expr("karpenter.k8s.aws/instance-gpu-memory", "NotIn", `"16384"`),
		expr("nvidia.com/gpu.memory", "NotIn", `"15360"`),
		expr("nvidia.com/gpu.compute.major", "NotIn", `"7"`),
		expr("nvidia.com/gpu.compute.minor", "NotIn", `"9"`),
	)), Options{}))
	want := &parser.NodeExclusions{
		InstanceTypes: []string{"g5.48xlarge"}, Families: []string{"g6", "g6e"}, GPUNames: []string{"NVIDIA-L4"}, AzureGPUNames: []string{"T4"},
		Categories: []string{"p"}, GPUFamilies: []string{"ada-lovelace"}, NodeGPUs: []int{8}, Generations: []int{4}, GPUMemoryMiB: []int{16384},
		GPUReportedMiB: []int{15360}, ComputeMajor: []int{7}, ComputeMinor: []int{9},
	}
	if diff := cmp.Diff(want, r.Pod.Excluded); diff != "" || !r.Pod.ChoosesNode() || len(r.Unresolved) != 0 {
		t.Errorf("excluded (-want +got):\n%s\nchooses a node %v, unresolved %+v", diff, r.Pod.ChoosesNode(), r.Unresolved)
	}
	if !strings.Contains(r.Pod.NodeSource, "nodeSelector/affinity nvidia.com/gpu.memory, nodeSelector/affinity node.kubernetes.io/instance-type NotIn, ") ||
		!strings.HasSuffix(r.Pod.NodeSource, "nodeSelector/affinity nvidia.com/gpu.compute.minor NotIn") {
		t.Errorf("node source %q", r.Pod.NodeSource)
	}
	if got := r.Pod.Excluded.String(); got != "not g5.48xlarge, not family g6|g6e, not NVIDIA-L4, not T4, not category p, not GPU family ada-lovelace, not 8 GPUs a node, "+
		"not generation 4, not 16384 MiB a GPU, not 15360 MiB a GPU as the driver reports it, not compute capability major 7, not compute capability minor 9" {
		t.Errorf("String() = %q", got)
	}
	r.Pod.ForgetNodeChoice()
	if r.Pod.Excluded != nil {
		t.Errorf("ForgetNodeChoice kept %+v", r.Pod.Excluded)
	}
	// NotIn alone does not say which node the pod gets.
	r = one(t, build(t, gpuPod(affinity(expr("nvidia.com/gpu.family", "NotIn", "turing"))), Options{}))
	if !says(r, "the pod names no node") || r.Pod.Excluded != nil {
		t.Errorf("NotIn alone: unresolved %+v, excluded %+v", r.Unresolved, r.Pod.Excluded)
	}
	// A value NotIn takes out of an In is gone from the In already; other labels are not read.
	r = one(t, build(t, gpuPod(affinity(expr("nvidia.com/gpu.family", "In", "ampere", "hopper"), expr("nvidia.com/gpu.family", "NotIn", "ampere"))), Options{}))
	if !slices.Equal(r.Pod.GPUFamilies, []string{"hopper"}) || r.Pod.Excluded == nil || r.Pod.Excluded.String() != "not GPU family ampere" {
		t.Errorf("families %q, excluded %+v", r.Pod.GPUFamilies, r.Pod.Excluded)
	}
	r = one(t, build(t, gpuPod(affinity(expr("nvidia.com/gpu.family", "In", "hopper"), expr("team", "NotIn", "web"))), Options{}))
	if !slices.Equal(r.Pod.GPUFamilies, []string{"hopper"}) || r.Pod.Excluded != nil {
		t.Errorf("families %q, excluded %+v", r.Pod.GPUFamilies, r.Pod.Excluded)
	}
}

// A repository that keeps several clusters side by side (envs/prod, envs/dev) is scanned whole:
// when the groups that carry what a pod selects are of different kinds, those declared nearest
// the pod's file run it (their root shares the most leading directories with it), with a note
// that names the others. Groups equally near, or of different kinds among the nearest, leave the
// pod unresolved as before.
func TestNodeGroupsNearestThePod(t *testing.T) {
	group := func(addr, root, typ string) NodeGroup {
		return NodeGroup{Address: addr, Root: root, InstanceType: typ, Provider: parser.AWS, Region: "us-east-1", Purchase: parser.OnDemand,
			NodeLabels: parser.NodeLabels{Labels: map[string]string{"workload": "inference"}}}
	}
	pod := gpuPod("  nodeSelector: {workload: inference}")
	for _, tc := range []struct {
		name, file string
		groups     []NodeGroup
		on, says   string
	}{
		{name: "the cluster's own directory", file: "envs/prod/k8s/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.dev", "envs/dev/infra", "g5.xlarge"), group("aws_eks_node_group.prod", "envs/prod/infra", "p4d.24xlarge")},
			on:     "aws_eks_node_group.prod",
			says:   "the pod selects workload=inference, which node groups of different kinds carry: those declared nearest its file are taken for its cluster's, not aws_eks_node_group.dev in envs/dev/infra: g5.xlarge on_demand in us-east-1, declared further away (taken for another cluster's)"},
		{name: "the pod's own root", file: "envs/prod/main.tf",
			groups: []NodeGroup{group("aws_eks_node_group.dev", "envs/dev", "g5.xlarge"), group("aws_eks_node_group.own", "", "p4d.24xlarge")},
			on:     "aws_eks_node_group.own"},
		{name: "several groups of one kind nearest", file: "envs/prod/k8s/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.a", "envs/prod/infra", "p4d.24xlarge"), group("aws_eks_node_group.b", "envs/prod/pools", "p4d.24xlarge"), group("aws_eks_node_group.dev", "envs/dev/infra", "g5.xlarge")},
			on:     "aws_eks_node_group.aaws_eks_node_group.b"},
		{name: "equally near", file: "k8s/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.dev", "terraform/dev", "g5.xlarge"), group("aws_eks_node_group.prod", "terraform/prod", "p4d.24xlarge")},
			says:   "the pod selects workload=inference, which node groups of different kinds carry (aws_eks_node_group.dev in terraform/dev"},
		{name: "separate trees named alike", file: "k8s/overlays/prod/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.dev", "terraform/dev", "g5.xlarge"), group("aws_eks_node_group.prod", "terraform/prod", "p4d.24xlarge")},
			on:     "aws_eks_node_group.prod",
			says:   "those declared nearest its file, in directories named as its own (prod), are taken for its cluster's, not aws_eks_node_group.dev in terraform/dev: g5.xlarge on_demand in us-east-1, declared as near or further away, in directories named otherwise (taken for another cluster's)"},
		{name: "a file named as the directory", file: "k8s/dev.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.dev", "terraform/dev", "g5.xlarge"), group("aws_eks_node_group.prod", "terraform/prod", "p4d.24xlarge")},
			on:     "aws_eks_node_group.dev", says: "(dev)"},
		{name: "the most names shared", file: "k8s/prod/eu/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.us", "terraform/prod/us", "g5.xlarge"), group("aws_eks_node_group.eu", "terraform/prod/eu", "p4d.24xlarge"), group("aws_eks_node_group.dev", "terraform/dev/eu", "g5.xlarge")},
			on:     "aws_eks_node_group.eu",
			says:   "in directories named as its own (prod, eu)"},
		{name: "leading directories before names", file: "clusters/a/k8s/prod/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.b", "clusters/b/prod", "g5.xlarge"), group("aws_eks_node_group.a", "clusters/a/infra", "p4d.24xlarge")},
			on:     "aws_eks_node_group.a",
			says:   "those declared nearest its file are taken"},
		{name: "as many names, different ones", file: "k8s/prod/gpu/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.prod", "terraform/prod", "p4d.24xlarge"), group("aws_eks_node_group.gpu", "terraform/gpu", "g5.xlarge"), group("aws_eks_node_group.dev", "terraform/dev", "g5.xlarge")},
			says:   "which node groups of different kinds carry (aws_eks_node_group.prod in terraform/prod"},
		{name: "as many names, different ones, one kind", file: "k8s/prod/gpu/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.prod", "terraform/prod", "p4d.24xlarge"), group("aws_eks_node_group.gpu", "terraform/gpu", "p4d.24xlarge"), group("aws_eks_node_group.dev", "terraform/dev", "g5.xlarge")},
			on:     "aws_eks_node_group.prodaws_eks_node_group.gpu",
			says:   "those declared nearest its file are taken for its cluster's"},
		{name: "a name counted once", file: "k8s/prod/eu/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.twice", "terraform/prod/prod", "g5.xlarge"), group("aws_eks_node_group.eu", "terraform/prod/eu", "p4d.24xlarge")},
			on:     "aws_eks_node_group.eu", says: "(prod, eu)"},
		{name: "plans named as the directory", file: "k8s/overlays/prod",
			groups: []NodeGroup{group("aws_eks_node_group.dev", "plans/dev.json", "g5.xlarge"), group("aws_eks_node_group.prod", "plans/prod.json", "p4d.24xlarge")},
			on:     "aws_eks_node_group.prod", says: "(prod)"},
		{name: "hidden directories are not names", file: "deploy/.k8s/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.dev", "infra/.tf/dev", "g5.xlarge"), group("aws_eks_node_group.prod", "infra/prod", "p4d.24xlarge")},
			says:   "which node groups of different kinds carry (aws_eks_node_group.dev in infra/.tf/dev"},
		{name: "different kinds among the nearest", file: "envs/prod/k8s/app.yaml",
			groups: []NodeGroup{group("aws_eks_node_group.a", "envs/prod/infra", "p4d.24xlarge"), group("aws_eks_node_group.b", "envs/prod/infra", "g5.xlarge"), group("aws_eks_node_group.dev", "envs/dev/infra", "g5.xlarge")},
			says:   "the pod selects workload=inference, which node groups of different kinds carry (aws_eks_node_group.a in envs/prod/infra"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Parse(tc.file, []byte(pod), Options{NodeGroups: tc.groups})
			r := one(t, res)
			on := ""
			for _, g := range r.Pod.NodeGroups {
				on += g.Address
			}
			told := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, tc.says) }) ||
				slices.ContainsFunc(r.Unresolved, func(u parser.Unresolved) bool { return strings.Contains(u.Reason, tc.says) })
			if on != tc.on || !told {
				t.Errorf("on %q, want %q; notes %q; unresolved %+v; want one saying %q", on, tc.on, r.Notes, r.Unresolved, tc.says)
			}
		})
	}
}

// NodePools are cluster-scoped: two of one name in a scan are two clusters', and each pod lands
// on a pool of its own cluster (declared nearest it), with its cluster's EC2NodeClass. Pools of
// distinct names are one cluster's, and the heaviest takes the pod wherever it is declared.
func TestNodePoolsOfEachCluster(t *testing.T) {
	pool := func(name, family string, weight int, class string) string {
		return fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: %s}\nspec:\n  weight: %d\n  template:\n    spec:\n"+
			"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: %s}\n"+
			"      requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [%s]}]\n---\n", name, weight, class, family)
	}
	class := func(ami string) string {
		return "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: gpu}\nspec:\n  amiSelectorTerms: [{" + ami + "}]\n---\n"
	}
	job := func(name string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: " + name + ", namespace: ml}\nspec:\n  template:\n    spec:\n" +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	standard := "name: amazon-eks-node-al2023-x86_64-standard-1.31-*"
	type placed struct{ families, driver string }
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  map[string]placed // by Job name
	}{
		{name: "a pool of one name in each cluster",
			files: map[string]string{
				"envs/dev/k8s/karpenter.yaml":  pool("gpu", "g5", 0, "gpu") + class(standard),
				"envs/dev/k8s/job.yaml":        job("dev"),
				"envs/prod/k8s/karpenter.yaml": pool("gpu", "g6e", 0, "gpu") + class("alias: al2023@latest"),
				"envs/prod/k8s/job.yaml":       job("prod"),
			},
			want: map[string]placed{"dev": {"g5", "standard"}, "prod": {"g6e", ""}}},
		{name: "a ComputeClass of one name in each cluster",
			files: map[string]string{
				"clusters/eu/classes.yaml":  "apiVersion: cloud.google.com/v1\nkind: ComputeClass\nmetadata: {name: gpu}\nspec:\n  priorities: [{machineFamily: a3, gpu: {type: nvidia-h100-80gb, count: 8}}]\n",
				"clusters/eu/apps/job.yaml": strings.Replace(job("eu"), "    spec:\n", "    spec:\n      nodeSelector: {cloud.google.com/compute-class: gpu}\n", 1),
				"clusters/us/classes.yaml":  "apiVersion: cloud.google.com/v1\nkind: ComputeClass\nmetadata: {name: gpu}\nspec:\n  priorities: [{machineFamily: g2, gpu: {type: nvidia-l4, count: 1}}]\n",
				"clusters/us/apps/job.yaml": strings.Replace(job("us"), "    spec:\n", "    spec:\n      nodeSelector: {cloud.google.com/compute-class: gpu}\n", 1),
			},
			want: map[string]placed{"eu": {"a3", ""}, "us": {"g2", ""}}},
		{name: "one cluster's pools, declared apart",
			files: map[string]string{
				"platform/karpenter/pools.yaml": pool("heavy", "p5", 10, "gpu"),
				"apps/train/pool.yaml":          pool("light", "g5", 0, "gpu"),
				"apps/train/job.yaml":           job("train"),
			},
			want: map[string]placed{"train": {"p5", ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var files []*File
			for _, name := range slices.Sorted(maps.Keys(tc.files)) {
				files = append(files, Decode(name, []byte(tc.files[name])))
			}
			res := Build(files, Options{})
			got := map[string]placed{}
			for _, r := range res.Resources {
				_, job, _ := strings.Cut(strings.TrimPrefix(r.Address, "Job/"), "/")
				p := placed{families: strings.Join(r.Pod.Families, ",")}
				if strings.Contains(r.NoGPUDriver, "standard AMI") {
					p.driver = "standard"
				}
				got[job] = p
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("placed %v, want %v (errors %v)", got, tc.want, res.Errors)
			}
		})
	}
}

// Karpenter tries NodePools in weight order and moves on from one none of whose instance types
// takes the pod: with a catalog (Options.GPUs), a pod that a pool admits by its labels but whose
// GPUs no type of the pool holds lands on the next admitting pool, with a note naming the pool
// passed over; with none left it is priced from its own labels, with a warning that Karpenter
// leaves it pending. Where the pool's nodes may split or share GPUs, a unit may be less than a
// GPU and the pool is kept. Without a catalog the first admitting pool takes the pod.
func TestNodePoolWithATypeForThePod(t *testing.T) {
	gpus := fakeGPUs{"g6.xlarge": {Key: "l4", Count: 1}, "p4de.24xlarge": {Key: "a100", Count: 8}}
	pool := func(name string, weight int, family, templateLabels string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: " + name + "}\nspec:\n  weight: " + strconv.Itoa(weight) + "\n" +
			"  template:\n    metadata: {labels: {" + templateLabels + "}}\n" +
			"    spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}, " +
			"requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [" + family + "]}]}\n---\n"
	}
	job := func(gpus int) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: ns}\nspec:\n  template:\n    spec:\n" +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: " + strconv.Itoa(gpus) + "}}}]\n"
	}
	const timeSliced = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: plugin, namespace: gpu-operator}\ndata:\n  any: |-\n" +
		"    version: v1\n    sharing:\n      timeSlicing:\n        resources:\n        - name: nvidia.com/gpu\n          replicas: 8\n"
	pools := pool("small", 50, "g6", "") + pool("big", 10, "p4de", "")
	const passed = "NodePool/small admits the pod's labels, but none of the catalog types the pool's requirements allow meets the pod's selection and holds its request"
	for name, c := range map[string]struct {
		src     string
		gpus    GPUCatalog
		family  string // of the pool the pod lands on; "" for none
		note    string // a note the pod has
		warning bool   // that Karpenter leaves the pod pending
	}{
		"fits the first pool": {src: pools + job(1), gpus: gpus, family: "g6"},
		"falls through":       {src: pools + job(8), gpus: gpus, family: "p4de", note: passed + ": Karpenter launches its nodes from NodePool/big, the next pool by weight"},
		"no pool holds it":    {src: pools + job(16), gpus: gpus, note: "NodePool/small, NodePool/big admit the pod's labels, but none of the catalog types the pools' requirements allow", warning: true},
		"the only pool":       {src: pool("small", 50, "g6", "") + job(8), gpus: gpus, note: passed + ": Karpenter leaves the pod pending", warning: true},
		"without a catalog":   {src: pools + job(8), family: "g6"},
		// What one unit of the pod's resource is on the pool's nodes: a MIG slice, a share.
		"MIG layout label":            {src: pool("small", 50, "g6", "nvidia.com/mig.config: all-1g.10gb") + pool("big", 10, "p4de", "") + job(4), gpus: gpus, family: "g6"},
		"time-slicing config":         {src: pools + job(8) + timeSliced, gpus: gpus, family: "g6"},
		"more than time-slicing fits": {src: pools + job(16) + timeSliced, gpus: gpus, family: "p4de", note: passed},
		"shared by 8 pods":            {src: pool("small", 50, "g6", "cloud.google.com/gke-max-shared-clients-per-gpu: '8'") + pool("big", 10, "p4de", "") + job(8), gpus: gpus, family: "g6"},
		"shared by 4 pods":            {src: pool("small", 50, "g6", "cloud.google.com/gke-max-shared-clients-per-gpu: '4'") + pool("big", 10, "p4de", "") + job(8), gpus: gpus, family: "p4de", note: passed},
		"the first takes a few":       {src: pool("small", 50, "p4de", "") + pool("big", 10, "g6", "") + job(2), gpus: gpus, family: "p4de"},
	} {
		res := build(t, c.src, Options{GPUs: c.gpus})
		r := one(t, res)
		if got := r.Pod.Families; c.family != "" && !slices.Equal(got, []string{c.family}) || c.family == "" && len(got) > 0 {
			t.Errorf("%s: families %v, want %q", name, got, c.family)
		}
		if c.note != "" && !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, c.note) }) {
			t.Errorf("%s: no note %q in %q", name, c.note, r.Notes)
		}
		if c.note == "" && slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "none of the catalog types") }) {
			t.Errorf("%s: a pool was passed over: %q", name, r.Notes)
		}
		pending := slices.ContainsFunc(res.Warnings, func(w parser.Error) bool {
			return w.Line == r.Source.Line && strings.HasPrefix(w.Message, r.Address+": NodePool/small") && strings.Contains(w.Message, "labels, but none of the catalog types") &&
				strings.Contains(w.Message, "Karpenter leaves them pending")
		})
		if pending != c.warning {
			t.Errorf("%s: pending warning %v, want %v (%v)", name, pending, c.warning, res.Warnings)
		}
	}
}

// The pools a pending pod's note names are each named once, though two clusters' pools may
// share a name, and only those of the pod's cloud (or of no known cloud).
func TestGPUPoolsOn(t *testing.T) {
	gpuPool := func(name, provider string) *nodePool {
		np := &nodePool{name: name, address: "NodePool/" + name, provider: provider, requirements: newSelector()}
		np.requirements.allowed[labelKarpenterGPUName] = []string{"a100"}
		return np
	}
	cpu := &nodePool{name: "cpu", address: "NodePool/cpu", provider: parser.AWS, requirements: newSelector()}
	pools := []*nodePool{gpuPool("serve", parser.AWS), gpuPool("batch", parser.AWS), gpuPool("serve", parser.AWS), gpuPool("l4", parser.GCP), gpuPool("any", ""), cpu}
	if got, want := gpuPoolsOn(pools, parser.AWS), []string{"NodePool/any", "NodePool/batch", "NodePool/serve"}; !slices.Equal(got, want) {
		t.Errorf("gpuPoolsOn = %v, want %v", got, want)
	}
}

// A node group's most nodes are its autoscaler's maximum, else its size; unknown (0) when the
// maximum is known only at apply, when the group is sized in vCPUs, or when an autoscaler
// creates it.
func TestNodeGroupMaxNodes(t *testing.T) {
	group := func(name string, set func(r *parser.Resource)) parser.Resource {
		r := parser.Resource{Address: name, InstanceType: "g6.xlarge", Provider: parser.AWS, Quantity: 2, NodeLabels: &parser.NodeLabels{}}
		set(&r)
		return r
	}
	got := map[string]int{}
	for _, g := range NodeGroupsOf([]parser.Resource{
		group("fixed", func(*parser.Resource) {}),
		group("autoscaled", func(r *parser.Resource) { r.ScaleMax = &parser.ScaleMax{Quantity: 5} }),
		group("at apply", func(r *parser.Resource) { r.ScaleMaxUnknown = true }),
		group("in vCPUs", func(r *parser.Resource) { r.QuantityVCPUs = 64 }),
		group("maximum in vCPUs", func(r *parser.Resource) { r.ScaleMax = &parser.ScaleMax{Quantity: 4, VCPUs: 256} }),
		group("auto-provisioned", func(r *parser.Resource) { r.AutoProvision = &parser.AutoProvision{} }),
	}) {
		got[g.Address] = g.MaxNodes
	}
	want := map[string]int{"fixed": 2, "autoscaled": 5, "at apply": 0, "in vCPUs": 0, "maximum in vCPUs": 0, "auto-provisioned": 0}
	if !maps.Equal(got, want) {
		t.Errorf("most nodes %v, want %v", got, want)
	}
}
