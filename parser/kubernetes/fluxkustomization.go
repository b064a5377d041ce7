package kubernetes

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// fluxKustomizationEdits are the fields of a Flux Kustomization's spec that change what its path
// builds as an Argo CD source's kustomize settings do (kustomize.BuildEdited): the same names,
// but targetNamespace for namespace.
var fluxKustomizationEdits = map[string]string{"namePrefix": "namePrefix", "nameSuffix": "nameSuffix", "patches": "patches", "components": "components", "targetNamespace": "namespace"}

// kustomization reads a Flux Kustomization whose source is a GitRepository: its path (a
// kustomization, or a directory Flux makes one of), its targetNamespace, namePrefix,
// nameSuffix, patches and components (as edits), and spec.postBuild's variables (substitute over
// substituteFrom's ConfigMaps and Secrets among the manifests, in order). ok is false for one
// of another source (an OCIRepository, a Bucket). A substituteFrom not among the manifests is a
// warning unless optional.
// https://fluxcd.io/flux/components/kustomize/kustomizations/
func (x *fluxObjects) kustomization(o *object) (c GitSource, ok bool, errs, warns []parser.Error) {
	var spec struct {
		Path            string  `yaml:"path"`
		SourceRef       fluxRef `yaml:"sourceRef"`
		TargetNamespace string  `yaml:"targetNamespace"`
		PostBuild       *struct {
			Substitute     map[string]string `yaml:"substitute"`
			SubstituteFrom []struct {
				Kind     string `yaml:"kind"`
				Name     string `yaml:"name"`
				Optional bool   `yaml:"optional"`
			} `yaml:"substituteFrom"`
		} `yaml:"postBuild"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return c, false, []parser.Error{specError(o, err)}, nil
	}
	if spec.SourceRef.Kind != "GitRepository" {
		return c, false, nil, nil
	}
	c = GitSource{Tool: "Flux", Owner: o.Kind + " " + o.namespace() + "/" + o.Metadata.Name, File: o.file, Line: o.line,
		Path: spec.Path, Namespace: spec.TargetNamespace, Kustomization: true}
	if c.Path == "" {
		c.Path = "."
	}
	ns := spec.SourceRef.Namespace
	if ns == "" {
		ns = o.namespace()
	}
	if repo := x.repos[ns+"/"+spec.SourceRef.Name]; repo != nil {
		var rs struct {
			Ignore *string `yaml:"ignore"`
		}
		if err := decodeSpec(repo, &rs); err == nil {
			c.SourceIgnore = rs.Ignore
		}
	}
	edits := &yaml.Node{Kind: yaml.MappingNode, Line: o.lineOf(&o.Spec)}
	for i := 0; o.Spec.Kind == yaml.MappingNode && i+1 < len(o.Spec.Content); i += 2 {
		if key, ok := fluxKustomizationEdits[o.Spec.Content[i].Value]; ok {
			v := copyNode(o.Spec.Content[i+1], 0)
			shiftLines(v, o.offset)
			edits.Content = append(edits.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key, Line: o.lineOf(o.Spec.Content[i])}, v)
		}
	}
	if len(edits.Content) > 0 {
		c.Kustomize = edits
	}
	if pb := spec.PostBuild; pb != nil {
		c.Variables = map[string]string{}
		for _, ref := range pb.SubstituteFrom {
			data, why := refData(x.sources[ref.Kind+"/"+o.namespace()+"/"+ref.Name])
			if why != "" {
				if !ref.Optional {
					warns = append(warns, parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s: spec.postBuild.substituteFrom %s %s %s: its variables are not substituted", o.address(), ref.Kind, ref.Name, why)})
				}
				continue
			}
			for k, v := range data {
				c.Variables[k] = v
			}
		}
		for k, v := range pb.Substitute {
			c.Variables[k] = v
		}
	}
	return c, true, nil, warns
}

// refData is every key of a ConfigMap's data, or of a Secret's data (base64) under its
// stringData, or why it cannot be read.
func refData(o *object) (map[string]string, string) {
	if o == nil {
		return nil, "is not among the manifests"
	}
	if o.Kind == "Secret" && o.topLevel("sops") != nil {
		return nil, "is encrypted (SOPS)"
	}
	out := map[string]string{}
	data := o.topLevel("data")
	for i := 0; data != nil && data.Kind == yaml.MappingNode && i+1 < len(data.Content); i += 2 {
		v := data.Content[i+1].Value
		if o.Kind == "Secret" {
			var why string
			if v, why = secretData(v); why != "" {
				return nil, why
			}
		}
		out[data.Content[i].Value] = v
	}
	if o.Kind == "Secret" {
		if sd := o.topLevel("stringData"); sd != nil && sd.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(sd.Content); i += 2 {
				out[sd.Content[i].Value] = sd.Content[i+1].Value
			}
		}
	}
	return out, ""
}
