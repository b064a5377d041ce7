package kubernetes

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// unitedSrc is a UnitedDeployment of g5 pods split between on-demand and spot capacity.
const unitedSrc = `apiVersion: apps.kruise.io/v1alpha1
kind: UnitedDeployment
metadata: {name: chat, namespace: serving, labels: {team: ml}}
spec:
  replicas: 7
  selector: {matchLabels: {app: chat}}
  template:
    deploymentTemplate:
      metadata: {labels: {project: chat}, annotations: {gpuguard.dev/profile: llama}}
      spec:
        template:
          metadata: {labels: {app: chat}}
          spec:
            nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
            containers: [{name: model, resources: {limits: {nvidia.com/gpu: 1}}}]
  topology:
    subsets:
      - name: ondemand
        replicas: 2
        nodeSelectorTerm:
          matchExpressions: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
      - name: spot-a
        nodeSelectorTerm:
          matchExpressions: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
        tolerations: [{key: spot, operator: Exists}]
      - name: spot-b
        nodeSelectorTerm:
          matchExpressions: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
        patch:
          spec:
            nodeSelector: {node.kubernetes.io/instance-type: g5.12xlarge}
            containers: [{name: model, resources: {limits: {nvidia.com/gpu: 4}}}]
`

// Each subset of an OpenKruise UnitedDeployment is its own resource: its share of the replicas,
// on the capacity its node selector term picks, with its patch applied.
func TestUnitedDeployment(t *testing.T) {
	res := build(t, unitedSrc, Options{})
	if len(res.Errors) > 0 || len(res.Warnings) > 0 {
		t.Fatalf("errors %v, warnings %v", res.Errors, res.Warnings)
	}
	type want struct {
		qty      int
		gpus     int64
		typ      string
		purchase parser.PurchaseOption
	}
	// 7 replicas: ondemand takes its 2; spot-a and spot-b share 5, the odd pod going to the
	// last by name.
	wants := map[string]want{
		`UnitedDeployment/serving/chat["ondemand"]`: {2, 1, "g5.xlarge", parser.OnDemand},
		`UnitedDeployment/serving/chat["spot-a"]`:   {2, 1, "g5.xlarge", parser.Spot},
		`UnitedDeployment/serving/chat["spot-b"]`:   {3, 4, "g5.12xlarge", parser.Spot},
	}
	if len(res.Resources) != len(wants) {
		t.Fatalf("want %d resources, got %+v", len(wants), res.Resources)
	}
	for _, r := range res.Resources {
		w, ok := wants[r.Address]
		if !ok {
			t.Errorf("unexpected resource %s", r.Address)
			continue
		}
		if r.Quantity != w.qty || r.Pod == nil || r.Pod.Requested != w.gpus || r.InstanceType != w.typ || r.PurchaseOption != w.purchase {
			t.Errorf("%s: quantity %d pod %+v type %q purchase %q, want %+v", r.Address, r.Quantity, r.Pod, r.InstanceType, r.PurchaseOption, w)
		}
		if r.Profile != "llama" || r.Tags["team"] != "ml" || r.Tags["project"] != "chat" || r.Tags["app"] != "chat" {
			t.Errorf("%s: profile %q tags %v: the template's labels and annotations must reach the pods", r.Address, r.Profile, r.Tags)
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), "of the UnitedDeployment's 7 pods") {
			t.Errorf("%s: notes %q must say the split", r.Address, r.Notes)
		}
	}

	// An HPA scales the UnitedDeployment; each subset gets its share of the floor and ceiling.
	hpa := unitedSrc + "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: serving}\n" +
		"spec: {scaleTargetRef: {apiVersion: apps.kruise.io/v1alpha1, kind: UnitedDeployment, name: chat}, minReplicas: 4, maxReplicas: 12}\n"
	res = build(t, hpa, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	scaled := map[string][2]int{"ondemand": {2, 2}, "spot-a": {1, 5}, "spot-b": {1, 5}}
	for _, r := range res.Resources {
		name := r.Address[strings.Index(r.Address, "[")+2 : len(r.Address)-2]
		w := scaled[name]
		from := "its share of the maxReplicas (12) of HorizontalPodAutoscaler/serving/h"
		if r.Quantity != w[0] || !reflect.DeepEqual(r.ScaleMax, &parser.ScaleMax{Quantity: w[1], From: from}) {
			t.Errorf("%s: quantity %d scale max %+v, want %d up to %d", r.Address, r.Quantity, r.ScaleMax, w[0], w[1])
		}
		if notes := strings.Join(r.Notes, "\n"); strings.Contains(notes, "of the UnitedDeployment's 7 pods") || !strings.Contains(notes, "its share of the minReplicas (4)") {
			t.Errorf("%s: notes %q must give the autoscaler's split only", r.Address, r.Notes)
		}
	}

	// A floor the subsets' own counts do not fit is what the controller refuses: an error.
	low := strings.Replace(hpa, "minReplicas: 4", "minReplicas: 1", 1)
	res = build(t, low, Options{})
	if len(res.Errors) == 0 || !strings.Contains(res.Errors[0].Message, "scaled by HorizontalPodAutoscaler/serving/h: topology.subsets: their replicas add up to 2, more than the UnitedDeployment's 1") {
		t.Errorf("HPA floor below the subsets' counts: errors %v", res.Errors)
	}
}

