package kubernetes

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// groupLWS is a LeaderWorkerSet queued on tasQueue's LocalQueue: 2 groups of a leader (its
// template's annotations leaderAnn, its requests leaderReq) and 3 workers of 2 GPUs each
// (annotations workerAnn).
func groupLWS(leaderAnn, leaderReq, workerAnn string) string {
	return `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: infer, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 4
    leaderTemplate:
      metadata: {annotations: {` + leaderAnn + `}}
      spec:
        containers: [{name: l, resources: {` + leaderReq + `}}]
    workerTemplate:
      metadata: {annotations: {` + workerAnn + `}}
      spec:
        containers: [{name: w, resources: {requests: {cpu: "8"}, limits: {nvidia.com/gpu: 2}}}]
`
}

// A PodSet group required on the hostname puts a LeaderWorkerSet group's leader and workers on
// one node: each role's pods must fit it beside the other's, a leader of no GPUs by its CPUs.
// On another level, or only preferred, nothing shares a node.
func TestKueuePodSetGroupBesideOnOneNode(t *testing.T) {
	const host = "kueue.x-k8s.io/podset-group-name: g, kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname"
	const rack = "kueue.x-k8s.io/podset-group-name: g, kueue.x-k8s.io/podset-required-topology: topology.k8s.aws/network-node-layer-3"
	const gpus = "requests: {cpu: \"4\"}, limits: {nvidia.com/gpu: 2}"
	why := "Kueue's topology-aware scheduling (kueue.x-k8s.io/podset-group-name \"g\", kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname) puts 1 leader pod and 3 worker pods on one node"
	leader := parser.NodeMate{Pods: 1, Resource: "nvidia.com/gpu", GPUs: 2, CPU: 4}
	workers := parser.NodeMate{Pods: 3, Resource: "nvidia.com/gpu", GPUs: 2, CPU: 8}
	for _, c := range []struct {
		name, src            string
		built                int               // resources
		leaderBeside, beside []parser.NodeMate // the leader's (when built) and the workers'
	}{
		{"on the hostname", groupLWS(host, gpus, host), 2, []parser.NodeMate{workers}, []parser.NodeMate{leader}},
		{"a leader of no GPUs", groupLWS(host, "requests: {cpu: \"30\", memory: 8Gi}", host), 1, nil, []parser.NodeMate{{Pods: 1, CPU: 30, MemoryGiB: 8}}},
		{"on a rack", groupLWS(rack, gpus, rack), 2, nil, nil},
		{"preferred on the hostname", groupLWS(strings.ReplaceAll(host, "required", "preferred"), gpus, strings.ReplaceAll(host, "required", "preferred")), 2, nil, nil},
		{"no group", groupLWS("kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname", gpus, "kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname"), 2, nil, nil},
	} {
		res := build(t, tasQueue("64", true, true)+c.src, Options{})
		if len(res.Resources) != c.built || len(res.Warnings)+len(res.Errors) > 0 {
			t.Fatalf("%s: %d resources, warnings %v, errors %v", c.name, len(res.Resources), res.Warnings, res.Errors)
		}
		w := res.Resources[c.built-1].Pod
		if !sameMates(w.Beside, c.beside) || len(c.beside) > 0 && (w.BesideOwn != 3 || w.BesideWhy != why || !w.BesideAdmitted) {
			t.Errorf("%s: workers beside %+v (own %d, %q, admitted together %v), want %+v", c.name, w.Beside, w.BesideOwn, w.BesideWhy, w.BesideAdmitted, c.beside)
		}
		if c.built == 2 {
			l := res.Resources[0].Pod
			if !sameMates(l.Beside, c.leaderBeside) || len(c.leaderBeside) > 0 && (l.BesideOwn != 1 || l.BesideWhy != why || !l.BesideAdmitted) {
				t.Errorf("%s: leader beside %+v (own %d, %q, admitted together %v), want %+v", c.name, l.Beside, l.BesideOwn, l.BesideWhy, l.BesideAdmitted, c.leaderBeside)
			}
		}
		// Required on the hostname, each group's workers share a node, with or without the
		// PodSet group.
		if hostname := strings.Contains(c.src, "required-topology: kubernetes.io/hostname"); (w.Together == 3) != hostname {
			t.Errorf("%s: workers together %d", c.name, w.Together)
		}
	}
}

