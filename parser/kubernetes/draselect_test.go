package kubernetes

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// The CEL terms gpuguard reads from DRA selectors, and those it leaves unread rather than guess:
// an || that mixes products with other terms could select more than either side.
func TestReadCEL(t *testing.T) {
	const attr = `device.attributes["gpu.nvidia.com"]`
	const mem = `device.capacity["gpu.nvidia.com"].memory`
	for _, tc := range []struct {
		expr     string
		products []string
		arch     []string
		minMiB   int
		unread   string
	}{
		{attr + `.productName == "NVIDIA H100 80GB HBM3"`, []string{"NVIDIA H100 80GB HBM3"}, nil, 0, ""},
		{attr + `.productName.matches(".*A10G.*")`, []string{"A10G"}, nil, 0, ""},
		{attr + `.productName.matches("^NVIDIA L4$")`, []string{"NVIDIA L4"}, nil, 0, ""},
		{attr + `.productName.startsWith("H100")`, []string{"H100"}, nil, 0, ""},
		{attr + `.productName.lowerAscii().contains("l40s")`, []string{"l40s"}, nil, 0, ""},
		{attr + `.productName in ["NVIDIA L4", "NVIDIA A10G"]`, []string{"NVIDIA L4", "NVIDIA A10G"}, nil, 0, ""},
		{attr + `.productName == "NVIDIA L4" || ` + attr + `.productName == "Tesla T4"`, []string{"NVIDIA L4", "Tesla T4"}, nil, 0, ""},
		{`device.driver == "gpu.nvidia.com" && ` + attr + `.architecture == "Hopper"`, nil, []string{"hopper"}, 0, ""},
		{attr + `.architecture in ["Hopper", "Ada Lovelace"]`, nil, []string{"hopper", "ada-lovelace"}, 0, ""},
		{mem + `.compareTo(quantity("40Gi")) >= 0`, nil, nil, 40960, ""},
		{mem + `.compareTo(quantity("40Gi")) > 0`, nil, nil, 40961, ""},
		{mem + ` >= quantity("80G")`, nil, nil, 76293, ""},
		{attr + `.productName.startsWith("H100") && ` + mem + `.compareTo(quantity("80Gi")) >= 0`, []string{"H100"}, nil, 81920, ""},
		{attr + `.productName == "NVIDIA L4" || ` + mem + `.compareTo(quantity("40Gi")) >= 0`, nil, nil, 0, "an || with other terms"},
		{attr + `.productName == "NVIDIA L4" || ` + attr + `.index == 0`, nil, nil, 0, "an || with other terms"},
		{mem + `.compareTo(quantity("lots")) >= 0`, nil, nil, 0, `memory "lots"`},
		{attr + `.productName.endsWith("80GB") == false`, nil, nil, 0, "a negation"},
		{`!` + attr + `.productName.startsWith("H100")`, nil, nil, 0, "a negation"},
		{attr + `.productName != "NVIDIA L4"`, nil, nil, 0, "a productName term of another shape"},
		{`"H100" in ` + attr + `.productName`, nil, nil, 0, "a productName term of another shape"},
		{`device.driver == "gpu.nvidia.com"`, nil, nil, 0, ""},
		{attr + `.profile in ["1g.10gb", "2g.20gb"]`, nil, nil, 0, "a MIG profile term of another shape"},
		{attr + `.profile == "1g.10gb" || ` + attr + `.profile == "2g.20gb"`, nil, nil, 0, "an || with other terms"},
	} {
		s := readCEL(tc.expr)
		if !slices.Equal(s.products, tc.products) || !slices.Equal(s.architectures, tc.arch) || s.minMemoryMiB != tc.minMiB {
			t.Errorf("%s: products %q, architectures %q, memory %d MiB; want %q, %q, %d", tc.expr, s.products, s.architectures, s.minMemoryMiB, tc.products, tc.arch, tc.minMiB)
		}
		if got := strings.Join(s.unread, "|"); tc.unread == "" && got != "" || !strings.Contains(got, tc.unread) {
			t.Errorf("%s: unread %q, want %q", tc.expr, got, tc.unread)
		}
	}
}

