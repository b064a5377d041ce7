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

// A directory with no kustomization file builds as the kustomization Flux generates of the
// resources given, with the Kustomization's settings written in. A directory it names builds
// with its own kustomization; one below that holds none is an error there, not another
// generated kustomization. A document with no kind is an error at its line: in one of the
// generated kustomization's own files it is Flux's generator that fails, in a file a
// kustomization lists it is kustomize build; empty documents are not objects to fail on.
func TestBuildGenerated(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"flux/deploy.yaml":            deployment + "---\n# empty\n---\n{}\n---\nnull\n---\nreplicaCount: 2\n",
		"flux/sub/kustomization.yaml": "resources: [job.yaml, ../plain]\n",
		"flux/sub/job.yaml":           "apiVersion: batch/v1\nkind: Job\nmetadata: {name: job}\n---\n- a list\n",
		"flux/plain/deploy.yaml":      deployment,
		"other/kustomization.yaml":    "resources: []\n",
	})
	t.Chdir(root)
	var spec yaml.Node
	if err := yaml.Unmarshal([]byte("namePrefix: lab-\nnamespace: ml\n"), &spec); err != nil {
		t.Fatal(err)
	}
	res := BuildGenerated("flux", []string{"deploy.yaml", "sub"}, confine.NewDirs("."), "clusters/apps.yaml", 7, spec.Content[0])
	var names []string
	for _, o := range res.Objects {
		names = append(names, getPath(o.Node, "kind")+"/"+getPath(o.Node, "metadata.namespace")+"/"+getPath(o.Node, "metadata.name"))
	}
	if want := "Deployment/ml/lab-train Job/ml/lab-job"; strings.Join(names, " ") != want {
		t.Errorf("objects %q, want %q", names, want)
	}
	var errs []string
	for _, e := range res.Errors {
		errs = append(errs, fmt.Sprintf("%s:%d %s", e.File, e.Line, e.Message))
	}
	want := []string{
		"flux/deploy.yaml:27 not a Kubernetes object (no kind): Flux fails to generate the kustomization of the directory that holds it (leave the file out with a .sourceignore)",
		"flux/sub/job.yaml:5 not a Kubernetes object (no kind): kustomize build fails on it",
		"flux/plain:0 no kustomization.yaml in this directory",
	}
	if strings.Join(errs, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors\n got %q\nwant %q", errs, want)
	}

	// A resource that is not there is an error at the Flux Kustomization's line.
	res = BuildGenerated("flux", []string{"gone.yaml"}, confine.NewDirs("."), "clusters/apps.yaml", 7, nil)
	if len(res.Errors) != 1 || res.Errors[0].File != "clusters/apps.yaml" || res.Errors[0].Line != 7 || !strings.Contains(res.Errors[0].Message, `resource "gone.yaml"`) {
		t.Errorf("errors %+v", res.Errors)
	}
	// Wrong settings stop the build, at their line.
	var bad yaml.Node
	_ = yaml.Unmarshal([]byte("replicas:\n- {name: a, count: lots}\n"), &bad)
	res = BuildGenerated("flux", []string{"deploy.yaml"}, confine.NewDirs("."), "clusters/apps.yaml", 7, bad.Content[0])
	if len(res.Errors) != 1 || res.Errors[0].Line != 2 || len(res.Objects) != 0 {
		t.Errorf("errors %+v", res.Errors)
	}
	// A directory with a kustomization of its own is built by it.
	res = BuildGenerated("other", []string{"../flux/deploy.yaml"}, confine.NewDirs("."), "clusters/apps.yaml", 7, nil)
	if len(res.Objects) != 0 || len(res.Errors) != 0 {
		t.Errorf("other: %d objects, errors %+v", len(res.Objects), res.Errors)
	}
}
