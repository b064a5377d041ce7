package kubernetes

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// A JobSet's exclusive placement on the hostname keeps each Job's pods on one node of their
// own: the replicated job's template annotation wins over the JobSet's, which wins over the pod
// template's; another topology key, or the node-selector strategy, places nothing gpuguard can
// price; a JobSet of one Job shares its node with other workloads' pods.
func TestJobSetExclusiveTopology(t *testing.T) {
	const host, pool = "kubernetes.io/hostname", "cloud.google.com/gke-nodepool"
	jobset := func(setAnn, jobAnn, podAnn string, replicas, parallelism int, more string) string {
		meta := func(ann, indent string) string {
			if ann == "" {
				return ""
			}
			return indent + "metadata: {annotations: {" + ann + "}}\n"
		}
		set := ""
		if setAnn != "" {
			set = "  annotations: {" + setAnn + "}\n"
		}
		return "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: train\n  namespace: ml\n" + set +
			"spec:\n  replicatedJobs:\n  - name: w\n    replicas: " + strconv.Itoa(replicas) + "\n    template:\n" + meta(jobAnn, "      ") +
			"      spec:\n        parallelism: " + strconv.Itoa(parallelism) + "\n        template:\n" + meta(podAnn, "          ") +
			"          spec:\n            nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge}\n" +
			"            containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n" + more
	}
	ann := func(key string) string { return "alpha.jobset.sigs.k8s.io/exclusive-topology: " + key }
	const onSet = "the alpha.jobset.sigs.k8s.io/exclusive-topology annotation on the JobSet (kubernetes.io/hostname)"
	const onJob = "the alpha.jobset.sigs.k8s.io/exclusive-topology annotation on its replicated job's template (kubernetes.io/hostname)"
	const onPod = "the alpha.jobset.sigs.k8s.io/exclusive-topology annotation on its pod template (kubernetes.io/hostname)"
	second := "  - name: driver\n    template:\n      spec:\n        template:\n          spec:\n            containers: [{name: d, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	for _, c := range []struct {
		name, src     string
		together, per int
		from          string // the source both reasons name
	}{
		{"on the JobSet", jobset(ann(host), "", "", 3, 4, ""), 4, 4, onSet},
		{"on the replicated job", jobset("", ann(host), "", 3, 4, ""), 4, 4, onJob},
		{"on the pod template", jobset("", "", ann(host), 3, 4, ""), 4, 4, onPod},
		{"the replicated job's wins", jobset(ann(pool), ann(host), "", 3, 4, ""), 4, 4, onJob},
		{"the replicated job's wins, by node pool", jobset(ann(host), ann(pool), "", 3, 4, ""), 0, 0, ""},
		{"the JobSet's wins over the pod template's", jobset(ann(pool), "", ann(host), 3, 4, ""), 0, 0, ""},
		{"by node pool", jobset(ann(pool), "", "", 3, 4, ""), 0, 0, ""},
		{"the node-selector strategy", jobset(ann(host)+", alpha.jobset.sigs.k8s.io/node-selector: \"true\"", "", "", 3, 4, ""), 0, 0, ""},
		{"the node-selector strategy over the pod template's", jobset(ann(host)+", alpha.jobset.sigs.k8s.io/node-selector: \"true\"", "", ann(host), 3, 4, ""), 0, 0, ""},
		{"one pod a Job", jobset(ann(host), "", "", 3, 1, ""), 0, 1, onSet},
		{"one Job shares its node", jobset(ann(host), "", "", 1, 4, ""), 4, 0, onSet},
		{"one Job and another replicated job's", jobset(ann(host), "", "", 1, 4, second), 4, 4, onSet},
		{"none", jobset("", "", "", 3, 4, ""), 0, 0, ""},
	} {
		res := build(t, c.src, Options{})
		if len(res.Errors) > 0 || len(res.Resources) == 0 {
			t.Fatalf("%s: %+v, errors %v", c.name, res.Resources, res.Errors)
		}
		p := res.Resources[0].Pod
		if p.Together != c.together || p.MaxPerNode != c.per {
			t.Errorf("%s: together %d (%q), per node %d (%q); want %d and %d", c.name, p.Together, p.TogetherWhy, p.MaxPerNode, p.MaxPerNodeWhy, c.together, c.per)
			continue
		}
		if c.together > 0 && p.TogetherWhy != c.from+" puts each Job's "+strconv.Itoa(c.together)+" pods on the node the first lands on" {
			t.Errorf("%s: together because %q", c.name, p.TogetherWhy)
		}
		if c.per > 0 && (!p.MaxPerNodeGroup || p.MaxPerNodeWhy != c.from+" gives each Job of "+strconv.Itoa(c.per)+" pods a node no other Job's pods share") {
			t.Errorf("%s: per node because %q", c.name, p.MaxPerNodeWhy)
		}
	}
}

