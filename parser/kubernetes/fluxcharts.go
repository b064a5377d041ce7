package kubernetes

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
	"github.com/gpuguard/gpuguard/parser"
)

// fluxObjects are the objects a Flux HelmRelease or Kustomization takes from the manifests read
// with it: the ConfigMaps and Secrets of its valuesFrom or substituteFrom (by
// Kind/namespace/name), the HelmCharts a spec.chartRef names and the GitRepositories a
// Kustomization's sourceRef names (by namespace/name).
type fluxObjects struct {
	sources map[string]*object
	charts  map[string]*object
	repos   map[string]*object
}

func newFluxObjects(files []*File) *fluxObjects {
	x := &fluxObjects{sources: map[string]*object{}, charts: map[string]*object{}, repos: map[string]*object{}}
	for _, f := range files {
		for _, o := range f.objects {
			switch {
			case (o.Kind == "ConfigMap" || o.Kind == "Secret") && o.APIVersion == "v1":
				x.sources[o.Kind+"/"+o.namespace()+"/"+o.Metadata.Name] = o
			case o.Kind == "HelmChart" && group(o.APIVersion) == "source.toolkit.fluxcd.io":
				x.charts[o.namespace()+"/"+o.Metadata.Name] = o
			case o.Kind == "GitRepository" && group(o.APIVersion) == "source.toolkit.fluxcd.io":
				x.repos[o.namespace()+"/"+o.Metadata.Name] = o
			}
		}
	}
	return x
}

// shiftLines adds offset to the line of every node of n.
func shiftLines(n *yaml.Node, offset int) {
	if n.Line > 0 {
		n.Line += offset
	}
	for _, c := range n.Content {
		shiftLines(c, offset)
	}
}

// gitChart reads a HelmRelease whose chart comes from a GitRepository (spec.chart.spec with a
// sourceRef of that kind, or the HelmChart spec.chartRef names): the chart's path in the
// repository, the release's name and namespace, spec.chart.spec.valuesFiles, and valuesFrom
// and values over them, merged as Flux merges them, and the kustomize post renderers. ok is false for a release of a chart from
// elsewhere (a HelmRepository, an OCIRepository, a HelmChart not among the manifests), and for
// one whose settings are wrong: Flux installs nothing then, and errs says why.
// https://fluxcd.io/flux/components/helm/helmreleases/#chart-template
// https://fluxcd.io/flux/components/helm/helmreleases/#chart-reference
func (x *fluxObjects) gitChart(o *object) (c GitSource, ok bool, errs, warns []parser.Error) {
	hr, err := readFluxRelease(o)
	if err != nil {
		return c, false, []parser.Error{specError(o, err)}, nil
	}
	spec := hr.chart
	if ref := hr.chartRef; ref != nil {
		ns := ref.Namespace
		if ns == "" {
			ns = o.namespace()
		}
		hc := x.charts[ns+"/"+ref.Name]
		if ref.Kind != "HelmChart" || hc == nil {
			return c, false, nil, nil
		}
		spec = fluxChartSpec{}
		if err := decodeSpec(hc, &spec); err != nil {
			return c, false, []parser.Error{specError(hc, err)}, nil
		}
	}
	if spec.SourceRef.Kind != "GitRepository" || spec.Chart == "" {
		return c, false, nil, nil
	}
	values, es, unread := fluxValues(pendingRelease{o: o, r: hr.release, refs: hr.refs}, x.sources)
	for _, e := range es {
		errs = append(errs, specError(o, e))
	}
	if len(errs) > 0 {
		return c, false, errs, nil
	}
	for _, u := range unread {
		warns = append(warns, parser.Error{File: o.file, Line: hr.release.Line, Message: fmt.Sprintf("%s: %s", o.address(), u)})
	}
	files := spec.ValuesFiles
	if len(files) == 0 && spec.ValuesFile != "" {
		files = []string{spec.ValuesFile}
	}
	c = GitSource{Tool: "Flux", Owner: o.Kind + " " + o.namespace() + "/" + o.Metadata.Name, File: o.file, Line: o.line,
		Path: spec.Chart, ReleaseName: hr.release.Name, Namespace: hr.release.Namespace,
		ValueFilesAtRoot: true, IgnoreMissing: spec.IgnoreMissingValuesFiles}
	for _, f := range files {
		c.ValueFiles = append(c.ValueFiles, ValueFile{Path: f})
	}
	for i := range hr.postRenderers {
		if k := yamlpos.Value(&hr.postRenderers[i], "kustomize"); k != nil && k.Kind == yaml.MappingNode {
			k = copyNode(k, 0)
			shiftLines(k, o.offset)
			c.PostRenderers = append(c.PostRenderers, k)
		}
	}
	if len(values) > 0 {
		c.Overrides = []map[string]any{values}
	}
	return c, true, nil, warns
}
