package kubernetes

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

func build(t *testing.T, src string, opts Options) parser.Result {
	t.Helper()
	return Parse("m.yaml", []byte(src), opts)
}

func one(t *testing.T, res parser.Result) parser.Resource {
	t.Helper()
	if len(res.Resources) != 1 {
		t.Fatalf("want 1 resource, got %d: %+v (errors %v)", len(res.Resources), res.Resources, res.Errors)
	}
	return res.Resources[0]
}

const podTmpl = `apiVersion: v1
kind: Pod
metadata: {name: p%d, namespace: ns}
spec:
  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
  containers:
    - name: a
      resources: {limits: {nvidia.com/gpu: %s}}
`

func TestQuantities(t *testing.T) {
	for _, q := range []string{"1", `"1"`, "'1'"} {
		r := one(t, build(t, fmt.Sprintf(podTmpl, 1, q), Options{}))
		if r.Pod.Requested != 1 {
			t.Errorf("%s: requested %d", q, r.Pod.Requested)
		}
	}
	for _, q := range []string{`"0.5"`, "1k", "-1", "[1]", "99999"} {
		res := build(t, fmt.Sprintf(podTmpl, 1, q), Options{})
		if len(res.Resources) != 0 || len(res.Errors) != 1 || res.Errors[0].Line != 8 {
			t.Errorf("%s: resources %d errors %+v", q, len(res.Resources), res.Errors)
		}
	}
	// 0 GPUs: not a GPU workload, skipped quietly.
	res := build(t, fmt.Sprintf(podTmpl, 1, "0"), Options{})
	if len(res.Resources) != 0 || len(res.Errors) != 0 {
		t.Errorf("zero GPUs: %+v %+v", res.Resources, res.Errors)
	}
}

func TestContainersSumInitContainersMax(t *testing.T) {
	src := `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
    - {name: i1, resources: {limits: {nvidia.com/gpu: 3}}}
    - {name: i2, resources: {limits: {nvidia.com/gpu: 1}}}
  containers:
    - {name: a, resources: {limits: {nvidia.com/gpu: 1}, requests: {nvidia.com/gpu: 1}}}
    - {name: b, resources: {requests: {nvidia.com/gpu: 1}}}
`
	if r := one(t, build(t, src, Options{})); r.Pod.Requested != 3 {
		t.Fatalf("requested %d, want max(1+1, 3) = 3", r.Pod.Requested)
	}
	src = strings.Replace(src, "nvidia.com/gpu: 3", "nvidia.com/gpu: 1", 1)
	if r := one(t, build(t, src, Options{})); r.Pod.Requested != 2 {
		t.Fatalf("requested %d, want 1+1 = 2", r.Pod.Requested)
	}
}

// Sidecars (init containers with restartPolicy Always) keep running: they add to the app
// containers and to every init container started after them.
func TestSidecarsAddUp(t *testing.T) {
	pod := func(inits, apps string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n" + inits + "  containers:\n" + apps
	}
	app1 := "    - {name: a, resources: {limits: {nvidia.com/gpu: 1}}}\n"
	side := func(n int) string {
		return fmt.Sprintf("    - {name: s%d, restartPolicy: Always, resources: {limits: {nvidia.com/gpu: %d}}}\n", n, n)
	}
	initc := func(n int) string {
		return fmt.Sprintf("    - {name: i%d, resources: {limits: {nvidia.com/gpu: %d}}}\n", n, n)
	}
	for name, c := range map[string]struct {
		src  string
		want int
	}{
		"sidecar beside the app":          {pod(side(1), app1), 2},                  // 1 + 1
		"init after a sidecar":            {pod(side(1)+initc(2), app1), 3},         // max(1, 2+1, 1+1)
		"init before the sidecar":         {pod(initc(2)+side(1), app1), 2},         // max(2, 1, 1+1)
		"two sidecars and a big init":     {pod(side(1)+side(2)+initc(4), app1), 7}, // max(1, 3, 4+3, 1+3)
		"a sidecar without GPUs is no-op": {pod("    - {name: log, restartPolicy: Always}\n"+initc(2), app1), 2},
	} {
		if r := one(t, build(t, c.src, Options{})); r.Pod.Requested != int64(c.want) {
			t.Errorf("%s: requested %d, want %d", name, r.Pod.Requested, c.want)
		}
	}
}

func TestDocumentsAndLines(t *testing.T) {
	src := "--- # first\n" + fmt.Sprintf(podTmpl, 1, "1") + "...\n---\n" + fmt.Sprintf(podTmpl, 2, "1") +
		"---\nkind: [broken\n---\n" + fmt.Sprintf(podTmpl, 3, "2") + "--- \n"
	res := build(t, src, Options{})
	if len(res.Resources) != 3 || len(res.Errors) != 1 {
		t.Fatalf("resources %d errors %+v", len(res.Resources), res.Errors)
	}
	want := map[string]int{"Pod/ns/p1": 2, "Pod/ns/p2": 12, "Pod/ns/p3": 23}
	for _, r := range res.Resources {
		if r.Source.Line != want[r.Address] {
			t.Errorf("%s at line %d, want %d", r.Address, r.Source.Line, want[r.Address])
		}
	}
	if res.Errors[0].Line != 21 {
		t.Errorf("broken document reported at line %d, want 21", res.Errors[0].Line)
	}
}

// A badly indented key is reported on its own line, not where yaml.v3 points (the start of the
// enclosing block), in a later document of the stream.
func TestSyntaxErrorOnTheBadLine(t *testing.T) {
	src := fmt.Sprintf(podTmpl, 1, "1") + "---\n" + // the second document starts on line 10
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n" +
		"      containers:\n      - name: c\n        resources:\n          limits:\n            nvidia.com/gpu: 2\n" +
		"       bad: indent\n"
	res := build(t, src, Options{})
	if len(res.Resources) != 1 || len(res.Errors) != 1 {
		t.Fatalf("resources %d errors %+v", len(res.Resources), res.Errors)
	}
	if e := res.Errors[0]; e.Line != 21 || !strings.Contains(e.Message, "did not find expected key (the enclosing block starts on line") {
		t.Fatalf("error %+v, want line 21", e)
	}
}

func TestJSONAndListManifests(t *testing.T) {
	src := `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"},
   "spec": {"nodeSelector": {"node.kubernetes.io/instance-type": "g6.xlarge"},
            "containers": [{"name": "a", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}]}`
	if !LooksLikeManifest([]byte(src)) {
		t.Fatal("JSON manifest not recognised")
	}
	r := one(t, build(t, src, Options{}))
	if r.Address != "Pod/default/j" || r.InstanceType != "g6.xlarge" {
		t.Fatalf("%+v", r)
	}
	if LooksLikeManifest([]byte(`{"version": "1", "resources": [{"kind": "terraform"}]}`)) {
		t.Fatal("a gpuguard report was taken for a manifest")
	}
}

func TestNodeLabels(t *testing.T) {
	cases := []struct {
		name     string
		selector string
		check    func(r parser.Resource) bool
	}{
		{"instance type", `node.kubernetes.io/instance-type: p4d.24xlarge`, func(r parser.Resource) bool {
			return r.InstanceType == "p4d.24xlarge" && r.Provider == parser.AWS
		}},
		{"karpenter family + spot", "karpenter.k8s.aws/instance-family: g6\n    karpenter.sh/capacity-type: spot", func(r parser.Resource) bool {
			return r.InstanceType == "" && r.Pod.Families[0] == "g6" && r.PurchaseOption == parser.Spot && r.Provider == parser.AWS
		}},
		{"karpenter gpu name", `karpenter.k8s.aws/instance-gpu-name: h100`, func(r parser.Resource) bool {
			return r.Pod.GPUNames[0] == "h100" && r.Provider == parser.AWS
		}},
		// The cluster autoscaler's AWS GPU label: nvidia-tesla-v100 is Karpenter's v100.
		{"cluster autoscaler's aws accelerator", `k8s.amazonaws.com/accelerator: nvidia-tesla-v100`, func(r parser.Resource) bool {
			return slices.Equal(r.Pod.GPUNames, []string{"v100"}) && r.Provider == parser.AWS
		}},
		{"cluster autoscaler's aws accelerator, no tesla", `k8s.amazonaws.com/accelerator: nvidia-l4`, func(r parser.Resource) bool {
			return slices.Equal(r.Pod.GPUNames, []string{"l4"}) && r.Provider == parser.AWS
		}},
		{"an accelerator label naming no GPU", `k8s.amazonaws.com/accelerator: "true"`, func(r parser.Resource) bool {
			return len(r.Pod.GPUNames) == 0 && r.Provider != parser.AWS
		}},
		{"karpenter's gpu name wins", "karpenter.k8s.aws/instance-gpu-name: h100\n    k8s.amazonaws.com/accelerator: nvidia-l4", func(r parser.Resource) bool {
			return slices.Equal(r.Pod.GPUNames, []string{"h100"})
		}},
		{"eks spot", "eks.amazonaws.com/capacityType: SPOT\n    node.kubernetes.io/instance-type: g5.xlarge", func(r parser.Resource) bool {
			return r.PurchaseOption == parser.Spot && r.InstanceType == "g5.xlarge"
		}},
		{"gke", "cloud.google.com/gke-accelerator: nvidia-tesla-a100\n    cloud.google.com/gke-spot: \"true\"\n    topology.kubernetes.io/zone: europe-west4-a", func(r parser.Resource) bool {
			return r.Provider == parser.GCP && r.Pod.GPUNames[0] == "nvidia-tesla-a100" && r.PurchaseOption == parser.Spot && r.Region == "europe-west4"
		}},
		{"aks spot", "kubernetes.azure.com/scalesetpriority: spot\n    node.kubernetes.io/instance-type: Standard_NC6s_v3", func(r parser.Resource) bool {
			return r.Provider == parser.Azure && r.PurchaseOption == parser.Spot
		}},
	}
	for _, tc := range cases {
		src := fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector:\n    %s\n  containers:\n    - {name: a, resources: {limits: {nvidia.com/gpu: 1}}}\n", tc.selector)
		r := one(t, build(t, src, Options{}))
		if !tc.check(r) {
			t.Errorf("%s: %+v pod %+v", tc.name, r, r.Pod)
		}
	}
}

func TestAffinityIntersectsAndExcludes(t *testing.T) {
	src := `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge, g5.2xlarge, g6.xlarge]}
              - {key: node.kubernetes.io/instance-type, operator: NotIn, values: [g5.2xlarge]}
  containers:
    - {name: a, resources: {limits: {nvidia.com/gpu: 1}}}
`
	r := one(t, build(t, src, Options{}))
	if r.InstanceType != "" || strings.Join(r.Pod.InstanceTypes, ",") != "g5.xlarge,g6.xlarge" {
		t.Fatalf("candidates %v", r.Pod.InstanceTypes)
	}
}

func TestKarpenterNodePoolMatching(t *testing.T) {
	pools := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: cheap}
spec:
  weight: 1
  template:
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [l4]}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: big}
spec:
  weight: 50
  template:
    metadata:
      labels: {tier: big}
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [p5]}
      taints:
        - {key: dedicated, value: training, effect: NoSchedule}
---
`
	pod := func(extra string) string {
		return pools + "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + extra + "  containers:\n    - {name: a, resources: {limits: {nvidia.com/gpu: 8}}}\n"
	}
	// Without the toleration the tainted, heavier pool is out: the L4 pool takes the pod.
	r := one(t, build(t, pod(""), Options{}))
	if len(r.Pod.GPUNames) != 1 || r.Pod.GPUNames[0] != "l4" || !strings.Contains(r.Pod.NodeSource, "NodePool/cheap") {
		t.Fatalf("untolerated: %+v", r.Pod)
	}
	// Tolerating the taint, the higher-weight pool wins.
	r = one(t, build(t, pod("  tolerations: [{key: dedicated, operator: Equal, value: training, effect: NoSchedule}]\n"), Options{}))
	if len(r.Pod.Families) != 1 || r.Pod.Families[0] != "p5" {
		t.Fatalf("tolerated: %+v", r.Pod)
	}
	// A label selector that only the big pool carries.
	r = one(t, build(t, pod("  nodeSelector: {tier: big}\n  tolerations: [{operator: Exists}]\n"), Options{}))
	if len(r.Pod.Families) != 1 || r.Pod.Families[0] != "p5" {
		t.Fatalf("selected by label: %+v", r.Pod)
	}
	// Selecting a pool by name.
	r = one(t, build(t, pod("  nodeSelector: {karpenter.sh/nodepool: cheap}\n  tolerations: [{operator: Exists}]\n"), Options{}))
	if len(r.Pod.GPUNames) != 1 || r.Pod.GPUNames[0] != "l4" {
		t.Fatalf("selected by name: %+v", r.Pod)
	}
}

func TestRunsPerMonth(t *testing.T) {
	cases := map[string]float64{
		"0 2 * * *":   365.0 / 12,
		"@hourly":     8760.0 / 12,
		"0 0 * * 0":   52.0 / 12, // 2026 has 52 Sundays
		"0 0 1 * *":   1,
		"*/5 * * * *": 8760.0 * 12 / 12,
	}
	for sched, want := range cases {
		got, err := runsPerMonth(sched, "")
		if err != nil || math.Abs(got-want) > want*0.001 {
			t.Errorf("%s: %g, %v; want %g", sched, got, err, want)
		}
	}
	if got, err := runsPerMonth("0 9 * * 1-5", "America/New_York"); err != nil || math.Abs(got-261.0/12) > 0.01 {
		t.Errorf("weekdays in New York: %g %v", got, err)
	}
	if _, err := runsPerMonth("not a schedule", ""); err == nil {
		t.Error("bad schedule accepted")
	}
}

func TestHPAOnlyScalesItsTarget(t *testing.T) {
	src := `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s, namespace: a}
spec:
  replicas: 5
  template:
    spec:
      containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h, namespace: b}
spec:
  scaleTargetRef: {kind: StatefulSet, name: s}
  minReplicas: 1
