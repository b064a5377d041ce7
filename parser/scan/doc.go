// Package scan discovers inputs under the paths a user names and dispatches each to its format:
// Terraform root modules (directories of .tf/.tf.json files), Terragrunt units (a directory with a
// terragrunt.hcl, evaluated by package terragrunt; a configuration the others include is not a
// unit), kustomizations (built by package kustomize; one another builds on is read through it),
// Helm charts (rendered by package helm with their default values; a subchart through its parent),
// Terraform plan JSON (recognised by content), and Kubernetes manifests (YAML or JSON). It is the
// one visible registry of formats.
//
// Directories are walked skipping .terraform/, .git/, vendor/, node_modules/ and other hidden
// directories. A directory that another discovered module calls as a local module is not also
// read as a root, so its resources are not counted twice; nor is a manifest a Terraform
// configuration reads or a kustomization builds, nor a kustomize patch file. What is not a
// manifest as it stands — a chart that cannot be rendered, other template files — is left out
// with a warning that names the command that renders it; a Terragrunt stack file gets a warning
// too. A symbolic link is followed only to a file inside the checked directories. Inputs are
// parsed concurrently; one bad file is reported and never stops the others.
package scan
