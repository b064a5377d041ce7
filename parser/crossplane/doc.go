// Package crossplane prices the cloud resources a repository declares as Crossplane managed
// resources of the official providers (eks.aws.upbound.io NodeGroup, container.gcp.upbound.io
// NodePool, containerservice.azure.upbound.io KubernetesClusterNodePool, instances, scale sets).
// Those providers are generated from the Terraform providers (upjet), so a managed resource's
// spec.forProvider is its Terraform resource's arguments in camelCase: the package writes the
// managed resources of a root as one Terraform JSON configuration, references by name resolved,
// and prices it with package terraform's mappers. It does not print or exit.
package crossplane
