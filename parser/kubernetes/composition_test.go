package kubernetes

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// composedBy runs Build with a hook that records the managed resources it is handed.
func composedBy(t testing.TB, src string) ([]ManagedResource, []string) {
	t.Helper()
	var got []ManagedResource
	opts := Options{Managed: func(mrs []ManagedResource) ([]parser.Resource, []parser.Error, []parser.Error) {
		got = append(got, mrs...)
		return nil, nil, nil
	}}
	res := Build([]*File{Decode("m.yaml", []byte(src))}, opts)
	var msgs []string
	for _, e := range append(res.Errors, res.Warnings...) {
		msgs = append(msgs, e.Message)
	}
	return got, msgs
}

const xgpu = `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata: {name: x}
spec:
  group: acme.io
  names: {kind: XPool}
  claimNames: {kind: Pool}
---
`

func compositionYAML(name, labels, resources string) string {
	return `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: ` + name + `, labels: {` + labels + `}}
spec:
  compositeTypeRef: {apiVersion: acme.io/v1, kind: XPool}
  resources:
` + resources + `---
`
}

const nodeGroup = `    - name: ng
      base:
        apiVersion: eks.aws.upbound.io/v1beta1
        kind: NodeGroup
        spec: {forProvider: {region: us-east-1, instanceTypes: [g6.xlarge]}}
      patches:
        - {fromFieldPath: spec.parameters.type, toFieldPath: "spec.forProvider.instanceTypes[0]"}
        - {fromFieldPath: spec.parameters.nodes, toFieldPath: "spec.forProvider.scalingConfig[0].desiredSize",
           transforms: [{type: math, math: {type: Multiply, multiply: 2}}]}
`

// A claim is rendered through the one Composition of its type; the composed resource carries the
// claim's place, its annotations and the patched fields.
func TestCompositionRendersAClaim(t *testing.T) {
	src := xgpu + compositionYAML("c", "", nodeGroup) + `apiVersion: acme.io/v1
kind: Pool
metadata: {name: p, namespace: ml, annotations: {gpuguard.dev/profile: profiles/x.yaml}}
spec: {parameters: {type: p5.48xlarge, nodes: 3}}
`
	mrs, msgs := composedBy(t, src)
	if len(mrs) != 1 || len(msgs) != 0 {
		t.Fatalf("%+v %v", mrs, msgs)
	}
	m := mrs[0]
	var spec map[string]any
	if err := m.Spec.Decode(&spec); err != nil {
		t.Fatal(err)
	}
	fp := spec["forProvider"].(map[string]any)
	want := map[string]any{"region": "us-east-1", "instanceTypes": []any{"p5.48xlarge"}, "scalingConfig": []any{map[string]any{"desiredSize": 6}}}
	if !reflect.DeepEqual(fp, want) || m.Name != "p-ng" || m.Kind != "NodeGroup" || m.Line != 25 ||
		m.Annotations["gpuguard.dev/profile"] != "profiles/x.yaml" || !strings.Contains(m.ComposedBy, "Pool/ml/p through Composition c (resource ng)") {
		t.Fatalf("rendered %+v\nspec %v", m, fp)
	}
}

// Which Composition: the named one, the selector's, the XRD's default, the only one; otherwise a
// warning that names why, and nothing composed.
func TestCompositionChoice(t *testing.T) {
	two := xgpu + compositionYAML("a", "cloud: aws", nodeGroup) + compositionYAML("b", "cloud: gcp", strings.ReplaceAll(nodeGroup, "g6.xlarge", "g5.xlarge"))
	claim := func(spec string) string {
		return "apiVersion: acme.io/v1\nkind: Pool\nmetadata: {name: p}\nspec: {" + spec + "}\n"
	}
	for _, tc := range []struct{ spec, want, warn string }{
		{"compositionRef: {name: b}", "g5.xlarge", ""},
		{"compositionSelector: {matchLabels: {cloud: aws}}", "g6.xlarge", ""},
		{"compositionRef: {name: missing}", "", `its Composition "missing" is not among the files read`},
		{"compositionSelector: {matchLabels: {cloud: azure}}", "", "no Composition among the files read matches its compositionSelector"},
		{"", "", "2 Compositions fit its type and it names none"},
		{"crossplane: {compositionRef: {name: a}}", "g6.xlarge", ""}, // Crossplane v2's place
	} {
		mrs, msgs := composedBy(t, two+claim(tc.spec))
		var got string
		if len(mrs) == 1 {
			var spec struct {
				ForProvider struct {
					InstanceTypes []string `yaml:"instanceTypes"`
				} `yaml:"forProvider"`
			}
			_ = mrs[0].Spec.Decode(&spec)
			got = strings.Join(spec.ForProvider.InstanceTypes, ",")
		}
		if got != tc.want || tc.warn != "" && (len(msgs) != 1 || !strings.Contains(msgs[0], tc.warn)) || tc.warn == "" && len(msgs) != 0 {
			t.Errorf("%q: composed %q, messages %v", tc.spec, got, msgs)
		}
	}
}

// A claim of a type the scan defines, whose Compositions are not in the scan, is a warning.
func TestCompositionMissing(t *testing.T) {
	mrs, msgs := composedBy(t, xgpu+"apiVersion: acme.io/v1\nkind: Pool\nmetadata: {name: p}\nspec: {}\n")
	if len(mrs) != 0 || len(msgs) != 1 || !strings.Contains(msgs[0], "no Composition for its type is among the files read") {
		t.Fatalf("%+v %v", mrs, msgs)
	}
}