`
	if r := one(t, build(t, src, Options{})); r.Quantity != 5 {
		t.Fatalf("an HPA in another namespace scaled the workload: %d", r.Quantity)
	}
	src = strings.Replace(src, "namespace: b", "namespace: a", 1)
	if r := one(t, build(t, src, Options{})); r.Quantity != 1 || !slices.Contains(r.Notes, "1 pod: the minReplicas (1) of HorizontalPodAutoscaler/a/h, the floor an autoscaler always runs") {
		t.Fatalf("HPA minReplicas not applied: %d, notes %q", r.Quantity, r.Notes)
	}
}

func TestBinaryInput(t *testing.T) {
	f := Decode("x.yaml", []byte("apiVersion: v1\x00\x01"))
	if len(f.Errors) != 1 || !strings.Contains(f.Errors[0].Message, "binary") {
		t.Fatalf("%+v", f.Errors)
	}
}

func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "kubernetes", "*.yaml"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	// The GPU Operator's MIG layouts in a release's values, of the right and wrong types.
	f.Add([]byte("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: o}\nspec:\n  chart: {spec: {chart: gpu-operator}}\n  values: {migManager: {config: {create: true, name: m, data: \"l: [{devices: all, mig-enabled: true, mig-devices: {3g.40gb: 2}}]\"}}}\n---\n" +
		"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: p}\nspec:\n  chart: {spec: {chart: gpu-operator}}\n  values: {migManager: {config: {create: true, data: {l: 1}}}}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  nodeSelector: {nvidia.com/mig.config: l, node.kubernetes.io/instance-type: p4d.24xlarge}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"))
	// A Bottlerocket EC2NodeClass whose userData configures the device plugin, and a pod on it.
	f.Add([]byte("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: br}\nspec:\n  amiFamily: Bottlerocket\n  userData: |\n    [settings.kubelet-device-plugins.nvidia]\n    device-sharing-strategy = \"mps\"\n    device-partitioning-strategy = \"mig\"\n    mig.profile = { \"a100.40gb\" = \"1g.5gb\" }\n---\n" +
		"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: br}, requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [p4d.24xlarge]}]}}}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {karpenter.sh/nodepool: gpu}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"))
	// Value files of an Argo CD Application of NVIDIA's chart: a ref, a missing ref, a URL.
	f.Add([]byte("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: o}\nspec:\n  sources:\n  - {chart: gpu-operator, helm: {valueFiles: [$v/a.yaml, $w/b.yaml, 'https://x/y.yaml', c.yaml], ignoreMissingValueFiles: true}}\n  - {ref: v}\n"))
	// Flux post-build variables with defaults, in a List and in shell text.
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: '${n:=a}'}\n  spec:\n    replicas: ${r:-2}\n    template: {spec: {containers: [{name: c, args: ['${X:-y}'], resources: {limits: {nvidia.com/gpu: '${g=1}'}}}]}}\n"))
	f.Add([]byte("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {limits: {cpu: 300m, memory: 1Gi, nvidia.com/gpu: 3}}\n---\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2, template: {spec: {containers: [{resources: {requests: {cpu: 100m}, limits: {nvidia.com/gpu: 2}}}]}}}\n---\n" +
		"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\nspec: {scaleTargetRef: {kind: Deployment, name: d}, minReplicas: 1, maxReplicas: 9}\n"))
	f.Add([]byte("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {limits: {nvidia.com/gpu: 3}, template: {spec: {requirements: [{key: karpenter.k8s.aws/instance-family, operator: NotIn, values: [g5]}]}}}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {nodeSelector: {karpenter.sh/nodepool: p, node.kubernetes.io/instance-type: g5.xlarge}, containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]}\n"))
	f.Add([]byte("--- a: &a [*a, *a]\n---\nkind: List\napiVersion: v1\nitems: [{kind: Pod, apiVersion: v1, spec: {containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]}}]"))
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  nodeSelector: {cloud.google.com/gke-nodepool: l4, workload: serve}\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: eks.amazonaws.com/nodegroup, operator: NotIn, values: [gpu-1]}]}]}}}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"))
	// RuntimeClasses of bad shapes, and pods whose own overhead and selector are not theirs.
	f.Add([]byte("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: k}\nhandler: h\noverhead: {podFixed: {cpu: [1], memory: 1e30}}\nscheduling: {nodeSelector: {a: b}, tolerations: [{key: t, operator: Exists}]}\n---\n" +
		"apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: j}\nhandler: h\noverhead: {podFixed: {cpu: 1}}\nscheduling: {nodeSelector: {a: b}, tolerations: [{key: t, operator: Exists}]}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {runtimeClassName: k, overhead: {cpu: {x: 1}}, nodeSelector: {a: c}, containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec: {runtimeClassName: j, tolerations: [{key: t, operator: Exists}], containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]}\n"))
	// Workloads that hold workloads through an alias that holds its own object.
	f.Add([]byte("apiVersion: workload.codeflare.dev/v1beta2\nkind: AppWrapper\nmetadata: {name: x}\nspec: &s\n  components: [{template: {apiVersion: workload.codeflare.dev/v1beta2, kind: AppWrapper, spec: *s}}]\n---\n" +
		"apiVersion: kubeflow.org/v1beta1\nkind: Experiment\nmetadata: {name: x}\nspec: &e\n  trialTemplate: {trialSpec: {apiVersion: kubeflow.org/v1beta1, kind: Experiment, spec: *e}}\n"))
	// A Cluster API topology whose class's templates are not objects.
	f.Add([]byte("apiVersion: cluster.x-k8s.io/v1beta2\nkind: ClusterClass\nmetadata: {name: k}\nspec: {infrastructure: {templateRef: {apiVersion: v, kind: AWSClusterTemplate, name: b}}, workers: {machineDeployments: [{class: g, infrastructure: {templateRef: {apiVersion: v, kind: AWSMachineTemplate, name: g}}}]}}\n---\n" +
		"apiVersion: v\nkind: AWSClusterTemplate\nmetadata: {name: b}\nspec: [1]\n---\napiVersion: v\nkind: AWSMachineTemplate\nmetadata: {name: g}\nspec: x\n---\n" +
		"apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: c}\nspec: {topology: {classRef: {name: k}, workers: {machineDeployments: [{class: g, name: d}]}}}\n"))
	// NVIDIA device plugin configs that share GPUs, the ClusterPolicy naming them, a pod on them.
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  any: |\n    version: v1\n    sharing:\n      mps: {renameByDefault: true, resources: [{name: nvidia.com/gpu, replicas: 3, devices: all}]}\n  x: 'version: v1\n\n    flags: {}'\n---\n" +
		"apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec: {devicePlugin: {config: {name: c, default: any}}}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  nodeSelector: {nvidia.com/device-plugin.config: any, nvidia.com/gpu.replicas: '2'}\n  containers: [{resources: {limits: {nvidia.com/gpu.shared: 1}}}]\n"))
	// How the plugin hands out several units: a refusal, the packed policy, an unknown policy.
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  any: |\n    version: v1\n    flags: {plugin: {sharedDevicesAllocationPolicy: packed}}\n    sharing:\n      timeSlicing: {failRequestsGreaterThanOne: true, resources: [{name: nvidia.com/gpu, replicas: 4}]}\n" +
		"  b: |\n    version: v1\n    flags: {plugin: {sharedDevicesAllocationPolicy: [x]}}\n    sharing: {mps: {failRequestsGreaterThanOne: no, resources: [{name: nvidia.com/gpu, replicas: 2}]}}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: g5.12xlarge}\n  containers: [{resources: {limits: {nvidia.com/gpu: 3}}}]\n"))
	// Time-sliced MIG slices (mixed, renamed, MPS), and a MIG manager layout a NodePool sets.
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  any: |\n    version: v1\n    sharing:\n      timeSlicing: {resources: [{name: nvidia.com/mig-1g.10gb, replicas: 2}, {name: nvidia.com/mig-3g.40gb, rename: nvidia.com/mig-3g.40gb.shared, replicas: 3}]}\n      mps: {resources: [{name: nvidia.com/mig-2g.20gb, replicas: 2}]}\n---\n" +
		"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {template: {metadata: {labels: {nvidia.com/mig.config: all-1g.10gb.me}}, spec: {requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [p4de.24xlarge]}]}}}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  nodeSelector: {karpenter.sh/nodepool: p, nvidia.com/mig.config: all-balanced}\n  containers: [{resources: {limits: {nvidia.com/mig-3g.40gb.shared: 1, nvidia.com/gpu: 1}}}]\n"))
	// A Flux release's valuesFrom: a Secret's base64 data, a targetPath, a reference of no kind.
	f.Add([]byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {values.yaml: 'Y29uZmlnOiB7ZGVmYXVsdDogeH0=', k: '%%%'}\nstringData: {t: '[1'}\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: n}\nspec:\n  chart: {spec: {chart: gpu-operator}}\n  valuesFrom: [{kind: Secret, name: s}, {kind: Secret, name: s, valuesKey: k}, {kind: Secret, name: s, valuesKey: t, targetPath: 'a[1].b\\.c'}, {name: x}, 3]\n"))
	// The device plugin's configs in the values of a Flux HelmRelease and an Argo CD Application.
	f.Add([]byte("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: n}\nspec:\n  chart: {spec: {chart: nvidia-device-plugin}}\n  values: &v\n    config: {map: {default: \"version: v1\\nsharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 2}]}}\", x: *v}, fallbackStrategies: [single]}\n---\n" +
		"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  sources: [{chart: gpu-operator, helm: {values: 'devicePlugin: {config: {name: c}}', valuesObject: {devicePlugin: {enabled: true}}, parameters: [{name: 'devicePlugin.config.default', value: any}]}}]\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"))
	// Pods kept one a zone, and pinned to a zone, on a pool whose zones are named.
	f.Add([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 3\n  template:\n    metadata: {labels: {app: d}}\n    spec:\n" +
		"      nodeSelector: {cloud.google.com/gke-nodepool: mig, topology.kubernetes.io/zone: us-central1-b}\n" +
		"      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: d}}, topologyKey: topology.kubernetes.io/zone}]}}\n" +
		"      topologySpreadConstraints: [{maxSkew: 1, minDomains: 2, topologyKey: cloud.google.com/gke-nodepool, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: d}}}]\n" +
		"      containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"))
	// Node groups as Terraform declares them, so that pods selecting them are read too.
	groups := append(testGroups(), NodeGroup{Address: "aws_eks_node_group.p", Provider: parser.AWS,
		NodeLabels: parser.NodeLabels{Labels: map[string]string{}, Prefixes: map[string]string{"eks.amazonaws.com/nodegroup": "gpu-"}, Partial: true}},
		// GKE pools whose GPUs are split into MIG slices or shared.
		NodeGroup{Address: "google_container_node_pool.mig", InstanceType: "a2-highgpu-1g", Provider: parser.GCP, Region: "us-central1",
			NodeLabels: parser.NodeLabels{Labels: map[string]string{"cloud.google.com/gke-nodepool": "mig", LabelGKEGPUPartition: "1g.5gb"}, Zones: []string{"us-central1-a"}}},
		NodeGroup{Address: "google_container_node_pool.ts", InstanceType: "g2-standard-8", Provider: parser.GCP, Region: "us-central1",
			NodeLabels: parser.NodeLabels{Labels: map[string]string{"cloud.google.com/gke-nodepool": "ts", LabelGKESharedClients: "x4"}}})
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  nodeSelector: {cloud.google.com/gke-gpu-partition-size: 1g.5gb}\n  containers: [{resources: {limits: {nvidia.com/gpu: 2}}}]\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: y}\nspec:\n  nodeSelector: {cloud.google.com/gke-nodepool: ts}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"))
	// An Argo CD Application of a chart directory, with value files after a $ref.
	f.Add([]byte("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  sources:\n  - {repoURL: r, path: charts/web, helm: {valueFiles: [v.yaml, $v/x.yaml, $none/y], values: 'a: 1', valuesObject: {b: [2]}, parameters: [{name: 'c[0]', value: '3'}]}}\n  - {repoURL: r, ref: v}\n"))
	// Flux HelmReleases of Git charts: inline, through a HelmChart, with valuesFrom.
	f.Add([]byte("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: a, namespace: ml}\nspec:\n  targetNamespace: serve\n  chart: {spec: {chart: ./charts/web, sourceRef: {kind: GitRepository, name: flux-system}, valuesFiles: [charts/web/values.yaml, /charts/web/prod.yaml]}}\n  valuesFrom: [{kind: ConfigMap, name: v}, {kind: Secret, name: s, targetPath: a.b}]\n  values: {replicas: 2}\n  postRenderers: [{kustomize: {}}]\n---\n" +
		"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: b}\nspec:\n  chartRef: {kind: HelmChart, name: c}\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata: {name: c}\nspec: {chart: charts/x, sourceRef: {kind: GitRepository, name: r}, valuesFile: v.yaml}\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: v, namespace: ml}\ndata: {values.yaml: 'replicas: 3'}\n"))
	// A custom mig-parted layout a pod's nodes take.
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mig}\ndata:\n  config.yaml: |\n    version: v1\n    mig-configs:\n      c: [{devices: all, mig-enabled: true, mig-devices: {3g.40gb: 2}}]\n      d: [{devices: [0], mig-enabled: true, mig-devices: {1g.10gb: 7, 2g.20gb: 1}}]\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: p4de.24xlarge, nvidia.com/mig.config: c}\n  containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n"))
	// Argo CD ApplicationSets: fasttemplate over git files and a list; goTemplate over a matrix.
	f.Add([]byte("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: a}\nspec:\n  generators:\n  - git: {repoURL: r, files: [{path: 'apps/*/x.yaml'}], directories: [{path: 'apps/*'}, {path: apps/b, exclude: true}], values: {v: '1'}}\n  - list: {elements: [{k: {n: 1}}]}\n  template:\n    metadata: {name: '{{k.n}}-{{path.basename}}'}\n    spec: {source: {path: '{{path}}', helm: {valueFiles: ['{{k}}.yaml']}}}\n---\n" +
		"apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: b}\nspec:\n  goTemplate: true\n  goTemplateOptions: [missingkey=error]\n  generators:\n  - matrix: {generators: [{git: {repoURL: r, directories: [{path: '**'}]}}, {list: {elements: [{n: 2}]}}]}\n  - merge: {mergeKeys: [n], generators: [{list: {elements: [{n: 2}]}}, {clusters: {}}]}\n  template:\n    metadata: {name: '{{ .path.basename | lower }}{{ .n }}'}\n    spec: {source: {path: '{{ index .path.segments 0 }}'}}\n"))
	// A Flux Kustomization with edits and post-build variables from a ConfigMap and a Secret.
	f.Add([]byte("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: k, namespace: f}\nspec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: f}\n  targetNamespace: t\n  namePrefix: p-\n  patches: [{patch: 'spec: {replicas: 2}', target: {kind: Deployment}}]\n  postBuild:\n    substitute: {a: '1'}\n    substituteFrom: [{kind: ConfigMap, name: v}, {kind: Secret, name: s, optional: true}]\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: v, namespace: f}\ndata: {b: x}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: f}\ndata: {c: '!!'}\n"))
	// Argo CD cluster Secrets, a clusters generator with a selector and values, a post selector,
	// a matrix whose second generator takes the first's parameters, templatePatch.
	f.Add([]byte("apiVersion: v1\nkind: Secret\nmetadata: {name: c, labels: {argocd.argoproj.io/secret-type: cluster, env: prod}}\nstringData: {name: c1, server: https://c1}\n---\n" +
		"apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: c}\nspec:\n  goTemplate: true\n  generators:\n  - matrix: {generators: [{clusters: {selector: {matchLabels: {env: prod}}, values: {t: '{{ .name }}'}}}, {git: {repoURL: r, files: [{path: 'apps/{{ .values.t }}/x.yaml'}]}}]}\n  - list: {elements: [{n: 1}, {n: 2}]}\n    selector: {matchExpressions: [{key: n, operator: NotIn, values: ['1']}]}\n    template: {metadata: {namespace: x}}\n  template:\n    metadata: {name: '{{ .name }}'}\n    spec: {source: {path: p}}\n  templatePatch: |\n    spec: {source: {path: '{{ .n }}'}}\n"))
	// Generators' own templates (inside them, beside them, on a matrix's child), an entry of two.
	f.Add([]byte("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: t}\nspec:\n  generators:\n  - list: {elements: [{n: 1}], template: {metadata: {name: l}}}\n    git: {repoURL: r, directories: [{path: 'apps/*'}], template: [1]}\n    template: {}\n" +
		"  - matrix: {generators: [{list: {elements: [{a: 1}], template: {spec: {}}}}, {list: {elements: [{b: 2}]}, clusters: {}}], template: {metadata: {labels: {x: y}}}}\n  template:\n    metadata: {name: '{{n}}'}\n    spec: {source: {path: p}}\n"))
	// Weighted pools a pod falls through, with a time-slicing config and a MIG layout label.
	f.Add([]byte("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: s}\nspec: {weight: 50, template: {metadata: {labels: {nvidia.com/mig.config: all-1g.10gb}}, spec: {nodeClassRef: {group: karpenter.k8s.aws, name: d}, requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [g6]}]}}}\n---\n" +
		"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: b}\nspec: {weight: 10, template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, name: d}, requirements: [{key: karpenter.k8s.gcp/instance-generation, operator: Gt, values: ['2']}]}}}\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  any: |-\n    version: v1\n    sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 4}]}}\n---\n" +
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {spec: {containers: [{resources: {limits: {nvidia.com/gpu: 16}}}]}}}\n"))
	// Kueue's configuration, in a ConfigMap and on its own: exclusions, transformations (one
	// multiplied by another request), a job that names no queue, a queued Deployment.
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kueue-manager-config}\ndata:\n  c.yaml: |\n    apiVersion: config.kueue.x-k8s.io/v1beta1\n    kind: Configuration\n    manageJobsWithoutQueueName: true\n    integrations: {frameworks: [batch/job, pod]}\n    resources:\n      excludeResourcePrefixes: [vpc.]\n      transformations: [{input: cpu, multiplyBy: nvidia.com/gpu, outputs: {x/credits: 2}}, {input: nvidia.com/gpu, strategy: Replace, outputs: {x/gpu-memory: 80Gi}}]\n---\n" +
		"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources: {transformations: [{input: x/credits, outputs: {cpu: 1}}]}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu, x/gpu-memory], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 9}, {name: x/gpu-memory, nominalQuota: 1Ti}]}]}]}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: l}\nspec: {clusterQueue: q}\n---\n" +
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, labels: {kueue.x-k8s.io/queue-name: l}}\nspec: {template: {spec: {containers: [{resources: {limits: {cpu: 500m, nvidia.com/gpu: 2, vpc.amazonaws.com/efa: 4}}}]}}}\n---\n" +
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: k}\nspec: {template: {spec: {containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]}}}\n---\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {metadata: {labels: {kueue.x-k8s.io/queue-name: l}}, spec: {containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]}}}\n"))
	// Kueue admission checks through a ProvisioningRequest, and a LeaderWorkerSet with a leader
	// template queued group by group.
	f.Add([]byte("apiVersion: kueue.x-k8s.io/v1beta1\nkind: ProvisioningRequestConfig\nmetadata: {name: p}\nspec: {provisioningClassName: queued-provisioning.gke.io, managedResources: [nvidia.com/gpu]}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta1\nkind: AdmissionCheck\nmetadata: {name: c}\nspec: {controllerName: kueue.x-k8s.io/provisioning-request, parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: p}}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {namespaceSelector: {}, admissionChecksStrategy: {admissionChecks: [{name: c, onFlavors: [f]}]}, resourceGroups: [{coveredResources: [nvidia.com/gpu], flavors: [{name: f, resources: [{name: nvidia.com/gpu, nominalQuota: 24}]}]}]}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\nspec: {nodeLabels: {node.kubernetes.io/instance-type: a3-highgpu-8g}}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: l}\nspec: {clusterQueue: q}\n---\n" +
		"apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: w, labels: {kueue.x-k8s.io/queue-name: l}}\nspec: {replicas: 3, leaderWorkerTemplate: {size: 2, leaderTemplate: {spec: {containers: [{resources: {limits: {nvidia.com/gpu: 8}}}]}}, workerTemplate: {spec: {containers: [{resources: {limits: {nvidia.com/gpu: 8}}}]}}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := Decode("fuzz.yaml", data)
		apps, _, _ := ApplicationSetApps([]*File{file}, fakeRepo{"apps/a/x.yaml": "k: v\n", "apps/b/x.yaml": "[{k: 1}, 2]\n"})
		for _, f := range apps {
			for _, o := range f.objects {
				if o.Kind != "Application" || o.file != "fuzz.yaml" {
					t.Fatalf("an ApplicationSet generated %s in %s", o.Kind, o.file)
				}
			}
		}
		charts, _, _ := GitSources([]*File{file})
		for _, c := range charts {
			if c.Path == "" || c.Owner == "" {
				t.Fatalf("a chart of no directory or no owner: %+v", c)
			}
		}
		res := Build([]*File{file}, Options{DefaultInstanceType: "g5.xlarge", NodeGroups: groups,
			GPUs: fakeGPUs{"g6.xlarge": {Key: "l4", Count: 1}, "p4de.24xlarge": {Key: "a100", Count: 8}}})
		for _, r := range res.Resources {
			// A resource is pods that request GPUs, or whole GPU nodes (Cluster API machines,
			// KAITO's nodes) whose type is a GPU type unless something left it unresolved.
			pods := r.Pod != nil && r.Pod.Requested > 0
			nodes := r.Pod == nil && (parser.IsGPUInstanceType(r.Provider, r.InstanceType) || len(r.Unresolved) > 0)
			if !pods && !nodes || r.Quantity < 0 || r.Quantity > maxPods || r.ScaleMax != nil && (r.ScaleMax.Quantity <= 0 || r.ScaleMax.Quantity > maxPods) {
				t.Fatalf("invalid resource: %+v", r)
			}
			for _, c := range sharedClaimsOf(r) {
				if c.Pods < 1 || c.GPUs < 1 || c.GPUs > r.Pod.Requested {
					t.Fatalf("invalid shared claim %+v of %+v", c, r.Pod)
				}
			}
		}
	})
}

func sharedClaimsOf(r parser.Resource) []parser.SharedClaim {
	if r.Pod == nil {
		return nil
	}
	return r.Pod.SharedClaims
}

// DRA claims: allocationMode All is a floor, said in a note; a count that is not a number of
// devices is an error on the claim; a pod adds device-plugin GPUs and claimed ones.
func TestDRAClaims(t *testing.T) {
	tmpl := func(name, request string) string {
		return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: " + name + ", namespace: ns}\nspec:\n  spec:\n    devices:\n      requests:\n        - " + request + "\n---\n"
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: p4d.24xlarge}\n  resourceClaims: [{name: g, resourceClaimTemplateName: t}]\n  containers:\n    - {name: a, resources: {limits: {nvidia.com/gpu: 1}, claims: [{name: g}]}}\n"
	r := one(t, build(t, tmpl("t", "{name: g, exactly: {deviceClassName: gpu.nvidia.com, allocationMode: All}}")+pod, Options{}))
	if r.Pod.Requested != 2 || !strings.Contains(strings.Join(r.Notes, "|"), "allocationMode All") {
		t.Errorf("All: requested %d, notes %q", r.Pod.Requested, r.Notes)
	}
	for _, bad := range []string{"{name: g, exactly: {deviceClassName: gpu.nvidia.com, count: 0}}", "{name: g, deviceClassName: gpu.nvidia.com, count: 5000}"} {
		res := build(t, tmpl("t", bad)+pod, Options{})
		if len(res.Errors) != 1 || res.Errors[0].Line != 1 || !strings.Contains(res.Errors[0].Message, "ResourceClaimTemplate/ns/t") {
			t.Errorf("%s: errors %+v", bad, res.Errors)
		}
	}
	two := tmpl("t", "{name: g, exactly: {deviceClassName: gpu.nvidia.com}}\n        - {name: h, exactly: {deviceClassName: gpu.amd.com}}")
	if res := build(t, two+pod, Options{}); len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "several kinds of GPU") {
		t.Errorf("two kinds: %+v", res.Errors)
	}
}

// A shared ResourceClaim's pods are counted across the workloads of one build, whichever files
// declare them, and each workload is told how many share it; another kustomization's build is
// another cluster's copy of the claim. A template's claims are each pod's own.
func TestSharedResourceClaimPods(t *testing.T) {
	claim := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\nspec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.nvidia.com, count: 2}}]}}\n---\n"
	tmpl := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ns}\nspec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.nvidia.com}}]}}}\n---\n"
	nic := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: nic, namespace: ns}\nspec: {devices: {requests: [{name: n, exactly: {deviceClassName: nic.example.com}}]}}\n---\n"
	workload := func(kind, name string, replicas int, instanceType, claimRef, uses string) string {
		spec := "nodeSelector: {node.kubernetes.io/instance-type: " + instanceType + "}\nresourceClaims: [{name: g, " + claimRef + "}, {name: n, resourceClaimName: nic}]\ncontainers:\n  - {name: app, command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct], resources: {claims: [{name: " + uses + "}]}}\n"
		indent := func(s, by string) string {
			return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
		}
		if kind == "Pod" {
			return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ns}\nspec:\n" + indent(spec, "  ") + "---\n"
		}
		return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s, namespace: ns}\nspec:\n  replicas: %d\n  template:\n    spec:\n%s---\n", name, replicas, indent(spec, "      "))
	}
	shared := "resourceClaimName: c"
	byAddress := func(res parser.Result) map[string]parser.Resource {
		t.Helper()
		if len(res.Errors) > 0 {
			t.Fatalf("errors %+v", res.Errors)
		}
		m := map[string]parser.Resource{}
		for _, r := range res.Resources {
			m[r.Root+" "+r.Address] = r
		}
		return m
	}
	pods := func(r parser.Resource) int {
		t.Helper()
		if r.Pod == nil || len(r.Pod.SharedClaims) != 1 || r.Pod.SharedClaims[0].Address != "ResourceClaim/ns/c" || r.Pod.SharedClaims[0].GPUs != 2 {
			t.Fatalf("%s: shared claims %+v", r.Address, r.Pod)
		}
		return r.Pod.SharedClaims[0].Pods
	}
	notes := func(r parser.Resource) string { return strings.Join(r.Notes, "|") }

	// One stream: a Pod and a Deployment of three, whose requests the claim's node holds
	// together (the Pod's 4 CPUs and 16 GiB, the Deployment's 2 and 8 each).
	requests := func(w, cpu, mem string) string {
		return strings.Replace(w, "resources: {claims:", "resources: {requests: {cpu: \""+cpu+"\", memory: "+mem+"}, claims:", 1)
	}
	rs := byAddress(build(t, claim+nic+requests(workload("Pod", "p", 1, "g6e.12xlarge", shared, "g"), "4", "16Gi")+
		requests(workload("Deployment", "d", 3, "g6e.12xlarge", shared, "g"), "2", "8Gi"), Options{}))
	for _, addr := range []string{"m.yaml Pod/ns/p", "m.yaml Deployment/ns/d"} {
		r := rs[addr]
		if c := r.Pod.SharedClaims; len(c) != 1 || c[0].CPU != 10 || c[0].MemoryGiB != 40 {
			t.Errorf("%s: the claim's pods' requests %+v, want 10 CPUs and 40 GiB", addr, c)
		}
		if pods(r) != 4 || !strings.Contains(notes(r), "its 2 GPUs are allocated once, on one node, for the 4 pods that name it (Pod/ns/p, Deployment/ns/d × 3): each pod pays 1/4") {
			t.Errorf("%s: pods %d, notes %q", addr, pods(r), notes(r))
		}
		if strings.Contains(notes(r), "cannot run") {
			t.Errorf("%s: one instance type, but %q", addr, notes(r))
		}
		// The container uses the GPU claim: its vLLM command is read.
		if r.Pod.Serving == nil || r.Pod.Serving.Container != "app" {
			t.Errorf("%s: serving %+v", addr, r.Pod.Serving)
		}
	}

	// Files read as they stand are one build, whichever declares the claim.
	res := Build([]*File{Decode("claims.yaml", []byte(claim+nic)), Decode("a.yaml", []byte(workload("Pod", "p", 1, "g6e.12xlarge", shared, "g"))),
		Decode("b.yaml", []byte(workload("Deployment", "d", 2, "g6e.24xlarge", shared, "g")))}, Options{})
	rs = byAddress(res)
	if r := rs["a.yaml Pod/ns/p"]; pods(r) != 3 || !strings.Contains(notes(r), "select different instance types (g6e.12xlarge, g6e.24xlarge), but its devices are on one node") {
		t.Errorf("two files: pods %d, notes %q", pods(r), notes(r))
	}

	// Two kustomizations' builds: each its own cluster's claim.
	res = Build([]*File{DecodeRendered("a.yaml", "overlays/a", "", []byte(claim+nic+workload("Deployment", "d", 2, "g6e.12xlarge", shared, "g"))),
		DecodeRendered("b.yaml", "overlays/b", "", []byte(claim+nic+workload("Deployment", "d", 3, "g6e.12xlarge", shared, "g")))}, Options{})
	rs = byAddress(res)
	if a, b := rs["overlays/a Deployment/ns/d"], rs["overlays/b Deployment/ns/d"]; pods(a) != 2 || pods(b) != 3 {
		t.Errorf("overlays: %d and %d pods, want 2 and 3", pods(a), pods(b))
	}

	// Alone on it; and an autoscaler that adds pods to it.
	hpa := "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ns}\nspec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}, minReplicas: 1, maxReplicas: 4}\n"
	r := one(t, build(t, claim+nic+workload("Deployment", "d", 1, "g6e.12xlarge", shared, "g")+hpa, Options{}))
	if pods(r) != 1 || !strings.Contains(notes(r), "no other pod among the manifests read names it: its pod has its 2 GPUs to itself") ||
		!strings.Contains(notes(r), "its autoscaler adds pods, not devices: more pods share ResourceClaim/ns/c's 2 GPUs, which cost the same at its maximum") {
		t.Errorf("alone: pods %d, notes %q", pods(r), notes(r))
	}

	// A template's claim is each pod's own; a container that uses only the network card's
	// claim is not the GPUs' server.
	r = one(t, build(t, tmpl+nic+workload("Deployment", "d", 3, "g6e.12xlarge", "resourceClaimTemplateName: t", "n"), Options{}))
	if r.Pod.Requested != 1 || len(r.Pod.SharedClaims) != 0 || strings.Contains(notes(r), "shared ResourceClaim") {
		t.Errorf("template: %+v, notes %q", r.Pod, notes(r))
	}
	if r.Pod.Serving != nil {
		t.Errorf("a container without the GPU claim is read as the server: %+v", r.Pod.Serving)
	}
}

// A Knative floor that is not a number of pods is an error on the Service, not a silent 1.
func TestKnativeMinScaleMustBeANumber(t *testing.T) {
	src := "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: s, namespace: ns}\nspec:\n  template:\n    metadata:\n      annotations: {autoscaling.knative.dev/min-scale: \"many\"}\n    spec:\n      containers:\n        - {image: x, resources: {limits: {nvidia.com/gpu: 1}}}\n"
	res := build(t, src, Options{})
	if len(res.Resources) != 0 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, `"many" is not a number of pods`) {
		t.Fatalf("resources %+v, errors %+v", res.Resources, res.Errors)
	}
}

// A negative or absurd count of pods is an error at the workload, never a negative cost: a
// Deployment's replicas, an operator's instances, an autoscaler's floor.
func TestPodCountsMustBeCounts(t *testing.T) {
	dep := func(replicas string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  replicas: " + replicas +
			"\n  template: {spec: {nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
	}
	hpa := "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ns}\nspec: {scaleTargetRef: {kind: Deployment, name: d}, minReplicas: -4, maxReplicas: 2}\n"
	spark := "apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nmetadata: {name: s, namespace: ns}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n  executor: {instances: -3, gpu: {name: nvidia.com/gpu, quantity: 1}}\n"
	for name, src := range map[string]string{"negative": dep("-2"), "absurd": dep("100000000"), "spark": spark} {
		res := build(t, src, Options{})
		if len(res.Resources) != 0 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "is not a number of pods") {
			t.Errorf("%s: resources %+v, errors %+v", name, res.Resources, res.Errors)
		}
	}
	res := build(t, dep("1")+hpa, Options{})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "minimum replicas -4") {
		t.Errorf("hpa: errors %+v", res.Errors)
	}
	for _, r := range res.Resources {
		if r.Quantity < 0 {
			t.Errorf("negative quantity: %+v", r)
		}
	}
}

// Neuron devices go by two resource names, and NeuronCores are priced as the devices that hold
// them (two to a device), with a note — they were not counted at all before.
func TestNeuronCoresAndDevices(t *testing.T) {
	pod := func(limits string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: inf2.48xlarge}\n  containers:\n    - {name: a, resources: {limits: {" + limits + "}}}\n"
	}
	for limits, want := range map[string]int64{
		"aws.amazon.com/neuroncore: 6":   3,
		"aws.amazon.com/neuroncore: 3":   2, // a device holds the odd core
		"aws.amazon.com/neurondevice: 4": 4,
		"aws.amazon.com/neuron: 2":       2,
	} {
		r := one(t, build(t, pod(limits), Options{}))
		if r.Pod.Resource != ResourceNeuron || r.Pod.Requested != want {
			t.Errorf("%s: %s × %d, want %s × %d", limits, r.Pod.Resource, r.Pod.Requested, ResourceNeuron, want)
		}
		if strings.Contains(limits, "core") != strings.Contains(strings.Join(r.Notes, "|"), "NeuronCores") {
			t.Errorf("%s: notes %q", limits, r.Notes)
		}
	}
}

// EKS Auto Mode NodePools name instance properties as eks.amazonaws.com/instance-*: a pool that
// asks for a GPU family there places GPU pods as a Karpenter pool does.
func TestEKSAutoModeNodePool(t *testing.T) {
	src := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      requirements:
        - {key: eks.amazonaws.com/instance-family, operator: In, values: [g6e]}
        - {key: eks.amazonaws.com/instance-gpu-name, operator: In, values: [l40s]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: chat, namespace: serving}
spec:
  template:
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
`
	r := one(t, build(t, src, Options{}))
	if r.Provider != "aws" || len(r.Pod.Families) != 1 || r.Pod.Families[0] != "g6e" || !strings.Contains(r.Pod.NodeSource, "NodePool/gpu") || len(r.Unresolved) > 0 {
		t.Fatalf("%+v %+v", r, r.Pod)
	}
}

