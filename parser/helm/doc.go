// Package helm renders a Helm chart's templates with the chart's default values, the way
// `helm template` does, so the workloads a chart deploys can be read as manifests.
//
// It uses Go's text/template, Helm's built-in objects (.Values, .Release, .Chart, .Capabilities,
// .Template, .Files) and functions (include, tpl, required, toYaml, fromYaml, lookup, ...), and
// the part of the Sprig library charts commonly use. Subcharts in charts/ (directories, or
// packaged .tgz archives as helm dependency build leaves them) are rendered with their own
// values, the parent's values for them and the globals; a dependency whose condition is false is
// left out. A template that calls a function this package does not provide fails to parse, so
// a chart is rendered right or not at all: the caller then falls back to a warning.
//
// Rendering is bounded (include and tpl calls, nesting, output size, list lengths) so that a
// chart in a pull request cannot hang the run, and every file is read inside the checked
// directories (package confine). lookup returns nothing: gpuguard talks to no cluster.
//
// The package does not price anything, print or exit.
package helm
