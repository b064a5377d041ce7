package managed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// FuzzResources feeds arbitrary manifests through the Crossplane hook: managed resources of any
// shape become Terraform JSON and are evaluated. It must never panic (the evaluator reports a
// panic as an internal error), hang, or return a negative quantity.
func FuzzResources(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kubernetes", "crossplane.yaml")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(manifests))
	f.Add([]byte("apiVersion: ec2.aws.upbound.io/v1beta1\nkind: Instance\nmetadata: {name: \"${x}\"}\nspec:\n  forProvider: {region: [1], instanceType: {a: b}, tags: 3, fooRef: [{name: x}], launchTemplate: [{idRef: {name: x}}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := kubernetes.Build([]*kubernetes.File{kubernetes.Decode("fuzz.yaml", data)}, kubernetes.Options{Managed: Resources})
		for _, r := range res.Resources {
			if r.Quantity < 0 {
				t.Fatalf("negative quantity: %+v", r)
			}
		}
		for _, e := range append(res.Errors, res.Warnings...) {
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("evaluator panicked: %s", e.Message)
			}
		}
	})
}
