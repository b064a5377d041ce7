package kustomize

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Flux's post-build substitution: a set variable is its value; :- and := defaults stand for an
// unset or empty one, - and = for an unset one only; $${...} is kept less a '$'; an unset
// variable without a default is empty and reported; an unquoted text reads again as what it now
// is; an object with substitution disabled is left alone.
func TestSubstitute(t *testing.T) {
	objs, err := DecodeObjects("x.yaml", []byte(`kind: Deployment
metadata: {name: '${app}-${missing}', labels: {'${key}': v}}
spec:
  replicas: ${replicas}
  a: '${empty:-d1} ${empty-d2} ${unset:=d3} ${unset=d4} $${kept} ${app:-x}'
  b: "${replicas}"
---
kind: Deployment
metadata: {name: '${app}', annotations: {kustomize.toolkit.fluxcd.io/substitute: disabled}}
`))
	if err != nil {
		t.Fatal(err)
	}
	missing := Substitute(objs, map[string]string{"app": "llm", "replicas": "3", "empty": "", "key": "team"})
	var got []string
	for _, o := range objs {
		b, _ := yaml.Marshal(o.Node)
		got = append(got, string(b))
	}
	want := `kind: Deployment
metadata: {name: 'llm-', labels: {'team': v}}
spec:
    replicas: 3
    a: 'd1  d3 d4 ${kept} llm'
    b: "3"
---
kind: Deployment
metadata: {name: '${app}', annotations: {kustomize.toolkit.fluxcd.io/substitute: disabled}}
`
	if strings.Join(got, "---\n") != want {
		t.Errorf("substituted\n%s\nwant\n%s", strings.Join(got, "---\n"), want)
	}
	if strings.Join(missing, ",") != "missing" {
		t.Errorf("undefined %q", missing)
	}
	var replicas struct {
		Spec struct {
			Replicas int `yaml:"replicas"`
		} `yaml:"spec"`
	}
	if err := objs[0].Node.Decode(&replicas); err != nil || replicas.Spec.Replicas != 3 {
		t.Errorf("replicas read as %d: %v", replicas.Spec.Replicas, err)
	}
}