// A pod cap lower than the Job's (a required anti-affinity) stays: the Job then fits no node,
// which the estimator reports.
func TestExclusiveKeepsALowerCap(t *testing.T) {
	src := "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: train\n  namespace: ml\n  annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname}\n" +
		"spec:\n  replicatedJobs:\n  - name: w\n    replicas: 2\n    template:\n      spec:\n        parallelism: 4\n        template:\n" +
		"          metadata: {labels: {app: t}}\n          spec:\n            nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge}\n" +
		"            affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: t}}, topologyKey: kubernetes.io/hostname}]}}\n" +
		"            containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	p := one(t, build(t, src, Options{})).Pod
	if p.MaxPerNode != 1 || !strings.Contains(p.MaxPerNodeWhy, "podAntiAffinity") || p.Together != 4 {
		t.Errorf("per node %d (%q), together %d", p.MaxPerNode, p.MaxPerNodeWhy, p.Together)
	}
}

// A LeaderWorkerSet's exclusive placement on the hostname keeps each group on a node of its
// own: the group's pods must fit it, and each pays 1/size of it, leader and workers alike.
func TestLeaderWorkerSetExclusiveTopology(t *testing.T) {
	lws := func(ann string, replicas int, leader bool) string {
		src := "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: vllm\n  namespace: ml\n"
		if ann != "" {
			src += "  annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: " + ann + "}\n"
		}
		src += "spec:\n  replicas: " + strconv.Itoa(replicas) + "\n  leaderWorkerTemplate:\n    size: 4\n"
		if leader {
			src += "    leaderTemplate:\n      spec:\n        nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge}\n" +
				"        containers: [{name: l, resources: {limits: {nvidia.com/gpu: 2}}}]\n"
		}
		return src + "    workerTemplate:\n      spec:\n        nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge}\n" +
			"        containers: [{name: w, resources: {limits: {nvidia.com/gpu: 2}}}]\n"
	}
	const hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: vllm, namespace: ml}\n" +
		"spec:\n  scaleTargetRef: {apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, name: vllm}\n  minReplicas: 1\n  maxReplicas: 3\n"
	const from = "the LeaderWorkerSet's leaderworkerset.sigs.k8s.io/exclusive-topology annotation (kubernetes.io/hostname)"
	type want struct {
		together, per int
		why           string
	}
	for _, c := range []struct {
		name  string
		src   string
		roles []want
	}{
		{"one template", lws("kubernetes.io/hostname", 2, false), []want{{4, 4, from + " puts each group's 4 pods on the node the first lands on"}}},
		{"one group shares its node", lws("kubernetes.io/hostname", 1, false), []want{{4, 0, ""}}},
		{"one group, scaled to three", lws("kubernetes.io/hostname", 1, false) + hpa, []want{{4, 4, ""}}},
		{"a leader of its own", lws("kubernetes.io/hostname", 2, true), []want{{0, 4, ""}, {3, 4, from + " puts each group's 3 workers on the node its leader lands on"}}},
		{"by rack", lws("cloud.google.com/gce-topology-block", 2, false), []want{{0, 0, ""}}},
		{"none", lws("", 2, false), []want{{0, 0, ""}}},
	} {
		res := build(t, c.src, Options{})
		if len(res.Errors) > 0 || len(res.Resources) != len(c.roles) {
			t.Fatalf("%s: %+v, errors %v", c.name, res.Resources, res.Errors)
		}
		for i, w := range c.roles {
			p := res.Resources[i].Pod
			if p.Together != w.together || p.MaxPerNode != w.per || w.why != "" && p.TogetherWhy != w.why {
				t.Errorf("%s, %s: together %d (%q), per node %d (%q); want %+v", c.name, res.Resources[i].Address, p.Together, p.TogetherWhy, p.MaxPerNode, p.MaxPerNodeWhy, w)
			}
			if w.per > 0 && p.MaxPerNodeWhy != from+" gives each group of 4 pods a node no other group's pods share" {
				t.Errorf("%s: per node because %q", c.name, p.MaxPerNodeWhy)
			}
		}
	}
}

