package kubernetes

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/helm"
)

// GitSource is what a GitOps tool deploys from a directory of a Git repository: an Argo CD
// Application's source with path and no chart (a Helm chart, a kustomization or a plain
// directory of manifests), a Flux HelmRelease whose chart's source is a GitRepository, or a Flux
// Kustomization of one. The repository may be the one gpuguard reads, and the directory is then
// rendered or built as the tool does it, with its release name, namespace, values and settings.
// https://argo-cd.readthedocs.io/en/stable/user-guide/helm/
// https://argo-cd.readthedocs.io/en/stable/user-guide/kustomize/
// https://argo-cd.readthedocs.io/en/stable/user-guide/directory/
// https://fluxcd.io/flux/components/kustomize/kustomizations/
// https://argo-cd.readthedocs.io/en/stable/user-guide/multiple_sources/ ($ref value files)
// https://fluxcd.io/flux/components/helm/helmreleases/ (chart template, values)
type GitSource struct {
	// Tool is what installs the chart ("Argo CD", "Flux"); Owner names the object that
	// declares it ("Application argocd/web"); File and Line are where it is.
	Tool  string
	Owner string
	File  string
	Line  int
	// RepoURL and Path are the source: the chart's directory in that repository (RepoURL is
	// "" for Flux, whose GitRepository may not be among the manifests).
	RepoURL, Path string
	// ReleaseName and Namespace are the release's: Namespace is where the chart's objects
	// without one go.
	ReleaseName, Namespace string
	// ValueFiles are the value files, in order. Argo CD's helm.valueFiles are relative to the
	// chart's directory or, after a $ref, to the root of the repository of the source with that
	// ref (RefRepoURL), and go over values.yaml. Flux's valuesFiles (ValueFilesAtRoot) are
	// relative to the repository's root and take the place of values.yaml.
	ValueFiles       []ValueFile
	ValueFilesAtRoot bool
	// IgnoreMissing says a value file that does not exist is skipped, not an error.
	IgnoreMissing bool
	// Overrides are what goes over the value files, in order: Argo CD's helm.values,
	// helm.valuesObject and helm.parameters; Flux's valuesFrom and values, merged.
	Overrides []map[string]any
	// PostRenderers are Flux's spec.postRenderers[].kustomize, in order, their nodes at lines
	// of File: kustomize patches over what the chart renders.
	PostRenderers []*yaml.Node
	// Kustomize is an Argo CD source's kustomize settings (spec.source.kustomize, at lines of
	// File) when Path is a kustomization: what Argo CD edits in it before building it. nil when
	// the source has none.
	Kustomize *yaml.Node
	// Directory is an Argo CD source's directory settings, when Path is a plain directory of
	// manifests.
	Directory DirectorySource
	// Kustomization says the source is a Flux Kustomization's path: a kustomization, or a
	// directory Flux generates one of (kustomize.BuildGenerated, with SourceIgnore's files left
	// out), built with Kustomize's edits (its targetNamespace as namespace) and then Variables
	// substituted.
	Kustomization bool
	// Variables are a Flux Kustomization's spec.postBuild variables, substituted in what it
	// builds (${name}, ${name:=default}); nil when it has no postBuild.
	Variables map[string]string
	// SourceIgnore is the spec.ignore of a Flux Kustomization's GitRepository, when that is
	// among the manifests and sets one: .gitignore patterns of what the source leaves out of
	// the files Flux reads, in place of its default ones. nil otherwise.
	SourceIgnore *string
}

// DirectorySource is how Argo CD reads a plain directory of manifests (spec.source.directory):
// its files only, or those of its subdirectories too; include and exclude are glob patterns
// over paths relative to it ("" includes every manifest, excludes none).
type DirectorySource struct {
	Recurse bool   `yaml:"recurse"`
	Include string `yaml:"include"`
	Exclude string `yaml:"exclude"`
}

// ValueFile is one of helm.valueFiles.
type ValueFile struct {
	// Path is as written; Ref is the $ref it starts with ("" when none), and RefRepoURL the
	// repository of the source that ref names ("" when no source does).
	Path, Ref, RefRepoURL string
}

// GitSources returns what the Argo CD Applications and Flux HelmReleases and Kustomizations
// among files deploy from Git directories; the errors of those whose settings cannot be read (at
// the object), which then deploy nothing; and warnings of values gpuguard cannot read (a Flux
// valuesFrom or substituteFrom not among files).
func GitSources(files []*File) (charts []GitSource, errs, warns []parser.Error) {
	var flux *fluxObjects
	for _, f := range files {
		for _, o := range f.objects {
			switch {
			case o.Kind == "Application" && group(o.APIVersion) == "argoproj.io":
				cs, err := argoSources(o)
				charts = append(charts, cs...)
				if err != nil {
					errs = append(errs, specError(o, err))
				}
			case o.Kind == "HelmRelease" && group(o.APIVersion) == "helm.toolkit.fluxcd.io",
				o.Kind == "Kustomization" && group(o.APIVersion) == "kustomize.toolkit.fluxcd.io":
				if flux == nil {
					flux = newFluxObjects(files)
				}
				read := flux.gitChart
				if o.Kind == "Kustomization" {
					read = flux.kustomization
				}
				c, ok, es, ws := read(o)
				if ok {
					charts = append(charts, c)
				}
				errs, warns = append(errs, es...), append(warns, ws...)
			}
		}
	}
	return charts, errs, warns
}

