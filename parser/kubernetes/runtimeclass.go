package kubernetes

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// RuntimeClasses (node.k8s.io/v1) name the container runtime a pod runs under: Kata Containers'
// VMs, gVisor, a confidential-computing runtime. The API server's RuntimeClass admission plugin
// changes each pod that names one before it is scheduled
// (https://kubernetes.io/docs/concepts/containers/runtime-class/ and
// https://kubernetes.io/docs/concepts/scheduling-eviction/pod-overhead/):
//
//   - overhead.podFixed becomes the pod's spec.overhead: what the sandbox itself takes of the
//     node. The scheduler, ResourceQuota, the LimitRanger's Pod items, Karpenter and Kueue add it
//     to the pod's requests (and to its limits where those are set).
//   - scheduling.nodeSelector is merged into the pod's nodeSelector, and scheduling.tolerations
//     are added to the pod's (those it has already are not added twice). A pod whose
//     nodeSelector sets one of the class's keys to another value is refused.
//   - A pod that sets spec.overhead itself is refused unless its class sets the same; a pod that
//     names a RuntimeClass that does not exist is refused too.
//
// gpuguard applies a class read among the files to the pod templates that name it, before a
// LimitRange's defaults: what the pods then ask for is what their nodes must hold and what
// their shares of those nodes cost. A pod naming gvisor where no class of that name is read,
// but a GKE Sandbox pool is among the node groups, takes GKE's own class (gkesandbox.go).

// runtimeClass is what a RuntimeClass does to the pods that name it.
type runtimeClass struct {
	address      string
	overhead     map[string]poolLimit // overhead.podFixed, by resource
	nodeSelector map[string]string
	tolerations  []toleration
}

// isRuntimeClass reports whether o is a RuntimeClass, of an API version still served or not.
func isRuntimeClass(o *object) bool {
	return o.Kind == "RuntimeClass" && group(o.APIVersion) == "node.k8s.io"
}

// decodeRuntimeClass reads a RuntimeClass, whose fields sit beside its metadata. One the API
// server refuses (an API version it no longer serves, no handler, an overhead that is not a
// quantity) is an error, and no pod runs under it.
func decodeRuntimeClass(o *object) (*runtimeClass, error) {
	if o.APIVersion != "node.k8s.io/v1" {
		return nil, fmt.Errorf("Kubernetes serves RuntimeClass as node.k8s.io/v1 only (node.k8s.io/v1beta1 went in 1.25), so the API server refuses this %s manifest (not read)", o.APIVersion)
	}
	var raw struct {
		Handler  yaml.Node `yaml:"handler"`
		Overhead struct {
			PodFixed yaml.Node `yaml:"podFixed"`
		} `yaml:"overhead"`
		Scheduling struct {
			NodeSelector map[string]string `yaml:"nodeSelector"`
			Tolerations  []toleration      `yaml:"tolerations"`
		} `yaml:"scheduling"`
	}
	if o.doc != nil {
		if err := o.doc.Decode(&raw); err != nil {
			return nil, err
		}
	}
	if h := &raw.Handler; h.Kind != yaml.ScalarNode || h.Tag == "!!null" || h.Value == "" {
		return nil, lineError{line: o.lineOf(h), err: fmt.Errorf("handler is required: the API server refuses the RuntimeClass")}
	}
	rc := &runtimeClass{address: o.address(), nodeSelector: raw.Scheduling.NodeSelector, tolerations: raw.Scheduling.Tolerations}
	fixed := &raw.Overhead.PodFixed
	switch {
	case fixed.Kind == 0 || fixed.Tag == "!!null":
	case fixed.Kind != yaml.MappingNode:
		return nil, lineError{line: o.lineOf(fixed), err: fmt.Errorf("overhead.podFixed must map resources to quantities")}
	default:
		rc.overhead = map[string]poolLimit{}
		for i := 0; i+1 < len(fixed.Content); i += 2 {
			k, v := fixed.Content[i].Value, fixed.Content[i+1]
			if v.Kind != yaml.ScalarNode {
				return nil, lineError{line: o.lineOf(v), err: fmt.Errorf("overhead.podFixed: %s: quantity must be a number", k)}
			}
			q, err := computeQuantity(v.Value)
			if err != nil {
				return nil, lineError{line: o.lineOf(v), err: fmt.Errorf("overhead.podFixed: %s: %w", k, err)}
			}
			rc.overhead[k] = poolLimit{resource: k, amount: q, text: v.Value}
		}
	}
	return rc, nil
}

// runtimeClasses are the RuntimeClasses read, by name (several of one name are several
// clusters'; a pod takes the one declared nearest it), and the GKE Sandbox pools among the
// node groups, whose cluster has GKE's own class (gkeSandboxClass).
type runtimeClasses struct {
	byName     map[string][]rooted[*runtimeClass]
	gkeSandbox []string
}

// add records a RuntimeClass read from o.
func (rcs *runtimeClasses) add(o *object, rc *runtimeClass) {
	if rcs.byName == nil {
		rcs.byName = map[string][]rooted[*runtimeClass]{}
	}
	rcs.byName[o.Metadata.Name] = append(rcs.byName[o.Metadata.Name], rooted[*runtimeClass]{o.rootName(), rc})
}

// runtimeClassOutcome is what a pod template's RuntimeClass does to it: the spec with its
// overhead and scheduling, notes saying so, and why the API server refuses the pods ("" when
// it admits them; the spec is then as written).
type runtimeClassOutcome struct {
	spec    podSpec
	notes   []string
	refused string
}

