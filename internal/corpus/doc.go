// Package corpus writes synthetic but realistic input trees for benchmarks and the performance
// script: Terraform stacks (providers, variables, tfvars, locals, count, for_each, a local module)
// and Kubernetes manifest streams. It is used by benchmarks and scripts only.
package corpus