// A KEDA cron trigger raises a UnitedDeployment from 4 to 8 replicas in office hours: the
// on-demand subset keeps its 2 all month, and each spot subset runs 1 pod, or 3 while the
// trigger is active. Its pods are not in proportion to the replicas: the subset's schedule is
// its own pods' over time.
func TestUnitedDeploymentCronTrigger(t *testing.T) {
	src := unitedSrc + "---\napiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: k, namespace: serving}\n" +
		"spec:\n  scaleTargetRef: {apiVersion: apps.kruise.io/v1alpha1, kind: UnitedDeployment, name: chat}\n  minReplicaCount: 4\n  maxReplicaCount: 12\n" +
		"  triggers: [{type: cron, metadata: {start: 0 8 * * 1-5, end: 0 18 * * 1-5, desiredReplicas: \"8\"}}]\n"
	res := build(t, src, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	office := 2610.0 / 8760 // ten hours on each of 2026's 261 weekdays
	spot := math.Round(730*(1+2*office)/3*100) / 100
	for _, r := range res.Resources {
		want := map[string]struct {
			pods  int
			hours float64
		}{"ondemand": {2, 0}, "spot-a": {3, spot}, "spot-b": {3, spot}}[r.Address[strings.Index(r.Address, "[")+2:len(r.Address)-2]]
		if r.Quantity != want.pods || r.HoursPerMonth != want.hours {
			t.Errorf("%s: %d pods for %.2f hours, want %d for %.2f; notes %q", r.Address, r.Quantity, r.HoursPerMonth, want.pods, want.hours, r.Notes)
		}
	}
}

// The controller's allocation: numbers and percentages, the rest shared evenly, elastic min and
// max in order, and what it refuses.
func TestUnitedDeploymentSplit(t *testing.T) {
	for _, tc := range []struct {
		name, subsets string
		replicas      string
		want          map[string]int
		err           string
	}{
		{"percent", "[{name: a, replicas: 2}, {name: b, replicas: 50%}, {name: c}]", "replicas: 10, ", map[string]int{"a": 2, "b": 5, "c": 3}, ""},
		{"percent rounds half up", "[{name: a, replicas: 25%}, {name: b}]", "replicas: 10, ", map[string]int{"a": 3, "b": 7}, ""},
		{"default one replica", "[{name: a}, {name: b}]", "", map[string]int{"a": 0, "b": 1}, ""},
		{"even rest, odd pods to the last names", "[{name: z}, {name: y}, {name: x}]", "replicas: 5, ", map[string]int{"x": 1, "y": 2, "z": 2}, ""},
		{"all given", "[{name: a, replicas: 1}, {name: b, replicas: 3}]", "replicas: 4, ", map[string]int{"a": 1, "b": 3}, ""},
		{"elastic", "[{name: a, minReplicas: 2, maxReplicas: 4}, {name: b, minReplicas: 2}]", "replicas: 5, ", map[string]int{"a": 3, "b": 2}, ""},
		{"elastic ordered", "[{name: ecs, maxReplicas: 2}, {name: spot, maxReplicas: 50%}, {name: eci}]", "replicas: 10, ", map[string]int{"ecs": 2, "spot": 5, "eci": 3}, ""},
		{"elastic floor above replicas", "[{name: a, minReplicas: 3}, {name: b, minReplicas: 3}]", "replicas: 4, ", map[string]int{"a": 3, "b": 1}, ""},
		{"too many", "[{name: a, replicas: 3}, {name: b, replicas: 3}]", "replicas: 4, ", nil, "add up to 6, more than the UnitedDeployment's 4"},
		{"too few", "[{name: a, replicas: 1}, {name: b, replicas: 1}]", "replicas: 4, ", nil, "add up to 2, less than the UnitedDeployment's 4"},
		{"bad percent", "[{name: a, replicas: 150%}, {name: b}]", "replicas: 4, ", nil, `topology.subsets[0].replicas: "150%" is not a percentage`},
		{"quoted number", `[{name: a, replicas: "2"}, {name: b}]`, "replicas: 4, ", nil, "neither a number nor a percentage"},
		{"negative", "[{name: a, replicas: -1}, {name: b}]", "replicas: 4, ", nil, "is less than 0"},
		{"min over max", "[{name: a, minReplicas: 3, maxReplicas: 1}]", "replicas: 4, ", nil, "minReplicas (3) is more than maxReplicas (1)"},
		{"unnamed", "[{replicas: 1}]", "replicas: 1, ", nil, "topology.subsets[0]: has no name"},
		{"twice", "[{name: a}, {name: a}]", "replicas: 1, ", nil, `the name "a" is used twice`},
		{"none", "[]", "replicas: 1, ", nil, "topology.subsets: none declared"},
	} {
		src := "apiVersion: apps.kruise.io/v1alpha1\nkind: UnitedDeployment\nmetadata: {name: u, namespace: ns}\n" +
			"spec: {" + tc.replicas + "template: {cloneSetTemplate: {spec: {template: {spec: " + g5Pod + "}}}}, topology: {subsets: " + tc.subsets + "}}\n"
		res := build(t, src, Options{})
		if tc.err != "" {
			if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, tc.err) || res.Errors[0].Line == 0 {
				t.Errorf("%s: errors %v, want one at a line with %q", tc.name, res.Errors, tc.err)
			}
			continue
		}
		if len(res.Errors) > 0 {
			t.Errorf("%s: errors %v", tc.name, res.Errors)
			continue
		}
		got := map[string]int{}
		for _, r := range res.Resources {
			got[r.Address[strings.Index(r.Address, "[")+2:len(r.Address)-2]] = r.Quantity
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: split %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A UnitedDeployment holds exactly one workload template; its subset's node term joins every
// required term of the pods' own affinity.
func TestUnitedDeploymentTemplates(t *testing.T) {
	head := "apiVersion: apps.kruise.io/v1alpha1\nkind: UnitedDeployment\nmetadata: {name: u, namespace: ns}\nspec:\n  replicas: 2\n"
	subsets := "  topology: {subsets: [{name: a, nodeSelectorTerm: {matchExpressions: [{key: node.kubernetes.io/instance-type, operator: In, values: [g6.xlarge]}]}}]}\n"
	for _, tc := range []struct{ name, template, err string }{
		{"none", "  template: {}\n", "sets none of statefulSetTemplate, advancedStatefulSetTemplate, cloneSetTemplate, deploymentTemplate"},
		{"two", "  template: {statefulSetTemplate: {spec: {}}, deploymentTemplate: {spec: {}}}\n", "sets both statefulSetTemplate and deploymentTemplate"},
		{"bad patch", "  template: {deploymentTemplate: {spec: {template: {spec: " + g5Pod + "}}}}\n  topology: {subsets: [{name: a, patch: [1]}]}\n", "topology.subsets[0].patch: is not an object"},
	} {
		src := head + tc.template
		if !strings.Contains(tc.template, "topology") {
			src += subsets
		}
		res := build(t, src, Options{})
		if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, tc.err) {
			t.Errorf("%s: errors %v, want %q", tc.name, res.Errors, tc.err)
		}
	}
	pod := "{affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]}]}}}, " +
		"containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}"
	res := build(t, head+"  template: {advancedStatefulSetTemplate: {spec: {template: {spec: "+pod+"}}}}\n"+subsets, Options{})
	r := one(t, res)
	if r.InstanceType != "g6.xlarge" || r.PurchaseOption != parser.Spot || r.Quantity != 2 {
		t.Errorf("%s: type %q purchase %q quantity %d: the subset's term must join the pod's own", r.Address, r.InstanceType, r.PurchaseOption, r.Quantity)
	}
}
