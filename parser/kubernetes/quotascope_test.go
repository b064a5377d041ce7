package kubernetes

import (
	"strings"
	"testing"
)

// A quota's scopes decide which pods it counts, as the API server's quota evaluator tests them:
// a quota counts a workload only when all of its scopes match the workload's pods.
func TestResourceQuotaScopes(t *testing.T) {
	gpus4 := "  hard: {requests.nvidia.com/gpu: \"4\"}\n"
	selector := func(exprs ...string) string {
		return "  scopeSelector: {matchExpressions: [" + strings.Join(exprs, ", ") + "]}\n" + gpus4
	}
	priority := func(op string, values ...string) string {
		if len(values) == 0 {
			return "{scopeName: PriorityClass, operator: " + op + "}"
		}
		return "{scopeName: PriorityClass, operator: " + op + ", values: [" + strings.Join(values, ", ") + "]}"
	}
	// pod adds fields to the Deployment's pod spec.
	pod := func(src string, fields ...string) string {
		return strings.Replace(src, "      nodeSelector:", "      "+strings.Join(fields, "\n      ")+"\n      nodeSelector:", 1)
	}
	defaultHigh := "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\nglobalDefault: true\n---\n"
	notDefault := strings.Replace(defaultHigh, "globalDefault: true", "globalDefault: false", 1)
	const a = "ml/a 1 2 10" // 1 to 10 pods of 2 GPUs: at most 2 within the quota
	crossNS := "affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, podAffinityTerm: {topologyKey: kubernetes.io/hostname, namespaceSelector: {}}}]}}"
	for _, c := range []struct {
		name    string
		src     string
		applied bool
	}{
		{"Terminating: a pod with a deadline", pod(quotaSrc("  scopes: [Terminating]\n"+gpus4, a), "activeDeadlineSeconds: 3600"), true},
		{"Terminating: a pod without one", quotaSrc("  scopes: [Terminating]\n"+gpus4, a), false},
		{"NotTerminating: a pod without a deadline", quotaSrc("  scopes: [NotTerminating]\n"+gpus4, a), true},
		{"NotTerminating: a pod with one", pod(quotaSrc("  scopes: [NotTerminating]\n"+gpus4, a), "activeDeadlineSeconds: 3600"), false},
		{"BestEffort: a pod that requests no CPU or memory", strings.Replace(quotaSrc("  scopes: [BestEffort]\n"+gpus4, a), "requests: {cpu: \"1\"}, ", "", 1), true},
		{"BestEffort: a pod that requests CPU", quotaSrc("  scopes: [BestEffort]\n"+gpus4, a), false},
		{"PriorityClass In: the pod's class", pod(quotaSrc(selector(priority("In", "high", "urgent")), a), "priorityClassName: high"), true},
		{"PriorityClass In: another class", pod(quotaSrc(selector(priority("In", "high")), a), "priorityClassName: low"), false},
		{"PriorityClass In: no class", quotaSrc(selector(priority("In", "high")), a), false},
		{"PriorityClass In: the global default's", defaultHigh + quotaSrc(selector(priority("In", "high")), a), true},
		{"PriorityClass In: a class that is not the default", notDefault + quotaSrc(selector(priority("In", "high")), a), false},
		{"PriorityClass In: the pod's own class wins over the default", defaultHigh + pod(quotaSrc(selector(priority("In", "high")), a), "priorityClassName: low"), false},
		{"PriorityClass NotIn: no class", quotaSrc(selector(priority("NotIn", "high")), a), true},
		{"PriorityClass NotIn: a class it names", pod(quotaSrc(selector(priority("NotIn", "high")), a), "priorityClassName: high"), false},
		{"PriorityClass Exists: a class", pod(quotaSrc(selector(priority("Exists")), a), "priorityClassName: low"), true},
		{"PriorityClass Exists: the default", defaultHigh + quotaSrc(selector(priority("Exists")), a), true},
		{"PriorityClass Exists: none", quotaSrc(selector(priority("Exists")), a), false},
		{"PriorityClass as a scope: a class", pod(quotaSrc("  scopes: [PriorityClass]\n"+gpus4, a), "priorityClassName: low"), true},
		{"PriorityClass DoesNotExist matches no pod", quotaSrc(selector(priority("DoesNotExist")), a), false},
		{"CrossNamespacePodAffinity: a term with a namespace selector", pod(quotaSrc("  scopes: [CrossNamespacePodAffinity]\n"+gpus4, a), crossNS), true},
		{"CrossNamespacePodAffinity: a term in its own namespace",
			pod(quotaSrc("  scopes: [CrossNamespacePodAffinity]\n"+gpus4, a), strings.Replace(crossNS, "namespaceSelector: {}", "labelSelector: {}", 1)), false},
		{"CrossNamespacePodAffinity: a required term naming namespaces",
			pod(quotaSrc("  scopes: [CrossNamespacePodAffinity]\n"+gpus4, a), "affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone, namespaces: [cache]}]}}"), true},
		{"VolumeAttributesClass counts no pod", quotaSrc("  scopes: [VolumeAttributesClass]\n"+gpus4, a), false},
		{"all scopes must match", pod(quotaSrc(selector("{scopeName: NotTerminating, operator: Exists}", priority("In", "high")), a), "priorityClassName: high", "activeDeadlineSeconds: 60"), false},
		{"all scopes match", pod(quotaSrc(selector("{scopeName: NotTerminating, operator: Exists}", priority("In", "high")), a), "priorityClassName: high"), true},
	} {
		res := build(t, c.src, Options{})
		if len(res.Errors) > 0 || len(res.Resources) != 1 {
			t.Fatalf("%s: errors %v, %d resources", c.name, res.Errors, len(res.Resources))
		}
		want := 10
		if c.applied {
			want = 2
		}
		if m := res.Resources[0].ScaleMax; m == nil || m.Quantity != want {
			t.Errorf("%s: scale max %+v, want %d", c.name, m, want)
		}
	}
	// The scopes are named wherever the quota is.
	scoped := selector("{scopeName: NotTerminating, operator: Exists}", priority("In", "high", "urgent"))
	buildWarning(t, "scopes named", pod(quotaSrc(scoped, "ml/a 3 2 10"), "priorityClassName: urgent"),
		"Deployment/ml/a runs 3 pods of 2 nvidia.com/gpu each, but ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 4; scopes NotTerminating, PriorityClass In [high, urgent]) admits 2")
	res := buildWarning(t, "scopes named", pod(quotaSrc(scoped, a), "priorityClassName: urgent"), "")
	if m := res.Resources[0].ScaleMax; m == nil || !strings.HasSuffix(m.From, "capped by ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 4; scopes NotTerminating, PriorityClass In [high, urgent])") {
		t.Errorf("scale max %+v", m)
	}
}