// A Composition that composes another composite says that those resources are not counted.
func TestNestedCompositeIsWarned(t *testing.T) {
	nested := `    - name: inner
      base: {apiVersion: acme.io/v1, kind: XPool, spec: {parameters: {type: g6.xlarge}}}
`
	mrs, msgs := composedBy(t, xgpu+compositionYAML("c", "", nodeGroup+nested)+"apiVersion: acme.io/v1\nkind: Pool\nmetadata: {name: p}\nspec: {}\n")
	if len(mrs) != 1 || len(msgs) != 1 || !strings.Contains(msgs[0], "resource inner is itself a composite (XPool)") {
		t.Fatalf("%+v %v", mrs, msgs)
	}
}

func TestFieldPaths(t *testing.T) {
	root := map[string]any{}
	for path, v := range map[string]any{
		"spec.forProvider.scalingConfig[1].desiredSize": 3,
		"metadata.labels[team.acme.io/owner]":           "ml",
		"metadata.annotations['a.b']":                   "x",
	} {
		if err := setPath(root, path, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got, ok := getPath(root, path); !ok || got != v {
			t.Errorf("%s: got %v", path, got)
		}
	}
	sc := root["spec"].(map[string]any)["forProvider"].(map[string]any)["scalingConfig"].([]any)
	if len(sc) != 2 || sc[0] != nil {
		t.Errorf("list grown wrong: %v", sc)
	}
	for _, bad := range []string{"[0].a", "a[", "a[99999]"} {
		if err := setPath(root, bad, 1); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if _, ok := getPath(root, "spec.missing.x"); ok {
		t.Error("a missing path was found")
	}
}

// Transforms, written as Compositions write them.
func TestTransforms(t *testing.T) {
	cases := []struct {
		transform string
		in, want  any
	}{
		{"{type: map, map: {large: p5.48xlarge}}", "large", "p5.48xlarge"},
		{"{type: math, math: {type: ClampMin, clampMin: 2}}", 1, 2},
		{"{type: math, math: {multiply: 3}}", 2, 6},
		{"{type: convert, convert: {toType: int}}", "4", 4},
		{"{type: string, string: {type: Regexp, regexp: {match: '^(\\w+)-', group: 1}}}", "p5-large", "p5"},
		{"{type: string, string: {fmt: 'ml-%s'}}", "a", "ml-a"},
		{"{type: match, match: {patterns: [{type: literal, literal: big, result: 8}], fallbackValue: 1}}", "small", 1},
	}
	for _, tc := range cases {
		var tr cpTransform
		if err := yaml.Unmarshal([]byte(tc.transform), &tr); err != nil {
			t.Fatal(err)
		}
		got, err := transform(tr, tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s(%v) = %v, %v; want %v", tc.transform, tc.in, got, err, tc.want)
		}
	}
	if _, err := transform(cpTransform{Type: "map", Map: map[string]any{}}, "x"); err == nil {
		t.Error("a map without the key did not fail")
	}
}

// FuzzCompositions renders whatever Crossplane objects the input holds: never a panic, and every
// composed resource names its composite.
func FuzzCompositions(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kubernetes", "crossplane-composition.yaml")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(xgpu + compositionYAML("c", "", nodeGroup) + "apiVersion: acme.io/v1\nkind: Pool\nmetadata: {name: p}\nspec: {parameters: {type: [1], nodes: x}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		mrs, _ := composedBy(t, string(data))
		for _, m := range mrs {
			if m.ComposedBy != "" && (m.Spec == nil || m.Line < 1 || m.File != "m.yaml") {
				t.Fatalf("composed resource without its place: %+v", m)
			}
		}
	})
}

// The operators' objects (Crossplane's, Config Connector's, Azure Service Operator's, ACK's) go
// to Options.Managed, with their namespace's annotations; Karpenter's AKS node classes, in an
// azure.com group too, and everything else do not.
func TestOperatorsObjectsGoToManaged(t *testing.T) {
	got, _ := composedBy(t, `apiVersion: v1
kind: Namespace
metadata: {name: ml, annotations: {services.k8s.aws/default-region: us-west-2}}
---
apiVersion: eks.aws.upbound.io/v1beta1
kind: NodeGroup
metadata: {name: a}
---
apiVersion: container.cnrm.cloud.google.com/v1beta1
kind: ContainerNodePool
metadata: {name: b}
---
apiVersion: containerservice.azure.com/v1api20231001
kind: ManagedClustersAgentPool
metadata: {name: c}
---
apiVersion: eks.services.k8s.aws/v1alpha1
kind: Nodegroup
metadata: {name: d, namespace: ml}
---
apiVersion: karpenter.azure.com/v1beta1
kind: AKSNodeClass
metadata: {name: e}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: f}
`)
	var names []string
	for _, mr := range got {
		names = append(names, mr.Name)
	}
	if strings.Join(names, " ") != "a b c d" {
		t.Fatalf("handed to Managed: %q", names)
	}
	if got[3].NamespaceAnnotations["services.k8s.aws/default-region"] != "us-west-2" || got[2].NamespaceAnnotations != nil {
		t.Errorf("namespace annotations: %v, %v", got[3].NamespaceAnnotations, got[2].NamespaceAnnotations)
	}
}
