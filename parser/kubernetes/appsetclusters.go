package kubernetes

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// argoCluster is a cluster registered with Argo CD by a Secret among the manifests.
// https://argo-cd.readthedocs.io/en/stable/operator-manual/declarative-setup/#clusters
type argoCluster struct {
	name, server, project string
	labels, annotations   map[string]string
}

// inClusterServer is the address Argo CD gives the cluster it runs in.
const inClusterServer = "https://kubernetes.default.svc"

// argoClusters are the Argo CD cluster Secrets among files (label
// argocd.argoproj.io/secret-type: cluster), one per cluster name (the last), with a warning for
// each that does not say its name and server; noLocal is whether an argocd-cm ConfigMap among
// them turns the in-cluster cluster off (cluster.inClusterEnabled: "false").
func argoClusters(files []*File) (out []argoCluster, noLocal bool, warns []parser.Error) {
	at := map[string]int{}
	for _, f := range files {
		for _, o := range f.objects {
			if o.Kind == "ConfigMap" && o.Metadata.Name == "argocd-cm" {
				if v, _ := refValue(o, "cluster.inClusterEnabled"); v == "false" {
					noLocal = true
				}
			}
			if o.Kind != "Secret" || o.APIVersion != "v1" || o.Metadata.Labels["argocd.argoproj.io/secret-type"] != "cluster" {
				continue
			}
			c := argoCluster{labels: o.Metadata.Labels, annotations: o.Metadata.Annotations}
			var why string
			if c.name, why = refValue(o, "name"); why == "" {
				c.server, why = refValue(o, "server")
			}
			if why != "" {
				warns = append(warns, parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s: an Argo CD cluster Secret whose name or server %s: ApplicationSets' clusters generators leave it out", o.address(), why)})
				continue
			}
			c.project, _ = refValue(o, "project")
			if i, ok := at[c.name]; ok {
				out[i] = c
				continue
			}
			at[c.name] = len(out)
			out = append(out, c)
		}
	}
	return out, noLocal, warns
}

// clusterParams is the clusters generator: a parameter set per cluster Secret its selector
// matches, and the cluster Argo CD runs in (in-cluster) when the selector is empty and no Secret
// registers that one (nor argocd-cm turns it off), as Argo CD's cluster generator does. Clusters registered another way
// (argocd cluster add) are not among the manifests: when only in-cluster is generated, a warning
// says so.
// https://argo-cd.readthedocs.io/en/stable/operator-manual/applicationset/Generators-Cluster/
func (a *appSet) clusterParams(n *yaml.Node, g generator, field string) ([]map[string]any, error) {
	gc := g.Clusters
	sel := gc.Selector
	local := len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 && !a.noLocal
	var out []map[string]any
	for _, c := range a.clusters {
		if c.server == inClusterServer {
			local = false
		}
	}
	if local {
		p := map[string]any{"name": "in-cluster", "nameNormalized": "in-cluster", "server": inClusterServer}
		if err := a.clusterValues(n, gc.Values, p, field); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	for _, c := range a.clusters {
		ok, err := sel.matches(c.labels)
		if err != nil {
			return nil, lineError{line: a.o.lineOf(n), err: fmt.Errorf("%s.clusters.selector: %v", field, err)}
		}
		if !ok {
			continue
		}
		p := map[string]any{"name": c.name, "nameNormalized": sanitizeName(c.name), "server": c.server, "project": c.project}
		if a.spec.GoTemplate {
			meta := map[string]any{}
			if len(c.annotations) > 0 {
				meta["annotations"] = stringMap(c.annotations)
			}
			if len(c.labels) > 0 {
				meta["labels"] = stringMap(c.labels)
			}
			p["metadata"] = meta
		} else {
			for k, v := range c.annotations {
				p["metadata.annotations."+k] = v
			}
			for k, v := range c.labels {
				p["metadata.labels."+k] = v
			}
		}
		if err := a.clusterValues(n, gc.Values, p, field); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	switch {
	case len(out) == 0:
		a.warn(field + ": the clusters generator matches no Argo CD cluster Secret among the manifests: the Applications it generates are not counted")
	case len(a.clusters) == 0:
		a.warn(field + ": no Argo CD cluster Secret is among the manifests: the clusters generator is counted for the cluster Argo CD runs in (in-cluster) alone")
	}
	return out, nil
}

// clusterValues adds a clusters generator's values, each with the cluster's parameters
// substituted, to them (values.<key>, or .values.<key> under goTemplate).
func (a *appSet) clusterValues(n *yaml.Node, values map[string]string, p map[string]any, field string) error {
	nested := map[string]any{}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, err := a.substitute(values[k], p)
		if err != nil {
			return lineError{line: a.o.lineOf(n), err: fmt.Errorf("%s.clusters.values.%s: %v", field, k, err)}
		}
		if a.spec.GoTemplate {
			nested[k] = v
		} else {
			p["values."+k] = v
		}
	}
	if a.spec.GoTemplate && len(values) > 0 {
		p["values"] = nested
	}
	return nil
}

// stringMap is m with values of type any, as templates index parameters.
func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// sanitizeName is Argo CD's nameNormalized: lower case, what a DNS name may not hold replaced by
// '-', at most 253 characters, without leading or trailing '-' and '.'.
func sanitizeName(s string) string {
	s = dnsUnsupported.ReplaceAllString(strings.ToLower(s), "-")
	if len(s) > 253 {
		s = s[:253]
	}
	for len(s) > 0 && (s[0] == '-' || s[0] == '.') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == '-' || s[len(s)-1] == '.') {
		s = s[:len(s)-1]
	}
	return s
}

var dnsUnsupported = regexp.MustCompile(`[^-a-z0-9.]`)

// labelSelector is a Kubernetes label selector (matchLabels and matchExpressions, all of which
// must hold).
// https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#resources-that-support-set-based-requirements
type labelSelector struct {
	MatchLabels      map[string]string `yaml:"matchLabels"`
	MatchExpressions []requirement     `yaml:"matchExpressions"`
}

// matches reports whether labels satisfy the selector; an operator other than In, NotIn, Exists
// and DoesNotExist is an error.
func (s labelSelector) matches(labels map[string]string) (bool, error) {
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false, nil
		}
	}
	for _, r := range s.MatchExpressions {
		v, ok := labels[r.Key]
		switch r.Operator {
		case "In":
			if !ok || !slices.Contains(r.Values, v) {
				return false, nil
			}
		case "NotIn":
			if ok && slices.Contains(r.Values, v) {
				return false, nil
			}
		case "Exists":
			if !ok {
				return false, nil
			}
		case "DoesNotExist":
			if ok {
				return false, nil
			}
		default:
			return false, fmt.Errorf("matchExpressions: operator %q is not In, NotIn, Exists or DoesNotExist", r.Operator)
		}
	}
	return true, nil
}

