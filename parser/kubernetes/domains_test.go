package kubernetes

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// domainCap is what a cap on a workload's pods past the domains they may use says: its warning
// ("" when none: no warning then says pods stay pending), the maximum left at full scale-out
// (0 when none), and a note on the maximum ("" when none is checked).
type domainCap struct {
	warning  string
	scaleMax int
	note     string
}

// checkDomainCap builds src, one workload, and checks it against want; name says which case.
func checkDomainCap(t *testing.T, name, src string, want domainCap) {
	t.Helper()
	checkDomainCapOn(t, name, src, Options{}, want)
}

// checkDomainCapOn is checkDomainCap with the manifests built with opts (node groups declared
// outside them).
func checkDomainCapOn(t *testing.T, name, src string, opts Options, want domainCap) {
	t.Helper()
	res := build(t, src, opts)
	var warns []string
	for _, w := range res.Warnings {
		warns = append(warns, w.Message)
	}
	got := strings.Join(warns, "\n")
	if len(res.Errors) > 0 || want.warning == "" && strings.Contains(got, " pending (priced as declared)") || want.warning != "" && !strings.Contains(got, want.warning) {
		t.Errorf("%s: warnings %q (errors %v), want %q", name, got, res.Errors, want.warning)
	}
	r := one(t, res)
	most := 0
	if r.ScaleMax != nil {
		most = r.ScaleMax.Quantity
	}
	if most != want.scaleMax {
		t.Errorf("%s: scale max %d, want %d", name, most, want.scaleMax)
	}
	if want.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), want.note) {
		t.Errorf("%s: notes %q, want %q", name, r.Notes, want.note)
	}
}

