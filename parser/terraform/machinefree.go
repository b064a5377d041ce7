package terraform

import "strings"

// Registry modules that declare no machines.
//
// A module call gpuguard cannot follow (not local, not downloaded by terraform init, no
// stand-in) gets a warning that the resources inside it are not counted. For the networking,
// identity, storage and key modules nearly every GPU configuration also calls, that warning is
// noise in every pull request: none of them creates an instance, a node group, a scale set or
// anything else gpuguard prices. A call to one of these is still not followed (its outputs are
// unknown, with the reason), but without the warning, unless one of its inputs names a GPU
// machine type (then something is wrong, and the warning says which).
//
// Each entry is a registry source as registrySource spells it, without the version; one ending
// in "//" stands for every submodule of that module too. What each creates was read from its
// public source (main.tf, modules/), 2026-11-28:
//   - AWS: terraform-aws-modules' iam (roles, users, policies, OIDC providers), s3-bucket,
//     security-group, kms, ecr, eks-pod-identity (IAM roles and associations), the VPC module's
//     vpc-endpoints submodule, and the EKS module's karpenter submodule (Karpenter's IAM role,
//     SQS interruption queue, EventBridge rules and access entry: the nodes Karpenter launches
//     come from NodePools, which gpuguard reads from the manifests).
//   - GCP: terraform-google-modules' network (VPCs, subnets, routes, firewall rules),
//     cloud-nat, cloud-router, project-factory (projects, APIs, service accounts),
//     service-accounts, iam, and the GKE module's workload-identity submodule.
//   - Azure: Azure Verified Modules' virtual network, key vault, storage account, container
//     registry and user-assigned identity, and the older Azure/network and Azure/vnet.
var machineFreeModules = map[string]bool{
	"terraform-aws-modules/iam/aws//":                                              true,
	"terraform-aws-modules/s3-bucket/aws//":                                        true,
	"terraform-aws-modules/security-group/aws//":                                   true,
	"terraform-aws-modules/kms/aws":                                                true,
	"terraform-aws-modules/ecr/aws//":                                              true,
	"terraform-aws-modules/eks-pod-identity/aws":                                   true,
	"terraform-aws-modules/vpc/aws//modules/vpc-endpoints":                         true,
	"terraform-aws-modules/eks/aws//modules/karpenter":                             true,
	"terraform-google-modules/network/google//":                                    true,
	"terraform-google-modules/cloud-nat/google":                                    true,
	"terraform-google-modules/cloud-router/google":                                 true,
	"terraform-google-modules/project-factory/google//":                            true,
	"terraform-google-modules/service-accounts/google//":                           true,
	"terraform-google-modules/iam/google//":                                        true,
	"terraform-google-modules/kubernetes-engine/google//modules/workload-identity": true,
	"azure/avm-res-network-virtualnetwork/azurerm//":                               true,
	"azure/avm-res-keyvault-vault/azurerm//":                                       true,
	"azure/avm-res-storage-storageaccount/azurerm//":                               true,
	"azure/avm-res-containerregistry-registry/azurerm":                             true,
	"azure/avm-res-managedidentity-userassignedidentity/azurerm":                   true,
	"azure/network/azurerm":                                                        true,
	"azure/vnet/azurerm":                                                           true,
}

// DeclaresNoMachines reports whether a module source is one of the registry modules known to
// declare no machines (machineFreeModules), in any of the spellings registrySource takes.
func DeclaresNoMachines(source string) bool {
	s := strings.ToLower(registrySource(source))
	if machineFreeModules[s] {
		return true
	}
	mod, _, _ := strings.Cut(s, "//")
	return machineFreeModules[mod+"//"]
}