// A required pod affinity on the hostname that selects the workload's own pods keeps them all
// on one node; one by zone, a preferred one, or one that selects other pods does not, nor any
// when the workload runs one pod.
func TestOwnPodAffinityKeepsPodsTogether(t *testing.T) {
	deployment := func(replicas, affinity string) string {
		return affinityWorkload("Deployment", replicas, podAffinityField, affinity)
	}
	required := requiredTerms
	own := required("{labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}")
	for _, c := range []struct {
		name, src string
		want      int
	}{
		{"its own pods", deployment("3", own), 3},
		{"by zone", deployment("3", required("{labelSelector: {matchLabels: {app: a}}, topologyKey: topology.kubernetes.io/zone}")), 0},
		{"other pods", deployment("3", required("{labelSelector: {matchLabels: {app: cache}}, topologyKey: kubernetes.io/hostname}")), 0},
		{"another namespace", deployment("3", required("{labelSelector: {matchLabels: {app: a}}, namespaces: [web], topologyKey: kubernetes.io/hostname}")), 0},
		{"preferred", deployment("3", "          preferredDuringSchedulingIgnoredDuringExecution:\n          - {weight: 100, podAffinityTerm: {labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}}\n"), 0},
		{"one pod", deployment("1", own), 0},
	} {
		p := one(t, build(t, c.src, Options{})).Pod
		if p.Together != c.want || p.MaxPerNode != 0 {
			t.Errorf("%s: together %d (%q), per node %d; want %d", c.name, p.Together, p.TogetherWhy, p.MaxPerNode, c.want)
		}
		if c.want > 0 && p.TogetherWhy != "its required podAffinity (topologyKey kubernetes.io/hostname, line 13) selects its own pods, so its 3 pods run on the node the first lands on" {
			t.Errorf("%s: together because %q", c.name, p.TogetherWhy)
		}
	}
}