// A required anti-affinity on the zone (or another key but the hostname: a node pool, a rack)
// that selects the workload's own pods runs one pod a domain: where the pods' node selection,
// or the Karpenter NodePool that launches their nodes, allows fewer domains than pods, the rest
// stay pending (a warning; priced as declared), and an autoscaler's maximum is capped at the
// domains.
func TestOnePodADomain(t *testing.T) {
	const pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    metadata: {labels: {team: ml}}\n    spec:\n      requirements:\n" +
		"      - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.xlarge]}\n" +
		"      - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b]}\n" +
		"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n---\n"
	deployment := func(replicas, selection, key, selector string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: " + replicas + "\n  template:\n" +
			"    metadata: {labels: {app: a}}\n    spec:\n" + selection +
			"      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n" +
			"          - {labelSelector: " + selector + ", topologyKey: " + key + "}\n" +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	const own, zone = "{matchLabels: {app: a}}", "topology.kubernetes.io/zone"
	const oneZone = "      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge, topology.kubernetes.io/zone: us-east-1a}\n"
	hpa := "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a, namespace: ml}\n" +
		"spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: a}, minReplicas: 1, maxReplicas: 6}\n"
	// Zones through required node affinity: In, less NotIn.
	inZones := func(src, in, notIn string) string {
		aff := "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n" +
			"            - matchExpressions:\n              - {key: topology.kubernetes.io/zone, operator: In, values: [" + in + "]}\n"
		if notIn != "" {
			aff += "              - {key: topology.kubernetes.io/zone, operator: NotIn, values: [" + notIn + "]}\n"
		}
		return strings.Replace(src, "      affinity:\n", aff, 1)
	}
	const pend = "Deployment/ml/a runs 3 pods, but its required podAntiAffinity (topologyKey topology.kubernetes.io/zone, line 13) selects its own pods, and "
	for _, c := range []struct {
		name, src string
		warning   string // "" when none
		scaleMax  int    // the maximum left at full scale-out; 0 when none
		note      string // on the maximum, when capped
	}{
		{"one zone named", deployment("3", oneZone, zone, own),
			pend + "its node selection allows its nodes 1 zone (us-east-1a): one pod a zone, so the other 2 stay pending (priced as declared)", 0, ""},
		{"the beta zone label", strings.Replace(deployment("3", oneZone, "failure-domain.beta.kubernetes.io/zone", own), "topology.kubernetes.io/zone: us-east-1a", "failure-domain.beta.kubernetes.io/zone: us-east-1a", 1),
			"Deployment/ml/a runs 3 pods, but its required podAntiAffinity (topologyKey failure-domain.beta.kubernetes.io/zone, line 13) selects its own pods, and its node selection allows its nodes 1 zone (us-east-1a)", 0, ""},
		{"two zones of affinity", inZones(deployment("3", "      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n", zone, own), "us-east-1b, us-east-1a, us-east-1c", "us-east-1c"),
			"its node selection allows its nodes 2 zones (us-east-1a, us-east-1b): one pod a zone, so the last one stays pending (priced as declared)", 0, ""},
		{"as many zones as pods", inZones(deployment("2", "      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n", zone, own), "us-east-1a, us-east-1b", ""), "", 0, ""},
		{"a zone written twice", inZones(deployment("2", "      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n", zone, own), "us-east-1a, us-east-1a", ""),
			"its node selection allows its nodes 1 zone (us-east-1a): one pod a zone, so the last one stays pending", 0, ""},
		{"no zone named", deployment("3", "      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n", zone, own), "", 0, ""},
		{"another workload's pods", deployment("3", oneZone, zone, "{matchLabels: {app: b}}"), "", 0, ""},
		{"on the hostname", deployment("3", oneZone, "kubernetes.io/hostname", own), "", 0, ""},
		{"one node pool", deployment("3", "      nodeSelector: {cloud.google.com/gke-nodepool: gpu-a}\n", "cloud.google.com/gke-nodepool", own),
			"Deployment/ml/a runs 3 pods, but its required podAntiAffinity (topologyKey cloud.google.com/gke-nodepool, line 13) selects its own pods, and its node selection allows its nodes 1 node pool (gpu-a): one pod a node pool, so the other 2 stay pending (priced as declared)", 0, ""},
		{"racks of a key of its own", strings.Replace(inZones(deployment("3", "", "example.com/rack", own), "r2, r1", ""), "key: topology.kubernetes.io/zone, operator: In", "key: example.com/rack, operator: In", 1),
			"its node selection allows its nodes 2 domains of example.com/rack (r1, r2): one pod a domain of example.com/rack, so the last one stays pending", 0, ""},
		{"a zone named, apart by node pool", deployment("3", oneZone, "cloud.google.com/gke-nodepool", own), "", 0, ""},
		{"the NodePool's zones", pool + deployment("3", "", zone, own),
			"Karpenter NodePool gpu allows its nodes 2 zones (us-east-1a, us-east-1b): one pod a zone, so the last one stays pending", 0, ""},
		{"the NodePool's and the pod's", pool + deployment("3", "      nodeSelector: {topology.kubernetes.io/zone: us-east-1b}\n", zone, own),
			"its node selection and Karpenter NodePool gpu allow its nodes 1 zone (us-east-1b): one pod a zone, so the other 2 stay pending", 0, ""},
		{"the NodePool's labels", strings.Replace(strings.Replace(pool, "      - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b]}\n", "", 1),
			"labels: {team: ml}", "labels: {team: ml, topology.kubernetes.io/zone: us-east-1c}", 1) + deployment("3", "", zone, own),
			"Karpenter NodePool gpu allows its nodes 1 zone (us-east-1c)", 0, ""},
		{"as many zones as pods, more at scale-out", pool + deployment("2", "", zone, own) + strings.Replace(hpa, "minReplicas: 1", "minReplicas: 2", 1), "", 0,
			"at most 2 pods at full scale-out, not the 6 of the maxReplicas of HorizontalPodAutoscaler/ml/a"},
		{"an autoscaler past the zones", pool + deployment("1", "", zone, own) + hpa, "", 2,
			"at most 2 pods at full scale-out, not the 6 of the maxReplicas of HorizontalPodAutoscaler/ml/a: its required podAntiAffinity (topologyKey topology.kubernetes.io/zone, line 24) selects its own pods, and Karpenter NodePool gpu allows its nodes 2 zones (us-east-1a, us-east-1b)"},
	} {
		checkDomainCap(t, c.name, c.src, domainCap{c.warning, c.scaleMax, c.note})
	}
}

// The flavors Kueue assigns a queued workload name the zones its nodes may be in: a Job's pods,
// one workload, all land on the one flavor chosen; a Deployment's, admitted one by one, on any
// flavor they may use as the quota fills. A required anti-affinity on the zone then leaves the
// pods past those zones pending.
func TestOnePodAZoneKueue(t *testing.T) {
	zoned := strings.NewReplacer(
		"{nodeLabels: {node.kubernetes.io/instance-type: p4d.24xlarge}}", "{nodeLabels: {node.kubernetes.io/instance-type: p4d.24xlarge, topology.kubernetes.io/zone: us-east-1a}}",
		"karpenter.sh/capacity-type: spot}", "karpenter.sh/capacity-type: spot, topology.kubernetes.io/zone: us-east-1b}").Replace(kueueFlavors)
	apart := "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n" +
		"          - {labelSelector: {matchLabels: {app: a}}, topologyKey: topology.kubernetes.io/zone}\n"
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: kq, labels: {kueue.x-k8s.io/queue-name: q}}\n" +
		"spec:\n  parallelism: 3\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n" + apart +
		"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]\n"
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: kq}\nspec:\n  replicas: 3\n  template:\n" +
		"    metadata: {labels: {app: a, kueue.x-k8s.io/queue-name: q}}\n    spec:\n" + apart +
		"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]\n"
	for _, c := range []struct {
		name, src string
		warning   string // "" when none
	}{
		{"a Job on one flavor", zoned + kueueQueue("64", "64", "") + job,
			"Job/kq/j runs 3 pods, but its required podAntiAffinity (topologyKey topology.kubernetes.io/zone, line 51) selects its own pods, and Kueue ResourceFlavor a100 allows its nodes 1 zone (us-east-1a): one pod a zone, so the other 2 stay pending (priced as declared)"},
		{"a Job on the second flavor", zoned + kueueQueue("16", "64", "") + job,
			"and Kueue ResourceFlavor h100-spot allows its nodes 1 zone (us-east-1b): one pod a zone, so the other 2 stay pending"},
		{"the pods' zone and the flavor's", zoned + kueueQueue("64", "64", "") + strings.Replace(job, "    spec:\n", "    spec:\n      nodeSelector: {topology.kubernetes.io/zone: us-east-1a}\n", 1),
			"and its node selection and Kueue ResourceFlavor a100 allow its nodes 1 zone (us-east-1a)"},
		{"a Deployment's pods on either flavor", zoned + kueueQueue("64", "64", "") + deployment,
			"Deployment/kq/d runs 3 pods, but its required podAntiAffinity (topologyKey topology.kubernetes.io/zone, line 51) selects its own pods, and Kueue ResourceFlavors a100, h100-spot allow its nodes 2 zones (us-east-1a, us-east-1b): one pod a zone, so the last one stays pending"},
		{"a Deployment whose second flavor holds no pod", zoned + kueueQueue("64", "4", "") + deployment,
			"and Kueue ResourceFlavor a100 allows its nodes 1 zone (us-east-1a): one pod a zone, so the other 2 stay pending"},
		{"a Deployment that selects only the first flavor", zoned + kueueQueue("64", "64", "") + strings.Replace(deployment, "    spec:\n", "    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: p4d.24xlarge}\n", 1),
			"and Kueue ResourceFlavor a100 allows its nodes 1 zone (us-east-1a): one pod a zone, so the other 2 stay pending"},
		{"a Deployment's second flavor without a zone", strings.Replace(zoned, ", topology.kubernetes.io/zone: us-east-1b}", "}", 1) + kueueQueue("64", "64", "") + deployment, ""},
		{"flavors without zones", kueueFlavors + kueueQueue("64", "64", "") + job, ""},
	} {
		checkDomainCap(t, c.name, c.src, domainCap{warning: c.warning})
	}
}

