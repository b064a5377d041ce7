package managed

import (
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// AWS Controllers for Kubernetes (https://aws-controllers-k8s.github.io/community, groups
// *.services.k8s.aws) declares AWS resources as Kubernetes objects generated from the AWS APIs: a
// resource's spec is the API's create request in camelCase (an EKS node group's is
// CreateNodegroup's: instanceTypes, capacityType, scalingConfig, labels, taints), references to
// other ACK resources are fooRef: {from: {name}}, and the region is not in the spec: the
// services.k8s.aws/region annotation names it, else the namespace's
// services.k8s.aws/default-region, else the controller's --aws-region (read 2026-11-23,
// aws-controllers-k8s/eks-controller apis/v1alpha1/nodegroup.go and the runtime's annotations).
// The EKS API's names are the Terraform aws provider's once in snake_case, but for those in
// ackRenames, so a node group is priced as the aws_eks_node_group it corresponds to.

// ackKinds are the ACK kinds gpuguard prices, by API group and kind, with the Terraform resource
// type each corresponds to.
var ackKinds = map[string]string{
	"eks.services.k8s.aws/Nodegroup": "aws_eks_node_group",
	"eks.services.k8s.aws/Cluster":   "aws_eks_cluster",
}

// ackRenames are the fields whose Terraform argument is not their name in snake_case.
var ackRenames = map[string]map[string]string{
	"aws_eks_node_group": {"name": "node_group_name", "taints": "taint"},
}

// ACK's region annotations: on the resource, and the default on its namespace.
const (
	ackRegion        = "services.k8s.aws/region"
	ackDefaultRegion = "services.k8s.aws/default-region"
)

// isACK reports whether an API version is an ACK controller's.
func isACK(apiVersion string) bool {
	g, _, _ := strings.Cut(apiVersion, "/")
	return strings.HasSuffix(g, ".services.k8s.aws")
}

// ackArguments is an ACK resource's spec as its Terraform resource's arguments (still in
// camelCase, as arguments() takes them), the region from its annotations.
func ackArguments(mr kubernetes.ManagedResource, typ string) (map[string]any, error) {
	var spec map[string]any
	if mr.Spec != nil && mr.Spec.Kind != 0 {
		if err := mr.Spec.Decode(&spec); err != nil {
			return nil, err
		}
	}
	args := map[string]any{}
	for k, v := range spec {
		if to, ok := ackRenames[typ][k]; ok {
			k = to
		}
		args[k] = v
	}
	if region := ackRegionOf(mr); region != "" {
		args["region"] = region
	}
	return args, nil
}

// ackRegionOf is the region an ACK resource is created in, when the manifests name it.
func ackRegionOf(mr kubernetes.ManagedResource) string {
	if r := mr.Annotations[ackRegion]; r != "" {
		return r
	}
	return mr.NamespaceAnnotations[ackDefaultRegion]
}

// ackResource notes on a resource priced from an ACK manifest where it came from, and why its
// region is unknown when no annotation names it.
func ackResource(r *parser.Resource, mr kubernetes.ManagedResource, typ string) {
	r.Note("an AWS Controllers for Kubernetes resource (%s %s), priced as the Terraform resource %s it corresponds to", mr.APIVersion, mr.Kind, typ)
	if r.Region == "" && ackRegionOf(mr) == "" {
		r.RegionUnknown = "ACK creates it in the region of its " + ackRegion + " annotation, else its namespace's " + ackDefaultRegion + ", else the controller's --aws-region, and the manifests name none"
	}
}