func argoSources(o *object) ([]GitSource, error) {
	app, err := readArgoApp(o)
	if err != nil {
		return nil, err
	}
	var out []GitSource
	for _, s := range app.sources {
		if s.Path == "" || s.Chart != "" {
			continue // a chart from a Helm repository, or a source of value files only
		}
		c := GitSource{Tool: "Argo CD", Owner: "Application " + o.namespace() + "/" + o.Metadata.Name, File: o.file, Line: o.line,
			RepoURL: s.RepoURL, Path: s.Path, ReleaseName: s.releaseName(o), Namespace: app.namespace}
		if h := s.Helm; h != nil {
			c.IgnoreMissing = h.IgnoreMissingValueFiles
			for _, p := range h.ValueFiles {
				vf := ValueFile{Path: p}
				if ref, rest, ok := strings.Cut(p, "/"); ok && strings.HasPrefix(ref, "$") {
					vf.Ref, vf.RefRepoURL, vf.Path = ref, app.refs[ref[1:]], rest
				}
				c.ValueFiles = append(c.ValueFiles, vf)
			}
		}
		if c.Overrides, err = s.overrides(o); err != nil {
			return out, err
		}
		if s.Kustomize.Kind == yaml.MappingNode {
			c.Kustomize = copyNode(&s.Kustomize, 0)
			shiftLines(c.Kustomize, o.offset)
		}
		if s.Directory != nil {
			c.Directory = *s.Directory
		}
		out = append(out, c)
	}
	return out, nil
}

// argoApp is an Argo CD Application's sources, the repositories of those with a ref, and its
// destination's namespace.
type argoApp struct {
	sources   []argoSource
	refs      map[string]string // ref → its source's repository
	namespace string
}

// argoSource is one of an Application's sources (spec.source, spec.sources[i]: field).
type argoSource struct {
	RepoURL string    `yaml:"repoURL"`
	Path    string    `yaml:"path"`
	Chart   string    `yaml:"chart"`
	Ref     string    `yaml:"ref"`
	Helm    *argoHelm `yaml:"helm"`
	// Kustomize and Directory are the settings of a kustomization's and of a plain directory's
	// source.
	Kustomize yaml.Node        `yaml:"kustomize"`
	Directory *DirectorySource `yaml:"directory"`
	field     string
}

// argoHelm is a source's Helm settings.
type argoHelm struct {
	ReleaseName             string    `yaml:"releaseName"`
	ValueFiles              []string  `yaml:"valueFiles"`
	IgnoreMissingValueFiles bool      `yaml:"ignoreMissingValueFiles"`
	Values                  string    `yaml:"values"`
	ValuesObject            yaml.Node `yaml:"valuesObject"`
	Parameters              []struct {
		Name        string `yaml:"name"`
		Value       string `yaml:"value"`
		ForceString bool   `yaml:"forceString"`
	} `yaml:"parameters"`
}

func readArgoApp(o *object) (argoApp, error) {
	var spec struct {
		Source      *argoSource  `yaml:"source"`
		Sources     []argoSource `yaml:"sources"`
		Destination struct {
			Namespace string `yaml:"namespace"`
		} `yaml:"destination"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return argoApp{}, err
	}
	app := argoApp{refs: map[string]string{}, namespace: spec.Destination.Namespace}
	if spec.Source != nil {
		spec.Source.field = "spec.source"
		app.sources = append(app.sources, *spec.Source)
	}
	for i, s := range spec.Sources {
		s.field = fmt.Sprintf("spec.sources[%d]", i)
		app.sources = append(app.sources, s)
		if s.Ref != "" {
			app.refs[s.Ref] = s.RepoURL
		}
	}
	return app, nil
}

// releaseName is the source's helm.releaseName, else the Application's name.
func (s argoSource) releaseName(o *object) string {
	if s.Helm != nil && s.Helm.ReleaseName != "" {
		return s.Helm.ReleaseName
	}
	return o.Metadata.Name
}

// overrides are the values a source's Helm settings put over its value files, in Argo CD's
// order: helm.values, helm.valuesObject, helm.parameters; none without Helm settings.
func (s argoSource) overrides(o *object) ([]map[string]any, error) {
	h := s.Helm
	if h == nil {
		return nil, nil
	}
	var out []map[string]any
	if h.Values != "" {
		v, err := helm.ParseValues([]byte(h.Values))
		if err != nil {
			return nil, fmt.Errorf("%s.helm.values: %w", s.field, err)
		}
		out = append(out, v)
	}
	if h.ValuesObject.Kind != 0 {
		v, err := nodeValues(o, &h.ValuesObject, s.field+".helm.valuesObject")
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(h.Parameters) > 0 {
		set := map[string]any{}
		for _, p := range h.Parameters {
			if err := helm.SetValue(set, p.Name, p.Value, p.ForceString); err != nil {
				return nil, fmt.Errorf("%s.helm.parameters: %w", s.field, err)
			}
		}
		out = append(out, set)
	}
	return out, nil
}

// DefaultNamespace puts the file's objects that name no namespace in ns, as Argo CD does with
// its destination's namespace.
func (f *File) DefaultNamespace(ns string) {
	for _, o := range f.objects {
		if o.Metadata.Namespace == "" {
			o.Metadata.Namespace = ns
		}
	}
}