// An exclusive placement on a key but the hostname gives each JobSet Job, or each
// LeaderWorkerSet group, a domain of its own: where the pods' node selection allows fewer
// domains than Jobs (or groups), the rest stay pending. A LeaderWorkerSet's leader and workers
// share its groups: one warning. An autoscaler's maximum past the domains is capped there.
func TestExclusiveDomains(t *testing.T) {
	const zone, pool = "topology.kubernetes.io/zone", "cloud.google.com/gke-nodepool"
	jobset := func(key, selection string, replicas int) string {
		return "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: train\n  namespace: ml\n" +
			"  annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: " + key + "}\n" +
			"spec:\n  replicatedJobs:\n  - name: w\n    replicas: " + strconv.Itoa(replicas) + "\n    template:\n" +
			"      spec:\n        parallelism: 2\n        template:\n          spec:\n" +
			"            nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge" + selection + "}\n" +
			"            containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]\n"
	}
	lws := func(key, selection string, replicas int) string {
		tmpl := func(name string) string {
			return "      spec:\n        nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge" + selection + "}\n" +
				"        containers: [{name: " + name + ", resources: {limits: {nvidia.com/gpu: 4}}}]\n"
		}
		return "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: vllm\n  namespace: ml\n" +
			"  annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: " + key + "}\n" +
			"spec:\n  replicas: " + strconv.Itoa(replicas) + "\n  leaderWorkerTemplate:\n    size: 2\n" +
			"    leaderTemplate:\n" + tmpl("l") + "    workerTemplate:\n" + tmpl("w")
	}
	const hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: vllm, namespace: ml}\n" +
		"spec:\n  scaleTargetRef: {apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, name: vllm}\n  minReplicas: 1\n  maxReplicas: 4\n"
	zonedFlavors := strings.Replace(kueueFlavors, "{nodeLabels: {node.kubernetes.io/instance-type: p4d.24xlarge}}", "{nodeLabels: {node.kubernetes.io/instance-type: p4d.24xlarge, topology.kubernetes.io/zone: us-east-1a}}", 1)
	// rbgSet is 3 groups of a prefill and a decode role, each group alone in a zone, in two zones.
	zoneSel := "nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}, affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b]}]}]}}}"
	rbgSet := "apiVersion: workloads.x-k8s.io/v1alpha2\nkind: RoleBasedGroupSet\nmetadata:\n  name: pd\n  namespace: serving\n" +
		"  annotations: {rbg.workloads.x-k8s.io/group-exclusive-topology: topology.kubernetes.io/zone}\n" +
		"spec:\n  replicas: 3\n  groupTemplate:\n    spec:\n      roles:\n" +
		"      - name: prefill\n        replicas: 2\n        standalonePattern: {template: {spec: {" + zoneSel + ", containers: [{name: p, resources: {limits: {nvidia.com/gpu: 2}}}]}}}\n" +
		"      - name: decode\n        standalonePattern: {template: {spec: {" + zoneSel + ", containers: [{name: d, resources: {limits: {nvidia.com/gpu: 4}}}]}}}\n"
	// driver is a second replicated job of the JobSet, its one Job's pod in zone.
	driver := func(zone string) string {
		return "  - name: driver\n    template:\n      spec:\n        template:\n          spec:\n" +
			"            nodeSelector: {node.kubernetes.io/instance-type: g6.48xlarge, topology.kubernetes.io/zone: " + zone + "}\n" +
			"            containers: [{name: d, resources: {limits: {nvidia.com/gpu: 4}}}]\n"
	}
	for _, c := range []struct {
		name, src string
		warnings  []string
		scaleMax  []int // of each resource; 0 when none
		note      string
	}{
		{"Jobs past the zones", jobset(zone, ", topology.kubernetes.io/zone: us-east-1a", 3), []string{
			"JobSet/ml/train runs 3 Jobs, but the alpha.jobset.sigs.k8s.io/exclusive-topology annotation on the JobSet (topology.kubernetes.io/zone) gives each Job a zone no other Job's pods share, and its node selection allows its nodes 1 zone (us-east-1a): one Job a zone, so the other 2 Jobs stay pending (priced as declared)"}, []int{0}, ""},
		{"Jobs past the node pools", strings.Replace(jobset(pool, ", cloud.google.com/gke-nodepool: gpu-a", 3), "nodeSelector: {", "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: cloud.google.com/gke-nodepool, operator: In, values: [gpu-a, gpu-b]}]}]}}}\n            nodeSelector: {", 1), []string{
			"and its node selection allows its nodes 1 node pool (gpu-a): one Job a node pool, so the other 2 Jobs stay pending"}, []int{0}, ""},
		{"Jobs of two replicated jobs past the zones", jobset(zone, ", topology.kubernetes.io/zone: us-east-1a", 1) + driver("us-east-1a"), []string{
			`JobSet/ml/train runs 2 Jobs, but the alpha.jobset.sigs.k8s.io/exclusive-topology annotation on the JobSet (topology.kubernetes.io/zone) gives each Job a zone no other Job's pods share, and the pods of JobSet/ml/train["w"] and JobSet/ml/train["driver"] may use 1 zone between them (us-east-1a): one Job a zone, so the last one stays pending (priced as declared)`}, []int{0, 0}, ""},
		{"replicated jobs placed on different keys", strings.Replace(jobset(zone, ", cloud.google.com/gke-nodepool: gpu-a", 1), "    template:\n      spec:\n        parallelism", "    template:\n      metadata: {annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool}}\n      spec:\n        parallelism", 1) +
			strings.Replace(driver("us-east-1a"), "  - name: driver\n", "  - name: driver\n    replicas: 2\n", 1), []string{
			`JobSet/ml/train["driver"] runs 2 Jobs, but the alpha.jobset.sigs.k8s.io/exclusive-topology annotation on the JobSet (topology.kubernetes.io/zone) gives each Job a zone no other Job's pods share, and its node selection allows its nodes 1 zone (us-east-1a): one Job a zone, so the last one stays pending`}, []int{0, 0}, ""},
		{"two replicated jobs in zones of their own", jobset(zone, ", topology.kubernetes.io/zone: us-east-1a", 1) + driver("us-east-1b"), nil, []int{0, 0}, ""},
		{"one replicated job past its zones, another in its own", jobset(zone, ", topology.kubernetes.io/zone: us-east-1a", 2) + driver("us-east-1b"), []string{
			`JobSet/ml/train runs 3 Jobs, but the alpha.jobset.sigs.k8s.io/exclusive-topology annotation on the JobSet (topology.kubernetes.io/zone) gives each Job a zone no other Job's pods share, and the pods of JobSet/ml/train["w"] and JobSet/ml/train["driver"] may use 2 zones between them (us-east-1a, us-east-1b): one Job a zone, so the last one stays pending`}, []int{0, 0}, ""},
		{"Jobs on one zone's Kueue flavor", zonedFlavors + kueueQueue("64", "64", "") + strings.NewReplacer("  annotations:", "  labels: {kueue.x-k8s.io/queue-name: q}\n  annotations:", "namespace: ml", "namespace: kq", "node.kubernetes.io/instance-type: g6.48xlarge", "").Replace(jobset(zone, "", 2)), []string{
			"and Kueue ResourceFlavor a100 allows its nodes 1 zone (us-east-1a): one Job a zone, so the last one stays pending"}, []int{0}, ""},
		{"one Job", jobset(zone, ", topology.kubernetes.io/zone: us-east-1a", 1), nil, []int{0}, ""},
		{"the zones unnamed", jobset(zone, "", 3), nil, []int{0}, ""},
		{"on the hostname", jobset("kubernetes.io/hostname", ", topology.kubernetes.io/zone: us-east-1a", 3), nil, []int{0}, ""},
		{"groups past the node pools", lws(pool, ", cloud.google.com/gke-nodepool: gpu-a", 2), []string{
			`LeaderWorkerSet/ml/vllm["leader"] runs 2 groups, but the LeaderWorkerSet's leaderworkerset.sigs.k8s.io/exclusive-topology annotation (cloud.google.com/gke-nodepool) gives each group a node pool no other group's pods share, and its node selection allows its nodes 1 node pool (gpu-a): one group a node pool, so the last one stays pending (priced as declared)`}, []int{0, 0}, ""},
		{"RoleBasedGroups past the zones", rbgSet, []string{
			`RoleBasedGroupSet/serving/pd["prefill"] runs 3 RoleBasedGroups, but the rbg.workloads.x-k8s.io/group-exclusive-topology annotation (topology.kubernetes.io/zone) gives each RoleBasedGroup a zone no other RoleBasedGroup's pods share, and its node selection allows its nodes 2 zones (us-east-1a, us-east-1b): one RoleBasedGroup a zone, so the last one stays pending (priced as declared)`}, []int{0, 0}, ""},
		{"groups scaled past the zones", lws(zone, ", topology.kubernetes.io/zone: us-east-1a", 1) + hpa, nil, []int{0, 0},
			"at most 1 pod at full scale-out (1 group), not the 4 of the maxReplicas of HorizontalPodAutoscaler/ml/vllm"},
	} {
		res := build(t, c.src, Options{})
		var warns []string
		for _, w := range res.Warnings {
			if strings.Contains(w.Message, " stay") {
				warns = append(warns, w.Message)
			}
		}
		if len(res.Errors) > 0 || len(warns) != len(c.warnings) || len(res.Resources) != len(c.scaleMax) {
			t.Fatalf("%s: warnings %q, %d resources (errors %v), want %q", c.name, warns, len(res.Resources), res.Errors, c.warnings)
		}
		for i, w := range c.warnings {
			if !strings.Contains(warns[i], w) {
				t.Errorf("%s: warning %q, want %q", c.name, warns[i], w)
			}
		}
		for i, r := range res.Resources {
			got := 0
			if r.ScaleMax != nil {
				got = r.ScaleMax.Quantity
			}
			if got != c.scaleMax[i] {
				t.Errorf("%s, %s: scale max %d, want %d", c.name, r.Address, got, c.scaleMax[i])
			}
			if c.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
				t.Errorf("%s, %s: notes %q, want %q", c.name, r.Address, r.Notes, c.note)
			}
		}
	}
}

