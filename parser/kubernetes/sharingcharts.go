package kubernetes

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
	"github.com/gpuguard/gpuguard/parser/helm"
)

// ChartRelease is a Helm release of a chart gpuguard does not render (a helm_release of a
// chart in a repository): what it says is in its values. Only Kueue's configuration, from
// Kueue's chart (kueueReleaseConfig), and the device plugin's sharing configs (and the MIG
// manager's layouts, MIGLayouts) are read from them, the latter for NVIDIA's two charts that
// install the plugin:
//   - nvidia-device-plugin (https://github.com/NVIDIA/k8s-device-plugin, deployments/helm):
//     config.map holds named config files, built into the ConfigMap <fullname>-configs;
//     config.name names an existing ConfigMap instead; config.default the config nodes without
//     the label take, else config.fallbackStrategies ("named": the key "default"; "single": the
//     only key).
//   - gpu-operator (https://github.com/NVIDIA/gpu-operator, deployments/gpu-operator):
//     devicePlugin.config.name names the ConfigMap and .default its default key, as the
//     ClusterPolicy the chart renders does; with .create the chart makes that ConfigMap from
//     .data.
type ChartRelease struct {
	Chart           string // as the release names it: a name, repo/name, or an oci:// reference
	Name, Namespace string // the release's; "" for helm's defaults
	Values          map[string]any
	// Source names what declares the release in notes and errors (helm_release.nvdp,
	// HelmRelease gpu/nvdp); File and Line are where its errors are reported.
	Source string
	File   string
	Line   int
}

// chartName is the chart's own name in however a release refers to it.
func chartName(ref string) string {
	ref = strings.TrimSuffix(ref, "/")
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") && !strings.Contains(ref[i:], "//") {
		ref = ref[:i] // an OCI reference's tag
	}
	return path.Base(ref)
}

// IsReadChart says whether gpuguard reads the values of a release of this chart it does not
// render: NVIDIA's that configure the device plugin, and Kueue's, whose
// managerConfig.controllerManagerConfigYaml is Kueue's configuration (kueueconfig.go).
func IsReadChart(ref string) bool {
	return IsDevicePluginChart(ref) || chartName(ref) == "kueue"
}

// IsDevicePluginChart says whether a release's chart is one of NVIDIA's whose values configure
// the device plugin (ChartRelease).
func IsDevicePluginChart(ref string) bool {
	switch chartName(ref) {
	case "nvidia-device-plugin", "gpu-operator":
		return true
	}
	return false
}

// addRelease reads the device plugin's configs, and the GPU Operator's MIG layouts, from a
// release of NVIDIA's charts; other charts are left alone. A config the plugin (or the MIG
// manager) would refuse is an error naming the value's path.
func (s *pluginSharing) addRelease(r ChartRelease) []error {
	ns := r.Namespace
	if ns == "" {
		ns = "default"
	}
	if chartName(r.Chart) == "kueue" {
		s.kueue = append(s.kueue, r) // Build reads Kueue's configuration from it
		return nil
	}
	from := r.Source + "'s values"
	var errs []error
	if err := s.layouts.addRelease(r); err != nil {
		errs = append(errs, err) // the MIG manager's layouts, whether or not the plugin is installed
	}
	if enabled, ok := dig(r.Values, "devicePlugin", "enabled").(bool); ok && !enabled {
		return errs // both charts install the plugin unless devicePlugin.enabled is false
	}
	switch chartName(r.Chart) {
	case "nvidia-device-plugin":
		def, _ := dig(r.Values, "config", "default").(string)
		if name, _ := dig(r.Values, "config", "name").(string); name != "" {
			s.readsFrom(name, def, from)
			return errs
		}
		files, _ := dig(r.Values, "config", "map").(map[string]any)
		if len(files) == 0 {
			return errs
		}
		cm := releaseFullName(r, "nvidia-device-plugin") + "-configs"
		errs = s.addValueConfigs(ns+"/"+cm, from, "config.map", files)
		if def == "" {
			// The chart's fallback strategies, in its order: the key "default", the only key.
			// When none applies, nodes without the label take no config.
			strategies := []any{"named", "single"}
			if l, ok := dig(r.Values, "config", "fallbackStrategies").([]any); ok {
				strategies = l
			}
			for _, st := range strategies {
				if _, ok := files["default"]; def == "" && st == "named" && ok {
					def = "default"
				}
				if def == "" && st == "single" && len(files) == 1 {
					for k := range files {
						def = k
					}
				}
			}
		}
		s.readsFrom(cm, def, from)
		s.defaultDecided = true
		return errs
	case "gpu-operator":
		name, _ := dig(r.Values, "devicePlugin", "config", "name").(string)
		if name == "" {
			return errs
		}
		def, _ := dig(r.Values, "devicePlugin", "config", "default").(string)
		s.readsFrom(name, def, from)
		if create, _ := dig(r.Values, "devicePlugin", "config", "create").(bool); create {
			data, _ := dig(r.Values, "devicePlugin", "config", "data").(map[string]any)
			errs = append(errs, s.addValueConfigs(ns+"/"+name, from, "devicePlugin.config.data", data)...)
		}
		return errs
	}
	return errs
}

