package kubernetes

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// A RoleBasedGroup runs each role as its own workload, whichever API version writes it: inline
// templates, templateRefs with their patches merged over, leader-worker roles of size pods a
// group (split into leader and workers when their patches differ), custom components; a
// RoleBasedGroupSet runs replicas such groups.
func TestRoleBasedGroup(t *testing.T) {
	const base = "  roleTemplates:\n  - name: engine\n    template:\n      spec:\n        nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}\n" +
		"        containers: [{name: sglang, image: sglang, resources: {limits: {nvidia.com/gpu: 8}}}]\n"
	rbg := func(api, roles string) string {
		return "apiVersion: workloads.x-k8s.io/" + api + "\nkind: RoleBasedGroup\nmetadata: {name: pd, namespace: serving}\nspec:\n" + base + "  roles:\n" + roles
	}
	type want struct {
		pods, gpus int
		perGroup   int
	}
	for _, c := range []struct {
		name string
		src  string
		want map[string]want // by role name in the address
		errs []string
	}{
		{"v1alpha2 standalone, inline and by reference", rbg("v1alpha2",
			"  - name: router\n    standalonePattern:\n      template: {spec: {containers: [{name: r, resources: {requests: {cpu: \"2\"}}}]}}\n"+
				"  - name: prefill\n    replicas: 3\n    standalonePattern:\n      templateRef:\n        name: engine\n        patch: {spec: {containers: [{name: sglang, resources: {limits: {nvidia.com/gpu: 4}}}]}}\n"+
				"  - name: decode\n    replicas: 2\n    standalonePattern: {templateRef: {name: engine}}\n"),
			map[string]want{"prefill": {3, 4, 0}, "decode": {2, 8, 0}}, nil},
		{"v1alpha2 leader-worker", rbg("v1alpha2",
			"  - name: decode\n    replicas: 2\n    leaderWorkerPattern: {size: 4, templateRef: {name: engine}}\n"),
			map[string]want{"decode": {8, 8, 4}}, nil},
		{"v1alpha2 leader-worker, the leader patched", rbg("v1alpha2",
			"  - name: decode\n    replicas: 2\n    leaderWorkerPattern:\n      size: 4\n      templateRef: {name: engine}\n      leaderTemplatePatch: {spec: {containers: [{name: sglang, resources: {limits: {nvidia.com/gpu: 2}}}]}}\n"),
			map[string]want{"decode-leader": {2, 2, 0}, "decode-worker": {6, 8, 3}}, nil},
		{"v1alpha1 template and templatePatch", rbg("v1alpha1",
			"  - name: prefill\n    replicas: 2\n    templateRef: {name: engine}\n    templatePatch: {spec: {containers: [{name: sglang, resources: {limits: {nvidia.com/gpu: 2}}}]}}\n"+
				"  - name: decode\n    replicas: 1\n    template: {spec: {nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}, containers: [{name: s, resources: {limits: {nvidia.com/gpu: 8}}}]}}\n"),
			map[string]want{"prefill": {2, 2, 0}, "decode": {1, 8, 0}}, nil},
		{"v1alpha1 leaderWorkerSet, the worker patched", rbg("v1alpha1",
			"  - name: decode\n    replicas: 1\n    templateRef: {name: engine}\n    templatePatch: {}\n    leaderWorkerSet:\n      size: 3\n      patchWorkerTemplate: {spec: {containers: [{name: sglang, resources: {limits: {nvidia.com/gpu: 4}}}]}}\n"),
			map[string]want{"decode-leader": {1, 8, 0}, "decode-worker": {2, 4, 2}}, nil},
		{"custom components", rbg("v1alpha2",
			"  - name: pd\n    replicas: 2\n    customComponentsPattern:\n      components:\n      - {name: prefill, size: 1, template: {spec: {nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}, containers: [{name: p, resources: {limits: {nvidia.com/gpu: 2}}}]}}}\n"+
				"      - {name: decode, size: 2, template: {spec: {nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}, containers: [{name: d, resources: {limits: {nvidia.com/gpu: 4}}}]}}}\n"),
			map[string]want{"pd-prefill": {2, 2, 0}, "pd-decode": {4, 4, 0}}, nil},
		{"a bad role does not stop the others", rbg("v1alpha2",
			"  - name: lost\n    standalonePattern: {templateRef: {name: nowhere}}\n  - name: empty\n    standalonePattern: {}\n"+
				"  - name: decode\n    standalonePattern: {templateRef: {name: engine}}\n"),
			map[string]want{"decode": {1, 8, 0}}, []string{`RoleBasedGroup/serving/pd: role lost: templateRef "nowhere" names none of spec.roleTemplates`, "RoleBasedGroup/serving/pd: role empty: no template or templateRef"}},
	} {
		res := build(t, c.src, Options{})
		got := map[string]parser.Resource{}
		for _, r := range res.Resources {
			i := strings.Index(r.Address, `["`)
			if i < 0 || !strings.HasPrefix(r.Address, "RoleBasedGroup/serving/pd[") {
				t.Fatalf("%s: address %s", c.name, r.Address)
			}
			got[strings.Trim(r.Address[i+1:], `"[]`)] = r
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: resources %v, want %v", c.name, keysOf(got), c.want)
		}
		for name, w := range c.want {
			r, ok := got[name]
			if !ok || r.Quantity != w.pods || r.Pod == nil || int(r.Pod.Requested) != w.gpus || r.InstanceType != "p5.48xlarge" {
				t.Errorf("%s: %s = %+v, want %+v", c.name, name, r, w)
			}
		}
		var errs []string
		for _, e := range res.Errors {
			errs = append(errs, e.Message)
		}
		if strings.Join(errs, "|") != strings.Join(c.errs, "|") {
			t.Errorf("%s: errors %q, want %q", c.name, errs, c.errs)
		}
	}
}

