package kubernetes

import (
	"strings"
	"testing"
)

// kueueFlavors are three ResourceFlavors: on-demand A100 nodes, spot H100 nodes (tainted), and
// a flavor without labels for CPU and memory.
const kueueFlavors = `apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a100}
spec: {nodeLabels: {node.kubernetes.io/instance-type: p4d.24xlarge}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: h100-spot}
spec:
  nodeLabels: {node.kubernetes.io/instance-type: p5.48xlarge, karpenter.sh/capacity-type: spot}
  nodeTaints: [{key: spot, value: "true", effect: NoSchedule}]
  tolerations: [{key: spot, operator: Exists, effect: NoSchedule}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: plain}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: kq}
spec: {clusterQueue: train}
---
`

// kueueQueue is the ClusterQueue train: its GPU group's flavors a100 (a GPUs) and h100-spot (h
// GPUs), and extra spec lines (two spaces in).
func kueueQueue(a, h, extra string) string {
	return `apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: train}
spec:
  namespaceSelector: {}
` + extra + `  resourceGroups:
    - coveredResources: [cpu, memory]
      flavors:
        - name: plain
          resources: [{name: cpu, nominalQuota: 1000}, {name: memory, nominalQuota: 4Ti}]
    - coveredResources: [nvidia.com/gpu]
      flavors:
        - name: a100
          resources: [{name: nvidia.com/gpu, nominalQuota: ` + a + `}]
        - name: h100-spot
          resources: [{name: nvidia.com/gpu, nominalQuota: ` + h + `}]
---
`
}

// kueueJob is a Job of pods pods, each asking for gpus GPUs and 4 CPUs, queued on q; pod
// adds lines to its pod spec (six spaces in).
func kueueJob(pods, gpus, pod string) string {
	return `apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  parallelism: ` + pods + `
  template:
    spec:
` + pod + `      containers: [{name: c, resources: {requests: {cpu: "4"}, limits: {nvidia.com/gpu: ` + gpus + `}}}]
`
}

// kueueDeployment is a Deployment of replicas pods of 8 GPUs each, its pods queued on q.
func kueueDeployment(replicas string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: kq}
spec:
  replicas: ` + replicas + `
  template:
    metadata: {labels: {kueue.x-k8s.io/queue-name: q}}
    spec:
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]
`
}

// cohort is a Cohort object under parent ("" for a root) whose own quota of A100 GPUs is
// quota, and any limits after it (", borrowingLimit: 4").
func cohort(name, parent, quota string) string {
	return `apiVersion: kueue.x-k8s.io/v1beta1
kind: Cohort
metadata: {name: ` + name + `}
spec:
  parentName: "` + parent + `"
  resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors:
        - name: a100
          resources: [{name: nvidia.com/gpu, nominalQuota: ` + quota + `}]
---
`
}

// Kueue gives a queued workload the first flavor, in its ClusterQueue's order, that its pods
// tolerate, whose labels they allow and whose quota holds them all, borrowing from the cohort
// where it may; where none does, or the queue covers nothing of what they ask, it never admits
// the workload: a warning.
func TestKueueAdmission(t *testing.T) {
	other := `apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: serve}
spec:
  namespaceSelector: {}
  cohort: gpus
  resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors:
        - name: a100
          resources: [{name: nvidia.com/gpu, nominalQuota: 16` + "%s" + `}]
