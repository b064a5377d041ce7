package kubernetes

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// ManagedResource is a Kubernetes object that declares cloud infrastructure rather than pods: a
// Crossplane managed resource (eks.aws.upbound.io NodeGroup, container.gcp.upbound.io NodePool,
// ...) or a Config Connector resource (container.cnrm.cloud.google.com ContainerNodePool, ...). This package does not price clouds' resources itself; Options.Managed, when set, turns
// them into resources (package managed does, through the Terraform resources they are
// generated from).
type ManagedResource struct {
	APIVersion  string
	Kind        string
	Name        string
	Namespace   string // "" for a cluster-scoped resource
	Labels      map[string]string
	Annotations map[string]string
	Spec        *yaml.Node
	File        string
	Line        int
	Root        string // the kustomization, chart or file that deploys it
	// Offset is added to the lines of Spec's nodes to make them lines of File.
	Offset int
	// ComposedBy names the composite and Composition a resource was rendered from; empty for a
	// managed resource written out.
	ComposedBy string
}

// isManaged reports whether an object belongs to a provider of managed resources gpuguard can
// hand to Options.Managed: Crossplane's official providers (*.upbound.io, their namespaced
// *.m.upbound.io groups included) and Google's Config Connector (*.cnrm.cloud.google.com).
func isManaged(o *object) bool {
	g := group(o.APIVersion)
	return strings.HasSuffix(g, ".upbound.io") || strings.HasSuffix(g, ".cnrm.cloud.google.com")
}

func (o *object) managed() ManagedResource {
	return ManagedResource{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Metadata.Name, Namespace: o.Metadata.Namespace,
		Labels: o.Metadata.Labels, Annotations: o.Metadata.Annotations, Spec: &o.Spec, File: o.file, Line: o.line, Root: o.rootName(), Offset: o.offset}
}

// buildManaged hands the managed resources among objs to the hook, all at once: they refer to
// each other (a node pool to its cluster).
func buildManaged(objs []*object, composed []ManagedResource, opts Options, res *parser.Result) {
	if opts.Managed == nil {
		return
	}
	mrs := composed
	for _, o := range objs {
		if isManaged(o) {
			mrs = append(mrs, o.managed())
		}
	}
	if len(mrs) == 0 {
		return
	}
	rs, errs, warns := opts.Managed(mrs)
	res.Resources = append(res.Resources, rs...)
	res.Errors = append(res.Errors, errs...)
	res.Warnings = append(res.Warnings, warns...)
}
