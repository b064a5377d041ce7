// Package kustomize builds kustomizations into the Kubernetes objects they deploy, the way
// `kustomize build` does for what decides GPU spend: resources (files and other kustomizations,
// recursively), components, namespace, name prefixes and suffixes, common and pair labels and
// annotations, replica counts, and patches — strategic merge (containers and other named lists
// of Kubernetes' own kinds merged by name, a custom resource's lists replaced whole as kustomize
// does without a schema, `$patch: delete`, null to remove) and JSON 6902 (add, replace, remove,
// copy, move), with or without a target selector, then replacements (replacements.go). An
// autoscaler's scaleTargetRef and a pod's DRA
// claims follow the objects a prefix or suffix renames, as kustomize's name references do.
//
// It works on YAML nodes and keeps each object's file and lines, so a resource built from an
// overlay still points at the line of its base that declares it. Remote resources and Helm
// chart inflation are not fetched: each is a warning. Every file is read inside the checked
// directories (package confine). ConfigMap and Secret generators are applied (generators.go:
// a Flux HelmRelease may take the device plugin's values from them), without kustomize's content
// hash in their names; image rewrites do not change GPU spend and are not applied. The same
// patches apply a Flux HelmRelease's kustomize post renderers to what its chart rendered
// (postrender.go).
//
// The package does not price anything, print or exit.
package kustomize