---
`
	withOther := func(lending string) string {
		return strings.Replace(other, "%s", lending, 1)
	}
	for _, c := range []struct {
		name, src string
		typ       string // the instance type its pods are priced on
		note      string // among its notes
		warning   string // among the warnings; "" for none
	}{
		{"the first flavor holds it", kueueFlavors + kueueQueue("16", "64", "") + kueueJob("2", "8", ""), "p4d.24xlarge",
			"Kueue: LocalQueue kq/q → ClusterQueue train → ResourceFlavor a100 for nvidia.com/gpu, the first of 2 flavors (Kueue moves to the next when its quota is used)", ""},
		{"past the first flavor's quota", kueueFlavors + kueueQueue("8", "64", "") + kueueJob("2", "8", ""), "p5.48xlarge",
			"ResourceFlavor h100-spot for nvidia.com/gpu, the first of its 2 flavors that holds the pods (a100: 16 nvidia.com/gpu asked, 8 at most)", ""},
		{"no flavor holds it", kueueFlavors + kueueQueue("8", "8", "") + kueueJob("2", "8", ""), "",
			"Kueue: LocalQueue kq/q → ClusterQueue train",
			"Job/kq/j: Kueue never admits it: no flavor of ClusterQueue train holds its pods' nvidia.com/gpu (a100: 16 nvidia.com/gpu asked, 8 at most; h100-spot: 16 nvidia.com/gpu asked, 8 at most) (Kueue: LocalQueue kq/q → ClusterQueue train): it stays suspended and its pods do not run (priced as declared)"},
		{"CPU is counted too", kueueFlavors + strings.Replace(kueueQueue("16", "64", ""), "nominalQuota: 1000", "nominalQuota: 6", 1) + kueueJob("2", "8", ""), "",
			"", "no flavor of ClusterQueue train holds its pods' cpu (plain: 8 cpu asked, 6 at most)"},
		{"a resource no group covers", kueueFlavors + kueueQueue("16", "64", "") + strings.Replace(kueueJob("1", "8", ""), `cpu: "4"`, `cpu: "4", ephemeral-storage: 10Gi`, 1), "",
			"", "ClusterQueue train covers no ephemeral-storage, which its pods request"},
		{"borrowing from the cohort", kueueFlavors + kueueQueue("8", "64", "  cohort: gpus\n") + withOther("") + kueueJob("2", "8", ""), "p4d.24xlarge",
			"Kueue: ClusterQueue train holds the pods on ResourceFlavor a100 only by borrowing from cohort gpus: 16 nvidia.com/gpu asked, 8 its own (nominalQuota); they wait while the cohort's other queues use it", ""},
		{"v1beta2's cohortName", kueueFlavors + kueueQueue("8", "64", "  cohortName: gpus\n") + strings.Replace(withOther(""), "cohort: gpus", "cohortName: gpus", 1) + kueueJob("2", "8", ""), "p4d.24xlarge",
			"only by borrowing from cohort gpus", ""},
		{"a borrowing limit", kueueFlavors + strings.Replace(kueueQueue("8", "64", "  cohort: gpus\n"), "nominalQuota: 8}", "nominalQuota: 8, borrowingLimit: 4}", 1) + withOther("") + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: 16 nvidia.com/gpu asked, 12 at most (8 its own, 4 lent by cohort gpus as read))", ""},
		{"a lending limit", kueueFlavors + kueueQueue("8", "64", "  cohort: gpus\n") + withOther(", lendingLimit: 2") + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: 16 nvidia.com/gpu asked, 10 at most (8 its own, 2 lent by cohort gpus as read))", ""},
		{"whenCanBorrow: TryNextFlavor", kueueFlavors + kueueQueue("8", "64", "  cohort: gpus\n  flavorFungibility: {whenCanBorrow: TryNextFlavor}\n") + withOther("") + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: only by borrowing (whenCanBorrow: TryNextFlavor))", ""},
		{"TryNextFlavor falls back to borrowing", kueueFlavors + kueueQueue("8", "8", "  cohort: gpus\n  flavorFungibility: {whenCanBorrow: TryNextFlavor}\n") + withOther("") + kueueJob("2", "8", ""), "p4d.24xlarge",
			"only by borrowing from cohort gpus", ""},
		{"a lending limit above the quota lends the quota", kueueFlavors + kueueQueue("8", "64", "  cohort: gpus\n") + withOther(", lendingLimit: 40") + kueueJob("4", "8", ""), "p5.48xlarge",
			"(a100: 32 nvidia.com/gpu asked, 24 at most (8 its own, 16 lent by cohort gpus as read))", ""},
		{"a Cohort object's own quota lends", kueueFlavors + kueueQueue("8", "8", "  cohort: gpus\n") + cohort("gpus", "", "8") + kueueJob("2", "8", ""), "p4d.24xlarge",
			"only by borrowing from cohort gpus", ""},
		{"a Cohort object without quota lends nothing", kueueFlavors + kueueQueue("8", "64", "  cohort: gpus\n") + cohort("gpus", "", "0") + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: 16 nvidia.com/gpu asked, 8 at most)", ""},
		{"a parent's quota, up to the cohort's borrowingLimit", kueueFlavors + kueueQueue("8", "64", "  cohort: gpus\n") + cohort("org", "", "32") + cohort("gpus", "org", "0, borrowingLimit: 4") + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: 16 nvidia.com/gpu asked, 12 at most (8 its own, 4 lent by cohort gpus (under org) as read))", ""},
		{"a parent's quota, without a limit", kueueFlavors + kueueQueue("8", "64", "  cohort: gpus\n") + cohort("org", "", "32") + cohort("gpus", "org", "0") + kueueJob("2", "8", ""), "p4d.24xlarge",
			"only by borrowing from cohort gpus", ""},
		{"a sibling cohort, up to its lendingLimit", kueueFlavors + kueueQueue("8", "64", "  cohort: gpus\n") + cohort("org", "", "0") + cohort("gpus", "org", "0") + cohort("research", "org", "8, lendingLimit: 2") + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: 16 nvidia.com/gpu asked, 10 at most (8 its own, 2 lent by cohort gpus (under org) as read))", ""},
		{"a sibling cohort's ClusterQueue", kueueFlavors + kueueQueue("8", "64", "  cohort: gpus\n") + cohort("gpus", "org", "0") + strings.Replace(withOther(""), "cohort: gpus", "cohort: research", 1) + cohort("research", "org", "0, lendingLimit: 4") + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: 16 nvidia.com/gpu asked, 12 at most (8 its own, 4 lent by cohort gpus (under org) as read))", ""},
		{"a cycle above the cohort, under its borrowingLimit", kueueFlavors + kueueQueue("8", "64", "  cohort: gpus\n") + cohort("gpus", "org", "0, borrowingLimit: 4") + cohort("org", "top", "0") + cohort("top", "org", "0") + kueueJob("2", "8", ""), "p5.48xlarge",
			"(a100: 16 nvidia.com/gpu asked, 12 at most (8 its own, 4 lent by cohort gpus (under org, under top) as read))", ""},
		{"a cycle of cohorts bounds nothing", kueueFlavors + kueueQueue("8", "8", "  cohort: gpus\n") + cohort("gpus", "org", "0") + cohort("org", "gpus", "0") + kueueJob("2", "8", ""), "p4d.24xlarge",
			"only by borrowing from cohort gpus", ""},
		{"an untolerated taint", strings.Replace(kueueFlavors, "  tolerations: [{key: spot, operator: Exists, effect: NoSchedule}]\n", "", 1) + kueueQueue("8", "64", "") + kueueJob("2", "8", ""), "",
			"", "(a100: 16 nvidia.com/gpu asked, 8 at most; h100-spot: its pods do not tolerate its taint spot=true:NoSchedule)"},
		{"the pod tolerates the taint", strings.Replace(kueueFlavors, "  tolerations: [{key: spot, operator: Exists, effect: NoSchedule}]\n", "", 1) + kueueQueue("8", "64", "") + kueueJob("2", "8", "      tolerations: [{key: spot, operator: Equal, value: \"true\", effect: NoSchedule}]\n"), "p5.48xlarge",
			"ResourceFlavor h100-spot", ""},
		{"the pod selects the second flavor", kueueFlavors + kueueQueue("16", "64", "") + kueueJob("1", "8", "      nodeSelector: {karpenter.sh/capacity-type: spot}\n"), "p5.48xlarge",
			"the first of its 2 flavors that holds the pods (a100: its node labels are not among those the pods select)", ""},
		{"a label the flavors do not use is not matched", kueueFlavors + kueueQueue("16", "64", "") + kueueJob("1", "8", "      nodeSelector: {team: ml}\n"), "p4d.24xlarge",
			"ResourceFlavor a100", ""},
		{"a request of zero is not counted", kueueFlavors + kueueQueue("16", "64", "") + strings.Replace(kueueJob("1", "8", ""), `cpu: "4"`, `cpu: "4", ephemeral-storage: "0"`, 1), "p4d.24xlarge",
			"ResourceFlavor a100", ""},
		{"held", kueueFlavors + kueueQueue("16", "64", "  stopPolicy: Hold\n") + kueueJob("1", "8", ""), "",
			"", "Job/kq/j: Kueue admits no workload from ClusterQueue train (stopPolicy: Hold)"},
		{"a quota on pods", kueueFlavors + strings.NewReplacer("[cpu, memory]", "[cpu, memory, pods]", "{name: memory, nominalQuota: 4Ti}", "{name: memory, nominalQuota: 4Ti}, {name: pods, nominalQuota: 1}").Replace(kueueQueue("16", "64", "")) + kueueJob("2", "1", ""), "",
			"", "no flavor of ClusterQueue train holds its pods' cpu, pods (plain: 2 pods asked, 1 at most)"},
	} {
		checkQueued(t, c.name, c.src, c.typ, c.note, c.warning)
	}
}

// checkQueued builds src, which declares one workload, and checks that it is priced on typ
// ("" where Kueue never admits it), with note among its notes and warning among the warnings
// ("" for none).
func checkQueued(t *testing.T, name, src, typ, note, warning string) {
	t.Helper()
	res := build(t, src, Options{})
	if len(res.Errors) > 0 {
		t.Errorf("%s: errors %v", name, res.Errors)
		return
	}
	var warns []string
	for _, w := range res.Warnings {
		warns = append(warns, w.Message)
	}
	if got := strings.Join(warns, "\n"); warning == "" && got != "" || !strings.Contains(got, warning) {
		t.Errorf("%s: warnings %q, want %q", name, got, warning)
	}
	if len(res.Resources) != 1 {
		t.Errorf("%s: %d resources", name, len(res.Resources))
		return
	}
	r := res.Resources[0]
	if r.InstanceType != typ || !strings.Contains(strings.Join(r.Notes, "\n"), note) {
		t.Errorf("%s: priced on %q, notes %q; want %q and %q", name, r.InstanceType, r.Notes, typ, note)
	}
}

// Kueue admits a workload's pod sets in turn: the second takes what the first left of a
// flavor's quota, and may get another flavor. A Deployment's pods are admitted one by one.
func TestKueuePodSets(t *testing.T) {
	pytorch := func(master, workers string) string {
		role := func(n string) string {
			return `      replicas: ` + n + `
      template:
        spec:
          containers: [{name: pytorch, resources: {limits: {nvidia.com/gpu: 4}}}]
