package kubernetes

import (
	"math"
	"strings"
	"testing"
)

// A KEDA ScaledObject's cron triggers run at least desiredReplicas from each start to the next
// end, within maxReplicaCount, over minReplicaCount: a GPU Deployment scaled to zero outside
// office hours is priced for the hours it runs, not at its floor of none.
func TestKEDACronTriggers(t *testing.T) {
	const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n---\n"
	scaled := func(spec string) string {
		return deployment + "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: k, namespace: ns}\nspec:\n  scaleTargetRef: {name: d}\n" + spec
	}
	office := "    - type: cron\n      name: office\n      metadata: {timezone: Europe/Berlin, start: 0 8 * * 1-5, end: 0 18 * * 1-5, desiredReplicas: \"2\"}\n"
	// 261 weekdays of ten hours: 2 pods for 217.5 of gpuguard's 730-hour month.
	officeHours := math.Round(730*2610.0/8760*100) / 100
	for _, tc := range []struct {
		name     string
		src      string
		pods     int
		hours    float64 // 0: all month
		maxPods  int
		maxHours float64
		note     string
	}{
		{name: "office hours, scaled to zero otherwise", src: scaled("  minReplicaCount: 0\n  maxReplicaCount: 4\n  triggers:\n" + office +
			"    - type: prometheus\n      metadata: {serverAddress: http://prom, query: q, threshold: \"5\"}\n"),
			pods: 2, hours: officeHours, maxPods: 4, maxHours: 730,
			note: `scheduled by the cron triggers of ScaledObject/ns/k: office ("0 8 * * 1-5" to "0 18 * * 1-5", Europe/Berlin, 2 replicas): 0 to 2 pods, 0.60 on average over a year: priced as 2 pods for 217.50 hours a month, the same pod-hours`},
		{name: "a floor above the trigger's replicas runs all the time", src: scaled("  minReplicaCount: 3\n  maxReplicaCount: 4\n  triggers:\n" + office),
			pods: 3, maxPods: 4, note: "3 to 3 pods, 3.00 on average over a year: priced as 3 pods all month"},
		{name: "maxReplicaCount bounds the trigger", src: scaled("  maxReplicaCount: 1\n  triggers:\n" + office),
			pods: 1, hours: officeHours, maxPods: 1, maxHours: 730, note: "0 to 1 pods, 0.30 on average"},
		{name: "without an end the trigger is not applied", src: scaled("  maxReplicaCount: 4\n  triggers:\n    - type: cron\n      metadata: {start: 0 8 * * *, desiredReplicas: \"2\"}\n"),
			pods: 0, maxPods: 4, note: "the cron triggers of ScaledObject/ns/k are not applied (cron trigger trigger-0 has no start or end): priced at its floor"},
		{name: "no maxReplicaCount bound: the trigger runs its replicas", src: scaled("  maxReplicaCount: 0\n  triggers:\n" + office),
			pods: 2, hours: officeHours, note: "0 to 2 pods"},
		{name: "a negative number of replicas", src: scaled("  maxReplicaCount: 4\n  triggers:\n    - type: cron\n      metadata: {start: 0 8 * * *, end: 0 9 * * *, desiredReplicas: \"-1\"}\n"),
			pods: 0, maxPods: 4, note: `cron trigger trigger-0: desiredReplicas "-1" is not a number of replicas`},
		{name: "replicas that are not a number", src: scaled("  maxReplicaCount: 4\n  triggers:\n    - type: cron\n      metadata: {start: 0 8 * * *, end: 0 9 * * *, desiredReplicas: two}\n"),
			pods: 0, maxPods: 4, note: `cron trigger trigger-0: desiredReplicas "two" is not a number of replicas`},
		{name: "an expression that does not parse", src: scaled("  maxReplicaCount: 4\n  triggers:\n    - type: cron\n      metadata: {start: 0 8 * *, end: 0 9 * * *, desiredReplicas: \"2\"}\n"),
			pods: 0, maxPods: 4, note: `the cron triggers of ScaledObject/ns/k cannot be replayed (cron trigger trigger-0: recurrence "0 8 * *": `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := build(t, tc.src, Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			if len(res.Resources) != 1 {
				t.Fatalf("resources %+v", res.Resources)
			}
			r := res.Resources[0]
			if r.Quantity != tc.pods || r.HoursPerMonth != tc.hours {
				t.Errorf("%d pods for %.2f hours, want %d for %.2f; notes %q", r.Quantity, r.HoursPerMonth, tc.pods, tc.hours, r.Notes)
			}
			if tc.maxPods == 0 && r.ScaleMax != nil || tc.maxPods > 0 && (r.ScaleMax == nil || r.ScaleMax.Quantity != tc.maxPods || r.ScaleMax.HoursPerMonth != tc.maxHours) {
				t.Errorf("scale max %+v, want %d pods for %.2f hours", r.ScaleMax, tc.maxPods, tc.maxHours)
			}
			if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
		})
	}
}

