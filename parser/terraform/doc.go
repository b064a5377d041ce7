// Package terraform evaluates Terraform configurations and plans into GPU resources.
//
// HCL is read with hashicorp/hcl/v2 and evaluated with zclconf/go-cty the way Terraform does:
// variables with types and defaults, tfvars in Terraform's precedence, locals, references between
// resources, count, for_each, dynamic blocks, Terraform's common functions and local modules.
// It never converts HCL to JSON first, so diagnostics keep their source ranges.
//
// Evaluation is lazy: a value is computed when something asks for it, and a value that cannot be
// known (a variable without a value, an attribute known only after apply, a data source) becomes
// an unknown carrying a mark that says why. Mappers (one file per cloud, one registry) read the
// evaluated instances and return parser.Resource values (databricks.go and spark.go read
// Databricks, EMR and Dataproc clusters, which run on a cloud's VMs; azapi.go the ARM resources
// an azapi_resource declares by type and body); the reason of an unknown
// ends up in the resource's Unresolved list instead of being guessed.
//
// Registry modules are followed where terraform init downloaded them; the node groups of a few
// community modules (EKS, GKE, AKS, ec2-instance, Batch) are read without it through gpuguard's
// stand-ins (standin.go, standins/). Resource types without a mapper that name a GPU machine type
// are warnings (unpriced.go), not silent omissions.
//
// Files a configuration names (file(), templatefile(), fileset(), a symbolic link) are read only
// inside the checked directories (package confine), and the manifest files it reads and the
// charts its helm_releases render (helmrelease.go) are reported (Result.Consumed) so they are not
// counted again as manifests or charts. Kubernetes objects declared through Terraform whose
// manifests name no region take the region of the cluster their provider connects to
// (cluster.go).
//
// The package does not price anything, print or exit.
package terraform