// AKS node auto-provisioning: a NodePool whose node class is an AKSNodeClass is Azure even when
// its requirements say nothing Azure-specific, and Azure sizes in node.kubernetes.io/instance-type
// make it a GPU pool; sku-gpu-name is kept apart from GPU model names.
func TestAKSNodeAutoProvisioningPools(t *testing.T) {
	pools := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: sizes}
spec:
  weight: 5
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [Standard_NC24ads_A100_v4, Standard_NC48ads_A100_v4]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
      taints: [{key: pool, value: sizes, effect: NoSchedule}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: named}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements:
        - {key: karpenter.azure.com/sku-gpu-name, operator: In, values: [H100]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      taints: [{key: pool, value: named, effect: NoSchedule}]
---
`
	pod := func(pool string) string {
		return `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  tolerations: [{key: pool, operator: Equal, value: ` + pool + `, effect: NoSchedule}]
  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
`
	}
	r := one(t, build(t, pools+pod("sizes"), Options{}))
	if r.Provider != "azure" || len(r.Pod.InstanceTypes) != 2 || r.PurchaseOption != "spot" || !strings.Contains(r.Pod.NodeSource, "NodePool/sizes") || len(r.Unresolved) > 0 {
		t.Fatalf("sizes pool: %+v %+v", r, r.Pod)
	}
	r = one(t, build(t, pools+pod("named"), Options{}))
	if r.Provider != "azure" || len(r.Pod.AzureGPUNames) != 1 || r.Pod.AzureGPUNames[0] != "H100" || len(r.Pod.GPUNames) != 0 || r.PurchaseOption != "on_demand" {
		t.Fatalf("named pool: %+v %+v", r, r.Pod)
	}
	// A pool that names the GPU by GPU feature discovery's product label says nothing of the
	// cloud but its node class (capacity-type alone used to read as AWS).
	product := strings.Replace(pools, "{key: karpenter.azure.com/sku-gpu-name, operator: In, values: [H100]}",
		"{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-NVL]}", 1)
	r = one(t, build(t, product+pod("named"), Options{}))
	if r.Provider != "azure" || len(r.Pod.GPUNames) != 1 {
		t.Fatalf("product pool: %+v %+v", r, r.Pod)
	}
}

// Karpenter's GCP provider: a pool of a GCENodeClass is a GCP pool, its machine series and GPU
// labels name the node, and cloud.google.com/gke-accelerator is a label it knows (an AWS pool
// does not).
func TestKarpenterGCPNodePools(t *testing.T) {
	pool := func(class, requirement string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    spec:\n" +
			"      nodeClassRef: {" + class + ", name: gpu}\n" +
			"      requirements: [" + requirement + ", {key: karpenter.sh/capacity-type, operator: In, values: [spot]}]\n---\n"
	}
	gcp := "group: karpenter.k8s.gcp, kind: GCENodeClass"
	aws := "group: karpenter.k8s.aws, kind: EC2NodeClass"
	g2 := "{key: karpenter.k8s.gcp/instance-family, operator: In, values: [g2]}"
	aLatest := "{key: karpenter.k8s.gcp/instance-category, operator: In, values: [a]}, {key: karpenter.k8s.gcp/instance-generation, operator: Gt, values: ['2']}"
	pod := func(selector string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n" + selector +
			"  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	for _, tc := range []struct {
		name, src               string
		provider, source, notIn string
		note                    string
		families, gpuNames      []string
		categories              []string
		generations             string // the range of generations allowed, as written
		purchase                parser.PurchaseOption
	}{
		{name: "a pool of G2 machines", src: pool(gcp, g2) + pod(""),
			provider: "gcp", families: []string{"g2"}, purchase: parser.Spot, source: "NodePool/gpu karpenter.k8s.gcp instance-family"},
		{name: "a pool by GPU", src: pool(gcp, "{key: karpenter.k8s.gcp/instance-gpu-name, operator: In, values: [nvidia-h100-80gb]}") + pod(""),
			provider: "gcp", gpuNames: []string{"nvidia-h100-80gb"}, purchase: parser.Spot, source: "NodePool/gpu karpenter.k8s.gcp instance-gpu-name"},
		{name: "the GKE accelerator label on a GCP pool", src: pool(gcp, g2) + pod("  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n"),
			provider: "gcp", families: []string{"g2"}, gpuNames: []string{"nvidia-l4"}, purchase: parser.Spot, source: "NodePool/gpu"},
		{name: "the provider's own GPU label, which the pool does not name", src: pool(gcp, g2) + pod("  nodeSelector: {karpenter.k8s.gcp/instance-gpu-name: nvidia-l4, topology.k8s.gcp/zone-id: usc1-a}\n"),
			provider: "gcp", families: []string{"g2"}, gpuNames: []string{"nvidia-l4"}, purchase: parser.Spot, source: "NodePool/gpu"},
		{name: "a pool by GKE accelerator", src: pool(gcp, "{key: cloud.google.com/gke-accelerator, operator: In, values: [nvidia-l4]}") + pod(""),
			provider: "gcp", gpuNames: []string{"nvidia-l4"}, purchase: parser.Spot, source: "NodePool/gpu gke-accelerator"},
		{name: "the GKE accelerator label on an AWS pool", src: pool(aws, "{key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [a100]}") + pod("  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n"),
			provider: "gcp", gpuNames: []string{"nvidia-l4"}, purchase: parser.OnDemand, source: "nodeSelector/affinity gke-accelerator"},
		{name: "no pool: the pod's own GCP labels", src: pod("  nodeSelector: {karpenter.k8s.gcp/instance-family: a3, karpenter.k8s.gcp/instance-gpu-name: nvidia-h100-mega-80gb}\n"),
			provider: "gcp", families: []string{"a3"}, gpuNames: []string{"nvidia-h100-mega-80gb"}, purchase: parser.OnDemand, source: "nodeSelector/affinity karpenter.k8s.gcp instance-family"},
		{name: "a series the pod rules out", src: pool(gcp, g2) + pod("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: karpenter.k8s.gcp/instance-family, operator: NotIn, values: [g2]}, {key: karpenter.k8s.gcp/instance-gpu-name, operator: NotIn, values: [nvidia-l4]}]}]}}}\n"),
			provider: "unknown", purchase: parser.OnDemand, note: "no NodePool among the files admits the pod (NodePool/gpu"},
		{name: "another series ruled out", src: pool(gcp, g2) + pod("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: karpenter.k8s.gcp/instance-family, operator: NotIn, values: [a2]}, {key: karpenter.k8s.gcp/instance-gpu-name, operator: NotIn, values: [nvidia-tesla-a100]}]}]}}}\n"),
			provider: "gcp", families: []string{"g2"}, purchase: parser.Spot, source: "NodePool/gpu karpenter.k8s.gcp instance-family", notIn: "not family a2, not nvidia-tesla-a100"},
		{name: "a pool of CPU machines offers no GPUs", src: pool(gcp, "{key: karpenter.k8s.gcp/instance-family, operator: In, values: [n2]}") + pod("  nodeSelector: {karpenter.k8s.gcp/instance-gpu-name: nvidia-l4}\n"),
			provider: "gcp", gpuNames: []string{"nvidia-l4"}, purchase: parser.OnDemand, source: "nodeSelector/affinity karpenter.k8s.gcp instance-gpu-name"},
		// The provider reads a machine series' category (its letters) and generation (its digit)
		// off the machine type's name.
		{name: "a pool of the A series after the second generation", src: pool(gcp, aLatest) + pod(""),
			provider: "gcp", categories: []string{"a"}, generations: "≥ 3", purchase: parser.Spot, source: "NodePool/gpu karpenter.k8s.gcp instance-category, NodePool/gpu karpenter.k8s.gcp instance-generation"},
		{name: "a pod's own category and generation", src: pod("  nodeSelector: {karpenter.k8s.gcp/instance-category: g, karpenter.k8s.gcp/instance-generation: '2'}\n"),
			provider: "gcp", categories: []string{"g"}, generations: "2", purchase: parser.OnDemand, source: "nodeSelector/affinity karpenter.k8s.gcp instance-category"},
		{name: "a generation the pod rules out", src: pool(gcp, aLatest) + pod("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: karpenter.k8s.gcp/instance-generation, operator: NotIn, values: ['3']}]}]}}}\n"),
			provider: "gcp", categories: []string{"a"}, generations: "≥ 3", purchase: parser.Spot, source: "NodePool/gpu karpenter.k8s.gcp instance-category", notIn: "not generation 3"},
		{name: "a category the pod rules out", src: pool(gcp, "{key: karpenter.k8s.gcp/instance-category, operator: In, values: [a, g]}") + pod("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: karpenter.k8s.gcp/instance-category, operator: NotIn, values: [g]}]}]}}}\n"),
			provider: "gcp", categories: []string{"a"}, purchase: parser.Spot, source: "NodePool/gpu karpenter.k8s.gcp instance-category", notIn: "not category g"},
		{name: "the only category ruled out", src: pool(gcp, aLatest) + pod("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: karpenter.k8s.gcp/instance-category, operator: NotIn, values: [a]}]}]}}}\n"),
			provider: "unknown", purchase: parser.OnDemand, note: "no NodePool among the files admits the pod (NodePool/gpu"},
		{name: "a pool of N machines offers no GPUs", src: pool(gcp, "{key: karpenter.k8s.gcp/instance-category, operator: In, values: [n]}") + pod("  nodeSelector: {karpenter.k8s.gcp/instance-gpu-name: nvidia-l4}\n"),
			provider: "gcp", gpuNames: []string{"nvidia-l4"}, purchase: parser.OnDemand, source: "nodeSelector/affinity karpenter.k8s.gcp instance-gpu-name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, build(t, tc.src, Options{}))
			if r.Pod == nil {
				t.Fatalf("no pod: %+v", r)
			}
			excluded := ""
			if r.Pod.Excluded != nil {
				excluded = r.Pod.Excluded.String()
			}
			generations := ""
			if r.Pod.Generations != nil {
				generations = r.Pod.Generations.String()
			}
			if r.Provider != tc.provider || !slices.Equal(r.Pod.Families, tc.families) || !slices.Equal(r.Pod.GPUNames, tc.gpuNames) ||
				!slices.Equal(r.Pod.Categories, tc.categories) || generations != tc.generations ||
				r.PurchaseOption != tc.purchase || !strings.HasPrefix(r.Pod.NodeSource, tc.source) || !strings.Contains(excluded, tc.notIn) ||
				tc.note != "" != slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, tc.note) }) {
				t.Errorf("provider %q families %q GPUs %q categories %q generations %q purchase %q source %q excluded %q; notes %q",
					r.Provider, r.Pod.Families, r.Pod.GPUNames, r.Pod.Categories, generations, r.PurchaseOption, r.Pod.NodeSource, excluded, r.Notes)
			}
		})
	}
}

// Karpenter GPU pools written by category and GPU count (or only by GPU manufacturer) place
// GPU pods; the pod's own Gt/Lt narrow the pool's bounds.
func TestKarpenterPoolsByCategoryAndGPUCount(t *testing.T) {
	pools := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: multi}
spec:
  template:
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [g, p]}
        - {key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ["1"]}
        - {key: karpenter.k8s.aws/instance-gpu-count, operator: Lt, values: ["16"]}
      taints: [{key: pool, value: multi, effect: NoSchedule}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: maker}
spec:
  template:
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-gpu-manufacturer, operator: In, values: [nvidia]}
      taints: [{key: pool, value: maker, effect: NoSchedule}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: none}
spec:
  template:
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-gpu-count, operator: Lt, values: ["1"]}
      taints: [{key: pool, value: none, effect: NoSchedule}]
---
`
	pod := func(pool, extra string) string {
		return `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  tolerations: [{key: pool, operator: Equal, value: ` + pool + `, effect: NoSchedule}]
` + extra + `  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
`
	}
	r := one(t, build(t, pools+pod("multi", `  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ["3"]}]}]}}}
`), Options{}))
	c := r.Pod.NodeGPUs
	if r.Provider != "aws" || strings.Join(r.Pod.Categories, ",") != "g,p" || c == nil || c.Min == nil || *c.Min != 4 || c.Max == nil || *c.Max != 15 || r.Pod.AnyGPUType {
		t.Fatalf("multi pool: %+v %+v", r.Pod, c)
	}
	r = one(t, build(t, pools+pod("maker", ""), Options{}))
	if r.Provider != "aws" || !r.Pod.AnyGPUType || !strings.Contains(r.Pod.NodeSource, "NodePool/maker") || len(r.Unresolved) > 0 {
		t.Fatalf("maker pool: %+v %+v", r, r.Pod)
	}
	exists := strings.Replace(pools, `{key: karpenter.k8s.aws/instance-gpu-manufacturer, operator: In, values: [nvidia]}`,
		`{key: karpenter.k8s.aws/instance-gpu-count, operator: Exists}`, 1)
	if r = one(t, build(t, exists+pod("maker", ""), Options{})); !strings.Contains(r.Pod.NodeSource, "NodePool/maker") || r.Provider != "aws" {
		t.Fatalf("instance-gpu-count Exists is a GPU pool: %+v %+v", r, r.Pod)
	}
	r = one(t, build(t, pools+pod("none", ""), Options{}))
	if len(r.Unresolved) == 0 || strings.Contains(r.Pod.NodeSource, "NodePool/none") {
		t.Fatalf("a pool without GPUs placed a GPU pod: %+v %+v", r, r.Pod)
	}
}