// A LeaderWorkerSet's subgroup-exclusive placement on the hostname keeps each subgroup's pods on
// a node of their own. The leader is in the first subgroup (an extra pod of it when size-1 is a
// multiple of subGroupSize), or in none (LeaderExcluded); a leader that shares the workers'
// template but not their placement is priced apart. A group's placement on the hostname wins;
// one on another key yields to the subgroups'.
func TestLeaderWorkerSetSubGroupExclusiveTopology(t *testing.T) {
	const host, sub = "kubernetes.io/hostname", "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology: "
	lws := func(ann string, replicas, size int, policy string, leader bool) string {
		src := "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: vllm\n  namespace: ml\n"
		if ann != "" {
			src += "  annotations: {" + ann + "}\n"
		}
		src += "spec:\n  replicas: " + strconv.Itoa(replicas) + "\n  leaderWorkerTemplate:\n    size: " + strconv.Itoa(size) + "\n"
		if policy != "" {
			src += "    subGroupPolicy: {" + policy + "}\n"
		}
		if leader {
			src += "    leaderTemplate:\n      spec:\n        nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge}\n" +
				"        containers: [{name: l, resources: {limits: {nvidia.com/gpu: 2}}}]\n"
		}
		return src + "    workerTemplate:\n      spec:\n        nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge}\n" +
			"        containers: [{name: w, resources: {limits: {nvidia.com/gpu: 2}}}]\n"
	}
	const from = "the LeaderWorkerSet's leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology annotation (kubernetes.io/hostname, subGroupSize 2)"
	type want struct {
		address       string
		together, per int
	}
	for _, c := range []struct {
		name  string
		src   string
		roles []want
	}{
		{"one template", lws(sub+host, 2, 4, "subGroupSize: 2", false), []want{{"vllm", 2, 2}}},
		{"one group of two subgroups", lws(sub+host, 1, 4, "subGroupSize: 2", false), []want{{"vllm", 2, 2}}},
		{"the leader an extra pod of one subgroup", lws(sub+host, 1, 3, "subGroupSize: 2", false), []want{{"vllm", 3, 0}}},
		{"the leader an extra pod of one subgroup, two groups", lws(sub+host, 2, 3, "subGroupSize: 2", false), []want{{"vllm", 3, 3}}},
		{"the leader an extra pod of the first of two", lws(sub+host, 2, 5, "subGroupSize: 2", false), []want{{`vllm["leader"]`, 0, 3}, {`vllm["worker"]`, 2, 2}}},
		{"the leader in none", lws(sub+host, 2, 5, "subGroupSize: 2, subGroupPolicyType: LeaderExcluded", false), []want{{`vllm["leader"]`, 0, 0}, {`vllm["worker"]`, 2, 2}}},
		{"a leader of its own", lws(sub+host, 2, 4, "subGroupSize: 2", true), []want{{`vllm["leader"]`, 0, 2}, {`vllm["worker"]`, 2, 2}}},
		{"a leader of its own in the only subgroup", lws(sub+host, 2, 2, "subGroupSize: 2", true), []want{{`vllm["leader"]`, 0, 2}, {`vllm["worker"]`, 0, 2}}},
		{"a leader of its own, extra", lws(sub+host, 2, 5, "subGroupSize: 2", true), []want{{`vllm["leader"]`, 0, 3}, {`vllm["worker"]`, 2, 2}}},
		{"a leader of its own, extra in the only subgroup", lws(sub+host, 2, 3, "subGroupSize: 2", true), []want{{`vllm["leader"]`, 0, 3}, {`vllm["worker"]`, 2, 3}}},
		{"a leader of its own in none", lws(sub+host, 2, 5, "subGroupSize: 2, subGroupPolicyType: LeaderExcluded", true), []want{{`vllm["leader"]`, 0, 0}, {`vllm["worker"]`, 2, 2}}},
		{"a leader of its own in none, one subgroup", lws(sub+host, 2, 3, "subGroupSize: 2, subGroupPolicyType: LeaderExcluded", true), []want{{`vllm["leader"]`, 0, 0}, {`vllm["worker"]`, 2, 2}}},
		{"one group, a leader of its own", lws(sub+host, 1, 4, "subGroupSize: 2", true), []want{{`vllm["leader"]`, 0, 2}, {`vllm["worker"]`, 2, 2}}},
		{"one group, one worker in none", lws(sub+host, 1, 2, "subGroupSize: 1, subGroupPolicyType: LeaderExcluded", false), []want{{`vllm["leader"]`, 0, 0}, {`vllm["worker"]`, 0, 0}}},
		{"one pod a subgroup", lws(sub+host, 1, 4, "subGroupSize: 1", false), []want{{"vllm", 0, 1}}},
		{"the group's placement wins", lws(sub+host+", leaderworkerset.sigs.k8s.io/exclusive-topology: "+host, 2, 4, "subGroupSize: 2", false), []want{{"vllm", 4, 4}}},
		{"over a group's by node pool", lws(sub+host+", leaderworkerset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool", 2, 5, "subGroupSize: 2, subGroupPolicyType: LeaderExcluded", false), []want{{`vllm["leader"]`, 0, 0}, {`vllm["worker"]`, 2, 2}}},
		{"subgroups by rack", lws(sub+"cloud.google.com/gce-topology-block", 2, 5, "subGroupSize: 2, subGroupPolicyType: LeaderExcluded", false), []want{{"vllm", 0, 0}}},
		{"no annotation", lws("", 2, 5, "subGroupSize: 2, subGroupPolicyType: LeaderExcluded", false), []want{{"vllm", 0, 0}}},
		{"no subGroupPolicy", lws(sub+host, 2, 4, "", false), []want{{"vllm", 0, 0}}},
		{"no subGroupSize", lws(sub+host, 2, 4, "subGroupPolicyType: LeaderExcluded", false), []want{{"vllm", 0, 0}}},
		{"the group's placement wins over a leader apart", lws(sub+host+", leaderworkerset.sigs.k8s.io/exclusive-topology: "+host, 2, 5, "subGroupSize: 2, subGroupPolicyType: LeaderExcluded", false), []want{{"vllm", 5, 5}}},
	} {
		res := build(t, c.src, Options{})
		if len(res.Errors) > 0 || len(res.Resources) != len(c.roles) {
			t.Errorf("%s: %+v, errors %v", c.name, res.Resources, res.Errors)
			continue
		}
		for i, w := range c.roles {
			r := res.Resources[i]
			p := r.Pod
			if !strings.HasSuffix(r.Address, w.address) || p.Together != w.together || p.MaxPerNode != w.per {
				t.Errorf("%s, %s: together %d (%q), per node %d (%q); want %+v", c.name, r.Address, p.Together, p.TogetherWhy, p.MaxPerNode, p.MaxPerNodeWhy, w)
			}
			apart := strings.Contains(strings.Join(r.Notes, "\n"), "a leader of the workers' template, priced apart from them")
			if apart != (strings.HasSuffix(w.address, `["leader"]`) && !strings.Contains(c.name, "of its own")) {
				t.Errorf("%s, %s: notes %q", c.name, r.Address, r.Notes)
			}
			why := "subGroupPolicyType LeaderExcluded puts it in none of their subgroups"
			if strings.Contains(c.name, "extra") {
				why = "it is an extra pod of the first of 2 subgroups (subGroupSize 2)"
			}
			if apart && !strings.Contains(strings.Join(r.Notes, "\n"), why) {
				t.Errorf("%s, %s: notes %q, want %q", c.name, r.Address, r.Notes, why)
			}
			if !strings.Contains(c.name, "group's placement") && w.together == 2 && p.TogetherWhy != from+" puts each subgroup's 2 pods on the node the first lands on" {
				t.Errorf("%s: together because %q", c.name, p.TogetherWhy)
			}
			if w.per == 2 && p.MaxPerNodeWhy != from+" gives each subgroup of 2 pods a node no other subgroup's pods share" {
				t.Errorf("%s: per node because %q", c.name, p.MaxPerNodeWhy)
			}
		}
	}
	for _, c := range []struct {
		name   string
		size   int
		policy string
		want   string
	}{
		{"too large", 4, "subGroupSize: 5", "subGroupSize: 5 is not a number of pods from 1 to the group's size (4)"},
		{"none", 4, "subGroupSize: 0", "subGroupSize: 0 is not a number of pods"},
		{"neither", 6, "subGroupSize: 4", "subGroupSize: 4 divides neither the group's size (6) nor its 5 workers"},
		{"leader excluded", 4, "subGroupSize: 2, subGroupPolicyType: LeaderExcluded", "subGroupSize: 2 does not divide the group's 3 workers, as LeaderExcluded needs"},
		{"no such type", 4, "subGroupSize: 2, subGroupPolicyType: Both", `subGroupPolicyType: "Both" is neither LeaderWorker nor LeaderExcluded`},
	} {
		res := build(t, lws("", 1, c.size, c.policy, false), Options{})
		if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error(), c.want) || !strings.Contains(res.Errors[0].Error(), "m.yaml:1") {
			t.Errorf("%s: errors %v, want %q", c.name, res.Errors, c.want)
		}
	}
}

