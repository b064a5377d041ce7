package scan

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
)

// deployment is a Deployment of name with replicas pods of one GPU on instance type typ.
func deployment(name string, replicas int, typ string) string {
	return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s}\nspec:\n  replicas: %d\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: %s}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n", name, replicas, typ)
}

// argoApp is an Argo CD Application of path in this repository, deploying to namespace ns; extra
// is more of its source, indented six spaces.
func argoApp(name, ns, path, extra string) string {
	return fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: %s, namespace: argocd}\nspec:\n  destination: {server: https://kubernetes.default.svc, namespace: %s}\n  source:\n    repoURL: https://github.com/acme/platform\n    path: %s\n%s---\n", name, ns, path, extra)
}

// An Argo CD Application whose source is a kustomization of the repository builds it as Argo
// CD does: its kustomize settings written into the kustomization first (namePrefix replaced,
// replicas set by name, patches added), objects without a namespace in the destination's. One
// whose source is a plain directory reads its manifests (recurse, include, exclude). Each is
// counted per Application, under the Application's root, and the kustomization and the
// directory's manifests (those it excludes too; not those of subdirectories without recurse) are
// not counted again on their own. Jsonnet is a warning; a bad setting an error at its line.
func TestArgoCDApplicationsOfKustomizationsAndDirectories(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		".git/HEAD":                        "ref: refs/heads/main\n",
		"base/kustomization.yaml":          "resources: [llm.yaml]\n",
		"base/llm.yaml":                    strings.Replace(deployment("llm", 1, "g5.xlarge"), "metadata: {name: llm}", "metadata: {name: llm, labels: {team: '${team:=ml}'}}", 1),
		"overlays/prod/kustomization.yaml": "resources: [../../base]\nnamePrefix: prod-\nreplicas: [{name: llm, count: 2}]\n",
		"manifests/train.yaml":             deployment("train", 1, "g6.xlarge"),
		"manifests/sub/extra.yml":          deployment("extra", 2, "g6.xlarge"),
		"manifests/skip.yaml":              deployment("skip", 9, "p4d.24xlarge"),
		"manifests/README.md":              "not a manifest\n",
		"manifests/model.jsonnet":          "{}\n",
		"flat/only.yaml":                   deployment("only", 1, "g6.xlarge"),
		"flat/nested/not-read.yaml":        deployment("nested", 1, "p4d.24xlarge"),
		"argocd/apps.yaml": argoApp("prod-east", "serving", "overlays/prod", "    kustomize:\n      namePrefix: east-\n      replicas: [{name: llm, count: '3'}]\n      patches:\n      - target: {kind: Deployment}\n        patch: |\n          - {op: replace, path: /spec/template/spec/nodeSelector/node.kubernetes.io~1instance-type, value: g5.12xlarge}\n") +
			argoApp("prod-west", "west", "overlays/prod", "") +
			argoApp("batch", "batch", "manifests", "    directory: {recurse: true, exclude: '{skip.yaml,*.md}'}\n") +
			argoApp("flat", "flat", "flat", "") +
			argoApp("elsewhere", "x", "not/here", "") +
			argoApp("bad", "x", "overlays/prod", "    kustomize:\n      replicas: [{name: llm, count: many}]\n"),
	})
	res := Scan([]string{root}, Options{})
	got := resourceLines(res)
	at := func(name string) string {
		return filepath.ToSlash(filepath.Join(root, "argocd/apps.yaml")) + "#argocd/" + name
	}
	want := []string{
		at("prod-east") + " Deployment/serving/east-llm g5.12xlarge 3×1",
		at("prod-west") + " Deployment/west/prod-llm g5.xlarge 2×1",
		at("batch") + " Deployment/batch/train g6.xlarge 1×1",
		at("batch") + " Deployment/batch/extra g6.xlarge 2×1",
		at("flat") + " Deployment/flat/only g6.xlarge 1×1",
		filepath.ToSlash(filepath.Join(root, "flat/nested/not-read.yaml")) + " Deployment/default/nested p4d.24xlarge 1×1",
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resources\n got %q\nwant %q", got, want)
	}
	errs, warns := messageLines(res.Errors), messageLines(res.Warnings)
	if len(errs) != 1 || errs[0] != `apps.yaml:63 spec.source.kustomize.replicas[0]: count "many" is not a number of replicas` {
		t.Errorf("errors %q", errs)
	}
	if len(warns) != 1 || warns[0] != "apps.yaml:26 Application/argocd/batch: Jsonnet in "+shown(filepath.Join(root, "manifests"))+" is not evaluated (model.jsonnet): what it deploys is not counted" {
		t.Errorf("warnings %q", warns)
	}
	for _, r := range res.Resources {
		if r.Address == "Deployment/serving/east-llm" && !strings.Contains(strings.Join(r.Notes, "\n"),
			"deployed by Application argocd/prod-east ("+filepath.ToSlash(filepath.Join(root, "argocd/apps.yaml"))+":1) from the kustomization "+shown(filepath.Join(root, "overlays/prod"))+" with the Application's settings") {
			t.Errorf("notes %q do not say which Application deployed it", r.Notes)
		}
	}
}

