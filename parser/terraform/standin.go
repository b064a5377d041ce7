package terraform

import (
	"embed"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

// Stand-ins: the node groups of the registry modules most GPU clusters are built with, read
// without `terraform init`.
//
// A module call whose source is not local is followed only where terraform init downloaded it
// (downloaded.go). In a pull request that is seldom the case, and the modules that declare the
// most GPU capacity are a handful of community ones: terraform-aws-modules/eks/aws (managed and
// self-managed node groups), terraform-google-modules/kubernetes-engine/google (node pools),
// Azure/aks/azurerm (the default and extra node pools) and its successor, Azure Verified Modules'
// Azure/avm-res-containerservice-managedcluster/azurerm (the same, in its AzAPI releases and its
// older AzureRM ones, told apart by the inputs a call sets: standInReleases), for single GPU
// machines and batch jobs terraform-aws-modules/ec2-instance/aws, Azure Verified Modules' virtual
// machine and scale set (Azure/avm-res-compute-virtualmachine/azurerm and
// Azure/avm-res-compute-virtualmachinescaleset/azurerm, whose AzAPI releases the VM stand-in
// tells apart by their inputs) and terraform-aws-modules/batch/aws, and for GPU
// fleets outside Kubernetes terraform-aws-modules/autoscaling/aws and the instance_template,
// mig, compute_instance and umig modules of terraform-google-modules/vm/google, and Cloud
// Posse's eks-node-group with the label module (cloudposse/label/null) every Cloud Posse module
// and many configurations name and tag their resources with, and, for the zones node groups run
// in (aws.go, awsZones), the subnets of terraform-aws-modules/vpc/aws, the VPC most EKS clusters
// are built in.
// For these, gpuguard carries a stand-in: a small Terraform module of its own (standins/) that
// takes the same inputs, with the real module's defaults, and declares the same node group
// resources at the same addresses (module.eks.module.eks_managed_node_group["gpu"].
// aws_eks_node_group.this[0]), so profiles, usage globs and diffs match what `terraform plan`
// shows. It is evaluated like any module; its resources are reported at the call the user wrote,
// with a note saying they were read through the stand-in. Everything else the real module
// declares (IAM, networking, the control plane, add-ons) costs no GPU money and is not modelled
// (the EKS, GKE and AKS clusters are declared, unpriced, with their place only, so that
// Kubernetes objects applied to them find their region: cluster.go); its outputs are
// unresolved, with that reason.
//
// The defaults and addresses come from the modules' public sources (variables.tf, node_groups.tf,
// cluster.tf, extra_node_pool.tf), read 2026-11-22: terraform-aws-modules/terraform-aws-eks v20,
// whose inputs v21 keeps for node groups, terraform-google-modules/terraform-google-kubernetes-engine,
// Azure/terraform-azurerm-aks, terraform-aws-modules/terraform-aws-ec2-instance v5 and
// terraform-aws-modules/terraform-aws-batch, terraform-aws-modules/terraform-aws-autoscaling
// (v7-v9) and terraform-google-modules/terraform-google-vm; cloudposse/terraform-aws-eks-node-group
// (v2-v3) and cloudposse/terraform-null-label (v0.25), read 2026-11-23;
// terraform-aws-modules/terraform-aws-vpc (v5-v6), read 2026-11-28. Where a default changed
// between major versions (the EKS node groups' ami_type in v21, docs/upgrade/UPGRADE-21.0.md),
// the stand-in declares the input ModuleMajorInput and follows the version the call would get
// (moduleversion.go). A stand-in declares the outputs other modules are built from (an instance
// template's self_link, a label's id, tags and context) and no others. A module terraform init
// did download is always read itself, never through a stand-in.

//go:embed standins
var standInFS embed.FS

// standInPrefix starts the names of stand-in directories and files: it cannot name a directory
// the scan walked, and it says in any note or warning where the text came from.
const standInPrefix = "gpuguard:stand-in/"

// standInModules maps a registry source (without host, version or ref) to its stand-in.
var standInModules = map[string]string{
	"terraform-aws-modules/eks/aws":                                                                  "aws-eks",
	"terraform-aws-modules/eks/aws//modules/eks-managed-node-group":                                  "aws-eks-managed-node-group",
	"terraform-aws-modules/eks/aws//modules/self-managed-node-group":                                 "aws-self-managed-node-group",
	"terraform-google-modules/kubernetes-engine/google":                                              "gcp-gke",
	"terraform-google-modules/kubernetes-engine/google//modules/private-cluster":                     "gcp-gke",
	"terraform-google-modules/kubernetes-engine/google//modules/private-cluster-update-variant":      "gcp-gke",
	"terraform-google-modules/kubernetes-engine/google//modules/beta-public-cluster":                 "gcp-gke",
	"terraform-google-modules/kubernetes-engine/google//modules/beta-private-cluster":                "gcp-gke",
	"terraform-google-modules/kubernetes-engine/google//modules/beta-private-cluster-update-variant": "gcp-gke",
	"terraform-google-modules/kubernetes-engine/google//modules/beta-public-cluster-update-variant":  "gcp-gke",
	"azure/aks/azurerm":                                             "azure-aks",
	"terraform-aws-modules/ec2-instance/aws":                        "aws-ec2-instance",
	"terraform-aws-modules/batch/aws":                               "aws-batch",
	"terraform-aws-modules/autoscaling/aws":                         "aws-autoscaling",
	"terraform-aws-modules/vpc/aws":                                 "aws-vpc",
	"terraform-google-modules/vm/google//modules/instance_template": "gcp-vm-instance-template",
	"terraform-google-modules/vm/google//modules/mig":               "gcp-vm-mig",
	"terraform-google-modules/vm/google//modules/compute_instance":  "gcp-vm-compute-instance",
	"terraform-google-modules/vm/google//modules/umig":              "gcp-vm-compute-instance",
	"cloudposse/label/null":                                         "cloudposse-label",
	"cloudposse/eks-node-group/aws":                                 "cloudposse-eks-node-group",
	"azure/avm-res-containerservice-managedcluster/azurerm":         "azure-avm-aks",
	"azure/avm-res-compute-virtualmachine/azurerm":                  "azure-avm-vm",
	"azure/avm-res-compute-virtualmachinescaleset/azurerm":          "azure-avm-vmss",
}

// standInReleases picks, for a module whose inputs a release renamed, the stand-in of the older
// releases when the call sets an input only they take. Azure Verified Modules' AKS module
// renamed default_node_pool, node_pools and resource_group_name when it moved to the AzAPI
// provider (2025-09): a call that still sets them uses an AzureRM release.
var standInReleases = map[string]struct {
	older  string
	inputs []string
}{
	"azure-avm-aks": {older: "azure-avm-aks-azurerm", inputs: []string{"default_node_pool", "node_pools", "resource_group_name"}},
}

// registrySource normalises a module source to the registry's spelling, so that one stand-in
// serves every way of writing the same module: a host ("registry.terraform.io/..."), a
// version or ref, or the module's GitHub repository, which the registry names
// <namespace>/terraform-<provider>-<name> ("git::https://github.com/terraform-aws-modules/
// terraform-aws-eks.git//modules/eks-managed-node-group?ref=v20.8.5").
func registrySource(src string) string {
	s := strings.TrimSpace(src)
	s = strings.TrimPrefix(s, "git::")
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s = s[:i]
	}
	for _, p := range []string{"tfr://", "https://", "http://", "ssh://", "git@"} {
		s = strings.TrimPrefix(s, p)
	}
	s = strings.TrimLeft(s, "/") // tfr:///namespace/name/provider: Terragrunt's registry scheme
	s = strings.TrimPrefix(s, "registry.terraform.io/")
	s = strings.TrimPrefix(s, "registry.opentofu.org/")
	sub := ""
	if i := strings.Index(s, "//"); i >= 0 {
		s, sub = s[:i], s[i:]
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "/"), ".git")
	if rest, ok := strings.CutPrefix(strings.Replace(s, "github.com:", "github.com/", 1), "github.com/"); ok {
		ns, repo, found := strings.Cut(rest, "/")
		if !found || strings.Contains(repo, "/") {
			return ""
		}
		parts := strings.SplitN(strings.TrimPrefix(repo, "terraform-"), "-", 2)
		if !strings.HasPrefix(repo, "terraform-") || len(parts) != 2 {
			return ""
		}
		s = ns + "/" + parts[1] + "/" + parts[0]
	}
	return s + strings.TrimSuffix(sub, "/")
}