// A topology spread constraint that asks for more domains (minDomains) than the pods' nodes may
// use holds each domain to maxSkew of the pods: the rest stay pending, and an autoscaler's
// maximum is capped there.
func TestSpreadMinDomains(t *testing.T) {
	const pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    spec:\n      requirements:\n" +
		"      - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.xlarge]}\n" +
		"      - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b]}\n" +
		"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n---\n"
	const twoZones = "      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n" +
		"            nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b]}]}]\n"
	deployment := func(replicas, selection, spread string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: " + replicas + "\n  template:\n" +
			"    metadata: {labels: {app: a}}\n    spec:\n" + selection +
			"      topologySpreadConstraints:\n      - {" + spread + "}\n" +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	spread := func(skew, minDomains, when, selector string) string {
		s := "maxSkew: " + skew + ", topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: " + when + ", labelSelector: " + selector
		if minDomains != "" {
			s += ", minDomains: " + minDomains
		}
		return s
	}
	const own = "{matchLabels: {app: a}}"
	hpa := "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a, namespace: ml}\n" +
		"spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: a}, minReplicas: 1, maxReplicas: 6}\n"
	for _, c := range []struct {
		name, src string
		warning   string // "" when none
		scaleMax  int
		note      string
	}{
		{"fewer zones than minDomains", deployment("6", twoZones, spread("1", "3", "DoNotSchedule", own)),
			"Deployment/ml/a runs 6 pods, but its topologySpreadConstraints on topology.kubernetes.io/zone (maxSkew 1, minDomains 3, line 15) count its own pods, and its node selection allows its nodes 2 zones (us-east-1a, us-east-1b): with fewer zones than minDomains the scheduler takes the fewest pods in one as 0, so each holds at most 1 of them: the other 4 stay pending (priced as declared)", 0, ""},
		{"maxSkew 2", deployment("6", twoZones, spread("2", "3", "DoNotSchedule", own)), "each holds at most 2 of them: the other 2 stay pending", 0, ""},
		{"the NodePool's zones", pool + deployment("3", "", spread("1", "3", "DoNotSchedule", own)),
			"and Karpenter NodePool gpu allows its nodes 2 zones (us-east-1a, us-east-1b): with fewer zones than minDomains", 0, ""},
		{"as many zones as minDomains", deployment("6", twoZones, spread("1", "2", "DoNotSchedule", own)), "", 0, ""},
		{"no minDomains", deployment("6", twoZones, spread("1", "", "DoNotSchedule", own)), "", 0, ""},
		{"ScheduleAnyway", deployment("6", twoZones, spread("1", "3", "ScheduleAnyway", own)), "", 0, ""},
		{"another workload's pods", deployment("6", twoZones, spread("1", "3", "DoNotSchedule", "{matchLabels: {app: b}}")), "", 0, ""},
		{"minDomains not a number", deployment("6", twoZones, spread("1", "three", "DoNotSchedule", own)), "", 0, ""},
		{"maxSkew 0: refused", deployment("6", twoZones, spread("0", "3", "DoNotSchedule", own)), "", 0, ""},
		{"maxSkew -1: refused", deployment("6", twoZones, spread("-1", "3", "DoNotSchedule", own)), "", 0, ""},
		{"zones not named", deployment("6", "", spread("1", "3", "DoNotSchedule", own)), "", 0, ""},
		{"an autoscaler past the zones", deployment("1", twoZones, spread("1", "3", "DoNotSchedule", own)) + hpa, "", 2,
			"at most 2 pods at full scale-out, not the 6 of the maxReplicas of HorizontalPodAutoscaler/ml/a: its topologySpreadConstraints on topology.kubernetes.io/zone (maxSkew 1, minDomains 3, line 15)"},
	} {
		checkDomainCap(t, c.name, c.src, domainCap{c.warning, c.scaleMax, c.note})
	}
}

// zonedPool is a GKE pool of machine in us-central1, labelled workload=serve, whose nodes are in
// zones (none: not known).
func zonedPool(name, machine string, zones ...string) NodeGroup {
	return NodeGroup{Address: "google_container_node_pool." + name, InstanceType: machine, Provider: parser.GCP, Region: "us-central1",
		Purchase: parser.OnDemand, NodeLabels: parser.NodeLabels{Labels: map[string]string{"cloud.google.com/gke-nodepool": name, "workload": "serve"}, Zones: zones}}
}

// The node groups that run a workload's pods (declared outside the manifests: a Terraform GKE
// pool's node_locations) name the zones their nodes are in, and their nodes' labels name a
// node pool: a required anti-affinity on either key leaves the pods past those domains pending.
// A group whose zones are not known (a regional pool left to GKE's default zones) narrows
// nothing.
func TestOnePodADomainOfNodeGroups(t *testing.T) {
	pool := func(name string, zones ...string) NodeGroup { return zonedPool(name, "g2-standard-8", zones...) }
	deployment := func(selection, key string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: 3\n  template:\n" +
			"    metadata: {labels: {app: a}}\n    spec:\n      nodeSelector: {" + selection + "}\n" +
			"      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n" +
			"          - {labelSelector: {matchLabels: {app: a}}, topologyKey: " + key + "}\n" +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	const zone, nodePool = "topology.kubernetes.io/zone", "cloud.google.com/gke-nodepool"
	const pend = "Deployment/ml/a runs 3 pods, but its required podAntiAffinity (topologyKey "
	for _, c := range []struct {
		name, src string
		groups    []NodeGroup
		warning   string // "" when none
	}{
		{"a pool in one zone", deployment("cloud.google.com/gke-nodepool: l4", zone), []NodeGroup{pool("l4", "us-central1-a")},
			pend + "topology.kubernetes.io/zone, line 13) selects its own pods, and node group google_container_node_pool.l4 allows its nodes 1 zone (us-central1-a): one pod a zone, so the other 2 stay pending (priced as declared)"},
		{"a pool in two zones", deployment("cloud.google.com/gke-nodepool: l4", zone), []NodeGroup{pool("l4", "us-central1-a", "us-central1-b")},
			"node group google_container_node_pool.l4 allows its nodes 2 zones (us-central1-a, us-central1-b): one pod a zone, so the last one stays pending"},
		{"a pool in three zones", deployment("cloud.google.com/gke-nodepool: l4", zone), []NodeGroup{pool("l4", "us-central1-a", "us-central1-b", "us-central1-c")}, ""},
		{"a pool whose zones are not known", deployment("cloud.google.com/gke-nodepool: l4", zone), []NodeGroup{pool("l4")}, ""},
		{"two pools, one zone each", deployment("workload: serve", zone), []NodeGroup{pool("l4", "us-central1-a"), pool("l4b", "us-central1-b")},
			"node groups google_container_node_pool.l4, google_container_node_pool.l4b allow its nodes 2 zones (us-central1-a, us-central1-b): one pod a zone, so the last one stays pending"},
		{"two pools, in the same zone", deployment("workload: serve", zone), []NodeGroup{pool("l4", "us-central1-a"), pool("l4b", "us-central1-a")},
			"allow its nodes 1 zone (us-central1-a): one pod a zone, so the other 2 stay pending"},
		{"two pools, one whose zones are not known", deployment("workload: serve", zone), []NodeGroup{pool("l4", "us-central1-a"), pool("l4b")}, ""},
		{"the pod's zone among the pool's", deployment("cloud.google.com/gke-nodepool: l4, topology.kubernetes.io/zone: us-central1-b", zone), []NodeGroup{pool("l4", "us-central1-a", "us-central1-b", "us-central1-c")},
			"its node selection and node group google_container_node_pool.l4 allow its nodes 1 zone (us-central1-b): one pod a zone, so the other 2 stay pending"},
		{"a zone the pool is not in", deployment("cloud.google.com/gke-nodepool: l4, topology.kubernetes.io/zone: us-central1-b", zone), []NodeGroup{pool("l4", "us-central1-a")},
			"Deployment/ml/a: its node selection allows its nodes 1 zone (us-central1-b), but the nodes of node group google_container_node_pool.l4 are in 1 zone (us-central1-a): the scheduler leaves them pending (priced as declared)"},
		{"a zone neither pool is in", deployment("workload: serve, topology.kubernetes.io/zone: us-central1-c", zone), []NodeGroup{pool("l4", "us-central1-a"), pool("l4b", "us-central1-a", "us-central1-b")},
			"the nodes of node groups google_container_node_pool.l4, google_container_node_pool.l4b are in 2 zones (us-central1-a, us-central1-b): the scheduler leaves them pending"},
		{"a zone one pool is in", deployment("workload: serve, topology.kubernetes.io/zone: us-central1-b", zone), []NodeGroup{pool("l4", "us-central1-a"), pool("l4b", "us-central1-a", "us-central1-b")},
			"its node selection and node group google_container_node_pool.l4b allow its nodes 1 zone (us-central1-b): one pod a zone, so the other 2 stay pending"},
		{"a zone one pool is in, apart by node", deployment("workload: serve, topology.kubernetes.io/zone: us-central1-b", "kubernetes.io/hostname"), []NodeGroup{pool("l4", "us-central1-a"), pool("l4b", "us-central1-a", "us-central1-b")}, ""},
		{"a zone beside a pool whose zones are not known", deployment("workload: serve, topology.kubernetes.io/zone: us-central1-c", "kubernetes.io/hostname"), []NodeGroup{pool("l4", "us-central1-a"), pool("l4b")}, ""},
		{"apart by node pool, two pools", deployment("workload: serve", nodePool), []NodeGroup{pool("l4"), pool("l4b")},
			pend + "cloud.google.com/gke-nodepool, line 13) selects its own pods, and node groups google_container_node_pool.l4, google_container_node_pool.l4b allow its nodes 2 node pools (l4, l4b): one pod a node pool, so the last one stays pending"},
		{"apart by node pool, three pools", deployment("workload: serve", nodePool), []NodeGroup{pool("l4"), pool("l4b"), pool("l4c")}, ""},
		{"apart by a label the pool does not declare", deployment("workload: serve", "example.com/rack"), []NodeGroup{pool("l4", "us-central1-a")}, ""},
	} {
		checkDomainCapOn(t, c.name, c.src, Options{NodeGroups: c.groups}, domainCap{warning: c.warning})
	}
	// A Kueue flavor's zone is the pods' as much as their own selection's.
	queued := "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: zone-b}\nspec: {nodeLabels: {topology.kubernetes.io/zone: us-central1-b}}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  namespaceSelector: {}\n  resourceGroups:\n" +
		"  - coveredResources: [nvidia.com/gpu]\n    flavors: [{name: zone-b, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: q, namespace: ml}\nspec: {clusterQueue: cq}\n---\n" +
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: ml, labels: {kueue.x-k8s.io/queue-name: q}}\nspec:\n  template:\n    spec:\n" +
		"      nodeSelector: {cloud.google.com/gke-nodepool: l4}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	checkDomainCapOn(t, "a Kueue flavor's zone the pool is not in", queued, Options{NodeGroups: []NodeGroup{pool("l4", "us-central1-a")}},
		domainCap{warning: "Job/ml/j: Kueue ResourceFlavor zone-b allows its nodes 1 zone (us-central1-b), but the nodes of node group google_container_node_pool.l4 are in 1 zone (us-central1-a): the scheduler leaves them pending (priced as declared)"})
	checkDomainCapOn(t, "a Kueue flavor's zone the pool is in", queued, Options{NodeGroups: []NodeGroup{pool("l4", "us-central1-a", "us-central1-b")}}, domainCap{})
	// A Terraform configuration's own manifests run on its only GPU pool without selecting it.
	checkDomainCapOn(t, "the configuration's only GPU pool", deployment("team: ml", zone), Options{NodeGroups: []NodeGroup{pool("l4", "us-central1-a")}, AnyNodeGroup: true},
		domainCap{warning: "node group google_container_node_pool.l4 allows its nodes 1 zone (us-central1-a): one pod a zone, so the other 2 stay pending"})
}

