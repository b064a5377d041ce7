package kubernetes

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
)

// fluxVariable is a text that is one Flux post-build variable with a default, and nothing else:
// ${name:=default}, ${name:-default}, ${name=default} or ${name-default}.
// https://fluxcd.io/flux/components/kustomize/kustomizations/#post-build-variable-substitution
var fluxVariable = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*):?[-=]([^}]*)\}$`)

// shellFields hold text a container's shell expands (${VAR:-default} is shell syntax too): no
// Flux default is read there, and none is reported.
var shellFields = map[string]bool{"command": true, "args": true, "env": true, "script": true, "source": true}

// fluxDefaults replaces each text of the object n (but shellFields) that is exactly a Flux post-build variable
// with a default by that default, as Flux does when the Kustomization that deploys the manifest
// does not set the variable (an unquoted one is read again: replicas: ${replicas:=2} is 2), and
// returns "name=default" for each, in the order met. It is for manifests read without that
// Kustomization, which would otherwise not read as objects at all; where a Kustomization
// deploys them its own variables were substituted first. An object annotated
// kustomize.toolkit.fluxcd.io/substitute: disabled is left alone, as Flux leaves it, and so are
// Cluster API objects (clusterctl's variables have the same syntax: clusterapi.go reads them).
func fluxDefaults(n *yaml.Node) []string {
	if api := yamlpos.Value(n, "apiVersion"); api != nil && strings.HasSuffix(group(api.Value), "cluster.x-k8s.io") {
		return nil // a Cluster API template's variables are clusterctl's, read where they are used
	}
	meta := yamlpos.Value(n, "metadata")
	if a := yamlpos.Value(yamlpos.Value(meta, "annotations"), "kustomize.toolkit.fluxcd.io/substitute"); a != nil && a.Value == "disabled" {
		return nil
	}
	var used []string
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if depth > 64 {
			return
		}
		if n.Kind == yaml.ScalarNode && strings.HasPrefix(n.Value, "${") {
			if m := fluxVariable.FindStringSubmatch(n.Value); m != nil {
				used = append(used, m[1]+"="+m[2])
				n.Value = m[2]
				if n.Style == 0 {
					n.Tag = ""
				}
			}
		}
		for i, c := range n.Content {
			if n.Kind == yaml.MappingNode && i%2 == 1 && shellFields[n.Content[i-1].Value] {
				continue
			}
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return used
}

// fluxHint says what a text that did not read as a number is, when it is a Flux post-build
// variable with no default, or in an object Flux does not substitute in ("" otherwise): yaml.v3 quotes the start of the text in its message.
func fluxHint(msg string) string {
	if !strings.Contains(msg, "`${") {
		return ""
	}
	return " (a Flux post-build variable: the Flux Kustomization that deploys this file substitutes it when it has spec.postBuild; check the repository's root with it)"
}