// A DeviceClass among the manifests says by its driver whether its devices are GPUs, whatever its
// name, and its selectors and a request's narrow the pod's node where the pod's labels do not.
func TestDeviceClassesAndSelectors(t *testing.T) {
	class := func(name, expr string) string {
		return "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " + name + "}\nspec:\n  selectors: [{cel: {expression: '" + expr + "'}}]\n---\n"
	}
	tmpl := func(class, selector string) string {
		sel := ""
		if selector != "" {
			sel = ", selectors: [{cel: {expression: '" + selector + "'}}]"
		}
		return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ns}\nspec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: " + class + sel + "}}]}}}\n---\n"
	}
	pod := func(selector string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  nodeSelector: {" + selector + "}\n  resourceClaims: [{name: g, resourceClaimTemplateName: t}]\n  containers: [{name: c, resources: {claims: [{name: g}]}}]\n"
	}
	const nvidia = `device.driver == "gpu.nvidia.com"`
	const a10g = `device.attributes["gpu.nvidia.com"].productName.matches(".*A10G.*")`
	// A class whose name says nothing of GPUs, read before or after the claim.
	for name, src := range map[string]string{
		"class first": class("single", nvidia+" && "+a10g) + tmpl("single", "") + pod(""),
		"class last":  tmpl("single", "") + pod("") + "\n---\n" + class("single", nvidia+" && "+a10g),
	} {
		r := one(t, build(t, src, Options{}))
		if r.Pod.Requested != 1 || !slices.Equal(r.Pod.GPUNames, []string{"A10G"}) || !strings.Contains(r.Pod.NodeSource, "DRA claim selector productName") {
			t.Errorf("%s: pod %+v", name, r.Pod)
		}
		if len(r.Unresolved) > 0 {
			t.Errorf("%s: unresolved %+v", name, r.Unresolved)
		}
	}
	// Another driver's class is not GPUs, though its name says gpu.
	if res := build(t, class("gpu-direct-nic", `device.driver == "rdma.example.com"`)+tmpl("gpu-direct-nic", "")+pod(""), Options{}); len(res.Resources) != 0 {
		t.Errorf("a NIC class is priced as GPUs: %+v", res.Resources)
	}
	// The request's selector, with the class's: the memory from one, the product from the other.
	r := one(t, build(t, class("single", nvidia+" && "+a10g)+tmpl("single", `device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) >= 0`)+pod(""), Options{}))
	if !slices.Equal(r.Pod.GPUNames, []string{"A10G"}) || r.Pod.GPUReportedMiB == nil || r.Pod.GPUReportedMiB.Min == nil || *r.Pod.GPUReportedMiB.Min != 20480 {
		t.Errorf("class and request: pod %+v", r.Pod)
	}
	// The class's compute capability and the request's narrow together.
	const cc = `device.attributes["gpu.nvidia.com"].cudaComputeCapability`
	r = one(t, build(t, class("sm8x", nvidia+" && "+cc+`.major() >= 8`)+tmpl("sm8x", cc+`.isLessThan(semver("9.0.0"))`)+pod(""), Options{}))
	if c := r.Pod.GPUComputeCapability; c == nil || c.String() != "≥ 8.0 and < 9.0" || !strings.Contains(r.Pod.NodeSource, "DRA claim selector cudaComputeCapability") {
		t.Errorf("class and request compute capability: %v from %q", c, r.Pod.NodeSource)
	}
	// The pod's own labels say the product: the claim's does not replace it.
	r = one(t, build(t, tmpl("gpu.nvidia.com", `device.attributes["gpu.nvidia.com"].productName == "NVIDIA L4"`)+pod("nvidia.com/gpu.product: NVIDIA-A10G"), Options{}))
	if !slices.Equal(r.Pod.GPUNames, []string{"NVIDIA-A10G"}) {
		t.Errorf("the pod's label: GPU names %q", r.Pod.GPUNames)
	}
	// A MIG device's profile makes the claim that slice; a MIG class with none is whole GPUs,
	// said; a MIG device's memory is its slice's, which says nothing of the GPU.
	r = one(t, build(t, tmpl("mig.nvidia.com", `device.attributes["gpu.nvidia.com"].type == "mig" && device.attributes["gpu.nvidia.com"].profile == "1g.10gb" && device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("9Gi")) >= 0`)+pod(""), Options{}))
	if r.Pod.Resource != "nvidia.com/mig-1g.10gb" || r.Pod.MIGProfile != "1g.10gb" || r.Pod.GPUReportedMiB != nil || !strings.Contains(strings.Join(r.Notes, "|"), "1 MIG 1g.10gb slice through DRA") {
		t.Errorf("MIG profile: pod %+v, notes %q", r.Pod, r.Notes)
	}
	r = one(t, build(t, tmpl("mig.nvidia.com", "")+pod("node.kubernetes.io/instance-type: p4de.24xlarge"), Options{}))
	if r.Pod.Resource != "nvidia.com/gpu" || !strings.Contains(strings.Join(r.Notes, "|"), "each priced as a whole GPU, an upper bound") {
		t.Errorf("MIG class, no profile: pod %+v, notes %q", r.Pod, r.Notes)
	}
	if r = one(t, build(t, tmpl("gpu.nvidia.com", "")+pod("node.kubernetes.io/instance-type: p4de.24xlarge"), Options{})); strings.Contains(strings.Join(r.Notes, "|"), "MIG") {
		t.Errorf("a GPU class: notes %q", r.Notes)
	}
	// An unread selector is said, and the node is not narrowed by it.
	r = one(t, build(t, tmpl("gpu.nvidia.com", `device.attributes["gpu.nvidia.com"].productName == "NVIDIA L4" || device.attributes["gpu.nvidia.com"].index == 0`)+pod("node.kubernetes.io/instance-type: g6.xlarge"), Options{}))
	if len(r.Pod.GPUNames) != 0 || !strings.Contains(strings.Join(r.Notes, "|"), "a DRA selector gpuguard does not narrow the node by") {
		t.Errorf("unread: pod %+v, notes %q", r.Pod, r.Notes)
	}
}