// A LeaderWorkerSet's replica is a group of pods: the trigger's replicas are groups.
func TestKEDACronTriggerOnGroupsOfPods(t *testing.T) {
	src := "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l, namespace: ns}\nspec:\n  replicas: 1\n" +
		"  leaderWorkerTemplate: {size: 4, workerTemplate: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}\n---\n" +
		"apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: k, namespace: ns}\n" +
		"spec:\n  scaleTargetRef: {kind: LeaderWorkerSet, name: l}\n  maxReplicaCount: 3\n" +
		"  triggers: [{type: cron, metadata: {start: 0 8 * * 1-5, end: 0 18 * * 1-5, desiredReplicas: \"2\"}}]\n"
	res := build(t, src, Options{})
	if len(res.Errors) > 0 || len(res.Resources) != 1 {
		t.Fatalf("errors %v, resources %+v", res.Errors, res.Resources)
	}
	r := res.Resources[0]
	if want := math.Round(730*2610.0/8760*100) / 100; r.Quantity != 8 || r.HoursPerMonth != want || r.ScaleMax == nil || r.ScaleMax.Quantity != 12 {
		t.Errorf("%d pods for %.2f hours, up to %+v; want 8 (2 groups of 4) for %.2f, up to 12", r.Quantity, r.HoursPerMonth, r.ScaleMax, want)
	}
}

// A Seldon Core v1 component's kedaSpec is a ScaledObject Seldon makes for the component's
// Deployment: its cron triggers are replayed the same way, each component on its own, and a
// component without cron triggers keeps its floor all month.
func TestSeldonKedaSpecCronTriggers(t *testing.T) {
	src := `apiVersion: machinelearning.seldon.io/v1
kind: SeldonDeployment
metadata: {name: llm, namespace: serving}
spec:
  predictors:
    - name: main
      componentSpecs:
        - kedaSpec:
            minReplicaCount: 0
            maxReplicaCount: 4
            triggers:
              - type: cron
                name: office
                metadata: {timezone: Europe/Berlin, start: 0 8 * * 1-5, end: 0 18 * * 1-5, desiredReplicas: "2"}
          spec:
            containers: [{name: model, resources: {limits: {nvidia.com/gpu: 1}}}]
        - kedaSpec:
            minReplicaCount: 1
            triggers:
              - {type: prometheus, metadata: {serverAddress: http://prom, query: q, threshold: "5"}}
          spec:
            containers: [{name: ranker, resources: {limits: {nvidia.com/gpu: 1}}}]
        - kedaSpec:
            maxReplicaCount: 3
            triggers: [{type: cron, metadata: {start: 0 8 * * *, desiredReplicas: "2"}}]
          spec:
            containers: [{name: batch, resources: {limits: {nvidia.com/gpu: 1}}}]
        - kedaSpec:
            maxReplicaCount: 1
            triggers:
              - {type: cron, metadata: {timezone: Europe/Berlin, start: 0 8 * * 1-5, end: 0 18 * * 1-5, desiredReplicas: "2"}}
          spec:
            containers: [{name: bounded, resources: {limits: {nvidia.com/gpu: 1}}}]
`
	res := build(t, src, Options{})
	if len(res.Errors) > 0 || len(res.Resources) != 4 {
		t.Fatalf("errors %v, resources %+v", res.Errors, res.Resources)
	}
	officeHours := math.Round(730*2610.0/8760*100) / 100
	want := map[string]struct {
		pods  int
		hours float64
		max   int
		note  string
	}{
		`SeldonDeployment/serving/llm["main/model"]`: {2, officeHours, 4,
			`scheduled by the cron triggers of the kedaSpec of SeldonDeployment/serving/llm main/model: office ("0 8 * * 1-5" to "0 18 * * 1-5", Europe/Berlin, 2 replicas): 0 to 2 pods, 0.60 on average over a year: priced as 2 pods for 217.50 hours a month, the same pod-hours`},
		`SeldonDeployment/serving/llm["main/ranker"]`: {1, 0, 100, "1 pod: the minReplicaCount of the component's kedaSpec, the floor it always runs"},
		`SeldonDeployment/serving/llm["main/batch"]`: {0, 0, 3,
			"the cron triggers of the kedaSpec of SeldonDeployment/serving/llm main/batch are not applied (cron trigger trigger-0 has no start or end): priced at its floor"},
		// maxReplicaCount bounds the trigger's replicas.
		`SeldonDeployment/serving/llm["main/bounded"]`: {1, officeHours, 1, "0 to 1 pods, 0.30 on average"},
	}
	for _, r := range res.Resources {
		w, ok := want[r.Address]
		if !ok {
			t.Errorf("unexpected %s", r.Address)
			continue
		}
		if r.Quantity != w.pods || r.HoursPerMonth != w.hours || r.ScaleMax == nil || r.ScaleMax.Quantity != w.max {
			t.Errorf("%s: %d pods for %.2f hours, max %+v; want %d for %.2f, max %d", r.Address, r.Quantity, r.HoursPerMonth, r.ScaleMax, w.pods, w.hours, w.max)
		}
		if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, w.note) {
			t.Errorf("%s: notes %q, want %q", r.Address, notes, w.note)
		}
	}
}