// A ComputeClass's rules must be a list and its GPU count a number of GPUs; a bad class is an
// error at its line and pods that select it are still read.
func TestComputeClassErrors(t *testing.T) {
	for _, spec := range []string{"spec: {priorities: 3}", "spec: {priorities: [{gpu: {type: nvidia-l4, count: -2}}]}"} {
		src := "apiVersion: cloud.google.com/v1\nkind: ComputeClass\nmetadata: {name: c}\n" + spec + `
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {cloud.google.com/compute-class: c, node.kubernetes.io/instance-type: g2-standard-4}
  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
`
		res := Parse("m.yaml", []byte(src), Options{})
		if len(res.Errors) != 1 || res.Errors[0].Line != 4 || len(res.Resources) != 1 || res.Resources[0].InstanceType != "g2-standard-4" {
			t.Errorf("%s: errors %v, resources %+v", spec, res.Errors, res.Resources)
		}
	}
}

// Malformed specs of the kinds added this session are errors or nothing, never a panic or a
// resource with a negative count.
func TestNewKindsWithOddSpecs(t *testing.T) {
	kinds := map[string]string{
		"JobSet": "jobset.x-k8s.io/v1alpha2", "JAXJob": "kubeflow.org/v1", "Service": "serving.knative.dev/v1",
		"Job": "batch.volcano.sh/v1alpha1", "NIMService": "apps.nvidia.com/v1alpha1", "SparkApplication": "sparkoperator.k8s.io/v1beta2",
		"Workflow": "argoproj.io/v1alpha1", "CronWorkflow": "argoproj.io/v1alpha1", "ResourceClaimTemplate": "resource.k8s.io/v1",
		"ResourceClaim": "resource.k8s.io/v1", "Rollout": "argoproj.io/v1alpha1", "TrainJob": "trainer.kubeflow.org/v1alpha1",
		"LLMInferenceService": "serving.kserve.io/v1alpha1", "ScaledJob": "keda.sh/v1alpha1", "Experiment": "kubeflow.org/v1beta1",
		"DynamoGraphDeployment": "nvidia.com/v1alpha1", "ScheduledSparkApplication": "sparkoperator.k8s.io/v1beta2",
		"NodeSet": "slinky.slurm.net/v1beta1", "RoleBasedGroup": "workloads.x-k8s.io/v1alpha2", "RoleBasedGroupSet": "workloads.x-k8s.io/v1alpha2",
	}
	specs := []string{
		"spec: null", "spec: 3", "spec: [1, 2]", "spec: {replicatedJobs: x, tasks: 3, templates: {a: 1}}",
		"spec: {replicatedJobs: [{replicas: -1, template: {spec: {parallelism: -2}}}]}",
		"spec: {tasks: [{replicas: null, template: null}]}",
		"spec: {template: {metadata: {annotations: {autoscaling.knative.dev/min-scale: \"-3\"}}}}",
		"spec: {scale: {enabled: true, hpa: {minReplicas: -5}}, resources: {limits: {nvidia.com/gpu: 1}}}",
		"spec: {executor: {instances: 2, gpu: {name: nvidia.com/gpu, quantity: [1]}}}",
		"spec: {schedule: \"@every 0s\", template: {executor: {instances: -2, gpu: {name: nvidia.com/gpu, quantity: 1}}}}",
		"spec: {schedule: [1], suspend: maybe, template: [1, 2]}",
		"spec: {template: {spec: {taskCount: -1, parallelism: -2, template: {spec: {containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]}}}}}",
		"spec: {templates: [{name: t, container: null}, {containerSet: {containers: null}}], workflowTemplateRef: {}}",
		"spec: {workflowSpec: {workflowTemplateRef: {name: x}}, schedule: \"not a schedule\"}",
		"spec: {spec: {devices: {requests: [{exactly: {deviceClassName: gpu.nvidia.com, count: -1}}, {firstAvailable: []}]}}}",
		"spec: {devices: {requests: [{name: g, deviceClassName: gpu.nvidia.com, allocationMode: All}]}}",
		"spec: {replicas: -4, workloadRef: {name: \"\"}, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}",
		"spec: {workloadRef: [1]}",
		"spec: {minReplicaCount: -2, jobTargetRef: {parallelism: -1}}",
		"spec: {parallelTrialCount: -3, trialTemplate: {trialSpec: {apiVersion: batch/v1, kind: Job, spec: {template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}}}}",
		"spec: {trialTemplate: {trialSpec: [1, 2]}}",
		"spec: {parallelTrialCount: 9223372036854775807, trialTemplate: {trialSpec: {apiVersion: batch/v1, kind: Job, spec: {parallelism: 4, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}}}}",
		"spec: {minReplicaCount: 4611686018427387904, jobTargetRef: {parallelism: 4, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}}",
		"spec: {runtimeRef: {name: r}, trainer: {numNodes: -3, resourcesPerNode: {limits: {nvidia.com/gpu: 2}}}}",
		"spec: {trainer: {resourcesPerNode: {limits: {nvidia.com/gpu: x}}}, podTemplateOverrides: [{targetJobs: [{name: node}], spec: null}]}",
		"spec: {replicas: 2, parallelism: {data: 0, dataLocal: -3, pipeline: -1}, worker: {containers: [{name: m, resources: {limits: {nvidia.com/gpu: 1}}}]}, baseRefs: [{name: x}, 3]}",
		"spec: {prefill: {replicas: -2, template: {containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]}}, baseRefs: {name: y}}",
		"spec: {services: {w: {replicas: -2, multinode: {nodeCount: 0}, resources: {limits: {gpu: [1]}}}}}",
		"spec: {services: {w: {autoscaling: {enabled: true, minReplicas: -1, maxReplicas: 4611686018427387904}, resources: {limits: {gpu: \"1\"}}, multinode: {nodeCount: 4}}}}",
		"spec: {services: [1], components: {a: 1}}",
		"spec: {components: [{name: w, replicas: -3, multinode: {nodeCount: 9223372036854775807}, podTemplate: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/gpu: 1}}}]}}}]}",
		"spec: {replicas: -3, slurmd: {resources: {limits: {nvidia.com/gpu: 8}}}}",
		"spec: {slurmd: [1], template: {spec: {containers: [{name: slurmd, resources: {limits: {nvidia.com/gpu: -1}}}]}}}",
		"spec: {scalingMode: [DaemonSet], slurmd: {name: [x], resources: {limits: {nvidia.com/gpu: 8}}}, template: {spec: {containers: 3}}}",
		"spec: {replicas: -2, groupTemplate: {spec: {roles: [{name: a, replicas: -1, standalonePattern: {template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}}]}}}",
		"spec: {roles: [{name: a, replicas: 100000, leaderWorkerPattern: {size: 100000, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}}]}",
		"spec: {roles: [{name: a, customComponentsPattern: {components: [{size: -3, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}, {template: [1]}]}}, {templateRef: {name: []}}], roleTemplates: 5}",
		"spec: {groupTemplate: {spec: {roles: [{name: a, leaderWorkerSet: {size: 0}, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}]}}, replicas: 4611686018427387904}",
	}
	for kind, api := range kinds {
		for _, spec := range specs {
			src := "apiVersion: " + api + "\nkind: " + kind + "\nmetadata: {name: x, namespace: ns}\n" + spec + "\n"
			res := build(t, src, Options{DefaultInstanceType: "g5.xlarge"})
			for _, r := range res.Resources {
				if r.Quantity < 0 || r.Pod == nil || r.Pod.Requested <= 0 {
					t.Errorf("%s %s: %+v", kind, spec, r)
				}
			}
		}
	}
}