`
		}
		return `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: ft, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  pytorchReplicaSpecs:
    Master:
` + role(master) + `    Worker:
` + role(workers)
	}
	types := func(res []string) string { return strings.Join(res, ", ") }
	got := func(src string) (string, []string) {
		res := build(t, src, Options{})
		if len(res.Errors) > 0 {
			t.Fatalf("errors %v", res.Errors)
		}
		var out, warns []string
		for _, r := range res.Resources {
			out = append(out, r.Address+" "+r.InstanceType)
		}
		for _, w := range res.Warnings {
			warns = append(warns, w.Message)
		}
		return types(out), warns
	}
	if typ, warns := got(kueueFlavors + kueueQueue("8", "64", "") + pytorch("1", "1")); typ != `PyTorchJob/kq/ft["Master"] p4d.24xlarge, PyTorchJob/kq/ft["Worker"] p4d.24xlarge` || len(warns) > 0 {
		t.Errorf("both fit the first flavor: %s %q", typ, warns)
	}
	if typ, warns := got(kueueFlavors + kueueQueue("8", "64", "") + pytorch("1", "2")); typ != `PyTorchJob/kq/ft["Master"] p4d.24xlarge, PyTorchJob/kq/ft["Worker"] p5.48xlarge` || len(warns) > 0 {
		t.Errorf("the workers get what the master left: %s %q", typ, warns)
	}
	// A LimitRange's defaults give the master, which names no GPU, 4 of them; Kueue counts them
	// when the workers take their turn, as when the master's own pods are built.
	limited := "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: kq}\nspec:\n  limits: [{type: Container, default: {nvidia.com/gpu: 4}}]\n---\n" +
		strings.Replace(pytorch("1", "1"), "resources: {limits: {nvidia.com/gpu: 4}}", "resources: {}", 1)
	if typ, warns := got(kueueFlavors + kueueQueue("4", "64", "") + limited); typ != `PyTorchJob/kq/ft["Master"] p4d.24xlarge, PyTorchJob/kq/ft["Worker"] p5.48xlarge` ||
		len(warns) != 1 || !strings.Contains(warns[0], `LimitRange/kq/lr gives container "pytorch" 4 nvidia.com/gpu that it does not ask for`) {
		t.Errorf("the master's defaulted GPUs take the first flavor's quota: %s %q", typ, warns)
	}
	typ, warns := got(kueueFlavors + kueueQueue("8", "4", "") + pytorch("1", "2"))
	want := `Kueue never admits it: its Worker pods: no flavor of ClusterQueue train holds its pods' nvidia.com/gpu (a100: 12 nvidia.com/gpu asked, 8 at most; h100-spot: 8 nvidia.com/gpu asked, 4 at most)`
	if typ != `PyTorchJob/kq/ft["Master"] , PyTorchJob/kq/ft["Worker"] ` || len(warns) != 2 || !strings.Contains(warns[0], `PyTorchJob/kq/ft["Master"]: `+want) {
		t.Errorf("the workers hold no flavor, so the master is not admitted either: %s %q", typ, warns)
	}
	deploy := kueueDeployment("4")
	if typ, warns := got(kueueFlavors + kueueQueue("32", "8", "") + deploy); typ != "Deployment/kq/d p4d.24xlarge" || len(warns) > 0 {
		t.Errorf("a Deployment's pods are admitted one at a time: %s %q", typ, warns)
	}
	// Pod after pod takes the quota: the first flavor holds one, the second another, and the
	// others stay gated.
	res := build(t, kueueFlavors+kueueQueue("8", "8", "")+deploy, Options{})
	if r := one(t, res); len(res.Warnings) != 1 || res.Warnings[0].Message != "Deployment/kq/d runs 4 pods, but Kueue admits at most 2 at once from ClusterQueue train's quota: the others stay gated (priced as declared)" ||
		r.Quantity != 4 || r.InstanceType != "p4d.24xlarge" ||
		!strings.Contains(strings.Join(r.Notes, "\n"), "Kueue admits its pods workload by workload, so they land on several flavors of ClusterQueue train: 1 on a100, 1 on h100-spot; priced on the first") {
		t.Errorf("a Deployment past its queue's quota: %+v %q", res.Warnings, r.Notes)
	}
	// Where the pods that the first flavor cannot hold go to a flavor not read, what they take
	// is not known: nothing is capped.
	noSpot := strings.Replace(kueueFlavors, "metadata: {name: h100-spot}", "metadata: {name: h100-other}", 1)
	res = build(t, noSpot+kueueQueue("8", "8", "")+deploy, Options{})
	if r := one(t, res); len(res.Warnings) != 0 || r.Quantity != 4 || r.InstanceType != "p4d.24xlarge" {
		t.Errorf("pods past a flavor not read were capped: %+v %+v", res.Warnings, r)
	}
	// An autoscaler's maximum is capped at what the quota holds.
	hpa := `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: d, namespace: kq}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}
  minReplicas: 1
  maxReplicas: 6
`
	res = build(t, kueueFlavors+kueueQueue("24", "0", "")+deploy+"---\n"+hpa, Options{})
	if r := one(t, res); len(res.Warnings) != 0 || r.Quantity != 1 || r.ScaleMax == nil || r.ScaleMax.Quantity != 3 ||
		r.ScaleMax.From != "maxReplicas of HorizontalPodAutoscaler/kq/d, capped by ClusterQueue train's quota" ||
		!strings.Contains(strings.Join(r.Notes, "\n"), "at most 3 pods at full scale-out, not the 6 of the maxReplicas of HorizontalPodAutoscaler/kq/d: Kueue admits no more at once from ClusterQueue train's quota") {
		t.Errorf("an autoscaled Deployment: %+v %+v %q", res.Warnings, r.ScaleMax, r.Notes)
	}
	lws := `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: l, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  replicas: 3
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]
`
	if typ, warns := got(kueueFlavors + kueueQueue("8", "64", "") + lws); typ != "LeaderWorkerSet/kq/l p5.48xlarge" || len(warns) > 0 {
		t.Errorf("a LeaderWorkerSet's group of 2 pods is admitted together: %s %q", typ, warns)
	}
	// With a leader template, a group is a leader and its workers: 16 GPUs a group, so the
	// queue's 16 A100s and 16 spot H100s hold 2 of the 3 groups at once.
	leader := strings.Replace(lws, "    workerTemplate:", "    leaderTemplate:\n      spec:\n        containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]\n    workerTemplate:", 1)
	res = build(t, kueueFlavors+kueueQueue("16", "16", "")+leader, Options{})
	warns = nil
	for _, w := range res.Warnings {
		warns = append(warns, w.Message)
	}
	if len(res.Resources) != 2 || len(warns) != 2 ||
		!strings.Contains(warns[0], `LeaderWorkerSet/kq/l["leader"] runs 3 pods, but Kueue admits at most 2 at once from ClusterQueue train's quota, group by group`) ||
		!strings.Contains(warns[1], `LeaderWorkerSet/kq/l["worker"] runs 3 pods, but Kueue admits at most 2 at once`) {
		t.Errorf("a LeaderWorkerSet's groups of a leader and a worker: %q", warns)
	}
	// 3 groups fit 48 A100s.
	if res := build(t, kueueFlavors+kueueQueue("48", "0", "")+leader, Options{}); len(res.Warnings) != 0 {
		t.Errorf("3 groups fit: %+v", res.Warnings)
	}
}

