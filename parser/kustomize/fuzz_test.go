package kustomize

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/testutil"
)

// FuzzBuild feeds arbitrary kustomization and patch files to Build, next to a base with a GPU
// deployment. It must never panic or hang, and never read outside the directory it is given.
func FuzzBuild(f *testing.F) {
	fixture := filepath.Join("..", "..", "testdata", "kubernetes", "kustomize")
	for _, p := range []string{"overlays/prod/kustomization.yaml", "overlays/staging/kustomization.yaml", "components/spot/kustomization.yaml"} {
		if b, err := os.ReadFile(filepath.Join(fixture, p)); err == nil {
			f.Add(b, []byte{})
		}
	}
	patch, _ := os.ReadFile(filepath.Join(fixture, "overlays/prod/h100.yaml"))
	f.Add([]byte("resources: [base]\npatches: [{path: patch.yaml}]\nreplicas: [{name: train, count: 3}]\nnamePrefix: x-\n"), patch)
	f.Add([]byte("resources: [base]\npatches:\n  - path: patch.yaml\n    target: {kind: \".*\", name: \"(\"}\n"), []byte("- {op: move, from: /spec, path: /spec/x}\n- {op: add, path: /metadata/labels/a~1b, value: 1}\n"))
	f.Add([]byte("resources: [base]\npatchesStrategicMerge: [patch.yaml]\n"), []byte("kind: Deployment\nmetadata: {name: train}\nspec:\n  $patch: replace\n  template:\n    spec:\n      containers: [{name: trainer, $patch: delete}]\n"))
	// Replacements, the patch file as a replacements file: field paths the fuzzer can mangle.
	f.Add([]byte("resources: [base]\nreplacements:\n  - source: {kind: Deployment, name: train, fieldPath: spec.template.spec.containers.[name=trainer].image, options: {delimiter: \":\", index: 1}}\n    targets:\n      - select: {kind: Deployment}\n        fieldPaths: [\"spec.template.spec.nodeSelector.[a.b/c]\", spec.template.spec.containers.*.image, spec.template.spec.tolerations.0.key]\n        options: {create: true, delimiter: \"-\", index: 5}\n  - path: patch.yaml\n"),
		[]byte("- source: {kind: Deployment}\n  targets: [{select: {kind: Deployment}, reject: [{name: x}], fieldPaths: [\"metadata.[name\"]}]\n"))
	// Generators: a file outside the directories, an env file, a merge without a base.
	f.Add([]byte("resources: [base]\nnamePrefix: p-\nconfigMapGenerator:\n- {name: v, files: [values.yaml=patch.yaml, ../../etc/passwd]}\n- {name: e, envs: [patch.yaml], literals: [a=b, '=']}\nsecretGenerator:\n- {name: v, behavior: merge, literals: [x=y]}\n- {behavior: replace}\n"),
		[]byte("A=1\n# c\n=\nB\n"))
	f.Fuzz(func(t *testing.T, kustomization, patch []byte) {
		root := t.TempDir()
		testutil.WriteFiles(t, root, map[string]string{
			"kustomization.yaml":      string(kustomization),
			"patch.yaml":              string(patch),
			"base/kustomization.yaml": "resources: [deploy.yaml]\n",
			"base/deploy.yaml":        deployment,
		})
		res := Build(root, confine.NewDirs(root))
		for _, f := range res.Files {
			if rel, err := filepath.Rel(root, f); err != nil || filepath.IsAbs(rel) || len(rel) > 1 && rel[:2] == ".." {
				t.Fatalf("read %s outside %s", f, root)
			}
		}
		// The patch file as a manifest of a directory Flux generates a kustomization of.
		BuildGenerated(root, []string{"patch.yaml", "base"}, confine.NewDirs(root), "ks.yaml", 1, nil)
	})
}

// FuzzPostRender feeds arbitrary rendered manifests and Flux kustomize post renderers to
// DecodeObjects and PostRender. They must never panic or hang.
func FuzzPostRender(f *testing.F) {
	f.Add([]byte(deployment), []byte("patches:\n- target: {kind: Deployment}\n  patch: |\n    - {op: replace, path: /spec/replicas, value: 3}\n- patch: |\n    kind: Deployment\n    metadata: {name: train}\n    spec: {template: {spec: {containers: [{name: trainer, $patch: delete}]}}}\npatchesStrategicMerge:\n- {kind: Deployment, metadata: {name: train}, spec: {replicas: null}}\npatchesJson6902:\n- {target: {name: '.*'}, patch: [{op: move, from: /spec, path: /spec/x}]}\n"))
	f.Add([]byte("a: &a [*a]\n---\nkind: X\n"), []byte("patches: [{patch: '[', target: {kind: '('}}]\n"))
	f.Fuzz(func(t *testing.T, rendered, spec []byte) {
		objs, _ := DecodeObjects("t.yaml", rendered)
		var n yaml.Node
		if yaml.Unmarshal(spec, &n) != nil || len(n.Content) == 0 {
			return
		}
		PostRender("r.yaml", n.Content[0], objs)
	})
}

// FuzzBuildEdited feeds arbitrary Argo CD kustomize settings to BuildEdited over a base with a
// GPU deployment, and as a Flux Kustomization's to BuildGenerated. It must never panic or hang,
// and never read outside the directory.
func FuzzBuildEdited(f *testing.F) {
	f.Add([]byte("namePrefix: a-\nnamespace: n\ncommonLabels: {a: b}\nreplicas: [{name: train, count: '3'}, {name: x, count: -1}]\ncomponents: [../../etc]\npatches:\n- {path: ../../../etc/passwd}\n- target: {kind: Deployment}\n  patch: '[{op: remove, path: /spec}]'\n- patch: {a: b}\n"))
	f.Fuzz(func(t *testing.T, spec []byte) {
		root := t.TempDir()
		testutil.WriteFiles(t, root, map[string]string{
			"app/kustomization.yaml": "resources: [deploy.yaml]\n",
			"app/deploy.yaml":        deployment,
		})
		var n yaml.Node
		if yaml.Unmarshal(spec, &n) != nil || len(n.Content) == 0 {
			return
		}
		res := BuildEdited(filepath.Join(root, "app"), confine.NewDirs(filepath.Join(root, "app")), "app.yaml", n.Content[0])
		gen := BuildGenerated(root, []string{"app", "app/deploy.yaml"}, confine.NewDirs(filepath.Join(root, "app")), "ks.yaml", 1, n.Content[0])
		for _, f := range append(res.Files, gen.Files...) {
			if rel, err := filepath.Rel(filepath.Join(root, "app"), f); err != nil || len(rel) > 1 && rel[:2] == ".." {
				t.Fatalf("read %s outside %s", f, root)
			}
		}
	})
}
