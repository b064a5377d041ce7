package kubernetes

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
)

// KServe's LLMInferenceService (serving.kserve.io/v1alpha1) serves one LLM with llm-d's
// architecture. Its spec is composed: the LLMInferenceServiceConfigs named in baseRefs are merged
// in order, the service's own spec last, the way the controller does (a strategic merge:
// containers by name, other lists replaced). The composed workload runs
//   - replicas pods (default 1) of template on one node each, or
//   - with worker set, a LeaderWorkerSet of replicas groups of parallelism's size (data/dataLocal
//     for data parallelism, else pipeline, else 1): template as each group's leader and worker
//     for the rest (worker for all of a group when there is no template),
//
// and prefill, when set, is a second workload of the same shape for disaggregated serving.
// Sources: the CRD's Go types (pkg/apis/serving/v1alpha1/llm_inference_service_types.go,
// ParallelismSpec.GetSize) and the multi-node workload reconciler, read 2026-11-22.

func init() {
	register("LLMInferenceService", "serving.kserve.io", extractLLMInferenceService)
}

type llmWorkload struct {
	Replicas    *int     `yaml:"replicas"`
	Parallelism *llmPar  `yaml:"parallelism"`
	Template    *podSpec `yaml:"template"`
	Worker      *podSpec `yaml:"worker"`
}

type llmPar struct {
	Pipeline  *int `yaml:"pipeline"`
	Data      *int `yaml:"data"`
	DataLocal *int `yaml:"dataLocal"`
}

// groupSize is the LeaderWorkerSet size KServe gives a multi-node workload.
func (p *llmPar) groupSize() int {
	switch {
	case p == nil:
		return 1
	case p.Data != nil && *p.Data > 0 || p.DataLocal != nil && *p.DataLocal > 0:
		return max(max(intOr(p.Data, 1), 1)/max(intOr(p.DataLocal, 1), 1), 1)
	case p.Pipeline != nil && *p.Pipeline > 0:
		return *p.Pipeline
	}
	return 1
}

// wellKnown stands for the configurations KServe ships and composes into every service (its
// default pod template among them): never among the files read.
const wellKnown = "KServe's default pod template (a well-known configuration)"

func extractLLMInferenceService(o *object) ([]role, error) {
	var refs struct {
		BaseRefs []struct {
			Name string `yaml:"name"`
		} `yaml:"baseRefs"`
		Template *yaml.Node `yaml:"template"`
		Worker   *yaml.Node `yaml:"worker"`
	}
	if err := decodeSpec(o, &refs); err != nil {
		return nil, err
	}
	var keys []string
	for _, r := range refs.BaseRefs {
		keys = append(keys, "LLMInferenceServiceConfig/"+o.namespace()+"/"+r.Name)
	}
	if refs.Template == nil && refs.Worker == nil && len(keys) == 0 {
		// The pods are KServe's default template: what they request is not in the files.
		keys = append(keys, wellKnown)
	}
	if len(keys) == 0 {
		return llmRoles(o, &o.Spec, "")
	}
	return nil, &reference{refs: keys, missing: "GPUs the configurations it is composed of request",
		build: func(found map[string]*object) ([]role, error) {
			spec := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			note := ""
			for _, k := range keys {
				cfg, ok := found[k]
				if !ok {
					note = appendNote(note, k+" is not among the files read: priced without it")
					continue
				}
				spec = mergeSpec(spec, &cfg.Spec)
			}
			spec = mergeSpec(spec, &o.Spec)
			roles, err := llmRoles(o, spec, note)
			return roles, err
		}}
}

func appendNote(note, s string) string {
	switch {
	case note == "":
		return s
	case s == "":
		return note
	}
	return note + "; " + s
}

// llmRoles reads the composed spec into the pods of its decode (or only) and prefill workloads.
func llmRoles(o *object, spec *yaml.Node, note string) ([]role, error) {
	var s struct {
		llmWorkload `yaml:",inline"`
		Prefill     *llmWorkload `yaml:"prefill"`
	}
	if spec.Kind != 0 {
		if err := spec.Decode(&s); err != nil {
			return nil, err
		}
	}
	prefix := ""
	if s.Prefill != nil {
		prefix = "decode"
	}
	roles := workloadRoles(s.llmWorkload, prefix, note)
	if s.Prefill != nil {
		roles = append(roles, workloadRoles(*s.Prefill, "prefill", note)...)
	}
	return roles, nil
}

// workloadRoles is one workload's pods: one role on a node each, or a leader and workers.
func workloadRoles(w llmWorkload, prefix, note string) []role {
	replicas := intOr(w.Replicas, 1)
	name := func(s string) string {
		switch {
		case prefix == "":
			return s
		case s == "":
			return prefix
		}
		return prefix + "-" + s
	}
	if w.Worker == nil {
		var spec podSpec
		if w.Template != nil {
			spec = *w.Template
		}
		return []role{{name: name(""), replicas: replicas, template: podTemplate{Spec: spec}, note: note}}
	}
	size := w.Parallelism.groupSize()
	unit := "groups"
	if replicas == 1 {
		unit = "group"
	}
	groups := appendNote(fmt.Sprintf("%d %s of %d pods (LeaderWorkerSet)", replicas, unit, size), note)
	if w.Template == nil {
		return []role{{name: name(""), replicas: replicas * size, perReplica: size, template: podTemplate{Spec: *w.Worker}, note: groups}}
	}
	return []role{
		{name: name("leader"), replicas: replicas, template: podTemplate{Spec: *w.Template}, note: groups},
		{name: name("worker"), replicas: replicas * (size - 1), perReplica: size - 1, template: podTemplate{Spec: *w.Worker}, note: groups},
	}
}

// mergeSpec merges over into base as KServe composes configurations: mappings key by key, the
// containers lists by container name, anything else replaced. base is not modified.
func mergeSpec(base, over *yaml.Node) *yaml.Node {
	if over == nil || over.Kind == 0 {
		return base
	}
	if base == nil || base.Kind != yaml.MappingNode || over.Kind != yaml.MappingNode {
		return over
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: append([]*yaml.Node{}, base.Content...)}
	for i := 0; i+1 < len(over.Content); i += 2 {
		k, v := over.Content[i], over.Content[i+1]
		j := -1
		for x := 0; x+1 < len(out.Content); x += 2 {
			if out.Content[x].Value == k.Value {
				j = x
			}
		}
		switch {
		case j < 0:
			out.Content = append(out.Content, k, v)
		case (k.Value == "containers" || k.Value == "initContainers") && v.Kind == yaml.SequenceNode && out.Content[j+1].Kind == yaml.SequenceNode:
			out.Content[j+1] = mergeByName(out.Content[j+1], v)
		default:
			out.Content[j+1] = mergeSpec(out.Content[j+1], v)
		}
	}
	return out
}

func mergeByName(base, over *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: append([]*yaml.Node{}, base.Content...)}
	for _, item := range over.Content {
		merged := false
		if name := yamlpos.Value(item, "name"); name != nil && name.Value != "" {
			for i, b := range out.Content {
				if bn := yamlpos.Value(b, "name"); bn != nil && bn.Value == name.Value {
					out.Content[i] = mergeSpec(b, item)
					merged = true
				}
			}
		}
		if !merged {
			out.Content = append(out.Content, item)
		}
	}
	return out
}
