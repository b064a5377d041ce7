package kubernetes

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// ManagedResource is a Kubernetes object that declares cloud infrastructure rather than pods: a
// Crossplane managed resource (eks.aws.upbound.io NodeGroup, container.gcp.upbound.io NodePool,
// ...), a Config Connector resource (container.cnrm.cloud.google.com ContainerNodePool, ...), an
// Azure Service Operator resource (containerservice.azure.com ManagedClustersAgentPool, ...) or
// an AWS Controllers for Kubernetes one (eks.services.k8s.aws Nodegroup). This package does not
// price clouds' resources itself; Options.Managed, when set, turns them into resources (package
// managed does, through the Terraform resources they correspond to).
type ManagedResource struct {
	APIVersion  string
	Kind        string
	Name        string
	Namespace   string // "" for a cluster-scoped resource
	Labels      map[string]string
	Annotations map[string]string
	// NamespaceAnnotations are those of its Namespace, when the manifests declare it (ACK reads
	// a default region there).
	NamespaceAnnotations map[string]string
	Spec                 *yaml.Node
	File                 string
	Line                 int
	Root                 string // the kustomization, chart or file that deploys it
	// Offset is added to the lines of Spec's nodes to make them lines of File.
	Offset int
	// ComposedBy names the composite and Composition a resource was rendered from; empty for a
	// managed resource written out.
	ComposedBy string
}

// isManaged reports whether an object belongs to a provider of managed resources gpuguard can
// hand to Options.Managed: Crossplane's official providers (*.upbound.io, their namespaced
// *.m.upbound.io groups included), Google's Config Connector (*.cnrm.cloud.google.com), Azure
// Service Operator v2 (*.azure.com) and AWS Controllers for Kubernetes (*.services.k8s.aws).
func isManaged(o *object) bool {
	g := group(o.APIVersion)
	if g == "karpenter.azure.com" { // Karpenter's AKS node classes (node.go), not ASO's
		return false
	}
	for _, suffix := range []string{".upbound.io", ".cnrm.cloud.google.com", ".azure.com", ".services.k8s.aws"} {
		if strings.HasSuffix(g, suffix) {
			return true
		}
	}
	return false
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
	namespaces := map[string]map[string]string{}
	for _, o := range objs {
		if o.APIVersion == "v1" && o.Kind == "Namespace" {
			namespaces[o.Metadata.Name] = o.Metadata.Annotations
		}
	}
	mrs := composed
	for _, o := range objs {
		if isManaged(o) {
			mr := o.managed()
			mr.NamespaceAnnotations = namespaces[mr.Namespace]
			mrs = append(mrs, mr)
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