// Argo CD's directory include and exclude patterns: * crosses directories, {a,b} is either.
func TestGlobRegexp(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		match         bool
	}{
		{"*.yaml", "a.yaml", true},
		{"*.yaml", "sub/a.yaml", true},
		{"*.yaml", "a.yml", false},
		{"{config.json,env-usw2/*}", "config.json", true},
		{"{config.json,env-usw2/*}", "env-usw2/x.yaml", true},
		{"{config.json,env-usw2/*}", "env-use1/x.yaml", false},
		{"app?.yaml", "app1.yaml", true},
		{"[!a]*.yaml", "a.yaml", false},
		{"[!a]*.yaml", "b.yaml", true},
		{"a.b", "axb", false},
	} {
		if got := globRegexp(c.pattern).MatchString(c.name); got != c.match {
			t.Errorf("%q matches %q: %v, want %v", c.pattern, c.name, got, c.match)
		}
	}
}

// fluxKustomization is a Flux Kustomization of path in the flux-system GitRepository; spec is
// more of its spec, indented two spaces.
func fluxKustomization(name, path, spec string) string {
	return fmt.Sprintf("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: %s, namespace: flux-system}\nspec:\n  path: %s\n  sourceRef: {kind: GitRepository, name: flux-system}\n%s---\n", name, path, spec)
}