// A workload scaled to zero is listed at zero pods with a note saying so, not at $0 in silence.
func TestScaledToZeroIsSaid(t *testing.T) {
	src := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  replicas: 0\n  template: {spec: {nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
	r := one(t, build(t, src, Options{}))
	if r.Quantity != 0 || !strings.Contains(strings.Join(r.Notes, "|"), "scaled to zero") {
		t.Fatalf("quantity %d, notes %q", r.Quantity, r.Notes)
	}
}

// An Argo Rollout runs spec.replicas pods of its template, or of the Deployment its workloadRef
// names (found in any file read, else a warning), and an autoscaler can target it.
func TestArgoRollout(t *testing.T) {
	src := `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: chat, namespace: serving}
spec:
  replicas: 4
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: embed, namespace: serving}
spec:
  replicas: 3
  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: embed}
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: ghost, namespace: serving}
spec:
  workloadRef: {kind: Deployment, name: elsewhere}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: chat, namespace: serving}
spec:
  scaleTargetRef: {apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: chat}
  minReplicas: 2
`
	deployment := `apiVersion: apps/v1
kind: Deployment
metadata: {name: embed, namespace: serving}
spec:
  replicas: 0
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g5.2xlarge}
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
`
	// The referenced Deployment lives in another file, as it often does.
	res := Build([]*File{Decode("rollouts.yaml", []byte(src)), Decode("deployment.yaml", []byte(deployment))}, Options{})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Address] = r
	}
	if r := got["Rollout/serving/chat"]; r.Quantity != 2 || r.Pod == nil || r.Pod.Requested != 1 {
		t.Errorf("the HPA's floor of 2 pods: %+v", r)
	}
	if r := got["Rollout/serving/embed"]; r.Quantity != 3 || r.InstanceType != "g5.2xlarge" ||
		!strings.Contains(strings.Join(r.Notes, " "), "pod template from Deployment/serving/embed") {
		t.Errorf("3 pods of the Deployment's template: %+v %+v", r, r.Pod)
	}
	if r, ok := got["Deployment/serving/embed"]; !ok || r.Quantity != 0 {
		t.Errorf("the Deployment itself keeps its own replicas (0): %+v", r)
	}
	if _, ok := got["Rollout/serving/ghost"]; ok || len(res.Warnings) != 1 ||
		!strings.Contains(res.Warnings[0].Message, "Rollout/serving/ghost runs Deployment/serving/elsewhere, which is not among the files read: GPUs its pods request are not counted") {
		t.Errorf("a reference to a Deployment not read is a warning: %+v", res.Warnings)
	}
}

// A Kubeflow Trainer TrainJob runs its runtime's JobSet with its own overrides: trainer.numNodes
// over the runtime's mlPolicy.numNodes, trainer.resourcesPerNode for the trainer container,
// podTemplateOverrides for placement. Without the runtime among the files, it is priced from its
// own fields when they say what a node requests, else a warning says what is not counted.
func TestKubeflowTrainJob(t *testing.T) {
	runtime := `apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch}
spec:
  mlPolicy: {numNodes: 2}
  template:
    spec:
      replicatedJobs:
        - name: dataset-initializer
          template: {spec: {template: {spec: {containers: [{name: init}]}}}}
        - name: trainer
          template:
            metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
            spec:
              template:
                spec:
                  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge, pool: gpu}
                  containers:
                    - {name: sidecar}
                    - {name: node, resources: {limits: {nvidia.com/gpu: 1}}}
`
	jobs := `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: big, namespace: ml}
spec:
  runtimeRef: {name: torch}
  trainer:
    numNodes: 3
    resourcesPerNode: {limits: {nvidia.com/gpu: 8}}
  podTemplateOverrides:
    - targetJobs: [{name: dataset-initializer}]
      spec: {nodeSelector: {node.kubernetes.io/instance-type: m6i.large}}
    - targetJobs: [{name: trainer}]
      spec: {nodeSelector: {node.kubernetes.io/instance-type: p4d.24xlarge}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: default, namespace: ml}
spec:
  runtimeRef: {name: torch, kind: ClusterTrainingRuntime}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: elsewhere, namespace: ml}
spec:
  runtimeRef: {name: platform, kind: TrainingRuntime}
  trainer:
    resourcesPerNode: {limits: {nvidia.com/gpu: 4}}
  podSpecOverrides:
    - targetJobs: [{name: node}]
      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: unknown, namespace: ml}
spec:
  runtimeRef: {name: platform}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: nameless, namespace: ml}
spec: {}
`
	res := Build([]*File{Decode("jobs.yaml", []byte(jobs)), Decode("runtime.yaml", []byte(runtime))}, Options{})
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Address] = r
	}
	check := func(addr, instance string, pods int, gpus int64) {
		t.Helper()
		r, ok := got[addr]
		if !ok || r.InstanceType != instance || r.Quantity != pods || r.Pod.Requested != gpus || !r.RunsToCompletion {
			t.Errorf("%s: %+v %+v, want %d pods × %d GPUs on %s", addr, r, r.Pod, pods, gpus, instance)
		}
	}
	// numNodes and resourcesPerNode from the TrainJob; the override's node selector wins.
	check(`TrainJob/ml/big["trainer"]`, "p4d.24xlarge", 3, 8)
	// The runtime's mlPolicy and container.
	check(`TrainJob/ml/default["trainer"]`, "g5.xlarge", 2, 1)
	// A namespaced runtime not read: the TrainJob's own fields, one node by default.
	check(`TrainJob/ml/elsewhere["node"]`, "g6.12xlarge", 1, 4)
	if len(res.Resources) != 3 {
		t.Errorf("%d resources (initializers without GPUs are not resources): %+v", len(res.Resources), res.Resources)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "TrainJob/ml/unknown runs ClusterTrainingRuntime/platform, which is not among the files read") {
		t.Errorf("warnings %+v", res.Warnings)
	}
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "TrainJob/ml/nameless: spec.runtimeRef.name is not set") {
		t.Errorf("errors %+v", res.Errors)
	}
}

