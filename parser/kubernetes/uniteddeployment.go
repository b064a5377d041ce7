package kubernetes

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// OpenKruise's UnitedDeployment (apps.kruise.io/v1alpha1) runs one workload per subset of its
// topology (a zone, a node pool, spot or on-demand capacity) from one template, and splits its
// replicas between them. Each subset is one resource here: its own share of the pods, on the
// nodes its nodeSelectorTerm selects, with its tolerations and its patch applied.
//
// How the controller splits the replicas (openkruise/kruise,
// pkg/controller/uniteddeployment/allocator.go and ParseSubsetReplicas, read 2026-11-27):
//   - spec.replicas defaults to 1 (SetDefaultsUnitedDeployment).
//   - When no subset sets minReplicas or maxReplicas, a subset's replicas is a number or a
//     percentage of spec.replicas (rounded half up). The subsets that set none share what is left
//     evenly; the pods that do not divide go, one each, to the last of them by name (the order
//     the controller sorts new subsets in: by current pods, all 0, then name). Replicas that add
//     up to more than spec.replicas, or to less when every subset sets its own, are refused.
//   - When some subset sets minReplicas or maxReplicas (elastic allocation, Kruise 1.5), each
//     subset in order first gets its minReplicas (default 0), then up to its maxReplicas
//     (default no limit), until spec.replicas are given out.
//
// The subset's nodeSelectorTerm is added to every required node affinity term of the pods (the
// adapter's attachNodeAffinity; only matchExpressions), its tolerations are appended, and its
// patch is merged into the pod template (a strategic merge: containers by name).
func init() {
	register("UnitedDeployment", "apps.kruise.io", extractUnitedDeployment)
}

// unitedTemplates are the workload kinds a UnitedDeployment's template may hold; exactly one
// is set.
var unitedTemplates = []string{"statefulSetTemplate", "advancedStatefulSetTemplate", "cloneSetTemplate", "deploymentTemplate"}

type unitedSubset struct {
	Name             string           `yaml:"name"`
	NodeSelectorTerm nodeSelectorTerm `yaml:"nodeSelectorTerm"`
	Tolerations      []toleration     `yaml:"tolerations"`
	Replicas         yaml.Node        `yaml:"replicas"`
	MinReplicas      yaml.Node        `yaml:"minReplicas"`
	MaxReplicas      yaml.Node        `yaml:"maxReplicas"`
	Patch            yaml.Node        `yaml:"patch"`
}

func extractUnitedDeployment(o *object) ([]role, error) {
	var spec struct {
		Replicas *int                 `yaml:"replicas"`
		Template map[string]yaml.Node `yaml:"template"`
		Topology struct {
			Subsets []unitedSubset `yaml:"subsets"`
		} `yaml:"topology"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	var kind string
	var workload *yaml.Node
	for _, k := range unitedTemplates {
		if n, ok := spec.Template[k]; ok && isSet(&n) {
			if workload != nil {
				return nil, fmt.Errorf("template: sets both %s and %s; a UnitedDeployment holds one workload template", kind, k)
			}
			kind, workload = k, &n
		}
	}
	if workload == nil {
		return nil, fmt.Errorf("template: sets none of %s", strings.Join(unitedTemplates, ", "))
	}
	var tmpl struct {
		Metadata objectMeta `yaml:"metadata"`
		Spec     struct {
			Template yaml.Node `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := workload.Decode(&tmpl); err != nil {
		return nil, fmt.Errorf("template.%s: %w", kind, err)
	}
	subsets := spec.Topology.Subsets
	if len(subsets) == 0 {
		return nil, fmt.Errorf("topology.subsets: none declared; the UnitedDeployment runs no workload")
	}
	seen := map[string]bool{}
	for i, s := range subsets {
		if s.Name == "" {
			return nil, fmt.Errorf("topology.subsets[%d]: has no name", i)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("topology.subsets[%d]: the name %q is used twice", i, s.Name)
		}
		seen[s.Name] = true
	}
	replicas := intOr(spec.Replicas, 1)
	if replicas < 0 {
		return nil, fmt.Errorf("replicas: %d is not a number of pods", replicas)
	}
	split := func(total int) (map[string]int, error) { return unitedSplit(subsets, total) }
	counts, err := split(replicas)
	if err != nil {
		return nil, err
	}
	var out []role
	for i, s := range subsets {
		pod := &tmpl.Spec.Template
		if isSet(&s.Patch) {
			if s.Patch.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("topology.subsets[%d].patch: is not an object", i)
			}
			pod = mergeSpec(pod, &s.Patch)
		}
		var t podTemplate
		if pod.Kind != 0 {
			if err := pod.Decode(&t); err != nil {
				return nil, fmt.Errorf("topology.subsets[%d]: the patched pod template: %w", i, err)
			}
		}
		// Kruise copies the workload template's labels and annotations onto the subset's
		// workload; the pod template's own win over them.
		t.Metadata = layeredMeta(t.Metadata, tmpl.Metadata, t.Metadata)
		t.Spec = withSubsetPlacement(t.Spec, s)
		name := s.Name
		r := role{name: name, replicas: counts[name], template: t, scalable: true, named: true,
			unscaledNote: unitedNote(counts[name], replicas, s)}
		r.share = func(total int) (int, error) {
			c, err := split(total)
			return c[name], err
		}
		out = append(out, r)
	}
	return out, nil
}

