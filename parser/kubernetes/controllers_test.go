package kubernetes

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

const g5Pod = "{nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}"

// Controllers that stand in for Deployments, StatefulSets and DaemonSets run their pods as the
// built-in kinds do, with their own defaults: OpenShift's DeploymentConfig runs none unless it
// says how many.
func TestControllersThatStandInForTheBuiltIns(t *testing.T) {
	for _, tc := range []struct {
		name, apiVersion, kind, spec string
		want                         int
		note                         string
	}{
		{"rc", "v1", "ReplicationController", "{replicas: 3, template: {spec: " + g5Pod + "}}", 3, ""},
		{"rc-default", "v1", "ReplicationController", "{template: {spec: " + g5Pod + "}}", 1, ""},
		{"dc", "apps.openshift.io/v1", "DeploymentConfig", "{replicas: 2, template: {spec: " + g5Pod + "}}", 2, ""},
		{"dc-unset", "apps.openshift.io/v1", "DeploymentConfig", "{template: {spec: " + g5Pod + "}}", 0, "replicas has no default and this one sets none"},
		{"dc-test", "apps.openshift.io/v1", "DeploymentConfig", "{replicas: 4, test: true, template: {spec: " + g5Pod + "}}", 0, "test DeploymentConfig"},
		{"cloneset", "apps.kruise.io/v1alpha1", "CloneSet", "{replicas: 5, template: {spec: " + g5Pod + "}}", 5, ""},
		{"cloneset-default", "apps.kruise.io/v1alpha1", "CloneSet", "{template: {spec: " + g5Pod + "}}", 1, ""},
		{"asts", "apps.kruise.io/v1beta1", "StatefulSet", "{replicas: 2, template: {spec: " + g5Pod + "}}", 2, ""},
		{"ads", "apps.kruise.io/v1alpha1", "DaemonSet", "{template: {spec: " + g5Pod + "}}", 1, "DaemonSet: one pod per matching node"},
	} {
		src := "apiVersion: " + tc.apiVersion + "\nkind: " + tc.kind + "\nmetadata: {name: " + tc.name + ", namespace: ml}\nspec: " + tc.spec + "\n"
		res := build(t, src, Options{})
		if len(res.Errors) > 0 || len(res.Warnings) > 0 {
			t.Errorf("%s: errors %v, warnings %v", tc.name, res.Errors, res.Warnings)
			continue
		}
		r := one(t, res)
		if r.Address != tc.kind+"/ml/"+tc.name || r.Quantity != tc.want || r.InstanceType != "g5.xlarge" || r.Pod == nil || r.Pod.Requested != 1 {
			t.Errorf("%s: %s quantity %d type %q pod %+v, want %d", tc.name, r.Address, r.Quantity, r.InstanceType, r.Pod, tc.want)
		}
		if tc.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), tc.note) {
			t.Errorf("%s: notes %q lack %q", tc.name, r.Notes, tc.note)
		}
	}
	// An autoscaler scales them like a Deployment: the floor is priced, the ceiling recorded.
	src := "apiVersion: apps.openshift.io/v1\nkind: DeploymentConfig\nmetadata: {name: dc, namespace: ml}\nspec: {template: {spec: " + g5Pod + "}}\n---\n" +
		"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ml}\nspec: {scaleTargetRef: {apiVersion: apps.openshift.io/v1, kind: DeploymentConfig, name: dc}, minReplicas: 2, maxReplicas: 6}\n"
	r := one(t, build(t, src, Options{}))
	if r.Quantity != 2 || !reflect.DeepEqual(r.ScaleMax, &parser.ScaleMax{Quantity: 6, From: "maxReplicas of HorizontalPodAutoscaler/ml/h"}) {
		t.Errorf("autoscaled DeploymentConfig: quantity %d, scale max %+v", r.Quantity, r.ScaleMax)
	}
	if notes := strings.Join(r.Notes, "\n"); strings.Contains(notes, "0 pods") || !strings.Contains(notes, "2 pods: the minReplicas (2)") {
		t.Errorf("autoscaled DeploymentConfig: notes %q must give the autoscaler's count only", r.Notes)
	}
	// A kind of the same name from another group is not mistaken for it.
	res := build(t, "apiVersion: example.com/v1\nkind: CloneSet\nmetadata: {name: x, namespace: ml}\nspec: {replicas: 2, template: {spec: "+g5Pod+"}}\n", Options{})
	if len(res.Resources) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "does not know how this kind runs its pods") {
		t.Errorf("CloneSet of another group: resources %+v, warnings %v", res.Resources, res.Warnings)
	}
}