// readsFrom makes a ConfigMap the one the device plugin reads, with the default key it is given.
func (s *pluginSharing) readsFrom(configMap, def, by string) {
	s.named, s.namedDefault, s.policy, s.defaultDecided = configMap, def, by, false
}

// addValueConfigs reads the config files a chart's values hold by name (the chart writes each
// into the ConfigMap as a key).
func (s *pluginSharing) addValueConfigs(configMap, from, field string, files map[string]any) []error {
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	for _, k := range keys {
		text, ok := files[k].(string)
		if !ok {
			continue // the chart writes files as text; anything else is not a config it renders
		}
		c, err := s.addConfig(configMap, k, text)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.%s: the device plugin's sharing config: %w", field, k, err))
		} else if c != nil {
			c.source = fmt.Sprintf("%s (%s, key %s)", from, field, k)
		}
	}
	return errs
}

// releaseFullName is the chart's fullname helper: fullnameOverride, else the release name when
// it holds the chart's name (or nameOverride), else <release>-<name>.
func releaseFullName(r ChartRelease, chart string) string {
	if o, _ := r.Values["fullnameOverride"].(string); o != "" {
		return trimName(o)
	}
	name := chart
	if o, _ := r.Values["nameOverride"].(string); o != "" {
		name = o
	}
	rel := r.Name
	if rel == "" {
		rel = helm.ReleaseName
	}
	if strings.Contains(rel, name) {
		return trimName(rel)
	}
	return trimName(rel + "-" + name)
}

// trimName is Helm's `trunc 63 | trimSuffix "-"`.
func trimName(s string) string {
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.TrimSuffix(s, "-")
}