// A LeaderWorkerSet's leader of its own template shares its node with its workers when the
// group (or, but for LeaderExcluded, the leader's subgroup) is placed exclusively on the
// hostname: each role learns the other's pods beside its own.
func TestLeaderWorkerSetLeaderBesideWorkers(t *testing.T) {
	lws := func(ann, policy string) string {
		src := "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: vllm\n  namespace: ml\n"
		if ann != "" {
			src += "  annotations: {" + ann + "}\n"
		}
		src += "spec:\n  replicas: 2\n  leaderWorkerTemplate:\n    size: 5\n"
		if policy != "" {
			src += "    subGroupPolicy: {" + policy + "}\n"
		}
		return src + "    leaderTemplate:\n      spec:\n        containers: [{name: l, resources: {requests: {cpu: \"8\", memory: 64Gi}, limits: {nvidia.com/gpu: 4}}}]\n" +
			"    workerTemplate:\n      spec:\n        containers: [{name: w, resources: {requests: {cpu: \"4\"}, limits: {nvidia.com/gpu: 2}}}]\n"
	}
	const group = "leaderworkerset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname"
	const sub = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology: kubernetes.io/hostname"
	leader := parser.NodeMate{Pods: 1, Resource: "nvidia.com/gpu", GPUs: 4, CPU: 8, MemoryGiB: 64}
	for _, c := range []struct {
		name, src            string
		leaderOwn, workerOwn int
		why                  string
	}{
		{"the group", lws(group, ""), 1, 4, "the LeaderWorkerSet's leaderworkerset.sigs.k8s.io/exclusive-topology annotation (kubernetes.io/hostname) puts 1 leader pod and 4 worker pods on one node"},
		{"the leader's subgroup", lws(sub, "subGroupSize: 2"), 1, 2, "the LeaderWorkerSet's leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology annotation (kubernetes.io/hostname, subGroupSize 2) puts 1 leader pod and 2 worker pods on one node"},
		{"the leader's subgroup of 5", lws(sub, "subGroupSize: 5"), 1, 4, ""},
		{"the leader in none", lws(sub, "subGroupSize: 2, subGroupPolicyType: LeaderExcluded"), 0, 0, ""},
		{"by rack", lws("leaderworkerset.sigs.k8s.io/exclusive-topology: rack", ""), 0, 0, ""},
		{"none", lws("", ""), 0, 0, ""},
	} {
		res := build(t, c.src, Options{})
		if len(res.Resources) != 2 || len(res.Errors) > 0 {
			t.Fatalf("%s: %+v, errors %v", c.name, res.Resources, res.Errors)
		}
		l, w := res.Resources[0].Pod, res.Resources[1].Pod
		if l.BesideOwn != c.leaderOwn || w.BesideOwn != c.workerOwn || c.why != "" && (l.BesideWhy != c.why || w.BesideWhy != c.why) {
			t.Errorf("%s: leader %d (%q), workers %d (%q)", c.name, l.BesideOwn, l.BesideWhy, w.BesideOwn, w.BesideWhy)
		}
		// The kube-scheduler places such pods one by one: none of them is admitted together.
		if l.BesideAdmitted || w.BesideAdmitted {
			t.Errorf("%s: admitted together", c.name)
		}
		if c.leaderOwn == 0 {
			if len(l.Beside)+len(w.Beside) > 0 {
				t.Errorf("%s: beside %+v, %+v", c.name, l.Beside, w.Beside)
			}
			continue
		}
		if len(l.Beside) != 1 || l.Beside[0] != (parser.NodeMate{Pods: c.workerOwn, Resource: "nvidia.com/gpu", GPUs: 2, CPU: 4}) || len(w.Beside) != 1 || w.Beside[0] != leader {
			t.Errorf("%s: leader beside %+v, workers beside %+v", c.name, l.Beside, w.Beside)
		}
	}
}