func keysOf(m map[string]parser.Resource) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A RoleBasedGroupSet runs replicas groups; its group-exclusive-topology on the hostname keeps
// each group's pods on one node of their own, each role checked for its pods of a group, a role
// that opts out left alone.
func TestRoleBasedGroupSetExclusive(t *testing.T) {
	src := "apiVersion: workloads.x-k8s.io/v1alpha2\nkind: RoleBasedGroupSet\nmetadata:\n  name: pd\n  namespace: serving\n" +
		"  annotations: {rbg.workloads.x-k8s.io/group-exclusive-topology: kubernetes.io/hostname}\n" +
		"spec:\n  replicas: 3\n  groupTemplate:\n    spec:\n      roles:\n" +
		"      - name: prefill\n        replicas: 2\n        standalonePattern: {template: {spec: {nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}, containers: [{name: p, resources: {limits: {nvidia.com/gpu: 2}}}]}}}\n" +
		"      - name: decode\n        standalonePattern: {template: {spec: {nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}, containers: [{name: d, resources: {limits: {nvidia.com/gpu: 4}}}]}}}\n" +
		"      - name: monitor\n        annotations: {rbg.workloads.x-k8s.io/role-disable-exclusive: \"true\"}\n        standalonePattern: {template: {spec: {nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}, containers: [{name: m, resources: {limits: {nvidia.com/gpu: 1}}}]}}}\n"
	res := build(t, src, Options{})
	if len(res.Resources) != 3 || len(res.Errors) > 0 {
		t.Fatalf("resources %+v, errors %v", res.Resources, res.Errors)
	}
	const from = "the rbg.workloads.x-k8s.io/group-exclusive-topology annotation (kubernetes.io/hostname)"
	for _, r := range res.Resources {
		p := r.Pod
		switch {
		case strings.HasSuffix(r.Address, `["prefill"]`):
			if r.Quantity != 6 || p.Together != 2 || p.MaxPerNode != 3 || p.TogetherWhy != from+" puts all 3 pods of each RoleBasedGroup, 2 of them this role's, on one node" {
				t.Errorf("prefill: %d pods, %+v", r.Quantity, p)
			}
		case strings.HasSuffix(r.Address, `["decode"]`):
			if r.Quantity != 3 || p.Together != 0 || p.MaxPerNode != 3 || !p.MaxPerNodeGroup || p.MaxPerNodeWhy != from+" gives each RoleBasedGroup of 3 pods a node no other RoleBasedGroup's pods share" {
				t.Errorf("decode: %d pods, %+v", r.Quantity, p)
			}
		case strings.HasSuffix(r.Address, `["monitor"]`):
			if r.Quantity != 3 || p.Together != 0 || p.MaxPerNode != 0 {
				t.Errorf("monitor: %d pods, %+v", r.Quantity, p)
			}
		default:
			t.Errorf("address %s", r.Address)
		}
	}
	// Prefill and decode share a node; monitor, which opts out, is beside neither.
	const beside = from + " puts 2 prefill pods and 1 decode pod on one node"
	if p := res.Resources[0].Pod; p.BesideOwn != 2 || p.BesideWhy != beside || len(p.Beside) != 1 || p.Beside[0] != (parser.NodeMate{Pods: 1, Resource: "nvidia.com/gpu", GPUs: 4}) {
		t.Errorf("prefill beside: %d, %q, %+v", p.BesideOwn, p.BesideWhy, p.Beside)
	}
	if p := res.Resources[1].Pod; p.BesideOwn != 1 || p.BesideWhy != beside || len(p.Beside) != 1 || p.Beside[0] != (parser.NodeMate{Pods: 2, Resource: "nvidia.com/gpu", GPUs: 2}) {
		t.Errorf("decode beside: %d, %q, %+v", p.BesideOwn, p.BesideWhy, p.Beside)
	}
	if p := res.Resources[2].Pod; p.BesideOwn != 0 || len(p.Beside) != 0 {
		t.Errorf("monitor beside: %d, %+v", p.BesideOwn, p.Beside)
	}
	// A role scaled to zero is beside nothing.
	zero := strings.Replace(src, "      - name: decode\n", "      - name: decode\n        replicas: 0\n", 1)
	if p := build(t, zero, Options{}).Resources[0].Pod; p.BesideOwn != 0 || len(p.Beside) != 0 {
		t.Errorf("beside a role of no pods: %d, %+v", p.BesideOwn, p.Beside)
	}
	// A lone group (replicas 1) keeps its pods together, and shares its node with other pods.
	lone := strings.Replace(src[:strings.Index(src, "      - name: decode")], "replicas: 3", "replicas: 1", 1)
	if p := one(t, build(t, lone, Options{})).Pod; p.Together != 2 || p.MaxPerNode != 0 || p.BesideOwn != 0 || len(p.Beside) != 0 {
		t.Errorf("one group: %+v", p)
	}
}