// A kind gpuguard does not read that requests GPUs for its pods is a warning with the line of
// the request, never a silent $0; objects that name GPU resources as capacity or quota, and
// templates other objects use, are not.
func TestUnknownKindsRequestingGPUsAreSaid(t *testing.T) {
	src := `apiVersion: inference.example.ai/v1
kind: ModelServer
metadata: {name: llama, namespace: serving}
spec:
  replicas: 2
  template:
    containers:
      - name: main
        resources:
          limits:
            nvidia.com/gpu: "1"
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  limits: {nvidia.com/gpu: 64}
  template: {spec: {requirements: []}}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: ml}
spec:
  hard: {requests.nvidia.com/gpu: "8"}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors: [{name: a100, resources: [{name: nvidia.com/gpu, nominalQuota: 16}]}]
---
apiVersion: v1
kind: LimitRange
metadata: {name: lr, namespace: ml}
spec:
  limits: [{type: Container, max: {nvidia.com/gpu: "1"}}]
---
apiVersion: v1
kind: PodTemplate
metadata: {name: pt, namespace: ml}
template:
  spec:
    containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {name: vllm, namespace: ml}
spec:
  containers: [{name: kserve-container, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: serving.example.org/v1
kind: Predictor
metadata: {name: sd, namespace: ml}
spec:
  predictors:
    - componentSpecs:
        - spec:
            containers:
              - name: model
                resources: {requests: {amd.com/gpu: 2}}
`
	res := build(t, src, Options{})
	if len(res.Resources) != 0 || len(res.Errors) != 0 || len(res.Warnings) != 2 {
		t.Fatalf("resources %+v, errors %+v, warnings %+v", res.Resources, res.Errors, res.Warnings)
	}
	w := res.Warnings[0]
	if w.Line != 11 || !strings.Contains(w.Message, "ModelServer/serving/llama (inference.example.ai/v1) requests nvidia.com/gpu, but gpuguard does not know how this kind runs its pods: its GPUs are not counted") {
		t.Errorf("warning %+v", w)
	}
	if w := res.Warnings[1]; w.Line != 62 || !strings.Contains(w.Message, "Predictor/ml/sd") || !strings.Contains(w.Message, "amd.com/gpu") {
		t.Errorf("warning %+v", w)
	}
}

// A KServe LLMInferenceService is composed from its baseRefs (in order, its own spec last,
// containers merged by name) and runs replicas pods of its template, or with a worker a
// LeaderWorkerSet of replicas groups of the parallelism's size, plus a prefill workload of the
// same shape. Configurations not among the files are said: in a note when the rest prices it,
// in a warning when nothing left requests GPUs.
func TestLLMInferenceService(t *testing.T) {
	configs := `apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceServiceConfig
metadata: {name: l4, namespace: serving}
spec:
  replicas: 3
  template:
    nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}
    containers: [{name: main, image: vllm, resources: {limits: {nvidia.com/gpu: "1"}}}, {name: proxy}]
---
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceServiceConfig
metadata: {name: two-gpus, namespace: serving}
spec:
  template:
    containers: [{name: main, resources: {limits: {nvidia.com/gpu: "2"}}}]
`
	services := `apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: composed, namespace: serving}
spec:
  baseRefs: [{name: l4}, {name: two-gpus}, {name: platform-router}]
  replicas: 2
---
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: ds, namespace: serving}
spec:
  replicas: 2
  parallelism: {data: 16, dataLocal: 8}
  template:
    nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}
    containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
  worker:
    nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}
    containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
  prefill:
    replicas: 4
    parallelism: {pipeline: 3}
    worker:
      nodeSelector: {node.kubernetes.io/instance-type: g6e.12xlarge}
      containers: [{name: main, resources: {limits: {nvidia.com/gpu: "4"}}}]
---
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: single, namespace: serving}
spec:
  template:
    nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
    containers: [{name: main, resources: {limits: {nvidia.com/gpu: "1"}}}]
---
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: preset, namespace: serving}
spec:
  baseRefs: [{name: platform-gpu}]
---
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: defaults, namespace: serving}
spec:
  model: {uri: "hf://Qwen/Qwen3-8B"}
  replicas: 2
`
	res := Build([]*File{Decode("services.yaml", []byte(services)), Decode("configs.yaml", []byte(configs))}, Options{})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Address] = r
	}
	check := func(addr, instance string, pods int, gpus int64) {
		t.Helper()
		r, ok := got[addr]
		if !ok || r.InstanceType != instance || r.Quantity != pods || r.Pod.Requested != gpus {
			t.Errorf("%s: %+v, want %d pods × %d GPUs on %s", addr, r, pods, gpus, instance)
		}
	}
	// The second config's main container wins over the first's; the service's replicas last.
	check("LLMInferenceService/serving/composed", "g6.xlarge", 2, 2)
	if n := strings.Join(got["LLMInferenceService/serving/composed"].Notes, " "); !strings.Contains(n, "LLMInferenceServiceConfig/serving/platform-router is not among the files read") {
		t.Errorf("the missing config is said: %q", n)
	}
	// 2 groups of 16/8 = 2 pods: a leader and a worker each; prefill 4 groups of 3 workers.
	check(`LLMInferenceService/serving/ds["decode-leader"]`, "p5.48xlarge", 2, 8)
	check(`LLMInferenceService/serving/ds["decode-worker"]`, "p5.48xlarge", 2, 8)
	check(`LLMInferenceService/serving/ds["prefill"]`, "g6e.12xlarge", 12, 4)
	check("LLMInferenceService/serving/single", "g5.xlarge", 1, 1)
	if len(res.Resources) != 5 || len(res.Warnings) != 2 ||
		!strings.Contains(res.Warnings[0].Message, "LLMInferenceService/serving/preset runs LLMInferenceServiceConfig/serving/platform-gpu, which is not among the files read") ||
		!strings.Contains(res.Warnings[1].Message, "LLMInferenceService/serving/defaults runs KServe's default pod template (a well-known configuration), which is not among the files read") {
		t.Errorf("%d resources, warnings %+v", len(res.Resources), res.Warnings)
	}
}

// A reference is resolved within its own build first: two overlays (charts, kustomizations)
// that each deploy a Rollout and its Deployment under the same names use their own.
func TestReferencesStayInTheirBuild(t *testing.T) {
	doc := func(instance string) []byte {
		return []byte(`apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: r, namespace: ns}
spec:
  replicas: 2
  workloadRef: {kind: Deployment, name: d}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns}
spec:
  replicas: 0
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: ` + instance + `}
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
`)
	}
	res := Build([]*File{
		DecodeRendered("a/rendered.yaml", "overlays/a", "", doc("g5.xlarge")),
		DecodeRendered("b/rendered.yaml", "overlays/b", "", doc("g6.xlarge")),
	}, Options{})
	var got []string
	for _, r := range res.Resources {
		if r.Type == "Rollout" {
			got = append(got, r.Root+" "+r.InstanceType)
		}
	}
	if strings.Join(got, ", ") != "overlays/a g5.xlarge, overlays/b g6.xlarge" {
		t.Fatalf("rollouts: %q (warnings %+v)", got, res.Warnings)
	}
}

// A Kueue flavor's node labels place a queued Job's pods. A flavor whose labels contradict the
// pod's own selection, or a ClusterQueue that does not cover the pod's GPU resource, is one
// Kueue never admits the Job to: a warning, and the pod's own labels price it.
func TestKueueFlavors(t *testing.T) {
	setup := `apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: h100}
spec: {nodeLabels: {node.kubernetes.io/instance-type: p5.48xlarge, karpenter.sh/capacity-type: spot}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors: [{name: h100}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cpu-only}
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: [cpu]
      flavors: [{name: h100}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: ml}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: cpu, namespace: ml}
spec: {clusterQueue: cpu-only}
---
`
	job := func(queue, selector string) string {
		return `apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ml, labels: {kueue.x-k8s.io/queue-name: ` + queue + `}}
spec:
  template:
    spec:
      nodeSelector: {` + selector + `}
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]
`
	}
	r := one(t, build(t, setup+job("q", ""), Options{}))
	if r.InstanceType != "p5.48xlarge" || r.PurchaseOption != "spot" || !strings.Contains(r.Pod.NodeSource, "Kueue ResourceFlavor h100") {
		t.Errorf("flavor: %+v %+v", r, r.Pod)
	}
	res := buildWarning(t, "contradicted", setup+job("q", "node.kubernetes.io/instance-type: p4d.24xlarge"),
		"Job/ml/j: Kueue never admits it: no flavor of ClusterQueue cq holds its pods' nvidia.com/gpu (h100: its node labels are not among those the pods select) (Kueue: LocalQueue ml/q → ClusterQueue cq): it stays suspended and its pods do not run (priced as declared)")
	if r := one(t, res); r.InstanceType != "p4d.24xlarge" {
		t.Errorf("the pod's own instance type lost to the flavor's: %+v", r)
	}
	res = buildWarning(t, "no GPU quota", setup+job("cpu", ""), "Job/ml/j: Kueue never admits it: ClusterQueue cpu-only covers no nvidia.com/gpu, which its pods request")
	if r := one(t, res); r.InstanceType != "" {
		t.Errorf("a queue without GPUs: %+v", r)
	}
}

// A Katib trial template of a kind gpuguard does not read is an error at the template's line,
// not GPUs left out in silence; a template kept in a ConfigMap is nothing to read here.
func TestKatibTrialKinds(t *testing.T) {
	src := `apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata: {name: e, namespace: ml}
spec:
  trialTemplate:
    trialSpec:
      apiVersion: example.com/v1
      kind: Trainer
      spec: {gpus: 1}
`
	res := Parse("m.yaml", []byte(src), Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 7 || !strings.Contains(res.Errors[0].Message, "trialSpec is a Trainer (example.com/v1), which gpuguard does not read") {
		t.Fatalf("%+v", res.Errors)
	}
	cm := strings.Replace(src, "    trialSpec:\n      apiVersion: example.com/v1\n      kind: Trainer\n      spec: {gpus: 1}\n", "    configMap: {configMapName: trial-templates, templatePath: job.yaml}\n", 1)
	if res := Parse("m.yaml", []byte(cm), Options{}); len(res.Errors) != 0 || len(res.Resources) != 0 {
		t.Fatalf("%+v", res)
	}
}

// A count of trials or jobs beyond any cluster is an error, not a product that wraps around.
func TestHugeTrialAndJobCounts(t *testing.T) {
	for _, src := range []string{
		"apiVersion: kubeflow.org/v1beta1\nkind: Experiment\nmetadata: {name: e}\nspec: {parallelTrialCount: 4611686018427387905, trialTemplate: {trialSpec: {apiVersion: batch/v1, kind: Job, spec: {parallelism: 4, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}}}}\n",
		"apiVersion: keda.sh/v1alpha1\nkind: ScaledJob\nmetadata: {name: s}\nspec: {minReplicaCount: 4611686018427387905, jobTargetRef: {parallelism: 4, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}}\n",
	} {
		res := Parse("m.yaml", []byte(src), Options{})
		if len(res.Errors) != 1 || len(res.Resources) != 0 {
			t.Errorf("errors %v, resources %+v", res.Errors, res.Resources)
		}
	}
}

// The most pods an autoscaler may run is recorded from every place a manifest declares it: an
// HPA or KEDA ScaledObject on the workload (per LeaderWorkerSet group: its pods), a Ray worker
// group, a KServe predictor, a Knative revision, a NIMService, a ScaledJob.
func TestAutoscalersDeclareTheirMaximumPods(t *testing.T) {
	gpu := "{containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}"
	for name, tc := range map[string]struct {
		src  string
		want *parser.ScaleMax
	}{
		"hpa": {"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec: {replicas: 3, template: {spec: " + gpu + "}}\n---\n" +
			"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ns}\nspec: {scaleTargetRef: {kind: Deployment, name: d}, minReplicas: 2, maxReplicas: 9}\n",
			&parser.ScaleMax{Quantity: 9, From: "maxReplicas of HorizontalPodAutoscaler/ns/h"}},
		"keda default": {"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec: {template: {spec: " + gpu + "}}\n---\n" +
			"apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: k, namespace: ns}\nspec: {scaleTargetRef: {name: d}}\n",
			&parser.ScaleMax{Quantity: 100, From: "maxReplicas of ScaledObject/ns/k"}},
		"no autoscaler": {"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec: {replicas: 3, template: {spec: " + gpu + "}}\n", nil},
		"leaderworkerset": {"apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l, namespace: ns}\nspec:\n  replicas: 1\n  leaderWorkerTemplate: {size: 4, workerTemplate: {spec: " + gpu + "}}\n---\n" +
			"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ns}\nspec: {scaleTargetRef: {kind: LeaderWorkerSet, name: l}, minReplicas: 1, maxReplicas: 3}\n",
			&parser.ScaleMax{Quantity: 12, From: "maxReplicas of HorizontalPodAutoscaler/ns/h"}},
		"ray": {"apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: r, namespace: ns}\nspec:\n  headGroupSpec: {template: {spec: {containers: [{name: h}]}}}\n" +
			"  workerGroupSpecs: [{groupName: gpu, minReplicas: 1, maxReplicas: 6, template: {spec: " + gpu + "}}]\n",
			&parser.ScaleMax{Quantity: 6, From: `maxReplicas of worker group "gpu"`}},
		"kserve": {"apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: i, namespace: ns}\nspec:\n  predictor:\n    minReplicas: 1\n    maxReplicas: 4\n" +
			"    model: {modelFormat: {name: huggingface}, resources: {limits: {nvidia.com/gpu: 1}}}\n",
			&parser.ScaleMax{Quantity: 4, From: "the predictor's maxReplicas"}},
		"knative": {"apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: s, namespace: ns}\nspec:\n  template:\n    metadata: {annotations: {autoscaling.knative.dev/max-scale: \"5\"}}\n    spec: " + gpu + "\n",
			&parser.ScaleMax{Quantity: 5, From: "the revision's autoscaling.knative.dev/max-scale"}},
		"nim": {"apiVersion: apps.nvidia.com/v1alpha1\nkind: NIMService\nmetadata: {name: n, namespace: ns}\nspec:\n  resources: {limits: {nvidia.com/gpu: 1}}\n  scale: {enabled: true, hpa: {minReplicas: 1, maxReplicas: 3}}\n",
			&parser.ScaleMax{Quantity: 3, From: "the maxReplicas of the NIMService's autoscaler"}},
		"scaledjob": {"apiVersion: keda.sh/v1alpha1\nkind: ScaledJob\nmetadata: {name: j, namespace: ns}\nspec:\n  minReplicaCount: 1\n  maxReplicaCount: 10\n  jobTargetRef: {parallelism: 2, template: {spec: " + gpu + "}}\n",
			&parser.ScaleMax{Quantity: 20, From: "maxReplicaCount (10 jobs)"}},
	} {
		res := build(t, tc.src, Options{})
		if len(res.Errors) > 0 {
			t.Errorf("%s: errors %v", name, res.Errors)
			continue
		}
		var r *parser.Resource
		for i := range res.Resources {
			if res.Resources[i].Pod != nil && res.Resources[i].Pod.Requested > 0 && (r == nil || res.Resources[i].ScaleMax != nil) {
				r = &res.Resources[i]
			}
		}
		if r == nil {
			t.Errorf("%s: no GPU resource in %+v", name, res.Resources)
			continue
		}
		if !reflect.DeepEqual(r.ScaleMax, tc.want) {
			t.Errorf("%s: scale max %+v, want %+v", name, r.ScaleMax, tc.want)
		}
	}
	hpa := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec: {template: {spec: " + gpu + "}}\n---\n" +
		"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ns}\nspec: {scaleTargetRef: {kind: Deployment, name: d}, maxReplicas: -1}\n"
	if res := build(t, hpa, Options{}); len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "maximum replicas -1") {
		t.Errorf("a negative maxReplicas: errors %v", res.Errors)
	}
}