// A leader that requests no GPUs is not priced, but its CPUs and memory take room on the node
// its workers share with it: the workers carry it beside them. One whose requests cannot be
// read counts as none; a group placed on another key, or a leader excluded from the
// subgroups, is not beside them.
func TestLeaderWorkerSetCPULeaderBesideWorkers(t *testing.T) {
	lws := func(ann, policy, leaderRequests string) string {
		src := "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: vllm\n  namespace: ml\n  annotations: {" + ann + "}\n" +
			"spec:\n  replicas: 2\n  leaderWorkerTemplate:\n    size: 4\n"
		if policy != "" {
			src += "    subGroupPolicy: {" + policy + "}\n"
		}
		return src + "    leaderTemplate:\n      spec:\n        containers: [{name: l, resources: {requests: {" + leaderRequests + "}}}, {name: side, resources: {requests: {cpu: 500m, memory: 512Mi}}}]\n" +
			"    workerTemplate:\n      spec:\n        containers: [{name: w, resources: {requests: {cpu: \"4\", memory: 32Gi}, limits: {nvidia.com/gpu: 2}}}]\n"
	}
	const group = "leaderworkerset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname"
	const sub = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology: kubernetes.io/hostname"
	for _, c := range []struct {
		name, src string
		own       int
		leader    parser.NodeMate // zero when the workers have none beside them
		why       string
	}{
		{"the group", lws(group, "", "cpu: \"40\", memory: 300Gi"), 3, parser.NodeMate{Pods: 1, CPU: 40.5, MemoryGiB: 300.5},
			"the LeaderWorkerSet's leaderworkerset.sigs.k8s.io/exclusive-topology annotation (kubernetes.io/hostname) puts 1 leader pod and 3 worker pods on one node"},
		{"the leader's subgroup", lws(sub, "subGroupSize: 2", "cpu: 1500m"), 1, parser.NodeMate{Pods: 1, CPU: 2, MemoryGiB: 0.5},
			"the LeaderWorkerSet's leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology annotation (kubernetes.io/hostname, subGroupSize 2) puts 1 leader pod and 1 worker pod on one node"},
		{"requests that cannot be read", lws(group, "", "cpu: [8]"), 3, parser.NodeMate{Pods: 1, CPU: 0.5, MemoryGiB: 0.5}, ""},
		{"the leader in none", lws(sub, "subGroupSize: 3, subGroupPolicyType: LeaderExcluded", "cpu: \"40\""), 0, parser.NodeMate{}, ""},
		{"by rack", lws("leaderworkerset.sigs.k8s.io/exclusive-topology: rack", "", "cpu: \"40\""), 0, parser.NodeMate{}, ""},
	} {
		res := build(t, c.src, Options{})
		if len(res.Resources) != 1 {
			t.Fatalf("%s: %+v, errors %v", c.name, res.Resources, res.Errors)
		}
		w := res.Resources[0].Pod
		if c.leader == (parser.NodeMate{}) {
			if len(w.Beside) > 0 || w.BesideOwn != 0 {
				t.Errorf("%s: workers beside %+v (own %d)", c.name, w.Beside, w.BesideOwn)
			}
			continue
		}
		if len(w.Beside) != 1 || w.Beside[0] != c.leader || w.BesideOwn != c.own || c.why != "" && w.BesideWhy != c.why {
			t.Errorf("%s: workers beside %+v (own %d, %q), want %+v", c.name, w.Beside, w.BesideOwn, w.BesideWhy, c.leader)
		}
	}
}