// withSubsetPlacement adds a subset's node selector term to every required node affinity term
// of the pod (one term when it has none) and appends its tolerations.
func withSubsetPlacement(spec podSpec, s unitedSubset) podSpec {
	if exprs := s.NodeSelectorTerm.MatchExpressions; len(exprs) > 0 {
		var terms []nodeSelectorTerm
		if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.Required != nil {
			terms = a.NodeAffinity.Required.Terms
		}
		if len(terms) == 0 {
			terms = []nodeSelectorTerm{{}}
		}
		out := make([]nodeSelectorTerm, len(terms))
		for i, t := range terms {
			out[i] = nodeSelectorTerm{MatchExpressions: append(append([]requirement(nil), t.MatchExpressions...), exprs...)}
		}
		spec.Affinity = &affinity{NodeAffinity: &nodeAffinity{Required: &nodeSelector{Terms: out}}}
	}
	if len(s.Tolerations) > 0 {
		spec.Tolerations = append(append([]toleration(nil), spec.Tolerations...), s.Tolerations...)
	}
	return spec
}

func unitedNote(n, total int, s unitedSubset) string {
	return fmt.Sprintf("subset %s: %d of the UnitedDeployment's %d pod%s", s.Name, n, total, parser.Plural(int64(total)))
}

// unitedSplit is the controller's allocation of total pods between the subsets, by name.
func unitedSplit(subsets []unitedSubset, total int) (map[string]int, error) {
	elastic := false
	for _, s := range subsets {
		if isSet(&s.MinReplicas) || isSet(&s.MaxReplicas) {
			elastic = true
		}
	}
	out := make(map[string]int, len(subsets))
	if elastic {
		mins, maxes := make([]int, len(subsets)), make([]int, len(subsets))
		for i, s := range subsets {
			var err error
			if mins[i], err = subsetCount(&s.MinReplicas, total, 0, i, "minReplicas"); err != nil {
				return nil, err
			}
			if maxes[i], err = subsetCount(&s.MaxReplicas, total, math.MaxInt32, i, "maxReplicas"); err != nil {
				return nil, err
			}
			if mins[i] > maxes[i] {
				return nil, fmt.Errorf("topology.subsets[%d]: minReplicas (%d) is more than maxReplicas (%d)", i, mins[i], maxes[i])
			}
		}
		left := total
		for i, s := range subsets {
			n := min(mins[i], left)
			out[s.Name], left = n, left-n
		}
		for i, s := range subsets {
			n := min(maxes[i]-mins[i], left)
			out[s.Name], left = out[s.Name]+n, left-n
		}
		return out, nil
	}
	given, sum := 0, 0
	for i, s := range subsets {
		if !isSet(&s.Replicas) {
			continue
		}
		n, err := subsetCount(&s.Replicas, total, 0, i, "replicas")
		if err != nil {
			return nil, err
		}
		out[s.Name], given, sum = n, given+1, sum+n
	}
	switch {
	case sum > total:
		return nil, fmt.Errorf("topology.subsets: their replicas add up to %d, more than the UnitedDeployment's %d; the controller refuses to split them", sum, total)
	case sum < total && given == len(subsets):
		return nil, fmt.Errorf("topology.subsets: their replicas add up to %d, less than the UnitedDeployment's %d; the controller refuses to split them", sum, total)
	case given == len(subsets):
		return out, nil
	}
	var rest []string
	for _, s := range subsets {
		if !isSet(&s.Replicas) {
			rest = append(rest, s.Name)
		}
	}
	sort.Strings(rest)
	left := total - sum
	each, extra := left/len(rest), left%len(rest)
	for i := len(rest) - 1; i >= 0; i-- {
		out[rest[i]] = each
		if extra > 0 {
			out[rest[i]]++
			extra--
		}
	}
	return out, nil
}

// subsetCount reads a subset's count: a number, or a percentage ("50%") of the UnitedDeployment's
// replicas rounded half up; absent, def.
func subsetCount(n *yaml.Node, total, def, i int, field string) (int, error) {
	if !isSet(n) {
		return def, nil
	}
	bad := func(why string) error {
		return fmt.Errorf("topology.subsets[%d].%s: %q %s", i, field, n.Value, why)
	}
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("topology.subsets[%d].%s: is not a number or a percentage", i, field)
	}
	if n.Tag == "!!int" {
		v, err := strconv.Atoi(n.Value)
		switch {
		case err != nil:
			return 0, bad("is not a number of pods")
		case v < 0:
			return 0, bad("is less than 0")
		case v > maxPods:
			return 0, bad("is not a number of pods")
		}
		return v, nil
	}
	p, ok := strings.CutSuffix(n.Value, "%")
	if !ok {
		return 0, bad("is neither a number nor a percentage ending in %")
	}
	v, err := strconv.Atoi(p)
	if err != nil || v < 0 || v > 100 {
		return 0, bad("is not a percentage from 0% to 100%")
	}
	return int(math.Floor(float64(total)*float64(v)/100 + 0.5)), nil
}

// isSet says whether a field decoded into a yaml.Node was given a value (not absent, not null).
func isSet(n *yaml.Node) bool { return n.Kind != 0 && n.Tag != "!!null" }
