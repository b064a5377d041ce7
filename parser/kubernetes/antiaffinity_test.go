package kubernetes

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// A required pod anti-affinity on kubernetes.io/hostname that selects the workload's own pods
// keeps them one to a node; one by zone, a preferred one, or one that selects other pods (by
// label or namespace) does not, nor any when the workload runs one pod.
func TestOnePerNode(t *testing.T) {
	deployment := func(kind, affinity string) string { return affinityWorkload(kind, "2", podAntiAffinityField, affinity) }
	required := requiredTerms
	for _, c := range []struct {
		name, src string
		want      string // "" when the pods may share nodes
	}{
		{"matchLabels", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}")),
			"its required podAntiAffinity (topologyKey kubernetes.io/hostname, line 13) selects its own pods"},
		{"matchExpressions", deployment("Deployment", required("{labelSelector: {matchExpressions: [{key: tier, operator: In, values: [gpu, cpu]}]}, topologyKey: kubernetes.io/hostname}")), "line 13"},
		{"an empty selector matches every pod", deployment("Deployment", required("{labelSelector: {}, topologyKey: kubernetes.io/hostname}")), "line 13"},
		{"its own namespace named", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, namespaces: [ml, web], topologyKey: kubernetes.io/hostname}")), "line 13"},
		{"every namespace", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, namespaceSelector: {}, topologyKey: kubernetes.io/hostname}")), "line 13"},
		{"a block of the Terraform provider", deployment("Deployment", required("{labelSelector: [{matchLabels: {app: a}}], topologyKey: kubernetes.io/hostname}")), "line 13"},
		{"the second term", deployment("Deployment", required("{labelSelector: {matchLabels: {app: b}}, topologyKey: kubernetes.io/hostname}\n          - {labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}")), "line 14"},
		{"by zone", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, topologyKey: topology.kubernetes.io/zone}")), ""},
		{"other pods", deployment("Deployment", required("{labelSelector: {matchLabels: {app: b}}, topologyKey: kubernetes.io/hostname}")), ""},
		{"another namespace", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, namespaces: [web], topologyKey: kubernetes.io/hostname}")), ""},
		{"namespaces by label", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, namespaceSelector: {matchLabels: {team: x}}, topologyKey: kubernetes.io/hostname}")), ""},
		{"no selector", deployment("Deployment", required("{topologyKey: kubernetes.io/hostname}")), ""},
		{"preferred", deployment("Deployment", "          preferredDuringSchedulingIgnoredDuringExecution:\n          - {weight: 100, podAffinityTerm: {labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}}\n"), ""},
		{"a lone pod shares its node as any pod does", strings.Replace(deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}")), "replicas: 2", "replicas: 1", 1), ""},
		{"a DaemonSet, one to a node anyway", strings.Replace(deployment("DaemonSet", required("{labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}")), "  replicas: 2\n", "", 1), ""},
	} {
		r := one(t, buildWarning(t, c.name, c.src, ""))
		if got := oneToANode(t, r.Pod); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: one per node %q, want %q", c.name, got, c.want)
		}
	}
}

// affinityWorkload is a workload of kind with replicas pods (labels app: a, tier: gpu) of one
// GPU on a g6.12xlarge, whose affinity's field (podAffinity or podAntiAffinity) holds terms;
// its first term is on line 13.
func affinityWorkload(kind, replicas, field, terms string) string {
	return "apiVersion: apps/v1\nkind: " + kind + "\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: " + replicas + "\n  template:\n" +
		"    metadata: {labels: {app: a, tier: gpu}}\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}\n" +
		"      affinity:\n        " + field + ":\n" + terms +
		"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
}

// requiredTerms is a required term list of an affinity field holding term.
func requiredTerms(term string) string {
	return "          requiredDuringSchedulingIgnoredDuringExecution:\n          - " + term + "\n"
}

// oneToANode is why no two of a workload's pods share a node ("" when they may), failing the
// test when a cap other than one is set.
func oneToANode(t *testing.T, p *parser.PodGPUs) string {
	t.Helper()
	if p.MaxPerNode != 0 && p.MaxPerNode != 1 || (p.MaxPerNode == 0) != (p.MaxPerNodeWhy == "") {
		t.Errorf("at most %d pods a node: %q", p.MaxPerNode, p.MaxPerNodeWhy)
	}
	return p.MaxPerNodeWhy
}

// A required anti-affinity on the zone that selects the workload's own pods runs one pod a zone:
// where the pods' node selection, or the Karpenter NodePool that launches their nodes, allows
// fewer zones than pods, the rest stay pending (a warning; priced as declared), and an
// autoscaler's maximum is capped at the zones.
func TestOnePodAZone(t *testing.T) {
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
		res := build(t, c.src, Options{})
		var warns []string
		for _, w := range res.Warnings {
			warns = append(warns, w.Message)
		}
		got := strings.Join(warns, "\n")
		if len(res.Errors) > 0 || c.warning == "" && strings.Contains(got, "one pod a zone") || c.warning != "" && !strings.Contains(got, c.warning) {
			t.Errorf("%s: warnings %q (errors %v), want %q", c.name, got, res.Errors, c.warning)
		}
		r := one(t, res)
		if max := 0; r.ScaleMax != nil {
			max = r.ScaleMax.Quantity
			if max != c.scaleMax {
				t.Errorf("%s: scale max %d, want %d", c.name, max, c.scaleMax)
			}
		} else if c.scaleMax != 0 {
			t.Errorf("%s: no scale max, want %d", c.name, c.scaleMax)
		}
		if c.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, r.Notes, c.note)
		}
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
		res := build(t, c.src, Options{})
		var warns []string
		for _, w := range res.Warnings {
			warns = append(warns, w.Message)
		}
		got := strings.Join(warns, "\n")
		if len(res.Errors) > 0 || c.warning == "" && strings.Contains(got, "one pod a zone") || c.warning != "" && !strings.Contains(got, c.warning) {
			t.Errorf("%s: warnings %q (errors %v), want %q", c.name, got, res.Errors, c.warning)
		}
	}
}
