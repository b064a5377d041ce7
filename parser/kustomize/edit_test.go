package kustomize

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/testutil"
)

// An Argo CD Application's kustomize settings are written into the kustomization it builds, as
// `kustomize edit` writes them: namePrefix, nameSuffix and namespace replace the
// kustomization's, labels override, replicas are set by name (added when new), components and
// patches are added. Messages about the Application's patches are at its lines; the base's
// kustomization is not edited.
func TestBuildEdited(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"base/deploy.yaml":         deployment,
		"base/kustomization.yaml":  "resources: [deploy.yaml]\nnamePrefix: base-\n",
		"app/kustomization.yaml":   "resources: [../base]\nnamespace: ml\nnamePrefix: prod-\ncommonLabels: {team: ml, tier: gold}\nreplicas: [{name: base-train, count: 4}]\n",
		"app/patch.yaml":           "kind: Deployment\nmetadata: {name: base-train}\nspec: {template: {spec: {nodeSelector: {node.kubernetes.io/instance-type: g6e.xlarge}}}}\n",
		"comp/kustomization.yaml":  "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations: {from: component}\n",
		"other/kustomization.yaml": "resources: []\n",
	})
	t.Chdir(root)
	var spec yaml.Node
	if err := yaml.Unmarshal([]byte(`namePrefix: east-
nameSuffix: -v2
namespace: serving
commonLabels: {tier: silver}
replicas: [{name: base-train, count: '6'}, {name: missing, count: 1}]
components: [../comp]
patches:
- path: patch.yaml
- target: {kind: StatefulSet}
  patch: |
    spec: {replicas: 9}
`), &spec); err != nil {
		t.Fatal(err)
	}
	res := BuildEdited("app", confine.NewDirs("."), "argocd/app.yaml", spec.Content[0])
	d := only(t, res)
	for path, want := range map[string]string{
		"metadata.name":             "east-base-train-v2",
		"metadata.namespace":        "serving",
		"metadata.labels.team":      "ml",
		"metadata.labels.tier":      "silver",
		"spec.replicas":             "6",
		"metadata.annotations.from": "component",
		"spec.template.spec.nodeSelector.node.kubernetes.io/instance-type": "g6e.xlarge",
	} {
		if got := getPath(d, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	var warns []string
	for _, w := range res.Warnings {
		warns = append(warns, fmt.Sprintf("%s:%d %s", w.File, w.Line, w.Message))
	}
	want := []string{
		"argocd/app.yaml:10 this patch matches no object among the kustomization's resources and is not applied",
		`app/kustomization.yaml:0 replicas: no Deployment, StatefulSet or ReplicaSet named "missing" among the resources`,
	}
	if strings.Join(warns, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n got %q\nwant %q", warns, want)
	}

	// A count that is not a number stops the build, at its line.
	var bad yaml.Node
	_ = yaml.Unmarshal([]byte("replicas:\n- {name: a, count: lots}\n"), &bad)
	res = BuildEdited("other", confine.NewDirs("."), "argocd/app.yaml", bad.Content[0])
	if len(res.Errors) != 1 || res.Errors[0].Line != 2 || res.Errors[0].File != "argocd/app.yaml" || len(res.Objects) != 0 {
		t.Errorf("errors %+v", res.Errors)
	}
}