// A NodePool's spec.limits bound what Karpenter launches for all its nodes together: the pods
// at full scale-out are capped by the tightest of the pod's GPUs, CPU and memory against them.
func TestKarpenterLimitsCapScaleOut(t *testing.T) {
	pool := func(limits string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n" + limits +
			"  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}\n" +
			"      requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [g6e]}]\n---\n"
	}
	work := func(replicas int, resources string, maxReplicas int) string {
		return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  replicas: %d\n"+
			"  template: {spec: {containers: [{name: c, resources: %s}]}}\n---\n"+
			"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ns}\n"+
			"spec: {scaleTargetRef: {kind: Deployment, name: d}, minReplicas: %d, maxReplicas: %d}\n", replicas, resources, replicas, maxReplicas)
	}
	hpa := "maxReplicas of HorizontalPodAutoscaler/ns/h"
	for name, tc := range map[string]struct {
		src     string
		want    *parser.ScaleMax
		pending bool // the floor itself passes the limits
	}{
		"gpu limit": {pool("  limits: {nvidia.com/gpu: 16}\n") + work(1, "{limits: {nvidia.com/gpu: 4}}", 100),
			&parser.ScaleMax{Quantity: 4, From: hpa + ", capped by NodePool/gpu's limits (nvidia.com/gpu: 16)"}, false},
		"cpu limit, tighter than gpus": {pool("  limits: {cpu: \"100\", nvidia.com/gpu: \"64\"}\n") + work(1, "{requests: {cpu: \"30\"}, limits: {nvidia.com/gpu: 1}}", 50),
			&parser.ScaleMax{Quantity: 3, From: hpa + ", capped by NodePool/gpu's limits (cpu: 100)"}, false},
		"memory limit": {pool("  limits: {memory: 1Ti}\n") + work(1, "{requests: {memory: 200Gi}, limits: {nvidia.com/gpu: 1}}", 50),
			&parser.ScaleMax{Quantity: 5, From: hpa + ", capped by NodePool/gpu's limits (memory: 1Ti)"}, false},
		"exact multiple": {pool("  limits: {cpu: 300m}\n") + work(1, "{requests: {cpu: 100m}, limits: {nvidia.com/gpu: 1}}", 50),
			&parser.ScaleMax{Quantity: 3, From: hpa + ", capped by NodePool/gpu's limits (cpu: 300m)"}, false}, // 0.3/0.1 < 3 in floating point
		"limit above the maximum": {pool("  limits: {nvidia.com/gpu: 1000}\n") + work(1, "{limits: {nvidia.com/gpu: 4}}", 10),
			&parser.ScaleMax{Quantity: 10, From: hpa}, false},
		"no limits": {pool("") + work(1, "{limits: {nvidia.com/gpu: 4}}", 10), &parser.ScaleMax{Quantity: 10, From: hpa}, false},
		"other resource limited": {pool("  limits: {amd.com/gpu: 1}\n") + work(1, "{limits: {nvidia.com/gpu: 4}}", 10),
			&parser.ScaleMax{Quantity: 10, From: hpa}, false},
		"mig slices do not count as gpus": {pool("  limits: {nvidia.com/gpu: 1}\n") + work(1, "{limits: {nvidia.com/mig-1g.10gb: 1}}", 10),
			&parser.ScaleMax{Quantity: 10, From: hpa}, false},
		"floor past the limit": {pool("  limits: {nvidia.com/gpu: 8}\n") + work(3, "{limits: {nvidia.com/gpu: 4}}", 10), nil, true},
	} {
		res := build(t, tc.src, Options{})
		if len(res.Errors) > 0 {
			t.Errorf("%s: errors %v", name, res.Errors)
			continue
		}
		r := one(t, res)
		if !reflect.DeepEqual(r.ScaleMax, tc.want) {
			t.Errorf("%s: scale max %+v, want %+v", name, r.ScaleMax, tc.want)
		}
		pending := len(res.Warnings) == 1 && strings.Contains(res.Warnings[0].Message, "let Karpenter launch nodes for at most 2: the others would stay pending") && res.Warnings[0].Line == 11
		if pending != tc.pending || !tc.pending && len(res.Warnings) > 0 {
			t.Errorf("%s: warnings %v", name, res.Warnings)
		}
	}
}

// Workloads on one pool are each capped alone; when their maximums together pass the pool's
// GPU limit, each says so, since the total at full scale-out counts them all.
func TestKarpenterLimitSharedByWorkloads(t *testing.T) {
	src := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  limits: {nvidia.com/gpu: 16}\n" +
		"  template: {spec: {requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [g6e]}]}}\n"
	for _, d := range []struct {
		name      string
		gpus, max int
	}{{"a", 4, 3}, {"b", 1, 10}, {"c", 2, 1}} {
		src += fmt.Sprintf("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s, namespace: ns}\n"+
			"spec: {replicas: 1, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: %d}}}]}}}\n"+
			"---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: %s, namespace: ns}\n"+
			"spec: {scaleTargetRef: {kind: Deployment, name: %s}, minReplicas: 1, maxReplicas: %d}\n", d.name, d.gpus, d.name, d.name, d.max)
	}
	res := build(t, src, Options{})
	if len(res.Resources) != 3 || len(res.Errors) > 0 {
		t.Fatalf("resources %d, errors %v", len(res.Resources), res.Errors)
	}
	// 3×4 + 10×1 + 1×2 = 24 GPUs at the maximums, over the 16 the pool may launch.
	want := "shares NodePool/gpu's limit of 16 nvidia.com/gpu with 2 other workloads: together they can use at most 16, not the 24 their maximums add up to"
	for _, r := range res.Resources {
		if !slices.Contains(r.Notes, want) {
			t.Errorf("%s: notes %q", r.Address, r.Notes)
		}
		// The totals cap the three together at the limit (estimator.Sum).
		if l := r.SharedLimit; l == nil || l.Owner != "NodePool/gpu" || l.Limit != 16 || l.Unit != "nvidia.com/gpu" ||
			l.PerInstance != float64(r.Pod.Requested) || l.What != "limit of 16 nvidia.com/gpu" {
			t.Errorf("%s: shared limit %+v", r.Address, l)
		}
	}
	// Within the limit, nothing is said.
	res = build(t, strings.Replace(src, "nvidia.com/gpu: 16}", "nvidia.com/gpu: 24}", 1), Options{})
	for _, r := range res.Resources {
		for _, n := range r.Notes {
			if strings.Contains(n, "shares NodePool") {
				t.Errorf("%s: %q within the limit", r.Address, n)
			}
		}
		if r.SharedLimit != nil {
			t.Errorf("%s: a shared limit within the limit", r.Address)
		}
	}
}

// A pod that pins its instance type and names its NodePool still gets the pool's capacity type,
// region and limits; a type the pool's requirements exclude is a warning.
func TestPinnedTypeOnNamedNodePool(t *testing.T) {
	pool := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: spotpool}\nspec:\n  limits: {nvidia.com/gpu: 4}\n" +
		"  template: {spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}, " +
		"{key: topology.kubernetes.io/region, operator: In, values: [eu-west-1]}, {key: karpenter.k8s.aws/instance-family, operator: In, values: [g6]}]}}\n"
	workload := func(typ, nodepool string) string {
		return "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ns}\nspec:\n  replicas: 2\n  template:\n    spec:\n" +
			"      nodeSelector: {node.kubernetes.io/instance-type: " + typ + nodepool + "}\n" +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n" +
			"---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a, namespace: ns}\n" +
			"spec: {scaleTargetRef: {kind: Deployment, name: a}, minReplicas: 2, maxReplicas: 10}\n"
	}
	res := build(t, pool+workload("g6.xlarge", ", karpenter.sh/nodepool: spotpool"), Options{})
	r := one(t, res)
	if r.InstanceType != "g6.xlarge" || r.PurchaseOption != parser.Spot || r.Region != "eu-west-1" || r.ScaleMax == nil || r.ScaleMax.Quantity != 4 || len(res.Warnings) > 0 {
		t.Fatalf("pinned on its pool: %s %s %s %+v, warnings %v", r.InstanceType, r.PurchaseOption, r.Region, r.ScaleMax, res.Warnings)
	}
	// A type outside the pool's families: priced as declared, with a warning.
	res = build(t, pool+workload("g5.xlarge", ", karpenter.sh/nodepool: spotpool"), Options{})
	r = one(t, res)
	if r.InstanceType != "g5.xlarge" || len(res.Warnings) != 1 ||
		res.Warnings[0].Message != "Deployment/ns/a pins g5.xlarge, which NodePool/spotpool's requirements do not allow: Karpenter would leave its pods pending (priced as declared)" {
		t.Fatalf("outside the pool: %s, warnings %v", r.InstanceType, res.Warnings)
	}
	// Without the pool's name, a pool that names the type's family is the one Karpenter launches
	// from: its capacity type, region and limits, and a note that says so.
	res = build(t, pool+workload("g6.xlarge", ""), Options{})
	r = one(t, res)
	if r.PurchaseOption != parser.Spot || r.Region != "eu-west-1" || r.ScaleMax == nil || r.ScaleMax.Quantity != 4 || len(res.Warnings) > 0 ||
		!slices.Contains(r.Notes, "NodePool/spotpool names the g6 family in its requirements: Karpenter launches the pods' g6.xlarge nodes from it, with its capacity type and limits") {
		t.Fatalf("pool naming the family: %s %s %+v %q", r.PurchaseOption, r.Region, r.ScaleMax, r.Notes)
	}
	// A type the pool does not name, or a pool that only does not exclude it, is not guessed:
	// the pinned type decides alone, without a warning.
	broad := strings.Replace(pool, "{key: karpenter.k8s.aws/instance-family, operator: In, values: [g6]}", "{key: karpenter.k8s.aws/instance-category, operator: In, values: [g]}", 1)
	for name, src := range map[string]string{"other family": pool + workload("g5.xlarge", ""), "broad pool": broad + workload("g6.xlarge", "")} {
		res = build(t, src, Options{})
		r = one(t, res)
		if r.PurchaseOption != parser.OnDemand || r.ScaleMax == nil || r.ScaleMax.Quantity != 10 || len(res.Warnings) > 0 {
			t.Fatalf("%s: %s %+v %v", name, r.PurchaseOption, r.ScaleMax, res.Warnings)
		}
	}
}

func TestKarpenterLimitsMustBeQuantities(t *testing.T) {
	for src, want := range map[string]string{
		"  limits: {nvidia.com/gpu: lots}\n": `m.yaml:5: NodePool/gpu: limits: nvidia.com/gpu: quantity "lots" is not a number`,
		"  limits: [cpu]\n":                  "m.yaml:5: NodePool/gpu: limits must be a mapping of resources to quantities",
		"  limits:\n    cpu: {a: 1}\n":       "m.yaml:6: NodePool/gpu: limits: cpu: quantity must be a number",
	} {
		res := build(t, "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n"+src, Options{})
		if len(res.Errors) != 1 || res.Errors[0].Error() != want {
			t.Errorf("%q: errors %v, want %s", src, res.Errors, want)
		}
	}
}

// An HPA's maximum over a LeaderWorkerSet counts the pods of each group: a product beyond any
// cluster is an error at the workload, not a maximum.
func TestScaleMaxMustBeACount(t *testing.T) {
	src := "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l, namespace: ns}\nspec:\n  replicas: 1\n  leaderWorkerTemplate: {size: 1000, workerTemplate: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}\n---\n" +
		"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ns}\nspec: {scaleTargetRef: {kind: LeaderWorkerSet, name: l}, minReplicas: 1, maxReplicas: 1000}\n"
	res := build(t, src, Options{})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "1000000 is not a number of pods") {
		t.Fatalf("errors %v", res.Errors)
	}
	for _, r := range res.Resources {
		if r.ScaleMax != nil {
			t.Errorf("a maximum of %d pods", r.ScaleMax.Quantity)
		}
	}
}