// A ClusterQueue or Cohort quota that is not a quantity is an error at its line, as the API
// server refuses it.
func TestKueueBadQuota(t *testing.T) {
	src := kueueFlavors + strings.Replace(kueueQueue("8", "64", ""), "nominalQuota: 8}", "nominalQuota: lots}", 1)
	res := build(t, src, Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 36 || !strings.Contains(res.Errors[0].Message, `resource nvidia.com/gpu: nominalQuota "lots" is not a quantity`) {
		t.Fatalf("%+v", res.Errors)
	}
	// A Cohort's own quota, likewise.
	src = cohort("gpus", "", "8, lendingLimit: some")
	res = build(t, src, Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 10 || !strings.Contains(res.Errors[0].Message, `resource nvidia.com/gpu: lendingLimit "some" is not a quantity`) {
		t.Fatalf("%+v", res.Errors)
	}
}

// A flavor matches a pod's node selection on the label keys its group's flavors use: In,
// NotIn, Exists, Gt and Lt as the scheduler reads them, and no other key.
func TestFlavorAllowsLabels(t *testing.T) {
	keys := map[string]bool{"gpu": true, "count": true}
	flavor := map[string]string{"gpu": "h100", "count": "8", "zone": "a"}
	for _, c := range []struct {
		name string
		reqs []requirement
		want bool
	}{
		{"nothing selected", nil, true},
		{"In", []requirement{{Key: "gpu", Operator: "In", Values: []string{"a100", "h100"}}}, true},
		{"not In", []requirement{{Key: "gpu", Operator: "In", Values: []string{"a100"}}}, false},
		{"NotIn", []requirement{{Key: "gpu", Operator: "NotIn", Values: []string{"h100"}}}, false},
		{"NotIn another", []requirement{{Key: "gpu", Operator: "NotIn", Values: []string{"a100"}}}, true},
		{"Exists", []requirement{{Key: "count", Operator: "Exists"}}, true},
		{"Gt", []requirement{{Key: "count", Operator: "Gt", Values: []string{"4"}}}, true},
		{"Gt its value", []requirement{{Key: "count", Operator: "Gt", Values: []string{"8"}}}, false},
		{"Lt", []requirement{{Key: "count", Operator: "Lt", Values: []string{"9"}}}, true},
		{"Lt its value", []requirement{{Key: "count", Operator: "Lt", Values: []string{"8"}}}, false},
		{"a key the flavors do not use", []requirement{{Key: "zone", Operator: "In", Values: []string{"b"}}}, true},
	} {
		s := newSelector()
		for _, r := range c.reqs {
			s.add(r)
		}
		if got := s.allowsLabels(keys, flavor); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	s := newSelector()
	s.add(requirement{Key: "gpu", Operator: "Exists"})
	if s.allowsLabels(keys, map[string]string{"count": "8"}) {
		t.Error("a flavor without the label the pod requires matched")
	}
	s = newSelector()
	s.add(requirement{Key: "count", Operator: "Gt", Values: []string{"1"}})
	if s.allowsLabels(keys, map[string]string{"gpu": "h100"}) || s.allowsLabels(keys, map[string]string{"count": "eight"}) {
		t.Error("Gt matched a flavor without a whole number for the label")
	}
}

// A ClusterQueue admits the workloads of the namespaces its namespaceSelector selects: none when
// it sets none, all for {}. A Namespace's labels are read where its object is; its name label
// is always there.
func TestKueueNamespaceSelector(t *testing.T) {
	ns := func(labels string) string {
		return "apiVersion: v1\nkind: Namespace\nmetadata: {name: kq, labels: {" + labels + "}}\n---\n"
	}
	queue := func(selector string) string {
		return strings.Replace(kueueQueue("16", "64", ""), "  namespaceSelector: {}\n", selector, 1)
	}
	refused := "Job/kq/j: Kueue never admits it: "
	for _, c := range []struct {
		name, src   string
		note, warns string // among its notes, and the warnings ("" for none)
	}{
		{"none set", queue(""), "", refused + "ClusterQueue train sets no namespaceSelector, which admits workloads of no namespace (namespaceSelector: {} admits all)"},
		{"null", queue("  namespaceSelector: null\n"), "", refused + "ClusterQueue train sets no namespaceSelector"},
		{"its labels", queue("  namespaceSelector: {matchLabels: {team: ml}}\n") + ns("team: ml"), "ResourceFlavor a100", ""},
		{"other labels", queue("  namespaceSelector: {matchLabels: {team: ml}}\n") + ns("team: web"), "", refused + "ClusterQueue train's namespaceSelector does not select namespace kq"},
		{"its Namespace not read", queue("  namespaceSelector: {matchLabels: {team: ml}}\n"), "Namespace kq is not among the files read: whether ClusterQueue train's namespaceSelector admits its workloads is not known", ""},
		{"by name", queue("  namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [kq]}]}\n"), "ResourceFlavor a100", ""},
		{"by another name", queue("  namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [web]}]}\n"), "", refused + "ClusterQueue train's namespaceSelector does not select namespace kq"},
		{"an operator it does not know", queue("  namespaceSelector: {matchExpressions: [{key: team, operator: Like, values: [ml]}]}\n"), "ClusterQueue train's namespaceSelector: ", ""},
	} {
		res := build(t, kueueFlavors+c.src+kueueJob("1", "8", ""), Options{})
		var warns []string
		for _, w := range res.Warnings {
			warns = append(warns, w.Message)
		}
		if got := strings.Join(warns, "\n"); len(res.Errors) > 0 || c.warns == "" && got != "" || !strings.Contains(got, c.warns) {
			t.Errorf("%s: errors %v, warnings %q, want %q", c.name, res.Errors, got, c.warns)
		}
		if len(res.Resources) != 1 || !strings.Contains(strings.Join(res.Resources[0].Notes, "\n"), c.note) {
			t.Errorf("%s: %+v, want a note %q", c.name, res.Resources, c.note)
		}
	}
}

// A Job with kueue.x-k8s.io/job-min-parallelism is admitted with the most pods, down to that
// many, that a flavor holds, where all of them fit none (partial admission).
func TestKueuePartialAdmission(t *testing.T) {
	job := func(least string) string {
		return strings.Replace(kueueJob("4", "8", ""), "labels: {kueue.x-k8s.io/queue-name: q}}", "labels: {kueue.x-k8s.io/queue-name: q}, annotations: {kueue.x-k8s.io/job-min-parallelism: \""+least+"\"}}", 1)
	}
	for _, c := range []struct {
		name, least string
		pods        int
		typ, note   string
		refused     bool
	}{
		{"2 of 4 fit the spot flavor", "1", 2, "p5.48xlarge", "Kueue admits 2 of its 4 pods (partial admission, kueue.x-k8s.io/job-min-parallelism): its quota holds no more", false},
		{"the least is what fits", "2", 2, "p5.48xlarge", "Kueue admits 2 of its 4 pods", false},
		{"not even the least fits", "3", 4, "", "even its kueue.x-k8s.io/job-min-parallelism of 3 pods does not fit", true},
		{"not below its parallelism", "4", 4, "", `kueue.x-k8s.io/job-min-parallelism: "4" is not a number of pods from 1 to below its parallelism (4): Kueue's webhook refuses the Job`, true},
	} {
		res := build(t, kueueFlavors+kueueQueue("8", "16", "")+job(c.least), Options{})
		r := one(t, res)
		if r.Quantity != c.pods || r.InstanceType != c.typ || !strings.Contains(strings.Join(r.Notes, "\n"), c.note) || (len(res.Warnings) > 0) != c.refused {
			t.Errorf("%s: %d pods on %q, notes %q, warnings %v", c.name, r.Quantity, r.InstanceType, r.Notes, res.Warnings)
		}
	}
	// Only a batch/v1 Job is admitted in part: not a StatefulSet, nor a CronJob (its Jobs take
	// the jobTemplate's annotations, not its own), nor a Volcano Job.
	sts := `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}, annotations: {kueue.x-k8s.io/job-min-parallelism: "1"}}
spec:
  replicas: 4
  template:
    spec:
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]
`
	cron := `apiVersion: batch/v1
kind: CronJob
metadata: {name: c, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}, annotations: {kueue.x-k8s.io/job-min-parallelism: "1"}}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      parallelism: 4
      template:
        spec:
          containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]
`
	volcano := `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: v, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}, annotations: {kueue.x-k8s.io/job-min-parallelism: "1"}}
spec:
  tasks:
    - name: w
      replicas: 4
      template:
        spec:
          containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]
`
	for _, src := range []string{sts, cron, volcano} {
		if res := build(t, kueueFlavors+kueueQueue("8", "16", "")+src, Options{}); len(res.Warnings) != 1 || one(t, res).Quantity != 4 {
			t.Errorf("admitted in part: %+v", res.Warnings)
		}
	}
	// Without the annotation, nothing is admitted.
	if res := build(t, kueueFlavors+kueueQueue("8", "16", "")+kueueJob("4", "8", ""), Options{}); len(res.Warnings) != 1 || one(t, res).Quantity != 4 {
		t.Errorf("without partial admission: %+v", res.Warnings)
	}
}

// A queued workload that may scale from zero (a KServe predictor at minReplicas 0, a KEDA
// ScaledJob at minReplicaCount 0: priced as one pod) is admitted pod by pod, and its maximum
// capped at the pods its queue holds: 2 of 8 GPUs on 8 A100s and 8 H100s.
func TestKueueZeroFloor(t *testing.T) {
	queued := "labels: {kueue.x-k8s.io/queue-name: q}"
	for name, src := range map[string]string{
		"kserve": "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: i, namespace: kq, " + queued + "}\nspec:\n  predictor:\n    minReplicas: 0\n    maxReplicas: 4\n" +
			"    model: {modelFormat: {name: huggingface}, resources: {limits: {nvidia.com/gpu: 8}}}\n",
		"scaledjob": "apiVersion: keda.sh/v1alpha1\nkind: ScaledJob\nmetadata: {name: j, namespace: kq, " + queued + "}\nspec:\n  minReplicaCount: 0\n  maxReplicaCount: 3\n  jobTargetRef: {parallelism: 1, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}}\n",
	} {
		res := build(t, kueueFlavors+kueueQueue("8", "8", "")+src, Options{})
		r := one(t, res)
		if r.Quantity != 1 || r.ScaleMax == nil || r.ScaleMax.Quantity != 2 || !strings.HasSuffix(r.ScaleMax.From, ", capped by ClusterQueue train's quota") || len(res.Warnings) != 0 {
			t.Errorf("%s: %d pods, max %+v, warnings %v", name, r.Quantity, r.ScaleMax, res.Warnings)
		}
	}
}

// A job that names no queue is queued on its namespace's LocalQueue named default, where there
// is one; a Deployment's pods are not.
func TestKueueDefaultLocalQueue(t *testing.T) {
	defaultQueue := strings.Replace(kueueFlavors, "metadata: {name: q, namespace: kq}", "metadata: {name: default, namespace: kq}", 1)
	unlabelled := strings.Replace(kueueJob("2", "8", ""), ", labels: {kueue.x-k8s.io/queue-name: q}", "", 1)
	r := one(t, build(t, defaultQueue+kueueQueue("8", "64", "")+unlabelled, Options{}))
	if r.InstanceType != "p5.48xlarge" || !strings.Contains(strings.Join(r.Notes, "\n"), "Kueue: LocalQueue kq/default (its namespace's LocalQueue named default, which Kueue gives a job that names no kueue.x-k8s.io/queue-name) → ClusterQueue train → ResourceFlavor h100-spot") {
		t.Errorf("a job queued by default: %q %q", r.InstanceType, r.Notes)
	}
	if r := one(t, build(t, kueueFlavors+kueueQueue("8", "64", "")+unlabelled, Options{})); r.InstanceType != "" || len(r.Notes) != 0 && strings.Contains(strings.Join(r.Notes, "\n"), "Kueue") {
		t.Errorf("queued without a default queue: %q %q", r.InstanceType, r.Notes)
	}
	deploy := `apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: kq}
spec:
  template:
    spec:
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]
`
	if r := one(t, build(t, defaultQueue+kueueQueue("8", "64", "")+deploy, Options{})); r.InstanceType != "" {
		t.Errorf("a Deployment queued by default: %q %q", r.InstanceType, r.Notes)
	}
}

// The kinds whose jobs Kueue's webhook queues on the default LocalQueue.
func TestDefaultQueuedKinds(t *testing.T) {
	for kind, want := range map[string]bool{
		"batch/v1 Job": true, "batch/v1 CronJob": true, "jobset.x-k8s.io/v1alpha2 JobSet": true,
		"kubeflow.org/v1 PyTorchJob": true, "kubeflow.org/v2beta1 MPIJob": true, "trainer.kubeflow.org/v1alpha1 TrainJob": true,
		"ray.io/v1 RayJob": true, "ray.io/v1 RayCluster": true, "workload.codeflare.dev/v1beta2 AppWrapper": true,
		"apps/v1 Deployment": false, "apps/v1 StatefulSet": false, "batch.volcano.sh/v1alpha1 Job": false,
		"kubeflow.org/v1beta1 Experiment": false, "ray.io/v1 RayService": false, "v1 Pod": false,
	} {
		apiVersion, k, _ := strings.Cut(kind, " ")
		if got := defaultQueued(&object{APIVersion: apiVersion, Kind: k}); got != want {
			t.Errorf("%s: %v, want %v", kind, got, want)
		}
	}
}

// a3Queue is a ClusterQueue (name, with its admission checks) of one flavor, a3, of 64 GPUs.
func a3Queue(name, checks string) string {
	return `apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: ` + name + `}
spec:
  namespaceSelector: {}
` + checks + `  resourceGroups:
    - coveredResources: [cpu, nvidia.com/gpu]
      flavors: [{name: a3, resources: [{name: cpu, nominalQuota: 1000}, {name: nvidia.com/gpu, nominalQuota: 64}]}]
---
`
}

// A ClusterQueue whose MultiKueue admission check applies sends the workload to a worker
// cluster: a note says which clusters, and that the price is the manager's flavor's.
func TestKueueMultiKueue(t *testing.T) {
	// An AdmissionCheck of a controller, its parameters a kind of an API group, named workers.
	check := func(name, controller, group, kind string) string {
		return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: AdmissionCheck\nmetadata: {name: " + name + "}\nspec:\n  controllerName: " + controller +
			"\n  parameters: {apiGroup: " + group + ", kind: " + kind + ", name: workers}\n---\n"
	}
	objects := `apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a3}
spec: {nodeLabels: {node.kubernetes.io/instance-type: a3-highgpu-8g, topology.kubernetes.io/region: us-central1}}
---
` + check("dispatch", controllerMultiKueue, "kueue.x-k8s.io", "MultiKueueConfig") +
		check("other", "example.com/check", "kueue.x-k8s.io", "MultiKueueConfig") +
		check("elsewhere", controllerMultiKueue, "example.com", "MultiKueueConfig") +
		check("otherkind", controllerMultiKueue, "kueue.x-k8s.io", "ProvisioningRequestConfig") + `apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: kq}
spec: {clusterQueue: mk}
---
`
	const config = `apiVersion: kueue.x-k8s.io/v1beta1
kind: MultiKueueConfig
metadata: {name: workers}
spec: {clusters: [us-central1-a, europe-west4]}
---
`
	queue := func(checks string) string { return a3Queue("mk", checks) }
	const sent = "Kueue AdmissionCheck dispatch of ClusterQueue mk (MultiKueue) sends it to "
	const rest = ", whose own Kueue admits it there: its pods run on that cluster's nodes, priced here on this ClusterQueue's flavor, as MultiKueue expects the workers' queues to mirror the manager's"
	for _, c := range []struct {
		name, src, note string
	}{
		{"admissionChecks", objects + config + queue("  admissionChecks: [dispatch]\n"), sent + "one of the worker clusters of MultiKueueConfig workers (us-central1-a, europe-west4)" + rest},
		{"on the flavor", objects + config + queue("  admissionChecksStrategy: {admissionChecks: [{name: dispatch, onFlavors: [a3]}]}\n"), sent + "one of the worker clusters of MultiKueueConfig workers (us-central1-a, europe-west4)" + rest},
		{"on another flavor", objects + config + queue("  admissionChecksStrategy: {admissionChecks: [{name: dispatch, onFlavors: [other]}]}\n"), ""},
		{"another controller", objects + config + queue("  admissionChecks: [other]\n"), ""},
		{"its config not read", objects + queue("  admissionChecks: [dispatch]\n"), sent + "a worker cluster of MultiKueueConfig workers, which is not among the files read" + rest},
		{"parameters of another group", objects + config + queue("  admissionChecks: [elsewhere]\n"),
			"Kueue AdmissionCheck elsewhere of ClusterQueue mk (MultiKueue) sends it to a worker cluster of MultiKueueConfig workers, which is not among the files read" + rest},
		{"parameters of another kind", objects + config + queue("  admissionChecks: [otherkind]\n"),
			"Kueue AdmissionCheck otherkind of ClusterQueue mk (MultiKueue) sends it to a worker cluster of MultiKueueConfig workers, which is not among the files read" + rest},
	} {
		res := build(t, c.src+kueueJob("2", "8", ""), Options{})
		if len(res.Errors) > 0 || len(res.Warnings) > 0 {
			t.Errorf("%s: errors %v, warnings %v", c.name, res.Errors, res.Warnings)
			continue
		}
		r := one(t, res)
		notes := strings.Join(r.Notes, "\n")
		if r.InstanceType != "a3-highgpu-8g" || c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && strings.Contains(notes, "MultiKueue") {
			t.Errorf("%s: %s, notes %q; want %q", c.name, r.InstanceType, r.Notes, c.note)
		}
	}
}

// A ClusterQueue whose admission check provisions nodes through GKE's queued provisioning
// (a ProvisioningRequest of class queued-provisioning.gke.io) runs its pods on flex-start VMs.
func TestKueueQueuedProvisioning(t *testing.T) {
	objects := func(class, managed string) string {
		return `apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a3}
spec: {nodeLabels: {node.kubernetes.io/instance-type: a3-highgpu-8g, topology.kubernetes.io/region: us-central1}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ProvisioningRequestConfig
metadata: {name: dws-config}
spec: {provisioningClassName: ` + class + managed + `}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: AdmissionCheck
metadata: {name: dws-prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: dws-config}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: kq}
spec: {clusterQueue: dws}
---
`
	}
	queue := func(checks string) string { return a3Queue("dws", checks) }
	job := kueueJob("2", "8", "")
	const flex = "Kueue AdmissionCheck dws-prov of ClusterQueue dws (ProvisioningRequestConfig dws-config, queued-provisioning.gke.io) provisions its nodes through GKE's queued provisioning"
	for _, c := range []struct {
		name, src string
		flex      bool
		note      string
	}{
		{"admissionChecks", objects("queued-provisioning.gke.io", "") + queue("  admissionChecks: [dws-prov]\n") + job, true, flex},
		{"admissionChecksStrategy on the flavor", objects("queued-provisioning.gke.io", "") + queue("  admissionChecksStrategy: {admissionChecks: [{name: dws-prov, onFlavors: [a3]}]}\n") + job, true, flex},
		{"admissionChecksStrategy on another flavor", objects("queued-provisioning.gke.io", "") + queue("  admissionChecksStrategy: {admissionChecks: [{name: dws-prov, onFlavors: [other]}]}\n") + job, false, ""},
		{"another provisioning class", objects("best-effort-atomic-scale-up.autoscaling.x-k8s.io", "") + queue("  admissionChecks: [dws-prov]\n") + job, false, ""},
		{"managed resources the pods request", objects("queued-provisioning.gke.io", ", managedResources: [nvidia.com/gpu]") + queue("  admissionChecks: [dws-prov]\n") + job, true, flex},
		{"managed resources the pods do not request", objects("queued-provisioning.gke.io", ", managedResources: [google.com/tpu]") + queue("  admissionChecks: [dws-prov]\n") + job, false, ""},
		{"no admission check", objects("queued-provisioning.gke.io", "") + queue("") + job, false, ""},
		{"a check not read", objects("queued-provisioning.gke.io", "") + queue("  admissionChecks: [elsewhere]\n") + job, false,
			"Kueue AdmissionCheck elsewhere (of ClusterQueue dws) is not among the files read: whether it provisions the nodes (a ProvisioningRequest: on GKE, flex-start VMs) or sends the workload to another cluster (MultiKueue) is not known"},
	} {
		res := build(t, c.src, Options{})
		if len(res.Errors) > 0 || len(res.Warnings) > 0 {
			t.Errorf("%s: errors %v, warnings %v", c.name, res.Errors, res.Warnings)
			continue
		}
		r := one(t, res)
		if r.InstanceType != "a3-highgpu-8g" || (r.OwnPrice != nil) != c.flex || c.flex && r.OwnPrice.By != "Flex-start (Dynamic Workload Scheduler)" ||
			!strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
			t.Errorf("%s: %s, own price %+v, notes %q; want flex-start %v and %q", c.name, r.InstanceType, r.OwnPrice, r.Notes, c.flex, c.note)
		}
	}
}
