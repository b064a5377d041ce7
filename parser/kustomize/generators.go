package kustomize

import (
	"bufio"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
)

// generator is one configMapGenerator or secretGenerator entry: the object's name, namespace,
// and data from files ("key=path" or "path", keyed by its base name), literals ("key=value") and
// env files (KEY=VALUE lines); behavior create (the default), merge or replace, against an object
// of the same name a base generated.
// https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/configmapgenerator/
type generator struct {
	Name      string   `yaml:"name"`
	Namespace string   `yaml:"namespace"`
	Behavior  string   `yaml:"behavior"`
	Files     []string `yaml:"files"`
	Literals  []string `yaml:"literals"`
	Envs      []string `yaml:"envs"`
	Env       string   `yaml:"env"`
}

// generate makes the ConfigMaps and Secrets a kustomization's generators declare, or changes
// those of the same name its bases generated (behavior merge or replace). A Flux HelmRelease may
// take its values from them (spec.valuesFrom): that is what gpuguard reads them for. Their names
// keep no content hash: kustomize's suffix is renamed away in the references it knows, so a
// reference by the declared name finds them here too.
func (b *builder) generate(file, dir string, k *Kustomization, objs []Object) []Object {
	for _, g := range []struct {
		kind string
		list []generator
	}{{"ConfigMap", k.ConfigMapGenerator}, {"Secret", k.SecretGenerator}} {
		for _, gen := range g.list {
			line := k.line(gen.Name)
			if gen.Name == "" {
				b.errorf(file, line, "%s generator without a name", g.kind)
				continue
			}
			data, ok := b.generatorData(file, line, dir, g.kind, gen)
			if !ok {
				continue
			}
			var base *Object
			for i := range objs {
				if scalar(yamlpos.Value(objs[i].Node, "kind")) == g.kind && objs[i].named(gen.Name) {
					base = &objs[i]
				}
			}
			switch gen.Behavior {
			case "", "create":
				objs = append(objs, Object{Node: generatedObject(g.kind, gen, data, line), File: file})
			case "merge", "replace":
				if base == nil {
					b.errorf(file, line, "%s generator %q: behavior %s, but no base generates %s %s", g.kind, gen.Name, gen.Behavior, g.kind, gen.Name)
					continue
				}
				key := dataKey(g.kind)
				if gen.Behavior == "replace" {
					set(base.Node, key, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"})
				}
				for _, kv := range data {
					setScalar(ensureMap(base.Node, key), kv[0], kv[1])
				}
			default:
				b.errorf(file, line, "%s generator %q: behavior %q is not create, merge or replace", g.kind, gen.Name, gen.Behavior)
			}
		}
	}
	return objs
}

// dataKey is where a generated object's values go: a Secret's are written as stringData (not
// base64), which the API server reads as data.
func dataKey(kind string) string {
	if kind == "Secret" {
		return "stringData"
	}
	return "data"
}

// generatorData reads a generator's key and value pairs, in order; false when one cannot be read
// (an error says why).
func (b *builder) generatorData(file string, line int, dir, kind string, gen generator) ([][2]string, bool) {
	var out [][2]string
	for _, f := range gen.Files {
		key, path, found := strings.Cut(f, "=")
		if !found {
			key, path = filepath.Base(filepath.FromSlash(f)), f
		}
		p := join(dir, path)
		text, err := b.links.ReadFile(p, maxFile)
		if err != nil {
			b.errorf(file, line, "%s generator %q: file %q: %v", kind, gen.Name, path, err)
			return nil, false
		}
		b.files[p] = true
		out = append(out, [2]string{key, string(text)})
	}
	for _, l := range gen.Literals {
		key, value, found := strings.Cut(l, "=")
		if !found || key == "" {
			b.errorf(file, line, "%s generator %q: literal %q is not key=value", kind, gen.Name, l)
			return nil, false
		}
		out = append(out, [2]string{key, strings.Trim(value, `"'`)})
	}
	envs := gen.Envs
	if gen.Env != "" {
		envs = append(envs, gen.Env)
	}
	for _, e := range envs {
		p := join(dir, e)
		text, err := b.links.ReadFile(p, maxFile)
		if err != nil {
			b.errorf(file, line, "%s generator %q: env file %q: %v", kind, gen.Name, e, err)
			return nil, false
		}
		b.files[p] = true
		sc := bufio.NewScanner(strings.NewReader(string(text)))
		for sc.Scan() {
			t := strings.TrimSpace(sc.Text())
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			key, value, _ := strings.Cut(t, "=")
			out = append(out, [2]string{key, value})
		}
	}
	return out, true
}

// generatedObject is the ConfigMap or Secret a generator makes, at the generator's line.
func generatedObject(kind string, gen generator, data [][2]string, line int) *yaml.Node {
	str := func(v string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: line}
	}
	meta := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line, Content: []*yaml.Node{str("name"), str(gen.Name)}}
	if gen.Namespace != "" {
		meta.Content = append(meta.Content, str("namespace"), str(gen.Namespace))
	}
	values := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
	sorted := append([][2]string(nil), data...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i][0] < sorted[j][0] })
	for _, kv := range sorted {
		values.Content = append(values.Content, str(kv[0]), str(kv[1]))
	}
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line, Content: []*yaml.Node{
		str("apiVersion"), str("v1"), str("kind"), str(kind), str("metadata"), meta, str(dataKey(kind)), values,
	}}
}
