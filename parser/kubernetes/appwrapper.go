package kubernetes

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
)

// An AppWrapper (workload.codeflare.dev, the CodeFlare/MLBatch wrapper Kueue admits as one
// workload) holds whole Kubernetes objects in spec.components[].template and creates them when
// admitted. Each component of a kind gpuguard reads (a PyTorchJob, a Job, a RayCluster, ...) is
// read as that kind; one of another kind is read through the pod sets the component declares
// (podSets: replicas pods of the PodTemplateSpec at path). A component that is neither is an
// error at its line: its GPUs cannot be counted.
// https://project-codeflare.github.io/appwrapper/ (API v1beta2)
func init() {
	register("AppWrapper", "workload.codeflare.dev", extractAppWrapper)
}

type appWrapperComponent struct {
	Template yaml.Node `yaml:"template"`
	PodSets  []struct {
		Replicas *int   `yaml:"replicas"`
		Path     string `yaml:"path"`
	} `yaml:"podSets"`
}

func extractAppWrapper(o *object) ([]role, error) {
	var spec struct {
		Components []appWrapperComponent `yaml:"components"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	var out []role
	var errs partsError
	for i := range spec.Components {
		roles, err := appWrapperRoles(o, &spec.Components[i], i)
		var parts partsError
		switch {
		case errors.As(err, &parts): // a wrapped AppWrapper's: its readable parts come with them
			errs = append(errs, parts...)
		case err != nil:
			errs = append(errs, err)
		}
		out = append(out, roles...)
	}
	if len(errs) > 0 {
		return out, errs
	}
	return out, nil
}

func appWrapperRoles(o *object, c *appWrapperComponent, i int) ([]role, error) {
	t := &c.Template
	line := o.lineOf(t)
	inner, err := o.embedded(t, fmt.Sprintf("components[%d].template", i))
	if err != nil {
		return nil, err
	}
	prefix := inner.Kind + "/" + orIndex(inner.Metadata.Name, "component", i)
	var roles []role
	var partial error // the errors of a wrapped object read in part
	if w, ok := workloadOf(inner); ok {
		roles, err = w.extract(inner)
		var parts partsError
		if errors.As(err, &parts) {
			partial = err
		} else if err != nil {
			return nil, err
		}
	} else if len(c.PodSets) > 0 {
		for j, ps := range c.PodSets {
			node, err := nodeAtPath(t, ps.Path)
			if err != nil {
				return nil, lineError{line: line, err: fmt.Errorf("components[%d].podSets[%d]: %w", i, j, err)}
			}
			var tmpl podTemplate
			if err := node.Decode(&tmpl); err != nil {
				return nil, lineError{line: o.lineOf(node), err: fmt.Errorf("components[%d].podSets[%d]: %s: %w", i, j, ps.Path, err)}
			}
			roles = append(roles, role{name: fmt.Sprintf("podSet-%d", j), replicas: intOr(ps.Replicas, 1), template: tmpl,
				note: fmt.Sprintf("pods of %s, as the component's podSets declare", ps.Path)})
		}
	} else {
		return nil, lineError{line: line, err: fmt.Errorf("components[%d].template is a %s (%s), which gpuguard does not read, and the component declares no podSets: its GPUs are not counted", i, inner.Kind, inner.APIVersion)}
	}
	for k := range roles {
		r := &roles[k]
		r.deadline = nil // the AppWrapper may retry what it wraps: one run's deadline does not bound it
		if r.name != "" {
			r.name = prefix + "/" + r.name
		} else {
			r.name = prefix
		}
		// The wrapped object's labels and annotations are its pods' too; the AppWrapper's own
		// win over both when the resource is built.
		r.template.Metadata.Labels = merged(r.template.Metadata.Labels, inner.Metadata.Labels)
		r.template.Metadata.Annotations = merged(r.template.Metadata.Annotations, inner.Metadata.Annotations)
		// An autoscaler names the wrapped object, not the AppWrapper: none is looked up.
		r.scalable = false
		r.named = true
	}
	return roles, partial
}

// merged returns base with over's entries added (over wins), without changing either.
func merged(base, over map[string]string) map[string]string {
	if len(over) == 0 {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, over)
	return out
}

// nodeAtPath follows an AppWrapper pod set's path ("template.spec.template",
// "template.spec.replicatedJobs[0].template.spec.template") from the component's template.
func nodeAtPath(template *yaml.Node, path string) (*yaml.Node, error) {
	rest, ok := strings.CutPrefix(path, "template")
	if !ok {
		return nil, fmt.Errorf("path %q does not start at the component's template", path)
	}
	n := template
	for rest != "" {
		var seg string
		switch {
		case strings.HasPrefix(rest, "."):
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			seg, rest = rest[:end], rest[end:]
			next := yamlpos.Value(n, seg)
			if next == nil {
				return nil, fmt.Errorf("path %q: no field %s in the template", path, seg)
			}
			n = next
		case strings.HasPrefix(rest, "["):
			end := strings.Index(rest, "]")
			if end < 0 {
				return nil, fmt.Errorf("path %q: unclosed [", path)
			}
			sel := rest[:end+1]
			idx, err := strconv.Atoi(rest[1:end])
			rest = rest[end+1:]
			if err != nil || n.Kind != yaml.SequenceNode || idx < 0 || idx >= len(n.Content) {
				return nil, fmt.Errorf("path %q: no element %s in the template", path, sel)
			}
			n = n.Content[idx]
		default:
			return nil, fmt.Errorf("path %q: cannot read %q", path, rest)
		}
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("path %q is not a pod template", path)
	}
	return n, nil
}