func sameMates(a, b []parser.NodeMate) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Kueue assigns a PodSet group one flavor, for both pod sets' requests together: where the
// first flavor holds the leader but not then its workers too, both go to the next, not the
// leader to the first and its workers to the next.
func TestKueuePodSetGroupOneFlavor(t *testing.T) {
	const gpus = "limits: {nvidia.com/gpu: 2}"
	const ann = "kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname"
	for _, c := range []struct {
		name, group    string
		leader, worker string // their nodes
	}{
		{"a group", "kueue.x-k8s.io/podset-group-name: g, ", "p5.48xlarge", "p5.48xlarge"},
		{"two pod sets", "", "p4d.24xlarge", "p5.48xlarge"},
	} {
		// a100 holds 6 GPUs of the group's 8 (2 + 3 × 2).
		res := build(t, tasQueue("6", true, true)+groupLWS(c.group+ann, gpus, c.group+ann), Options{})
		if len(res.Resources) != 2 {
			t.Fatalf("%s: %+v, warnings %v", c.name, res.Resources, res.Warnings)
		}
		if l, w := res.Resources[0].InstanceType, res.Resources[1].InstanceType; l != c.leader || w != c.worker {
			t.Errorf("%s: leader on %q, workers on %q; want %q and %q", c.name, l, w, c.leader, c.worker)
		}
	}
}