// A claim's selectors choose among the node groups and NodePools read with the pod, as GPU
// feature discovery's labels do: the scheduler puts the pod only where the claim's devices are.
func TestClaimSelectorsChooseNodes(t *testing.T) {
	gpus := fakeGPUs{"g6.xlarge": {Key: "l4", Count: 1, ReportedMiB: 23034, Family: "ada-lovelace", ComputeMajor: 8, ComputeMinor: 9},
		"p4de.24xlarge": {Key: "a100", Count: 8, ReportedMiB: 81920, Family: "ampere", ComputeMajor: 8}}
	group := func(name, typ string) NodeGroup {
		return NodeGroup{Address: "aws_eks_node_group." + name, InstanceType: typ, Provider: parser.AWS, Region: "us-east-1", Purchase: parser.OnDemand,
			NodeLabels: parser.NodeLabels{Labels: map[string]string{}}}
	}
	groups := []NodeGroup{group("l4", "g6.xlarge"), group("a100", "p4de.24xlarge")}
	claim := func(expr string) string {
		return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ns}\nspec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.nvidia.com, selectors: [{cel: {expression: '" + expr + "'}}]}}]}}}\n---\n" +
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  resourceClaims: [{name: g, resourceClaimTemplateName: t}]\n  containers: [{name: c, resources: {claims: [{name: g}]}}]\n"
	}
	const attr = `device.attributes["gpu.nvidia.com"].`
	cases := []struct {
		name, expr, on, note string
	}{
		{"product", attr + `productName == "NVIDIA A100-SXM4-80GB"`, "aws_eks_node_group.a100", "the pod selects productName NVIDIA A100-SXM4-80GB through a DRA claim"},
		{"architecture as NVML names it", attr + `architecture == "Ada Lovelace"`, "aws_eks_node_group.l4", "the pod selects architecture ada-lovelace through a DRA claim"},
		{"architectures listed", attr + `architecture in ["Hopper", "Ada Lovelace"]`, "aws_eks_node_group.l4", "the pod selects architecture hopper|ada-lovelace through a DRA claim"},
		{"memory", `device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0`, "aws_eks_node_group.a100", "the pod selects memory ≥ 40960 MiB through a DRA claim"},
		// 8.6 and up: GPU feature discovery's major and minor labels cannot say it, and the
		// A100's 8.0 has the L4's major.
		{"compute capability", attr + `cudaComputeCapability.compareTo(semver("8.6.0")) >= 0`, "aws_eks_node_group.l4", "the pod selects cudaComputeCapability ≥ 8.6 through a DRA claim"},
		{"compute capability below", attr + `cudaComputeCapability.isLessThan(semver("8.9.0"))`, "aws_eks_node_group.a100", "the pod selects cudaComputeCapability < 8.9 through a DRA claim"},
		{"no group has it", attr + `productName == "NVIDIA H100 80GB HBM3"`, "",
			"the pod selects productName NVIDIA H100 80GB HBM3 through a DRA claim, which none of the node groups read with it carries"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, build(t, claim(tc.expr), Options{NodeGroups: groups, GPUs: gpus}))
			var on []string
			for _, g := range r.Pod.NodeGroups {
				on = append(on, g.Address)
			}
			if strings.Join(on, " ") != tc.on {
				t.Errorf("on groups %q (%s), want %q; notes %q, unresolved %+v", on, r.InstanceType, tc.on, r.Notes, r.Unresolved)
			}
			if tc.on != "" && (r.InstanceType != groups[slices.IndexFunc(groups, func(g NodeGroup) bool { return g.Address == tc.on })].InstanceType || !strings.Contains(r.Pod.NodeSource, tc.note)) {
				t.Errorf("instance type %q, node source %q; want %q's type, the source saying %q", r.InstanceType, r.Pod.NodeSource, tc.on, tc.note)
			}
			if tc.on == "" && !says(r, tc.note) {
				t.Errorf("notes %q, unresolved %+v; want %q", r.Notes, r.Unresolved, tc.note)
			}
		})
	}
	// The pod's own GPU feature discovery label stands for that label; the claim's architecture
	// agrees with it.
	withLabel := func(expr, label string) string {
		return strings.Replace(claim(expr), "spec:\n  resourceClaims", "spec:\n  nodeSelector: {"+label+"}\n  resourceClaims", 1)
	}
	res := build(t, withLabel(attr+`architecture == "Ada Lovelace"`, "nvidia.com/gpu.product: NVIDIA-L4"), Options{NodeGroups: groups, GPUs: gpus})
	if r := one(t, res); len(r.Pod.NodeGroups) != 1 || r.Pod.NodeGroups[0].Address != "aws_eks_node_group.l4" || len(res.Warnings) > 0 {
		t.Errorf("the pod's label: on groups %+v, notes %q, warnings %v", r.Pod.NodeGroups, r.Notes, res.Warnings)
	}
	// Labels and claims that ask for different GPUs leave the pod pending, said in a warning
	// at the workload's line: the pod's labels name an L4 or its architecture, or pin an L4
	// type, and the claim asks for an A100, an Ampere GPU or 40 GiB.
	const a100 = attr + `productName == "NVIDIA A100-SXM4-80GB"`
	const memory = `device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0`
	for _, tc := range []struct {
		name, expr, label, want string // want: what the warning and the note say, "" for none
	}{
		{"GPU label", a100, "nvidia.com/gpu.product: NVIDIA-L4", "select productName NVIDIA A100-SXM4-80GB, which the node's GPUs (NVIDIA-L4) are not"},
		{"family label", attr + `architecture == "Ampere"`, "nvidia.com/gpu.family: ada-lovelace", "select architecture ampere, which the node's GPUs (ada-lovelace) are not"},
		{"instance type", a100, "node.kubernetes.io/instance-type: g6.xlarge", "select productName NVIDIA A100-SXM4-80GB, which the GPUs of g6.xlarge (l4) are not"},
		{"instance type's architecture", attr + `architecture == "Ampere"`, "node.kubernetes.io/instance-type: g6.xlarge", "select architecture ampere, which the GPUs of g6.xlarge (l4) are not"},
		{"instance type's memory", memory, "node.kubernetes.io/instance-type: g6.xlarge", "select memory of at least 40960 MiB, which the GPUs of g6.xlarge (l4) are not"},
		{"an instance type the claim takes", strings.Replace(memory, "40Gi", "78Gi", 1), "node.kubernetes.io/instance-type: p4de.24xlarge", ""},
		{"instance type's compute capability", "!" + attr + `cudaComputeCapability.isLessThan(semver("9.0.0"))`, "node.kubernetes.io/instance-type: g6.xlarge", "select cudaComputeCapability ≥ 9.0, which the GPUs of g6.xlarge (l4) are not"},
		{"a compute capability the type has", "!" + attr + `cudaComputeCapability.isLessThan(semver("8.9.0"))`, "node.kubernetes.io/instance-type: g6.xlarge", ""},
	} {
		res := build(t, withLabel(tc.expr, tc.label), Options{GPUs: gpus})
		r := one(t, res)
		if tc.want == "" {
			if len(res.Warnings) > 0 || strings.Contains(strings.Join(r.Notes, "|"), "pending") {
				t.Errorf("%s: warnings %v, notes %q", tc.name, res.Warnings, r.Notes)
			}
			continue
		}
		if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0].Message, "Pod/ns/p: ") || !strings.Contains(res.Warnings[0].Message, tc.want) ||
			!strings.Contains(res.Warnings[0].Message, "pending") || res.Warnings[0].Line == 0 || !strings.Contains(strings.Join(r.Notes, "|"), tc.want) {
			t.Errorf("%s: warnings %v, notes %q", tc.name, res.Warnings, r.Notes)
		}
	}
	// A NodePool's GPU names keep those the claim can take; a pool whose names it can take
	// none of is passed over.
	gpuPool := func(name string, weight int, names string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: " + name + "}\nspec:\n  weight: " + strconv.Itoa(weight) +
			"\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}, requirements: [{key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [" + names + "]}]}}\n---\n"
	}
	res = build(t, gpuPool("l4", 100, "l4")+gpuPool("gpu", 10, "l4, a100")+claim(attr+`productName == "NVIDIA A100-SXM4-80GB"`), Options{GPUs: gpus})
	if r := one(t, res); !slices.Equal(r.Pod.GPUNames, []string{"a100"}) || !strings.Contains(r.Pod.NodeSource, "NodePool/gpu") || len(res.Warnings) > 0 {
		t.Errorf("a pool's GPU names: %q from %q, warnings %v", r.Pod.GPUNames, r.Pod.NodeSource, res.Warnings)
	}
	var r parser.Resource
	// Karpenter passes over a pool none of whose types has the claim's GPU, and the pool it
	// launches from keeps the claim's narrowing.
	pool := func(name string, weight int, families string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: " + name + "}\nspec:\n  weight: " + strconv.Itoa(weight) +
			"\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}, requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [" + families + "]}]}}\n---\n"
	}
	src := pool("l4-first", 100, "g6") + pool("any-gpu", 10, "g6, p4de") + claim(attr+`productName == "NVIDIA A100-SXM4-80GB"`)
	r = one(t, build(t, src, Options{GPUs: gpus}))
	if !strings.Contains(r.Pod.NodeSource, "NodePool/any-gpu") || !slices.Equal(r.Pod.GPUNames, []string{"NVIDIA A100-SXM4-80GB"}) || !slices.Equal(r.Pod.Families, []string{"g6", "p4de"}) {
		t.Errorf("NodePools: node source %q, GPU names %q, families %q; notes %q", r.Pod.NodeSource, r.Pod.GPUNames, r.Pod.Families, r.Notes)
	}
	// Without the claim's selector the heavier pool takes the pod.
	r = one(t, build(t, pool("l4-first", 100, "g6")+pool("any-gpu", 10, "g6, p4de")+claim(attr+`driverVersion.isGreaterThan(semver("550.0.0"))`), Options{GPUs: gpus}))
	if !strings.Contains(r.Pod.NodeSource, "NodePool/l4-first") {
		t.Errorf("no product: node source %q", r.Pod.NodeSource)
	}
}