// An Argo workflow step's pod takes its template's priorityClassName and activeDeadlineSeconds,
// else the workflow's podPriorityClassName: a quota's scopes test those.
func TestResourceQuotaScopesOfArgoSteps(t *testing.T) {
	quota := func(scope string) string {
		return "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: gpus, namespace: ml}\nspec:\n  hard: {requests.nvidia.com/gpu: \"4\"}\n" +
			"  scopeSelector: {matchExpressions: [" + scope + "]}\n---\n"
	}
	workflow := func(specField, templateField string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {name: ft, namespace: ml}\nspec:\n  entrypoint: train\n" + specField +
			"  templates:\n    - name: train\n" + templateField +
			"      nodeSelector: {node.kubernetes.io/instance-type: p4d.24xlarge}\n      container: {image: t, resources: {limits: {nvidia.com/gpu: 8}}}\n"
	}
	const past = "Workflow/ml/ft runs 1 pod of 8 nvidia.com/gpu each, but ResourceQuota/ml/gpus"
	high := "{scopeName: PriorityClass, operator: In, values: [high]}"
	for _, c := range []struct{ name, src, want string }{
		{"the template's class", quota(high) + workflow("", "      priorityClassName: high\n"),
			past + " (requests.nvidia.com/gpu: 4; scope PriorityClass In [high]) admits none: a pod's 8 pass its 4, so the API server refuses it (priced as declared)"},
		{"the workflow's class", quota(high) + workflow("  podPriorityClassName: high\n", ""), past},
		{"the template's class wins", quota(high) + workflow("  podPriorityClassName: high\n", "      priorityClassName: low\n"), ""},
		{"no class", quota(high) + workflow("", ""), ""},
		{"the template's deadline", quota("{scopeName: Terminating, operator: Exists}") + workflow("", "      activeDeadlineSeconds: 3600\n"), past},
		{"a deadline Argo resolves from a parameter", quota("{scopeName: Terminating, operator: Exists}") +
			workflow("", "      activeDeadlineSeconds: \"{{workflow.parameters.timeout}}\"\n"), past},
		{"the workflow's deadline is not the pod's", quota("{scopeName: Terminating, operator: Exists}") + workflow("  activeDeadlineSeconds: 3600\n", ""), ""},
	} {
		buildWarning(t, c.name, c.src, c.want)
	}
}

// A global default PriorityClass gives its class to the pods of its own build only: a
// kustomization's does not reach the manifests read as they stand.
func TestResourceQuotaDefaultPriorityPerBuild(t *testing.T) {
	defaultHigh := "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\nglobalDefault: true\n"
	src := quotaSrc("  scopeSelector: {matchExpressions: [{scopeName: PriorityClass, operator: In, values: [high]}]}\n  hard: {requests.nvidia.com/gpu: \"4\"}\n", "ml/a 1 2 10")
	for _, c := range []struct {
		name     string
		classAt  string // the PriorityClass's build
		workload string // the quota's and the workload's
		want     int
	}{
		{"same kustomization", "overlays/prod", "overlays/prod", 2},
		{"another kustomization", "overlays/dev", "overlays/prod", 10},
		{"a kustomization's, beside manifests as they stand", "overlays/prod", "", 10},
		{"manifests as they stand", "", "", 2},
	} {
		res := Build([]*File{DecodeRendered("pc.yaml", c.classAt, "", []byte(defaultHigh)), DecodeRendered("m.yaml", c.workload, "", []byte(src))}, Options{})
		if len(res.Errors) > 0 || len(res.Resources) != 1 {
			t.Fatalf("%s: errors %v, %d resources", c.name, res.Errors, len(res.Resources))
		}
		if m := res.Resources[0].ScaleMax; m == nil || m.Quantity != c.want {
			t.Errorf("%s: scale max %+v, want %d", c.name, m, c.want)
		}
	}
}