// A LeaderWorkerSet's groups are admitted one after another, each group's PodSet group taking
// one flavor for its leader and workers together: the count Kueue admits at once is counted
// so, not with each pod set taking its flavor alone.
func TestKueuePodSetGroupAdmittedGroupByGroup(t *testing.T) {
	const gpus = "limits: {nvidia.com/gpu: 2}"
	const ann = "kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname"
	// a100 holds 10 GPUs, h100-tas 6; a group asks for 8 (2 + 3 × 2). As one, the first group
	// takes a100 and the second fits neither. Alone, the second's leader takes a100's last 2
	// and its workers h100-tas's 6.
	queue := strings.Replace(tasQueue("10", true, true), "nvidia.com/gpu, nominalQuota: 64", "nvidia.com/gpu, nominalQuota: 6", 1)
	for _, c := range []struct {
		name, group string
		gated       []string // the warnings
	}{
		{"a group", "kueue.x-k8s.io/podset-group-name: g, ", []string{
			`LeaderWorkerSet/kq/infer["leader"] runs 2 pods, but Kueue admits at most 1 at once from ClusterQueue tas's quota, group by group: the others stay gated (priced as declared)`,
			`LeaderWorkerSet/kq/infer["worker"] runs 6 pods, but Kueue admits at most 3 at once from ClusterQueue tas's quota, group by group: the others stay gated (priced as declared)`,
		}},
		{"two pod sets", "", nil},
	} {
		res := build(t, queue+groupLWS(c.group+ann, gpus, c.group+ann), Options{})
		if len(res.Resources) != 2 || len(res.Errors) > 0 {
			t.Fatalf("%s: %+v, errors %v", c.name, res.Resources, res.Errors)
		}
		var got []string
		for _, w := range res.Warnings {
			got = append(got, w.Message)
		}
		if strings.Join(got, "\n") != strings.Join(c.gated, "\n") {
			t.Errorf("%s: warnings\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.gated, "\n"))
		}
		for _, r := range res.Resources {
			if r.InstanceType != "p4d.24xlarge" {
				t.Errorf("%s: %s on %q, want p4d.24xlarge (the first group's flavor, a100)", c.name, r.Address, r.InstanceType)
			}
		}
	}
}

// Kueue's webhooks reject a group that is not two pod sets, one of them a single pod, that ask
// for the same required or preferred level, and a group named by a number (not "-1"):
// the workload never runs. A group name on a template that asks for no TAS counts for nothing.
func TestKueuePodSetGroupRejected(t *testing.T) {
	const host = "kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname"
	const gpus = "limits: {nvidia.com/gpu: 2}"
	refused := "LeaderWorkerSet/kq/infer[\"leader\"]: Kueue never admits it: its kueue.x-k8s.io/podset-group-name "
	for _, c := range []struct {
		name, src, want string
	}{
		{"the leader's alone", groupLWS("kueue.x-k8s.io/podset-group-name: g, "+host, gpus, host),
			refused + "\"g\" names 1 pod set, and a group is exactly 2"},
		{"a number", groupLWS("kueue.x-k8s.io/podset-group-name: \"12\", "+host, gpus, "kueue.x-k8s.io/podset-group-name: \"12\", "+host),
			refused + "\"12\" is a number, which Kueue's webhook rejects"},
		{"a negative number", groupLWS("kueue.x-k8s.io/podset-group-name: \"-1\", "+host, gpus, "kueue.x-k8s.io/podset-group-name: \"-1\", "+host), ""},
		{"other levels", groupLWS("kueue.x-k8s.io/podset-group-name: g, "+host, gpus, "kueue.x-k8s.io/podset-group-name: g, kueue.x-k8s.io/podset-required-topology: topology.k8s.aws/network-node-layer-3"),
			refused + "\"g\" groups pod sets that do not ask for the same kueue.x-k8s.io/podset-required-topology or kueue.x-k8s.io/podset-preferred-topology"},
		{"required and preferred", groupLWS("kueue.x-k8s.io/podset-group-name: g, "+host, gpus, "kueue.x-k8s.io/podset-group-name: g, kueue.x-k8s.io/podset-preferred-topology: kubernetes.io/hostname"),
			refused + "\"g\" groups pod sets that do not ask for the same"},
		{"unconstrained", groupLWS("kueue.x-k8s.io/podset-group-name: g, kueue.x-k8s.io/podset-unconstrained-topology: \"true\"", gpus, "kueue.x-k8s.io/podset-group-name: g, kueue.x-k8s.io/podset-unconstrained-topology: \"true\""),
			refused + "\"g\" groups pod sets that do not ask for the same"},
		{"no TAS on the leader's", groupLWS("kueue.x-k8s.io/podset-group-name: g", gpus, "kueue.x-k8s.io/podset-group-name: g, "+host),
			refused + "\"g\" names 1 pod set"},
		{"no TAS on either", groupLWS("kueue.x-k8s.io/podset-group-name: g", gpus, "kueue.x-k8s.io/podset-group-name: g"), ""},
		{"two of many pods", `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  replicatedJobs:
    - name: a
      template:
        spec:
          parallelism: 2
          template:
            metadata: {annotations: {kueue.x-k8s.io/podset-group-name: g, ` + host + `}}
            spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}
    - name: b
      template:
        spec:
          parallelism: 3
          template:
            metadata: {annotations: {kueue.x-k8s.io/podset-group-name: g, ` + host + `}}
            spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}
`, "JobSet/kq/js[\"a\"]: Kueue never admits it: its kueue.x-k8s.io/podset-group-name \"g\" groups pod sets of 2 and 3 pods, and one of a group must be a single pod"},
	} {
		res := buildWarning(t, c.name, tasQueue("64", true, true)+c.src, c.want)
		// A valid group puts the leader beside its workers; a name alone, nothing.
		for _, r := range res.Resources {
			if valid := c.want == "" && !strings.HasSuffix(c.name, "either"); (len(r.Pod.Beside) > 0) != valid {
				t.Errorf("%s: %s beside %+v", c.name, r.Address, r.Pod.Beside)
			}
		}
	}
}
