package kustomize

import (
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
)

// variable is a Flux post-build variable reference: ${name}, ${name:=default} (also :-, = and
// -), or $${...}, which stays as written less one '$'.
var variable = regexp.MustCompile(`\$\$\{[^}]*\}|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])([^}]*))?\}`)

// References are the Flux post-build variables the objects use (not $${...}), sorted; objects
// annotated kustomize.toolkit.fluxcd.io/substitute: disabled are not read.
func References(objs []Object) []string {
	seen := map[string]bool{}
	var out []string
	eachText(objs, func(n *yaml.Node) {
		for _, m := range variable.FindAllStringSubmatch(n.Value, -1) {
			if m[1] != "" && !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
	})
	slices.Sort(out)
	return out
}

// eachText calls fn on every text of the objects (keys too) that holds "${", but in objects
// annotated kustomize.toolkit.fluxcd.io/substitute: disabled.
func eachText(objs []Object, fn func(*yaml.Node)) {
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 64 {
			return
		}
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${") {
			fn(n)
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	for _, o := range objs {
		meta := yamlpos.Value(o.Node, "metadata")
		if scalar(yamlpos.Value(yamlpos.Value(meta, "annotations"), "kustomize.toolkit.fluxcd.io/substitute")) == "disabled" {
			continue
		}
		walk(o.Node, 0)
	}
}

// Substitute replaces a Flux Kustomization's post-build variables in every text of the objects
// (keys too), as kustomize-controller does after the build: a variable that is set is its value;
// one that is not takes its default, else the empty text (an unquoted text becomes the number or
// boolean it then reads as). With ':' the default also stands for a variable set empty. An
// object annotated kustomize.toolkit.fluxcd.io/substitute: disabled is left alone. It returns
// the variables used with no value and no default, sorted.
// https://fluxcd.io/flux/components/kustomize/kustomizations/#post-build-variable-substitution
func Substitute(objs []Object, vars map[string]string) (undefined []string) {
	missing := map[string]bool{}
	replace := func(s string) string {
		return variable.ReplaceAllStringFunc(s, func(ref string) string {
			if strings.HasPrefix(ref, "$$") {
				return ref[1:]
			}
			m := variable.FindStringSubmatch(ref)
			v, set := vars[m[1]]
			switch {
			case m[2] == "" && !set:
				missing[m[1]] = true
			case m[2] != "" && (!set || strings.HasPrefix(m[2], ":") && v == ""):
				v = m[3]
			}
			return v
		})
	}
	eachText(objs, func(n *yaml.Node) {
		n.Value = replace(n.Value)
		if n.Style == 0 {
			n.Tag = "" // read again: "${replicas}" may now be 3
		}
	})
	for name := range missing {
		undefined = append(undefined, name)
	}
	slices.Sort(undefined)
	return undefined
}
