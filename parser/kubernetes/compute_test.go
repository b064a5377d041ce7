package kubernetes

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// CPU and memory quantities as the Kubernetes API writes them.
func TestComputeQuantity(t *testing.T) {
	for in, want := range map[string]float64{
		"500m": 0.5, "2": 2, "1.5": 1.5, "0.25": 0.25, "16Gi": 16 << 30, "512Mi": 512 << 20, "1Ki": 1024,
		"129M": 129e6, "1G": 1e9, "2k": 2000, "1e9": 1e9, "1E3": 1000, "5e-1": 0.5, "1E": 1e18, "+3": 3, " 4 ": 4, "1.5Gi": 1.5 * (1 << 30),
	} {
		got, err := computeQuantity(in)
		if err != nil || math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("computeQuantity(%q) = %g, %v; want %g", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"": "not a number", "Gi": "not a number", "-1": "negative", "1.2.3": "not a number", "1GB": "unknown suffix",
		"1e": "unknown suffix", "1e99": "unknown suffix", "4 cores": "unknown suffix", ".": "not a number", "1e18E": "unknown suffix",
		"9999999999Ei": "larger than any node",
	} {
		if _, err := computeQuantity(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("computeQuantity(%q): error %v, want %q", in, err, want)
		}
	}
}

// A pod's CPU and memory follow the rule its GPUs do: app containers and sidecars add up, an
// init container step needs its own and the sidecars before it, requests default to limits.
func TestPodCPUAndMemory(t *testing.T) {
	src := `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
  initContainers:
    - {name: proxy, restartPolicy: Always, resources: {requests: {cpu: 250m, memory: 256Mi}}}
    - {name: fetch, resources: {limits: {cpu: "6", memory: 1Gi}}}
  containers:
    - {name: a, resources: {limits: {nvidia.com/gpu: 1, cpu: "8", memory: 32Gi}, requests: {cpu: "2"}}}
    - {name: b, resources: {requests: {memory: 512Mi}}}
`
	r := one(t, build(t, src, Options{}))
	// CPU: app 2 (request wins over the limit) + sidecar 0.25 = 2.25 against the init step 6 + 0.25.
	// Memory: 32 GiB (the limit, no request) + 0.5 + 0.25 = 32.75 GiB against 1.25 GiB.
	if r.Pod.CPU != 6.25 || r.Pod.MemoryGiB != 32.75 {
		t.Fatalf("cpu %g, memory %g GiB; want 6.25 and 32.75", r.Pod.CPU, r.Pod.MemoryGiB)
	}
	// A CPU-only container's requests count too; a pod asking for none has none.
	r = one(t, build(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n  containers:\n    - {name: a, resources: {limits: {nvidia.com/gpu: 1}}}\n", Options{}))
	if r.Pod.CPU != 0 || r.Pod.MemoryGiB != 0 {
		t.Fatalf("no requests: cpu %g, memory %g", r.Pod.CPU, r.Pod.MemoryGiB)
	}
}

// A malformed CPU or memory quantity is an error at its line; the pod is still reported.
func TestBadComputeQuantityIsAnError(t *testing.T) {
	src := `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
  containers:
    - name: a
      resources:
        limits: {nvidia.com/gpu: 1, memory: 16GB}
        requests: {cpu: [2]}
`
	res := build(t, src, Options{})
	if len(res.Resources) != 1 || len(res.Errors) != 2 {
		t.Fatalf("resources %d, errors %+v", len(res.Resources), res.Errors)
	}
	for _, e := range res.Errors {
		if !(e.Line == 9 && strings.Contains(e.Message, `memory: quantity "16GB" has an unknown suffix`) || e.Line == 10 && strings.Contains(e.Message, "cpu: quantity must be a number")) {
			t.Errorf("error %+v", e)
		}
	}
}

func FuzzComputeQuantity(f *testing.F) {
	for _, s := range []string{"500m", "16Gi", "1e9", "1E", "+1.5k", "-0", "1e-18", "..5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := computeQuantity(s)
		if err == nil && (q < 0 || math.IsNaN(q) || math.IsInf(q, 0) || q > 1e24) {
			t.Fatalf("computeQuantity(%q) = %g", s, q)
		}
	})
}

// GKE's built-in classes are not in the files: they are named as such (not "not among the files
// read"), the node still comes from the pod's labels, and autopilot-spot makes the pod spot.
func TestBuiltInComputeClasses(t *testing.T) {
	pod := func(class string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {cloud.google.com/compute-class: " + class +
			", cloud.google.com/gke-accelerator: nvidia-l4}\n  containers:\n    - {name: a, resources: {limits: {nvidia.com/gpu: 1}}}\n"
	}
	for class, spot := range map[string]bool{"Accelerator": false, "autopilot-spot": true, "autopilot": false} {
		r := one(t, build(t, pod(class), Options{}))
		notes := strings.Join(r.Notes, "|")
		if !strings.Contains(notes, "ComputeClass "+class+" is built into GKE") || strings.Contains(notes, "not among the files") {
			t.Errorf("%s: notes %q", class, notes)
		}
		if (r.PurchaseOption == "spot") != spot || len(r.Pod.GPUNames) != 1 || r.Provider != "gcp" {
			t.Errorf("%s: %s, %v, %s", class, r.PurchaseOption, r.Pod.GPUNames, r.Provider)
		}
	}
	// A class of the same name that the files define is that class, not the built-in.
	r := one(t, build(t, "apiVersion: cloud.google.com/v1\nkind: ComputeClass\nmetadata: {name: Accelerator}\nspec:\n  priorities:\n    - {machineType: g2-standard-8}\n---\n"+pod("Accelerator"), Options{}))
	if r.InstanceType != "g2-standard-8" || strings.Contains(strings.Join(r.Notes, "|"), "built into GKE") {
		t.Errorf("the file's own Accelerator class was not used: %+v", r)
	}
}

// A pod that selects flex-start nodes (cloud.google.com/gke-flex-start), or a ComputeClass whose
// first rule enables flexStart, runs on flex-start VMs, billed at their own price (on demand
// only); a pod on a node group with that price carries it too. A plain pod does not.
func TestFlexStartPods(t *testing.T) {
	job := func(selector string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      nodeSelector: {" + selector +
			"}\n      containers:\n        - {name: a, resources: {limits: {nvidia.com/gpu: 1}}}\n"
	}
	flex := func(r parser.Resource) bool {
		o := r.OwnPrice
		return o != nil && o.Only == parser.OnDemand && !o.Higher && strings.HasPrefix(o.By, "Flex-start") && r.Provider == parser.GCP
	}
	r := one(t, build(t, job(`cloud.google.com/gke-flex-start: "true", cloud.google.com/gke-accelerator: nvidia-l4`), Options{}))
	if !flex(r) || len(r.Pod.GPUNames) != 1 {
		t.Errorf("selector: %+v", r)
	}
	class := "apiVersion: cloud.google.com/v1\nkind: ComputeClass\nmetadata: {name: flex}\nspec:\n  priorities:\n    - {machineType: g2-standard-8, flexStart: {enabled: true}}\n---\n"
	if r := one(t, build(t, class+job(`cloud.google.com/compute-class: flex`), Options{})); !flex(r) || r.InstanceType != "g2-standard-8" {
		t.Errorf("ComputeClass: %+v", r)
	}
	if r := one(t, build(t, job(`cloud.google.com/gke-accelerator: nvidia-l4`), Options{})); r.OwnPrice != nil {
		t.Errorf("plain: %+v", r.OwnPrice)
	}

	group := parser.Resource{Address: "google_container_node_pool.flex", Provider: parser.GCP, Region: "us-central1", InstanceType: "g2-standard-8",
		PurchaseOption: parser.OnDemand, OwnPrice: parser.FlexStart(),
		NodeLabels: &parser.NodeLabels{Labels: map[string]string{"cloud.google.com/gke-nodepool": "flex"}}}
	groups := NodeGroupsOf([]parser.Resource{group})
	for _, sel := range []string{`cloud.google.com/gke-nodepool: flex`, ``} {
		r := one(t, build(t, job(sel), Options{NodeGroups: groups, AnyNodeGroup: true}))
		if !flex(r) || r.InstanceType != "g2-standard-8" {
			t.Errorf("on the group (selector %q): %+v", sel, r)
		}
	}
}
