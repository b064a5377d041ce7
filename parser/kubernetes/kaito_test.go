package kubernetes

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// KAITO objects are priced as the GPU nodes KAITO provisions: a Workspace's count of its
// instance type (v1beta1's default type when it names none; none assumed for v1alpha1), an
// InferenceSet's replicas, a RAGEngine's compute; CPU nodes and a RAGEngine without compute are
// not GPU resources. The cluster's region is unknown to the manifest.
func TestKaitoNodes(t *testing.T) {
	src := `apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata: {name: phi, namespace: llm, labels: {team: a}}
resource:
  count: 3
inference: {preset: {name: phi-4}}
---
apiVersion: kaito.sh/v1alpha1
kind: Workspace
metadata: {name: old, namespace: llm}
resource: {labelSelector: {matchLabels: {apps: old}}}
inference: {preset: {name: falcon-7b}}
---
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata: {name: tune, namespace: llm}
resource: {instanceType: g5.12xlarge}
tuning: {method: lora}
---
apiVersion: kaito.sh/v1alpha1
kind: InferenceSet
metadata: {name: set, namespace: llm}
spec:
  replicas: 4
  template: {resource: {instanceType: Standard_NV36ads_A10_v5}}
---
apiVersion: kaito.sh/v1alpha1
kind: RAGEngine
metadata: {name: cpu-rag, namespace: llm}
spec:
  compute: {instanceType: Standard_D8s_v5}
---
apiVersion: kaito.sh/v1alpha1
kind: RAGEngine
metadata: {name: remote-rag, namespace: llm}
spec:
  embedding: {remote: {url: https://example.com}}
`
	res := build(t, src, Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	type want struct {
		typ, provider string
		qty           int
		batch         bool
		unresolved    string
	}
	wants := map[string]want{
		"Workspace/llm/phi":    {"Standard_NC24ads_A100_v4", parser.Azure, 3, false, ""},
		"Workspace/llm/old":    {"", parser.Unknown, 1, false, "resource.instanceType"},
		"Workspace/llm/tune":   {"g5.12xlarge", parser.AWS, 1, true, ""},
		"InferenceSet/llm/set": {"Standard_NV36ads_A10_v5", parser.Azure, 4, false, ""},
	}
	if len(res.Resources) != len(wants) {
		t.Fatalf("%d resources, want %d: %+v", len(res.Resources), len(wants), res.Resources)
	}
	for _, r := range res.Resources {
		w, ok := wants[r.Address]
		if !ok {
			t.Errorf("unexpected %s", r.Address)
			continue
		}
		if r.InstanceType != w.typ || r.Provider != w.provider || r.Quantity != w.qty || r.RunsToCompletion != w.batch || r.Pod != nil {
			t.Errorf("%s: %s (%s) ×%d batch %v pod %+v; want %s (%s) ×%d batch %v, whole nodes", r.Address, r.InstanceType, r.Provider, r.Quantity, r.RunsToCompletion, r.Pod, w.typ, w.provider, w.qty, w.batch)
		}
		if got := ""; len(r.Unresolved) > 0 {
			got = r.Unresolved[0].Attribute
			if got != w.unresolved {
				t.Errorf("%s: unresolved %+v, want %q", r.Address, r.Unresolved, w.unresolved)
			}
		} else if w.unresolved != "" {
			t.Errorf("%s: nothing unresolved, want %q", r.Address, w.unresolved)
		}
		if r.Region != "" || !strings.Contains(r.RegionUnknown, "KAITO adds the nodes to the cluster it runs in") {
			t.Errorf("%s: region %q (%q), want unknown with KAITO's reason", r.Address, r.Region, r.RegionUnknown)
		}
	}
}

// A malformed resource block or count is an error at its line; the documents after it are read.
func TestKaitoBadInput(t *testing.T) {
	src := `apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata: {name: a, namespace: llm}
resource: "one big GPU"
---
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata: {name: b, namespace: llm}
resource: {instanceType: g5.xlarge, count: -1}
---
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata: {name: c, namespace: llm}
resource: {instanceType: g5.xlarge, count: 2}
`
	res := build(t, src, Options{})
	if len(res.Errors) != 2 || res.Errors[0].Line != 4 || !strings.Contains(res.Errors[0].Message, "Workspace/llm/a: resource:") ||
		!strings.Contains(res.Errors[1].Message, "Workspace/llm/b: resource.count -1 is not a number of nodes") {
		t.Errorf("errors %+v", res.Errors)
	}
	if len(res.Resources) != 1 || res.Resources[0].Address != "Workspace/llm/c" || res.Resources[0].Quantity != 2 {
		t.Errorf("resources %+v, want Workspace/llm/c ×2", res.Resources)
	}
}