// A GPU pod that no GPU NodePool among the files admits (a taint it does not tolerate, a GPU name
// the pool's requirements exclude) is priced from its own labels with a note that Karpenter would
// leave it pending; a pod a pool admits, a pod on another cloud, or one that selects a managed
// node group, gets no such note.
func TestNoNodePoolAdmitsThePod(t *testing.T) {
	tainted := func(key string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a100}\nspec:\n" +
			"  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}, " +
			"requirements: [{key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [a100]}], " +
			"taints: [{key: " + key + ", value: \"true\", effect: NoSchedule}]}}\n"
	}
	pool := tainted("dedicated")
	// definesWorkload is an A100 pool whose template has meta and whose requirements start with req.
	definesWorkload := func(meta, req string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a100}\nspec:\n  template:\n    " + meta + "\n" +
			"    spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}, " +
			"requirements: [" + req + "{key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [a100]}]}\n"
	}
	pod := func(selector string, tolerate bool) string {
		tol := ""
		if tolerate {
			tol = "      tolerations: [{key: dedicated, operator: Exists}]\n"
		}
		return "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: ns}\nspec:\n  template:\n    spec:\n" +
			"      nodeSelector: {" + selector + "}\n" + tol +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	// avoiding is a pod that tolerates the pool's taint and keeps off the values an affinity's
	// NotIn names.
	avoiding := func(key, values string) string {
		return "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: ns}\nspec:\n  template:\n    spec:\n" +
			"      tolerations: [{key: dedicated, operator: Exists}]\n" +
			"      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: " + key + ", operator: NotIn, values: [" + values + "]}]}]}}}\n" +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	const note = "no NodePool among the files admits the pod (NodePool/a100: their requirements or taints exclude its selection)"
	hasNote := func(r parser.Resource) bool {
		for _, n := range r.Notes {
			if strings.HasPrefix(n, note) {
				return true
			}
		}
		return false
	}
	for name, c := range map[string]struct {
		src  string
		want bool
	}{
		"other GPU name":      {pool + pod("karpenter.k8s.aws/instance-gpu-name: a10g", true), true},
		"taint not tolerated": {pool + pod("karpenter.k8s.aws/instance-gpu-name: a100", false), true},
		"admitted":            {pool + pod("karpenter.k8s.aws/instance-gpu-name: a100", true), false},
		// The ExtendedResourceToleration admission controller tolerates the taint named after
		// the device the pod requests.
		"device taint":       {tainted("nvidia.com/gpu") + pod("karpenter.k8s.aws/instance-gpu-name: a100", false), false},
		"another cloud":      {pool + pod("cloud.google.com/gke-accelerator: nvidia-l4", false), false},
		"managed node group": {pool + pod("eks.amazonaws.com/nodegroup: gpu, karpenter.k8s.aws/instance-gpu-name: a10g", false), false},
		// Karpenter launches nodes only with the labels it knows (well-known and its own) and
		// those the pool defines: a pod that requires another stays pending.
		"Karpenter's labels":      {pool + pod("karpenter.sh/capacity-type: spot, kubernetes.io/arch: amd64, topology.kubernetes.io/zone: us-east-1a, karpenter.k8s.aws/instance-category: p, karpenter.k8s.aws/instance-gpu-name: a100", true), false},
		"a label it lacks":        {pool + pod("workload: train, karpenter.k8s.aws/instance-gpu-name: a100", true), true},
		"a label it sets":         {definesWorkload("metadata: {labels: {workload: train}}", "") + pod("workload: train", true), false},
		"a label it requires":     {definesWorkload("", "{key: workload, operator: Exists}, ") + pod("workload: train", true), false},
		"a label it excludes":     {definesWorkload("", "{key: workload, operator: NotIn, values: [serve]}, ") + pod("workload: train", true), false},
		"a label set otherwise":   {definesWorkload("metadata: {labels: {workload: serve}}", "") + pod("workload: train", true), true},
		"GPU feature discovery's": {pool + pod("nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB", true), true},
		// Karpenter intersects the pod's NotIn with the pool's In: nothing left, no node.
		"every GPU it offers excluded": {pool + avoiding("karpenter.k8s.aws/instance-gpu-name", "a100, h100"), true},
		"another GPU excluded":         {pool + avoiding("karpenter.k8s.aws/instance-gpu-name", "h100"), false},
		"its label excluded":           {definesWorkload("metadata: {labels: {workload: serve}}", "") + avoiding("workload", "serve"), true},
		"a label it does not set":      {pool + avoiding("workload", "serve"), false},
	} {
		res := build(t, c.src, Options{})
		r := one(t, res)
		if hasNote(r) != c.want {
			t.Errorf("%s: note %v, want %v (notes %q)", name, hasNote(r), c.want, r.Notes)
		}
		// The pod is pending: a warning at its line says so.
		warned := slices.ContainsFunc(res.Warnings, func(w parser.Error) bool {
			return w.Line == r.Source.Line && strings.HasPrefix(w.Message, "Job/ns/j: no NodePool among the files admits its pods (NodePool/a100") &&
				strings.Contains(w.Message, "Karpenter leaves them pending")
		})
		if warned != c.want || !c.want && len(res.Warnings) > 0 {
			t.Errorf("%s: pending warning %v, want %v (%v)", name, warned, c.want, res.Warnings)
		}
		if r.InstanceType == "" && r.Pod.InstanceTypes == nil && r.Pod.GPUNames == nil && len(r.Unresolved) == 0 {
			t.Errorf("%s: the pod's own labels were lost: %+v", name, r)
		}
	}
}

// An object of a kind gpuguard does not read that declares machines of a GPU type (an
// operator's node pool, a machine configuration) is a warning, never a silent $0; kinds read
// elsewhere (Crossplane Compositions, KAITO, GKE ComputeClasses, Cluster API templates) and
// objects of CPU types are not.
func TestUnknownKindsNamingGPUMachinesAreSaid(t *testing.T) {
	src := `apiVersion: rke-machine-config.cattle.io/v1
kind: Amazonec2Config
metadata: {name: gpu-workers, namespace: fleet-default}
region: us-east-1
instanceType: g5.2xlarge
---
apiVersion: infra.example.com/v1
kind: GPUPool
metadata: {name: pool, namespace: ml}
spec:
  nodes:
    instanceTypes: [m5.large, g6e.xlarge]
---
apiVersion: infra.example.com/v1
kind: Workstation
metadata: {name: ws, namespace: ml}
spec:
  machineType: n1-standard-8
  guestAccelerators:
    - type: nvidia-tesla-t4
      count: 1
---
apiVersion: infra.example.com/v1
kind: CPUPool
metadata: {name: cpu, namespace: ml}
spec:
  machineType: e2-standard-4
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: c}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XPool}
  resources:
    - name: ng
      base:
        apiVersion: eks.aws.upbound.io/v1beta1
        kind: NodeGroup
        spec: {forProvider: {instanceTypes: [g6.xlarge]}}
---
apiVersion: cloud.google.com/v1
kind: ComputeClass
metadata: {name: l4}
spec:
  priorities: [{machineType: g2-standard-8}]
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSMachineTemplate
metadata: {name: unused, namespace: ml}
spec: {template: {spec: {instanceType: p4d.24xlarge}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ml}
data: {instanceType: g5.xlarge}
`
	res := build(t, src, Options{})
	var got []string
	for _, w := range res.Warnings {
		got = append(got, fmt.Sprintf("%d %s", w.Line, w.Message))
	}
	want := []string{
		"1 Amazonec2Config/fleet-default/gpu-workers (rke-machine-config.cattle.io/v1): instanceType is GPU type g5.2xlarge, but gpuguard does not read Amazonec2Config objects: if they run machines, those are not counted",
		"7 GPUPool/ml/pool (infra.example.com/v1): spec.nodes.instanceTypes[1] is GPU type g6e.xlarge, but gpuguard does not read GPUPool objects: if they run machines, those are not counted",
		"14 Workstation/ml/ws (infra.example.com/v1): spec.guestAccelerators[0].type is GPU type nvidia-tesla-t4, but gpuguard does not read Workstation objects: if they run machines, those are not counted",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Cloud Run's YAML is read as Cloud Run runs it: a Knative Service with Cloud Run's marks and a
// run.googleapis.com Job are Cloud Run instances (their GPU the accelerator selector names, their
// region the location label, unpriced with Cloud Run's reason, no node looked for); a Knative
// Service without them still runs on the cluster's nodes.
func TestCloudRunYAML(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kubernetes", "cloudrun.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := build(t, string(src), Options{})
	if len(res.Errors) > 0 || len(res.Warnings) > 0 || len(res.Resources) != 3 {
		t.Fatalf("errors %+v, warnings %+v, resources %+v", res.Errors, res.Warnings, res.Resources)
	}
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Address] = r
	}
	for _, c := range []struct {
		addr, region, accelerator string
		qty, max                  int
		note                      string
		runsToCompletion          bool
	}{
		{"Service/default/gemma", "europe-west4", "nvidia-l4", 1, 3, "1 instance always on", false},
		{"Job/default/embed-batch", "us-central1", "nvidia-rtx-pro-6000", 2, 0, "each execution runs 10 tasks, 2 at a time", true},
	} {
		r, ok := got[c.addr]
		if !ok {
			t.Fatalf("%s not read: %+v", c.addr, res.Resources)
		}
		if r.Provider != parser.GCP || r.Region != c.region || r.Quantity != c.qty || r.Pod != nil || r.InstanceType != "" || r.RunsToCompletion != c.runsToCompletion ||
			!slices.Equal(r.Accelerators, []parser.Accelerator{{Type: c.accelerator, Count: 1}}) || !r.NoSpot || r.NoMIG == "" {
			t.Errorf("%s: %+v", c.addr, r)
		}
		if len(r.Unresolved) != 1 || r.Unresolved[0].Attribute != "price" || !strings.Contains(r.Unresolved[0].Reason, "Cloud Run") {
			t.Errorf("%s: unresolved %+v, want Cloud Run's price alone (no node)", c.addr, r.Unresolved)
		}
		if (c.max == 0) != (r.ScaleMax == nil) || (r.ScaleMax != nil && r.ScaleMax.Quantity != c.max) {
			t.Errorf("%s: scale max %+v, want %d", c.addr, r.ScaleMax, c.max)
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
			t.Errorf("%s: notes %q, want %q", c.addr, r.Notes, c.note)
		}
	}
	// Each mark alone makes a Service Cloud Run's; a job without parallelism runs every task at once.
	gpuPod := "    spec:\n      containers: [{image: x, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	for name, src := range map[string]string{
		"accelerator selector": "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: s}\nspec:\n  template:\n    spec:\n      nodeSelector: {run.googleapis.com/accelerator: nvidia-l4}\n      containers: [{image: x, resources: {limits: {nvidia.com/gpu: 1}}}]\n",
		"location label":       "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: s, labels: {cloud.googleapis.com/location: us-central1}}\nspec:\n  template:\n" + gpuPod,
		"revision annotation":  "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: s}\nspec:\n  template:\n    metadata: {annotations: {run.googleapis.com/cpu-throttling: 'false'}}\n" + gpuPod,
		"job, every task at once": "apiVersion: run.googleapis.com/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      taskCount: 3\n      template:\n" +
			"        spec: {nodeSelector: {run.googleapis.com/accelerator: nvidia-l4}, containers: [{image: x, resources: {limits: {nvidia.com/gpu: 1}}}]}\n",
	} {
		res := build(t, src, Options{})
		if len(res.Resources) != 1 || len(res.Errors) > 0 {
			t.Fatalf("%s: resources %+v, errors %+v", name, res.Resources, res.Errors)
		}
		r := res.Resources[0]
		want := 0 // scales to zero
		if r.Type == "Job" {
			want = 3
		}
		if r.Pod != nil || r.NoMIG != "Cloud Run" || r.Quantity != want || len(r.Unresolved) != 1 || r.Unresolved[0].Attribute != "price" {
			t.Errorf("%s: not read as Cloud Run's: %+v", name, r)
		}
	}

	k := got["Service/serving/on-cluster"]
	if k.Pod == nil || k.InstanceType != "g2-standard-8" || k.Quantity != 2 || len(k.Accelerators) != 0 || len(k.Unresolved) != 0 {
		t.Errorf("Knative on a cluster: %+v", k)
	}
}

// The Spark operator's ScheduledSparkApplication is its template's SparkApplication on a schedule:
// its hours come from the annotation (a Spark application has no deadline to bound a run), a
// suspended one runs nothing, and a bad schedule is an error at its line. A CronJob's own
// suspend stops it too; its Jobs' suspend (Kueue's) does not.
func TestScheduledSparkApplication(t *testing.T) {
	app := func(extra string) string {
		return `apiVersion: sparkoperator.k8s.io/v1beta2
kind: ScheduledSparkApplication
metadata:
  name: nightly
  namespace: spark` + extra + `
spec:
  schedule: "@every 24h"
  template:
    nodeSelector: {node.kubernetes.io/instance-type: g5.2xlarge}
    driver: {cores: 1}
    executor:
      instances: 4
      gpu: {name: nvidia.com/gpu, quantity: 1}
`
	}
	res := build(t, app(""), Options{})
	if len(res.Errors) > 0 || len(res.Resources) != 1 {
		t.Fatalf("errors %+v, resources %+v", res.Errors, res.Resources)
	}
	r := res.Resources[0]
	if r.Address != `ScheduledSparkApplication/spark/nightly["executor"]` || r.Quantity != 4 || r.InstanceType != "g5.2xlarge" || !r.RunsToCompletion || r.HoursPerMonth != 0 ||
		!strings.Contains(strings.Join(r.Notes, "\n"), "runs 30.4 times a month; a Spark application sets no deadline") {
		t.Errorf("scheduled: %+v", r)
	}
	res = build(t, app("\n  annotations: {gpuguard.dev/hours-per-month: \"60\"}"), Options{})
	if len(res.Resources) != 1 || res.Resources[0].HoursPerMonth != 60 {
		t.Errorf("with the hours annotation: %+v", res.Resources)
	}
	res = build(t, strings.Replace(app(""), "schedule: \"@every 24h\"", "schedule: \"@every 24h\"\n  suspend: true", 1), Options{})
	if len(res.Resources) != 1 || res.Resources[0].Quantity != 0 || !strings.Contains(strings.Join(res.Resources[0].Notes, "\n"), "suspended") {
		t.Errorf("suspended: %+v", res.Resources)
	}
	res = build(t, strings.Replace(app(""), "@every 24h", "every day", 1), Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 7 || !strings.Contains(res.Errors[0].Message, `schedule "every day"`) {
		t.Errorf("bad schedule: errors %+v", res.Errors)
	}

	cron := func(suspend string) string {
		return "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c, namespace: ns}\nspec:\n  schedule: \"0 2 * * *\"\n" + suspend +
			"  jobTemplate:\n    spec:\n      suspend: true\n      activeDeadlineSeconds: 3600\n      template: {spec: {nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
	}
	if res := build(t, cron(""), Options{}); len(res.Resources) != 1 || res.Resources[0].Quantity != 1 || res.Resources[0].HoursPerMonth == 0 {
		t.Errorf("a CronJob whose Jobs Kueue suspends still runs: %+v", res.Resources)
	}
	if res := build(t, cron("  suspend: true\n"), Options{}); len(res.Resources) != 1 || res.Resources[0].Quantity != 0 {
		t.Errorf("a suspended CronJob runs nothing: %+v", res.Resources)
	}
}

// Kinds gpuguard does not read that ask for GPUs outside container resource requirements are
// warned about too: a count field (Run:ai's {value: N}, fractions included), a GPU resource named
// with its amount (the Spark operator's shape), a device passed through by resource name
// (KubeVirt). Fields that only look alike (a disabled gpu block, a zero count, a Kueue-style quota
// entry) are not.
func TestUnreadKindsAskingForGPUsInOtherShapes(t *testing.T) {
	src := `apiVersion: run.ai/v2alpha1
kind: TrainingWorkload
metadata: {name: train, namespace: runai-team}
spec:
  image: {value: pytorch}
  gpuDevices:
    value: 8
---
apiVersion: run.ai/v2alpha1
kind: InteractiveWorkload
metadata: {name: nb, namespace: runai-team}
spec:
  gpu: {value: "0.5"}
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {name: vm, namespace: virt}
spec:
  template:
    spec:
      domain:
        devices:
          gpus:
            - deviceName: nvidia.com/GA102GL_A10
              name: gpu1
---
apiVersion: example.com/v1
kind: SparkLike
metadata: {name: s, namespace: ns}
spec:
  executor:
    gpu: {name: nvidia.com/gpu, quantity: 2}
---
apiVersion: example.com/v1
kind: NotGPU
metadata: {name: n, namespace: ns}
spec:
  gpu: {enabled: false}
  gpus: 0
  numGpus: "-1"
  accelerators: [{name: nvidia.com/gpu, nominalQuota: 8}]
  executor: {gpu: {name: nvidia.com/gpu, quantity: 0}}
`
	res := build(t, src, Options{})
	if len(res.Resources) != 0 || len(res.Errors) != 0 {
		t.Fatalf("resources %+v, errors %+v", res.Resources, res.Errors)
	}
	want := []struct {
		line int
		text string
	}{
		{6, "TrainingWorkload/runai-team/train (run.ai/v2alpha1) requests gpuDevices"},
		{13, "InteractiveWorkload/runai-team/nb (run.ai/v2alpha1) requests gpu"},
		{24, "VirtualMachine/virt/vm (kubevirt.io/v1) requests nvidia.com/GA102GL_A10"},
		{32, "SparkLike/ns/s (example.com/v1) requests nvidia.com/gpu"},
	}
	if len(res.Warnings) != len(want) {
		t.Fatalf("warnings %+v, want %d", res.Warnings, len(want))
	}
	for i, w := range want {
		if got := res.Warnings[i]; got.Line != w.line || !strings.Contains(got.Message, w.text) {
			t.Errorf("warning %d: %+v, want line %d saying %q", i, got, w.line, w.text)
		}
	}
}