// A Flux Kustomization builds its path (a kustomization, or a directory whose manifests, its
// subdirectories' too, Flux makes one of) with its targetNamespace and namePrefix, then
// substitutes its post-build variables (targetNamespace is every object's namespace, as
// Flux sets it) (substitute over substituteFrom; ${name:=default};
// $${name} kept; an object with substitution disabled left alone). Each is counted per
// Kustomization, and the path not again on its own.
func TestFluxKustomizations(t *testing.T) {
	root := t.TempDir()
	llm := strings.Replace(strings.Replace(deployment("llm", 1, "'${gpu_type}'"), "replicas: 1", "replicas: ${replicas:=1}", 1), "metadata: {name: llm}", "metadata: {name: llm, labels: {team: '${team}'}}", 1)
	testutil.WriteFiles(t, root, map[string]string{
		".git/HEAD":                    "ref: refs/heads/main\n",
		"apps/base/kustomization.yaml": "resources: [llm.yaml]\n",
		"apps/base/llm.yaml":           llm,
		"apps/plain/batch.yaml":        deployment("batch", 1, "'${gpu_type:-g6.xlarge}'"),
		"apps/plain/sub/more.yaml":     strings.Replace(deployment("more", 1, "g6.xlarge"), "metadata: {name: more}", "metadata: {name: more, namespace: elsewhere, annotations: {note: '$${kept}'}}", 1),
		"apps/plain/sub/off.yaml":      strings.Replace(deployment("off", 1, "'${gpu_type}'"), "metadata: {name: off}", "metadata: {name: off, annotations: {kustomize.toolkit.fluxcd.io/substitute: disabled}}", 1),
		"clusters/prod/apps.yaml": fluxKustomization("llm-prod", "./apps/base", "  targetNamespace: serving\n  namePrefix: prod-\n  postBuild:\n    substitute: {replicas: '3', team: ml}\n    substituteFrom: [{kind: ConfigMap, name: cluster-vars}, {kind: Secret, name: absent}, {kind: Secret, name: gone, optional: true}]\n") +
			fluxKustomization("llm-lab", "./apps/base", "  targetNamespace: lab\n  postBuild: {substitute: {gpu_type: g6.xlarge}}\n") +
			fluxKustomization("batch", "./apps/plain", "  targetNamespace: batch\n  postBuild: {substitute: {}}\n") +
			"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: oci, namespace: flux-system}\nspec: {path: ./apps/base, sourceRef: {kind: OCIRepository, name: x}}\n---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-vars, namespace: flux-system}\ndata: {gpu_type: g5.12xlarge, replicas: '9'}\n",
	})
	res := Scan([]string{root}, Options{})
	got := resourceLines(res)
	at := func(name string) string {
		return filepath.ToSlash(filepath.Join(root, "clusters/prod/apps.yaml")) + "#flux-system/" + name
	}
	want := []string{
		at("llm-prod") + " Deployment/serving/prod-llm g5.12xlarge 3×1",
		at("llm-lab") + " Deployment/lab/llm g6.xlarge 1×1",
		at("batch") + " Deployment/batch/batch g6.xlarge 1×1",
		at("batch") + " Deployment/batch/more g6.xlarge 1×1",
		at("batch") + " Deployment/batch/off ${gpu_type} 1×1",
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resources\n got %q\nwant %q", got, want)
	}
	warns := messageLines(res.Warnings)
	sort.Strings(warns)
	wantWarns := []string{
		"apps.yaml:1 Kustomization/flux-system/llm-prod: spec.postBuild.substituteFrom Secret absent is not among the manifests: its variables are not substituted",
		"apps.yaml:13 Kustomization/flux-system/llm-lab: post-build variables team are not set and have no default: Flux substitutes empty text",
	}
	if strings.Join(warns, "\n") != strings.Join(wantWarns, "\n") || len(res.Errors) != 0 {
		t.Errorf("warnings\n got %q\nwant %q\nerrors %v", warns, wantWarns, res.Errors)
	}
}