// applyPatch merges spec.templatePatch, rendered with one parameter set, over a rendered
// Application template as Argo CD does (a strategic merge patch of an Application, whose lists
// have no merge keys: mappings merge, anything else is replaced, null removes the key). The
// patch's values are placed at its own line.
func (a *appSet) applyPatch(app *yaml.Node, patch *yaml.Node, p map[string]any) error {
	line := a.o.lineOf(patch)
	text, err := a.substitute(patch.Value, p)
	if err != nil {
		return lineError{line: line, err: fmt.Errorf("spec.templatePatch: %v", err)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return lineError{line: line, err: fmt.Errorf("spec.templatePatch: the rendered patch is not YAML: %v", err)}
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return lineError{line: line, err: fmt.Errorf("spec.templatePatch: the rendered patch is not a mapping")}
	}
	placeAt(root, patch.Line)
	mergeNode(app, root, true)
	return nil
}

// placeAt places every node of n at line.
func placeAt(n *yaml.Node, line int) {
	n.Line, n.Column = line, 0
	for _, c := range n.Content {
		placeAt(c, line)
	}
}

// mergeNode merges the mapping src over the mapping dst: a key both map to mappings is merged,
// a null in src removes the key (with drop; else it is left as it is), anything else in src
// replaces dst's.
func mergeNode(dst, src *yaml.Node, drop bool) {
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		j := 0
		for ; j+1 < len(dst.Content); j += 2 {
			if dst.Content[j].Value == k.Value {
				break
			}
		}
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			if drop && j+1 < len(dst.Content) {
				dst.Content = slices.Delete(dst.Content, j, j+2)
			}
		case j+1 >= len(dst.Content):
			dst.Content = append(dst.Content, k, v)
		case v.Kind == yaml.MappingNode && dst.Content[j+1].Kind == yaml.MappingNode:
			mergeNode(dst.Content[j+1], v, drop)
		default:
			dst.Content[j+1] = v
		}
	}
}
