// Package managed prices the cloud resources a repository declares as Kubernetes objects of
// operators generated from the Terraform providers: Crossplane managed resources of the official
// providers (eks.aws.upbound.io NodeGroup, container.gcp.upbound.io NodePool,
// containerservice.azure.upbound.io KubernetesClusterNodePool, instances, scale sets), built with
// upjet, whose spec.forProvider is the Terraform resource's arguments in camelCase; and Google's
// Config Connector (container.cnrm.cloud.google.com ContainerNodePool and ContainerCluster,
// compute.cnrm.cloud.google.com ComputeInstance), whose spec is. The package writes the objects
// of a root as one Terraform JSON configuration, references by name resolved, and prices it with
// package terraform's mappers; a kind it does not price that names a GPU type is a warning. It
// does not print or exit.
package managed