// standInFor answers the stand-in directory for a module source, if gpuguard has one; sets
// reports whether the call sets an input (nil: none known, the newest release's stand-in).
func standInFor(source string, sets func(input string) bool) (string, bool) {
	// Registry namespaces and names are case-insensitive ("Azure/aks/azurerm").
	name, ok := standInModules[strings.ToLower(registrySource(source))]
	if !ok {
		return "", false
	}
	if rel, ok := standInReleases[name]; ok && sets != nil && slices.ContainsFunc(rel.inputs, sets) {
		name = rel.older
	}
	return standInPrefix + name, true
}

// isStandIn reports whether a directory or file name is one of gpuguard's stand-ins.
func isStandIn(name string) bool { return strings.HasPrefix(name, standInPrefix) }

// StandInDir answers the directory of gpuguard's stand-in for a registry module source, for a
// caller that deploys such a module as a root module (a Terragrunt unit whose terraform source
// is tfr:///terraform-aws-modules/eks/aws): ParseModuleDir reads it from the binary. Resources
// it yields have their Source in the stand-in (IsStandIn): the caller points them at its own
// configuration. sets reports whether the unit sets an input: its inputs may pick the stand-in of
// a module's older releases (standInReleases).
func StandInDir(source string, sets func(input string) bool) (string, bool) {
	return standInFor(source, sets)
}

// IsStandIn reports whether a directory or file name is one of gpuguard's stand-ins.
func IsStandIn(name string) bool { return isStandIn(name) }

// standInChildDir resolves a local source inside a stand-in (they call each other as
// "../aws-eks-managed-node-group").
func standInChildDir(dir, src string) string {
	return standInPrefix + path.Clean(path.Join(strings.TrimPrefix(dir, standInPrefix), src))
}

// standInFiles lists a stand-in's files, named under standInPrefix.
func standInFiles(dir string) []string {
	entries, err := fs.ReadDir(standInFS, "standins/"+strings.TrimPrefix(dir, standInPrefix))
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && IsModuleFile(e.Name()) {
			names = append(names, dir+"/"+e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// standInSource is the text of a stand-in file named by standInFiles.
func standInSource(name string) []byte {
	data, _ := fs.ReadFile(standInFS, "standins/"+strings.TrimPrefix(name, standInPrefix))
	return data
}