// dig follows keys down nested maps; nil where one is missing.
func dig(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

// fluxRelease reads a Flux HelmRelease (helm.toolkit.fluxcd.io) of one of NVIDIA's charts:
// spec.chart.spec.chart, spec.values, and the ConfigMaps and Secrets its spec.valuesFrom takes
// values from, which the caller resolves (fluxValues) once every object is read.
// A chart from a HelmRepository takes its valuesFiles from its package, which is not
// downloaded: unread says so (a chart in a GitRepository is rendered with them, GitSources).
// https://fluxcd.io/flux/components/helm/helmreleases/ (Values references)
func fluxRelease(o *object) (r ChartRelease, refs []valuesRef, unread string, ok bool, err error) {
	hr, err := readFluxRelease(o)
	if !IsReadChart(hr.chart.Chart) {
		return ChartRelease{}, nil, "", false, err
	}
	files := slices.DeleteFunc(append([]string{hr.chart.ValuesFile}, hr.chart.ValuesFiles...), func(f string) bool { return f == "" })
	if len(files) > 0 && hr.chart.SourceRef.Kind == "HelmRepository" {
		unread = fmt.Sprintf("spec.chart.spec.valuesFiles: %s in the package of chart %s, which gpuguard does not download: its values are read without them", strings.Join(files, ", "), hr.chart.Chart)
	}
	return hr.release, hr.refs, unread, true, err
}

// fluxHelmRelease is what gpuguard reads of a Flux HelmRelease: its chart (spec.chart.spec, or
// the HelmChart spec.chartRef names), the release its values make (Values is spec.values alone
// until fluxValues merges valuesFrom under it), and its spec.valuesFrom.
type fluxHelmRelease struct {
	chart    fluxChartSpec
	chartRef *fluxRef
	release  ChartRelease
	refs     []valuesRef
	// postRenderers are spec.postRenderers, which patch what the chart renders.
	postRenderers []yaml.Node
}

// maxReleaseName is the longest Helm release name (Helm's limit, which Flux keeps).
const maxReleaseName = 53

// shortenReleaseName is a release name Flux makes from a HelmRelease's name as Flux shortens
// it when longer than Helm allows: its first 40 characters, '-', and the first 12 hexadecimal
// digits of the SHA-256 of the whole name.
// https://fluxcd.io/flux/components/helm/helmreleases/#release-name
func shortenReleaseName(name string) string {
	if len(name) <= maxReleaseName {
		return name
	}
	const hashDigits = 12
	sum := sha256.Sum256([]byte(name))
	return name[:maxReleaseName-hashDigits-1] + "-" + hex.EncodeToString(sum[:])[:hashDigits]
}

// fluxChartSpec is a HelmChart's spec, inline in a HelmRelease (spec.chart.spec) or its own
// object (source.toolkit.fluxcd.io).
type fluxChartSpec struct {
	Chart                    string   `yaml:"chart"`
	SourceRef                fluxRef  `yaml:"sourceRef"`
	ValuesFiles              []string `yaml:"valuesFiles"`
	ValuesFile               string   `yaml:"valuesFile"` // deprecated: one of valuesFiles
	IgnoreMissingValuesFiles bool     `yaml:"ignoreMissingValuesFiles"`
}

// fluxRef names a Flux object: a chart's source, or the HelmChart a release takes.
type fluxRef struct {
	Kind      string `yaml:"kind"`
	Name      string `yaml:"name"`
	Namespace string `yaml:"namespace"`
}

// readFluxRelease reads a HelmRelease. The release is named spec.releaseName, else
// [targetNamespace-]name (shortened as Flux shortens it), and installed in
// spec.targetNamespace, else the HelmRelease's own.
func readFluxRelease(o *object) (fluxHelmRelease, error) {
	var spec struct {
		Chart struct {
			Spec fluxChartSpec `yaml:"spec"`
		} `yaml:"chart"`
		ChartRef        *fluxRef    `yaml:"chartRef"`
		ReleaseName     string      `yaml:"releaseName"`
		TargetNamespace string      `yaml:"targetNamespace"`
		Values          yaml.Node   `yaml:"values"`
		ValuesFrom      []yaml.Node `yaml:"valuesFrom"`
		PostRenderers   []yaml.Node `yaml:"postRenderers"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return fluxHelmRelease{}, err
	}
	hr := fluxHelmRelease{chart: spec.Chart.Spec, chartRef: spec.ChartRef, postRenderers: spec.PostRenderers}
	r := ChartRelease{Chart: spec.Chart.Spec.Chart, Name: spec.ReleaseName, Namespace: spec.TargetNamespace,
		Source: o.Kind + " " + o.namespace() + "/" + o.Metadata.Name, File: o.file, Line: o.lineOf(&spec.Values)}
	if r.Name == "" {
		r.Name = o.Metadata.Name
		if spec.TargetNamespace != "" {
			r.Name = spec.TargetNamespace + "-" + o.Metadata.Name
		}
		r.Name = shortenReleaseName(r.Name)
	}
	if r.Namespace == "" {
		r.Namespace = o.Metadata.Namespace
	}
	for i := range spec.ValuesFrom {
		n := &spec.ValuesFrom[i]
		var ref valuesRef
		if err := n.Decode(&ref); err != nil || ref.Kind != "ConfigMap" && ref.Kind != "Secret" || ref.Name == "" {
			hr.release = r
			return hr, lineError{line: o.lineOf(n), err: fmt.Errorf("spec.valuesFrom[%d]: a reference is a kind (ConfigMap or Secret) and a name", i)}
		}
		if ref.ValuesKey == "" {
			ref.ValuesKey = "values.yaml" // Flux's default key
		}
		ref.line = o.lineOf(n)
		hr.refs = append(hr.refs, ref)
	}
	if len(hr.refs) > 0 && spec.Values.Kind == 0 {
		r.Line = hr.refs[0].line
	}
	values, err := nodeValues(o, &spec.Values, "spec.values")
	r.Values = values
	hr.release = r
	return hr, err
}

// valuesRef is one of a Flux HelmRelease's spec.valuesFrom: the values document at a key of a
// ConfigMap or Secret in the release's namespace, or with targetPath the key's single value set
// at that path (as helm --set does); one not optional that is missing stops the release.
type valuesRef struct {
	Kind       string `yaml:"kind"`
	Name       string `yaml:"name"`
	ValuesKey  string `yaml:"valuesKey"`
	TargetPath string `yaml:"targetPath"`
	Optional   bool   `yaml:"optional"`
	line       int
}

// pendingRelease is a Flux HelmRelease waiting for the ConfigMaps and Secrets it takes values
// from.
type pendingRelease struct {
	o    *object
	r    ChartRelease
	refs []valuesRef
}

// fluxValues merges a release's values as Flux does: those of spec.valuesFrom in order, later
// over earlier, then spec.values over them all. sources are the ConfigMaps and Secrets among the
// manifests, by Kind/namespace/name. A reference gpuguard cannot read (not among the manifests,
// an encrypted Secret) is a warning: the values it holds are not read.
func fluxValues(p pendingRelease, sources map[string]*object) (map[string]any, []error, []string) {
	var docs []map[string]any
	var errs []error
	var unread []string
	for i, ref := range p.refs {
		src := sources[ref.Kind+"/"+p.o.namespace()+"/"+ref.Name]
		text, why := refValue(src, ref.ValuesKey)
		if why != "" {
			if !ref.Optional {
				unread = append(unread, fmt.Sprintf("spec.valuesFrom[%d] (%s %s, key %s) %s: the values it holds are not read", i, ref.Kind, ref.Name, ref.ValuesKey, why))
			}
			continue
		}
		if ref.TargetPath != "" {
			m := map[string]any{}
			if err := helm.SetValue(m, ref.TargetPath, text, false); err != nil { // names the path, never the value
				errs = append(errs, lineError{line: ref.line, err: fmt.Errorf("spec.valuesFrom[%d].targetPath: %w", i, err)})
				continue
			}
			docs = append(docs, m)
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(text), &m); err != nil {
			if ref.Kind == "Secret" {
				err = errors.New("(the YAML error is not shown: it may quote the Secret)")
			}
			errs = append(errs, lineError{line: ref.line, err: fmt.Errorf("spec.valuesFrom[%d]: %s %s, key %s, is not a values document: %w", i, ref.Kind, ref.Name, ref.ValuesKey, err)})
			continue
		}
		docs = append(docs, m)
	}
	return helm.MergeValues(append(docs, p.r.Values)...), errs, unread
}

// refValue is the text at key of a ConfigMap (data) or Secret (stringData over base64 data), or
// why it cannot be read.
func refValue(o *object, key string) (string, string) {
	if o == nil {
		return "", "is not among the manifests"
	}
	if o.Kind == "Secret" {
		if o.topLevel("sops") != nil {
			return "", "is encrypted (SOPS)"
		}
		if v := mapValue(o.topLevel("stringData"), key); v != nil {
			return v.Value, ""
		}
		if v := mapValue(o.topLevel("data"), key); v != nil {
			return secretData(v.Value)
		}
		return "", "has no such key"
	}
	if v := mapValue(o.topLevel("data"), key); v != nil {
		return v.Value, ""
	}
	return "", "has no such key"
}

// secretData is a value of a Secret's data (base64), or why it cannot be read.
func secretData(v string) (string, string) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil {
		return "", "holds a value that is not base64"
	}
	return string(b), ""
}

// mapValue is the scalar at key of a mapping node, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1]
		}
	}
	return nil
}

// argoReleases reads the Helm sources of an Argo CD Application (argoproj.io) that install one
// of NVIDIA's charts: helm.valueFiles in order, helm.values (text) over them, helm.valuesObject
// over it, helm.parameters over all. A value file after a $ref is read from the repository the
// Application is in (repo), at the path after the ref: the source with that ref is taken to be
// this repository, as an ApplicationSet's git generator is. One not found there (another
// repository), a URL, or a file of the chart's own package (a path with no ref: the chart is not
// downloaded) is a warning, and the release is read without it; so is every value file when
// there is no repository (manifests read from stdin). A missing file is skipped quietly with
// ignoreMissingValueFiles; a ref no source has, or a file that is not YAML values, is an error,
// and the release is not read (Argo CD renders nothing).
// https://argo-cd.readthedocs.io/en/stable/user-guide/helm/ (Values Files; Helm Value Files from
// External Git Repository)
func argoReleases(o *object, repo Repository) (out []ChartRelease, warns []string, err error) {
	app, err := readArgoApp(o)
	if err != nil {
		return nil, nil, err
	}
	for _, src := range app.sources {
		if !IsReadChart(src.Chart) {
			continue
		}
		docs, ws, err := src.releaseValueFiles(o, app, repo)
		warns = append(warns, ws...)
		if err != nil {
			return out, warns, err
		}
		over, err := src.overrides(o)
		if err != nil {
			return out, warns, err
		}
		docs = append(docs, over...)
		out = append(out, ChartRelease{Chart: src.Chart, Name: src.releaseName(o), Namespace: app.namespace,
			Values: helm.MergeValues(docs...), Source: o.Kind + " " + o.namespace() + "/" + o.Metadata.Name, File: o.file, Line: o.line})
	}
	return out, warns, nil
}

// releaseValueFiles reads the value files of a source of a chart from a Helm repository, as
// argoReleases says.
func (s argoSource) releaseValueFiles(o *object, app argoApp, repo Repository) (docs []map[string]any, warns []string, err error) {
	if s.Helm == nil {
		return nil, nil, nil
	}
	for _, p := range s.Helm.ValueFiles {
		ref, rest, ok := strings.Cut(p, "/")
		switch {
		case strings.Contains(p, "://"):
			warns = append(warns, fmt.Sprintf("%s.helm.valueFiles: %s is not in the repository: the values of chart %s are read without it", s.field, p, s.Chart))
			continue
		case !ok || !strings.HasPrefix(ref, "$"):
			warns = append(warns, fmt.Sprintf("%s.helm.valueFiles: %s is a file of chart %s, which gpuguard does not download: its values are read without it", s.field, p, s.Chart))
			continue
		}
		url, known := app.refs[ref[1:]]
		switch {
		case !known:
			return docs, warns, lineError{line: o.line, err: fmt.Errorf("%s.helm.valueFiles: %s: no source has ref %s", s.field, p, ref[1:])}
		case repo == nil:
			warns = append(warns, fmt.Sprintf("%s.helm.valueFiles: %s is not read (no repository is read with the manifests): the values of chart %s are read without it", s.field, p, s.Chart))
			continue
		}
		data, rerr := repo.ReadFile(o.file, rest)
		if errors.Is(rerr, fs.ErrNotExist) && s.Helm.IgnoreMissingValueFiles {
			continue
		}
		if rerr != nil {
			why := "not found"
			if !errors.Is(rerr, fs.ErrNotExist) {
				why = rerr.Error()
			}
			warns = append(warns, fmt.Sprintf("%s.helm.valueFiles: %s is not in the repository read (%s; ref %s is %s): the values of chart %s are read without it", s.field, p, why, ref[1:], url, s.Chart))
			continue
		}
		v, perr := helm.ParseValues(data)
		if perr != nil {
			// At the Application, naming the line of the value file.
			where := ""
			line, msg := yamlpos.Split(perr)
			if line > 0 {
				where = fmt.Sprintf(" (line %d)", line)
			}
			return docs, warns, lineError{line: o.line, err: fmt.Errorf("%s.helm.valueFiles: %s%s: %s", s.field, p, where, msg)}
		}
		docs = append(docs, v)
	}
	return docs, warns, nil
}

// nodeValues decodes values written as YAML in the manifest; nil when there are none.
func nodeValues(o *object, n *yaml.Node, field string) (map[string]any, error) {
	if n.Kind == 0 {
		return nil, nil
	}
	var v map[string]any
	if err := n.Decode(&v); err != nil {
		return nil, lineError{line: o.lineOf(n), err: fmt.Errorf("%s: %w", field, err)}
	}
	return helm.MergeValues(v), nil
}