// The LeaderWorkerSet webhook reads the exclusive-placement annotations on the pod, so one on a
// pod template places the group as one on the LeaderWorkerSet does; the LeaderWorkerSet's wins.
func TestLeaderWorkerSetExclusiveOnATemplate(t *testing.T) {
	lws := func(own, leader, worker string) string {
		src := "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: vllm\n  namespace: ml\n"
		if own != "" {
			src += "  annotations: {" + own + "}\n"
		}
		src += "spec:\n  replicas: 2\n  leaderWorkerTemplate:\n    size: 4\n    subGroupPolicy: {subGroupSize: 2}\n"
		tmpl := func(name, ann string) string {
			out := "    " + name + ":\n"
			if ann != "" {
				out += "      metadata: {annotations: {" + ann + "}}\n"
			}
			return out + "      spec:\n        nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge}\n" +
				"        containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]\n"
		}
		if leader != "-" {
			src += tmpl("leaderTemplate", leader)
		}
		return src + tmpl("workerTemplate", worker)
	}
	const group = "leaderworkerset.sigs.k8s.io/exclusive-topology: "
	const sub = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology: "
	for _, c := range []struct {
		name, src string
		together  int // of the workers
		why       string
	}{
		{"on the worker template", lws("", "-", group+hostnameKey), 4, "its worker template's " + group[:len(group)-2] + " annotation (kubernetes.io/hostname) puts each group's 4 pods"},
		{"on the leader's", lws("", group+hostnameKey, ""), 3, "its leader template's " + group[:len(group)-2] + " annotation (kubernetes.io/hostname) puts each group's 3 workers"},
		{"on the workers', beside a leader's", lws("", "", group+hostnameKey), 3, "its worker template's"},
		{"subgroups on the worker template", lws("", "-", sub+hostnameKey), 2, "its worker template's " + sub[:len(sub)-2] + " annotation (kubernetes.io/hostname, subGroupSize 2) puts each subgroup's 2 pods"},
		{"the LeaderWorkerSet's wins", lws(group+"rack", "-", group+hostnameKey), 0, ""},
		{"none", lws("", "-", ""), 0, ""},
	} {
		res := build(t, c.src, Options{})
		if len(res.Errors) > 0 || len(res.Resources) == 0 {
			t.Fatalf("%s: %+v, errors %v", c.name, res.Resources, res.Errors)
		}
		if p := res.Resources[len(res.Resources)-1].Pod; p.Together != c.together || !strings.HasPrefix(p.TogetherWhy, c.why) {
			t.Errorf("%s: workers together %d (%q), want %d", c.name, p.Together, p.TogetherWhy, c.together)
		}
	}
}