// A pod that selects its zone lands only on the node groups there: of two pools of different
// machines that its labels both select, the one in its zone runs it. A pool whose zones are not
// known may be there too.
func TestZoneNarrowsNodeGroups(t *testing.T) {
	pool := zonedPool
	far := func(g NodeGroup) NodeGroup { g.Root = "clusters/other/infra"; return g } // another cluster's
	pod := func(zone string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n  nodeSelector: {workload: serve, topology.kubernetes.io/zone: " + zone + "}\n" +
			"  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	for _, c := range []struct {
		name, zone string
		groups     []NodeGroup
		want       string // the instance type, "" when the node is left unresolved
		on         string // the groups that run the pod
	}{
		{"the pool in its zone", "us-central1-b", []NodeGroup{pool("l4", "g2-standard-8", "us-central1-a"), pool("a100", "a2-highgpu-1g", "us-central1-b")},
			"a2-highgpu-1g", "google_container_node_pool.a100"},
		{"the other zone", "us-central1-a", []NodeGroup{pool("l4", "g2-standard-8", "us-central1-a"), pool("a100", "a2-highgpu-1g", "us-central1-b")},
			"g2-standard-8", "google_container_node_pool.l4"},
		{"both pools there", "us-central1-a", []NodeGroup{pool("l4", "g2-standard-8", "us-central1-a"), pool("a100", "a2-highgpu-1g", "us-central1-a", "us-central1-b")}, "", ""},
		{"a pool whose zones are not known", "us-central1-b", []NodeGroup{pool("l4", "g2-standard-8", "us-central1-a"), pool("a100", "a2-highgpu-1g")},
			"a2-highgpu-1g", "google_container_node_pool.a100"},
		// In a scan of several clusters, the pod's own cluster's pool is kept though its zone is
		// not the pod's (it stays pending there): another cluster's pool is no place for it.
		{"its cluster's pool elsewhere than its zone", "us-central1-c", []NodeGroup{pool("l4", "g2-standard-8", "us-central1-a"), far(pool("l4", "g2-standard-24"))},
			"g2-standard-8", "google_container_node_pool.l4"},
		{"of its cluster's pools, the one in its zone", "us-central1-b", []NodeGroup{pool("l4", "g2-standard-8", "us-central1-a"), pool("a100", "a2-highgpu-1g", "us-central1-b"), far(pool("h100", "a3-highgpu-1g"))},
			"a2-highgpu-1g", "google_container_node_pool.a100"},
	} {
		res := build(t, pod(c.zone), Options{NodeGroups: c.groups})
		r := one(t, res)
		var on []string
		for _, g := range r.Pod.NodeGroups {
			on = append(on, g.Address)
		}
		if c.want == "" {
			if r.InstanceType != "" || len(r.Unresolved) == 0 {
				t.Errorf("%s: runs on %q (%v), want it unresolved", c.name, r.InstanceType, on)
			}
			continue
		}
		if r.InstanceType != c.want || strings.Join(on, ", ") != c.on {
			t.Errorf("%s: %q on %q, want %q on %q (unresolved %v)", c.name, r.InstanceType, on, c.want, c.on, r.Unresolved)
		}
	}
}