// apply gives spec, of a pod template of o, what its RuntimeClass adds. spec itself is not
// changed: the outcome's spec is a copy.
func (rcs runtimeClasses) apply(o *object, spec podSpec) runtimeClassOutcome {
	out := runtimeClassOutcome{spec: spec}
	name := spec.RuntimeClassName
	if name == "" {
		if len(spec.Overhead) > 0 {
			out.refused = "its pods set spec.overhead but name no RuntimeClass, whose overhead it must be"
		}
		return out
	}
	rc := nearestOf(rcs.byName[name], o.rootName())
	if rc == nil && name == gkeSandboxRuntime && len(rcs.gkeSandbox) > 0 {
		rc = gkeSandboxClass
		out.notes = append(out.notes, fmt.Sprintf("its pods run under RuntimeClass %s, which is not among the files read: it is GKE Sandbox's, which GKE creates in a cluster with a sandboxed node pool (%s); any pod overhead it sets is not counted", name, strings.Join(rcs.gkeSandbox, ", ")))
	}
	if rc == nil {
		out.notes = append(out.notes, fmt.Sprintf("its pods run under RuntimeClass %s, which is not among the files read: the pod overhead and node selection it may add are not counted", name))
		return out
	}
	var why []string
	switch {
	case len(spec.Overhead) > 0 && len(rc.overhead) == 0:
		why = append(why, fmt.Sprintf("its pods set spec.overhead, but %s sets none", rc.address))
	case len(spec.Overhead) > 0 && !sameOverhead(spec.Overhead, rc.overhead):
		why = append(why, fmt.Sprintf("its pods' spec.overhead is not %s's (%s)", rc.address, overheadText(rc.overhead)))
	case len(rc.overhead) > 0 && len(spec.Overhead) == 0:
		spec.Overhead = map[string]yaml.Node{}
		for k, q := range rc.overhead {
			spec.Overhead = withQuantity(spec.Overhead, k, q.text)
		}
		out.notes = append(out.notes, fmt.Sprintf("%s adds a pod overhead of %s to each of its pods: counted with their requests, as the scheduler counts it", rc.address, overheadText(rc.overhead)))
	}
	var added []string
	if len(rc.nodeSelector) > 0 {
		merged := maps.Clone(spec.NodeSelector)
		if merged == nil {
			merged = map[string]string{}
		}
		for _, k := range slices.Sorted(maps.Keys(rc.nodeSelector)) {
			want := rc.nodeSelector[k]
			if have, ok := merged[k]; ok && have != want {
				why = append(why, fmt.Sprintf("%s's scheduling.nodeSelector sets %s=%s, but the pods' nodeSelector sets %s=%s", rc.address, k, want, k, have))
				continue
			}
			if _, ok := merged[k]; !ok {
				added = append(added, k+"="+want)
			}
			merged[k] = want
		}
		spec.NodeSelector = merged
	}
	var tolerated []string
	for _, t := range rc.tolerations {
		if !slices.Contains(spec.Tolerations, t) {
			spec.Tolerations = append(slices.Clip(spec.Tolerations), t)
			tolerated = append(tolerated, tolerationText(t))
		}
	}
	if len(why) > 0 {
		out.notes = nil
		out.refused = strings.Join(why, "; ")
		return out
	}
	sched := labelled(labelled(nil, "the node selector ", added, ", "), "tolerations of ", tolerated, ", ")
	if len(sched) > 0 {
		out.notes = append(out.notes, fmt.Sprintf("%s gives its pods %s: they run only on the nodes it selects", rc.address, strings.Join(sched, " and ")))
	}
	out.spec = spec
	return out
}

// sameOverhead reports whether a pod's own spec.overhead is its RuntimeClass's, quantity by
// quantity ("1" and "1000m" are the same), as the admission plugin compares them.
func sameOverhead(own map[string]yaml.Node, class map[string]poolLimit) bool {
	if len(own) != len(class) {
		return false
	}
	for k, n := range own {
		q, err := computeQuantity(n.Value)
		c, ok := class[k]
		if !ok || err != nil || q != c.amount {
			return false
		}
	}
	return true
}

// overheadText writes an overhead as "cpu 250m, memory 160Mi".
func overheadText(m map[string]poolLimit) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+" "+m[k].text)
	}
	return strings.Join(parts, ", ")
}

// tolerationText writes a toleration as kubectl does: "key=value:Effect", "key:Effect" for
// Exists, "all taints" for an empty key with Exists.
func tolerationText(t toleration) string {
	s := t.Key
	if t.Key == "" && t.Operator == "Exists" {
		s = "all taints"
	} else if t.Operator != "Exists" && t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + t.Effect
	}
	return s
}

// overheadOf is the pod's spec.overhead of resource k (0 without one, or when it is not a
// quantity: podCompute reports that).
func (s *podSpec) overheadOf(k string) float64 {
	n, ok := s.Overhead[k]
	if !ok {
		return 0
	}
	q, err := computeQuantity(n.Value)
	if err != nil {
		return 0
	}
	return q
}

// report says on r what the RuntimeClass did to its pods, and warns when the API server
// refuses them.
func (out runtimeClassOutcome) report(r *parser.Resource, warns *[]parser.Error) {
	for _, n := range out.notes {
		r.Note("%s", n)
	}
	if out.refused != "" {
		*warns = append(*warns, parser.Error{File: r.Source.File, Line: r.Source.Line,
			Message: fmt.Sprintf("%s: the API server refuses its pods, so none of them run: %s (priced as declared)", r.Address, out.refused)})
	}
}