// A SeldonDeployment builds one Deployment per predictor component; replicas come from the
// most specific level that sets them, and a component's hpaSpec or kedaSpec replaces them.
func TestSeldonDeployment(t *testing.T) {
	src := `apiVersion: machinelearning.seldon.io/v1
kind: SeldonDeployment
metadata: {name: llm, namespace: serving, labels: {team: ml}}
spec:
  replicas: 4
  predictors:
    - name: main
      replicas: 2
      componentSpecs:
        - spec:
            nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
            containers: [{name: model, resources: {limits: {nvidia.com/gpu: 1}}}]
        - replicas: 3
          metadata: {annotations: {gpuguard.dev/profile: llama}}
          spec:
            nodeSelector: {node.kubernetes.io/instance-type: g5.12xlarge}
            containers: [{name: ranker, resources: {limits: {nvidia.com/gpu: 4}}}, {name: sidecar}]
        - spec:
            containers: [{name: transformer}]
        - hpaSpec: {minReplicas: 2, maxReplicas: 8}
          spec:
            nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
            containers: [{name: scaled, resources: {limits: {nvidia.com/gpu: 1}}}]
    - componentSpecs:
        - kedaSpec: {maxReplicaCount: 5}
          spec:
            nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
            containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]
        - spec:
            nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
            containers: [{name: canary, resources: {limits: {nvidia.com/gpu: 1}}}]
`
	res := build(t, src, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	type want struct {
		qty  int
		gpus int64
		typ  string
		max  *parser.ScaleMax
	}
	wants := map[string]want{
		`SeldonDeployment/serving/llm["main/model"]`:              {2, 1, "g5.xlarge", nil},
		`SeldonDeployment/serving/llm["main/ranker-sidecar"]`:     {3, 4, "g5.12xlarge", nil},
		`SeldonDeployment/serving/llm["main/scaled"]`:             {2, 1, "g5.xlarge", &parser.ScaleMax{Quantity: 8, From: "the maxReplicas of the component's hpaSpec"}},
		`SeldonDeployment/serving/llm["predictor-1/component-0"]`: {0, 1, "g5.xlarge", &parser.ScaleMax{Quantity: 5, From: "the maxReplicaCount of the component's kedaSpec"}},
		`SeldonDeployment/serving/llm["predictor-1/canary"]`:      {4, 1, "g5.xlarge", nil},
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
		if r.Quantity != w.qty || r.Pod == nil || r.Pod.Requested != w.gpus || r.InstanceType != w.typ || !reflect.DeepEqual(r.ScaleMax, w.max) {
			t.Errorf("%s: quantity %d, pod %+v, type %q, scale max %+v; want %+v", r.Address, r.Quantity, r.Pod, r.InstanceType, r.ScaleMax, w)
		}
		if r.Tags["team"] != "ml" {
			t.Errorf("%s: tags %v lack the SeldonDeployment's labels", r.Address, r.Tags)
		}
		if (r.Profile == "llama") != strings.Contains(r.Address, "ranker") {
			t.Errorf("%s: profile %q: the component's own annotations must attach it", r.Address, r.Profile)
		}
	}
	// Components whose containers share names still get addresses of their own.
	twin := build(t, "apiVersion: machinelearning.seldon.io/v1\nkind: SeldonDeployment\nmetadata: {name: x, namespace: s}\nspec:\n  predictors: [{name: p, componentSpecs: [{spec: "+g5Pod+"}, {spec: "+g5Pod+"}]}]\n", Options{})
	if len(twin.Resources) != 2 || twin.Resources[0].Address == twin.Resources[1].Address {
		t.Errorf("twin components: %+v", twin.Resources)
	}
	// Replica counts are checked like any workload's.
	bad := build(t, "apiVersion: machinelearning.seldon.io/v1\nkind: SeldonDeployment\nmetadata: {name: x, namespace: s}\nspec:\n  predictors: [{name: p, replicas: -2, componentSpecs: [{spec: "+g5Pod+"}]}]\n", Options{})
	if len(bad.Errors) != 1 || !strings.Contains(bad.Errors[0].Message, "-2 is not a number of pods") {
		t.Errorf("negative replicas: errors %v", bad.Errors)
	}
	bad = build(t, "apiVersion: machinelearning.seldon.io/v1\nkind: SeldonDeployment\nmetadata: {name: x, namespace: s}\nspec:\n  predictors: [{name: p, componentSpecs: [{hpaSpec: {maxReplicas: -1}, spec: "+g5Pod+"}]}]\n", Options{})
	if len(bad.Errors) != 1 || !strings.Contains(bad.Errors[0].Message, "the maxReplicas of the component's hpaSpec: -1 is not a number of pods") {
		t.Errorf("negative maxReplicas: errors %v", bad.Errors)
	}
}

// Manifests of API versions Kubernetes no longer serves are priced as the kind they stand for,
// with a warning that the cluster refuses them.
func TestRemovedAPIVersions(t *testing.T) {
	for _, tc := range []struct {
		apiVersion, kind, spec string
		want                   int
		release, use           string
	}{
		{"extensions/v1beta1", "Deployment", "{replicas: 3, template: {spec: " + g5Pod + "}}", 3, "1.16", "apps/v1"},
		{"extensions/v1beta1", "ReplicaSet", "{template: {spec: " + g5Pod + "}}", 1, "1.16", "apps/v1"},
		{"extensions/v1beta1", "DaemonSet", "{template: {spec: " + g5Pod + "}}", 1, "1.16", "apps/v1"},
		{"apps/v1beta1", "StatefulSet", "{replicas: 2, template: {spec: " + g5Pod + "}}", 2, "1.16", "apps/v1"},
		{"apps/v1beta2", "Deployment", "{replicas: 2, template: {spec: " + g5Pod + "}}", 2, "1.16", "apps/v1"},
		{"batch/v1beta1", "CronJob", "{schedule: '0 * * * *', jobTemplate: {spec: {template: {spec: " + g5Pod + "}}}}", 1, "1.25", "batch/v1"},
		{"apps/v1", "Deployment", "{replicas: 2, template: {spec: " + g5Pod + "}}", 2, "", ""},
	} {
		src := "apiVersion: " + tc.apiVersion + "\nkind: " + tc.kind + "\nmetadata: {name: x, namespace: ml}\nspec: " + tc.spec + "\n"
		res := build(t, src, Options{})
		r := one(t, res)
		if r.Quantity != tc.want || r.InstanceType != "g5.xlarge" {
			t.Errorf("%s %s: quantity %d type %q, want %d g5.xlarge", tc.apiVersion, tc.kind, r.Quantity, r.InstanceType, tc.want)
		}
		if tc.release == "" {
			if len(res.Warnings) > 0 {
				t.Errorf("%s %s: warnings %v", tc.apiVersion, tc.kind, res.Warnings)
			}
			continue
		}
		want := tc.kind + "/ml/x: Kubernetes stopped serving " + tc.kind + " " + tc.apiVersion + " in " + tc.release + ", so the API server refuses this manifest; use " + tc.use
		if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0].Message, want) || res.Warnings[0].Line != 1 {
			t.Errorf("%s %s: warnings %v, want one at line 1 starting %q", tc.apiVersion, tc.kind, res.Warnings, want)
		}
	}
	// A removed version of a workload without GPUs is none of gpuguard's business.
	res := build(t, "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: web}\nspec: {template: {spec: {containers: [{name: c}]}}}\n", Options{})
	if len(res.Resources) != 0 || len(res.Warnings) != 0 {
		t.Errorf("CPU-only Deployment: resources %v warnings %v", res.Resources, res.Warnings)
	}
}