// A Flux Kustomization of a directory with no kustomization file builds the kustomization Flux
// generates: the directory's .yaml and .yml files and its subdirectories' (not .json), a
// subdirectory with a kustomization built as one (its patches applied, what it does not list
// left out), the Kustomization's patches over all of it. What the GitRepository leaves out is
// not read: Flux's default patterns, or its spec.ignore in their place, and .sourceignore files.
// A YAML file that is not a Kubernetes object is an error at its line, as it fails Flux's build;
// the directory's other manifests are still counted.
// A Kustomization without spec.postBuild deploys its variables as written (a warning), with no
// defaults put in.
func TestFluxGeneratedKustomization(t *testing.T) {
	root := t.TempDir()
	train := deployment("train", 1, "p5.48xlarge")
	testutil.WriteFiles(t, root, map[string]string{
		".git/HEAD":                           "ref: refs/heads/main\n",
		"deploy/serve.yaml":                   deployment("serve", 2, "g5.xlarge"),
		"deploy/serve.json":                   strings.Replace(deployment("json", 1, "p5.48xlarge"), "name: json", `name: json, note: "JSON is YAML, but Flux reads .yaml and .yml only"`, 1),
		"deploy/cloudbuild.yaml":              "steps:\n- name: gcr.io/cloud-builders/docker\n",
		"deploy/.sourceignore":                "# tools are not manifests\ntools/\n",
		"deploy/tools/lint.yaml":              "rules: {}\n",
		"deploy/train/kustomization.yaml":     "resources: [train.yaml]\nreplicas: [{name: train, count: 4}]\n",
		"deploy/train/train.yaml":             train,
		"deploy/train/unlisted.yaml":          deployment("unlisted", 1, "p5.48xlarge"),
		"deploy/jobs/nightly/batch.yml":       deployment("batch", 1, "g6.xlarge"),
		"deploy/jobs/nightly/schedule.yaml":   "cron: '0 2 * * *'\n",
		".sourceignore":                       "**/schedule.yaml\n",
		"broken/values.yaml":                  "# chart values\nreplicaCount: 2\n",
		"broken/web.yaml":                     deployment("web", 1, "g6.xlarge"),
		"custom/cloudbuild.yaml":              "steps: []\n",
		"custom/skip.yaml":                    deployment("skip", 1, "g6.xlarge"),
		"custom/keep.yaml":                    strings.Replace(deployment("keep", 1, "g6.xlarge"), "metadata: {name: keep}", "metadata: {name: keep, labels: {team: '${team:=ml}', tier: '$${kept}'}}", 1),
		"clusters/prod/flux-system/sync.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: custom, namespace: flux-system}\nspec:\n  url: https://github.com/acme/platform\n  ignore: |\n    /custom/skip.yaml\n---\n",
		"clusters/prod/apps.yaml": fluxKustomization("deploy", "./deploy", "  targetNamespace: ml\n  patches:\n  - target: {kind: Deployment, name: serve}\n    patch: |\n      - {op: replace, path: /spec/template/spec/nodeSelector/node.kubernetes.io~1instance-type, value: g6e.xlarge}\n") +
			fluxKustomization("broken", "./broken", "") +
			strings.Replace(fluxKustomization("custom", "./custom", ""), "name: flux-system}", "name: custom}", 1),
	})
	res := Scan([]string{root}, Options{})
	at := func(name string) string {
		return filepath.ToSlash(filepath.Join(root, "clusters/prod/apps.yaml")) + "#flux-system/" + name
	}
	want := []string{
		at("deploy") + " Deployment/ml/serve g6e.xlarge 2×1",
		at("deploy") + " Deployment/ml/train p5.48xlarge 4×1",
		at("deploy") + " Deployment/ml/batch g6.xlarge 1×1",
		at("broken") + " Deployment/default/web g6.xlarge 1×1",
		at("custom") + " Deployment/default/keep g6.xlarge 1×1",
	}
	sort.Strings(want)
	if got := resourceLines(res); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resources\n got %q\nwant %q", got, want)
	}
	errs := messageLines(res.Errors)
	sort.Strings(errs)
	const notObject = " not a Kubernetes object (no kind): Flux fails to generate the kustomization of the directory that holds it (leave the file out with a .sourceignore)"
	wantErrs := []string{"cloudbuild.yaml:1" + notObject, "values.yaml:2" + notObject}
	if strings.Join(errs, "\n") != strings.Join(wantErrs, "\n") {
		t.Errorf("errors\n got %q\nwant %q", errs, wantErrs)
	}
	for _, e := range res.Errors {
		if filepath.Base(e.File) == "cloudbuild.yaml" && !strings.Contains(filepath.ToSlash(e.File), "/custom/") {
			t.Errorf("Flux's default patterns leave deploy/cloudbuild.yaml out: %v", e)
		}
	}
	// custom has no spec.postBuild: Flux leaves ${team:=ml} as written.
	wantWarns := []string{"apps.yaml:20 Kustomization/flux-system/custom: what it deploys uses post-build variables team, but it has no spec.postBuild: Flux substitutes only with one, and applies them as written"}
	if warns := messageLines(res.Warnings); strings.Join(warns, "\n") != strings.Join(wantWarns, "\n") {
		t.Errorf("warnings\n got %q\nwant %q", warns, wantWarns)
	}
}
