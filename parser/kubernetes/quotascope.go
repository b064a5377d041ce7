package kubernetes

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"go.yaml.in/yaml/v3"
)

// ResourceQuota scopes: which pods a quota counts.
//
// A quota applies to the workloads of its namespace in its own build (a kustomization's; the
// manifests read as they stand share one) whose pods all of its scopes match, as the API server's
// quota evaluator tests a pod (kubernetes/kubernetes pkg/quota/v1/evaluator/core/pods.go,
// podMatchesScopeFunc; https://kubernetes.io/docs/concepts/policy/resource-quotas/#quota-scopes,
// read 2026-11):
//   - Terminating: the pod sets activeDeadlineSeconds; NotTerminating: it does not.
//   - BestEffort: the pod requests neither CPU nor memory (its QoS class is BestEffort, which
//     looks at CPU and memory only); NotBestEffort: it requests either.
//   - PriorityClass: its priority class as admitted: the pod's priorityClassName, else the name
//     of the build's PriorityClass with globalDefault (the Priority admission plugin sets it
//     before the quota is checked). Exists matches a pod with one; In and NotIn compare the
//     name as a label's value ("" for none, which NotIn matches); DoesNotExist matches none.
//   - CrossNamespacePodAffinity: a pod (anti-)affinity term names namespaces or a namespace
//     selector.
//   - VolumeAttributesClass counts claims, not pods: it matches no pod.
//
// A scope the API server does not know, or an operator it refuses (other than Exists, except on
// PriorityClass), makes the quota an error: the API server refuses it, so it bounds nothing.

// quotaScope is one scope of a quota: an entry of its scopes (operator Exists) or an
// expression of its scopeSelector.
type quotaScope struct {
	name, operator string
	values         []string
}

// String writes the scope for messages: "PriorityClass In [high]", "Terminating".
func (s quotaScope) String() string {
	if s.operator == "Exists" {
		return s.name
	}
	if len(s.values) == 0 {
		return s.name + " " + s.operator
	}
	return fmt.Sprintf("%s %s [%s]", s.name, s.operator, strings.Join(s.values, ", "))
}

// quotaScopeNames are the scopes the API server takes (core/v1 ResourceQuotaScope).
var quotaScopeNames = []string{"Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity", "VolumeAttributesClass"}

// checkScope says what makes the API server refuse a scope (core validation's
// ValidateScopedResourceSelectorRequirement); nil when it takes it.
func checkScope(s quotaScope) error {
	if !slices.Contains(quotaScopeNames, s.name) {
		return fmt.Errorf("scope %q is not one Kubernetes knows (%s): the API server refuses the quota", s.name, strings.Join(quotaScopeNames, ", "))
	}
	switch {
	case s.name != "PriorityClass" && s.operator != "Exists":
		return fmt.Errorf("scopeSelector: scope %s takes only the operator Exists, not %q: the API server refuses the quota", s.name, s.operator)
	case s.operator == "In" || s.operator == "NotIn":
		if len(s.values) == 0 {
			return fmt.Errorf("scopeSelector: %s %s needs values: the API server refuses the quota", s.name, s.operator)
		}
	case s.operator == "Exists" || s.operator == "DoesNotExist":
		if len(s.values) > 0 {
			return fmt.Errorf("scopeSelector: %s %s takes no values: the API server refuses the quota", s.name, s.operator)
		}
	default:
		return fmt.Errorf("scopeSelector: operator %q is not In, NotIn, Exists or DoesNotExist: the API server refuses the quota", s.operator)
	}
	return nil
}

// globalDefaultPriority is the name of a scheduling.k8s.io PriorityClass with globalDefault: the
// class the Priority admission plugin gives the pods that name none.
func globalDefaultPriority(o *object) (string, bool) {
	if o.Kind != "PriorityClass" || group(o.APIVersion) != "scheduling.k8s.io" || o.doc == nil || o.Metadata.Name == "" {
		return "", false
	}
	var pc struct {
		GlobalDefault bool `yaml:"globalDefault"`
	}
	if o.doc.Decode(&pc) != nil || !pc.GlobalDefault {
		return "", false
	}
	return o.Metadata.Name, true
}

// quotaPod is what a quota looks at in a GPU workload's pods.
type quotaPod struct {
	key           string // the build and namespace: root|namespace
	priorityClass string // as admitted: the pod's own, else the build's global default; "" for none
	terminating   bool   // the pod sets activeDeadlineSeconds
	crossNSAff    bool   // a pod (anti-)affinity term reaches into other namespaces
	// classDevices is what the claims one pod has made from ResourceClaimTemplates count
	// against the quotas on device classes' devices, by class (a shared ResourceClaim counts
	// once, as a claimObject).
	classDevices map[string]int64
	// limits are one pod's CPU (cores) and memory (bytes) limits, by resource
	// (effectiveRequest over its containers' limits), for limits.cpu and limits.memory.
	limits map[string]float64
	// extended is one pod's request of each resource its containers name (podRequests): for an
	// extended resource, what a quota on requests.<name> counts, however the resource is
	// provided (a device plugin, or DRA for a DeviceClass's extendedResourceName, KEP-5004).
	extended map[string]float64
	// unset names (quoted) the containers that do not set what a quota may require of each:
	// requests.cpu (a CPU request, else limit), requests.memory, limits.cpu, limits.memory.
	unset map[string][]string
}

// newQuotaPod reads a pod template's scope facts and its claim templates' devices (ns: its
// namespace); defaultPriority is the name of its build's global default PriorityClass ("" when
// none is read).
func newQuotaPod(key, ns string, spec *podSpec, defaultPriority string, claims *claimIndex) quotaPod {
	p := quotaPod{key: key, priorityClass: defaultPriority}
	for _, pc := range spec.ResourceClaims {
		if c, ok := claims.templates[ns+"/"+pc.ResourceClaimTemplateName]; ok && pc.ResourceClaimTemplateName != "" {
			for class, n := range c.quota {
				if p.classDevices == nil {
					p.classDevices = map[string]int64{}
				}
				p.classDevices[class] += n
			}
		}
	}
	if n := &spec.PriorityClassName; n.Kind == yaml.ScalarNode && n.Tag != "!!null" && n.Value != "" {
		p.priorityClass = n.Value
	}
	// A number of seconds (the API takes no other); Argo's may be a parameter it resolves to
	// one. Either way the pod has a deadline.
	if n := &spec.ActiveDeadlineSeconds; n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		v, err := strconv.ParseInt(n.Value, 10, 64)
		p.terminating = err != nil || v >= 0
	}
	if a := spec.Affinity; a != nil {
		p.crossNSAff = crossNamespaceTerms(&a.PodAffinity) || crossNamespaceTerms(&a.PodAntiAffinity)
	}
	p.limits, p.unset, p.extended = map[string]float64{}, map[string][]string{}, podRequests(*spec)
	for _, k := range []string{"cpu", "memory"} {
		p.limits[k] = effectiveRequest(*spec, func(c *container) float64 {
			n, ok := c.Resources.Limits[k]
			if !ok {
				return 0
			}
			q, _ := computeQuantity(n.Value) // a bad quantity is podCompute's error
			return q
		})
		p.limits[k], _ = spec.podLimit(k, p.limits[k], true)
		if spec.hasPodLevel() {
			continue // the quota asks nothing of the containers of a pod with pod-level resources
		}
		for _, cs := range [][]container{spec.Containers, spec.InitContainers} {
			for i := range cs {
				c := &cs[i]
				_, limit := c.Resources.Limits[k]
				_, request := c.Resources.Requests[k]
				if !limit {
					p.unset["limits."+k] = append(p.unset["limits."+k], strconv.Quote(c.Name))
				}
				if !limit && !request {
					p.unset["requests."+k] = append(p.unset["requests."+k], strconv.Quote(c.Name))
				}
			}
		}
	}
	return p
}

// affinityTerm is the part of a pod affinity term that says which namespaces it looks in.
type affinityTerm struct {
	Namespaces        []string  `yaml:"namespaces"`
	NamespaceSelector yaml.Node `yaml:"namespaceSelector"`
}

// crossNamespace reports whether the term looks beyond the pod's own namespace.
func (t affinityTerm) crossNamespace() bool {
	return len(t.Namespaces) > 0 || t.NamespaceSelector.Kind != 0 && t.NamespaceSelector.Tag != "!!null"
}

// crossNamespaceTerms reports whether a podAffinity or podAntiAffinity has a term, required or
// preferred, that names namespaces or a namespace selector. A list written as one object (the
// Terraform provider's block) is read as a list of it; a shape that is neither holds no term.
func crossNamespaceTerms(n *yaml.Node) bool {
	var a struct {
		Required  yaml.Node `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
		Preferred yaml.Node `yaml:"preferredDuringSchedulingIgnoredDuringExecution"`
	}
	if n.Kind != yaml.MappingNode || n.Decode(&a) != nil {
		return false
	}
	for _, it := range listItems(&a.Required) {
		var t affinityTerm
		if it.Decode(&t) == nil && t.crossNamespace() {
			return true
		}
	}
	for _, it := range listItems(&a.Preferred) {
		var w struct {
			Term affinityTerm `yaml:"podAffinityTerm"`
		}
		if it.Decode(&w) == nil && w.Term.crossNamespace() {
			return true
		}
	}
	return false
}

// listItems is a list's items, or a single object as a list of one.
func listItems(n *yaml.Node) []*yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		return []*yaml.Node{n}
	case yaml.SequenceNode:
		return n.Content
	}
	return nil
}

// matches reports whether the scope matches the pods of r (p: their facts).
func (s quotaScope) matches(r *parser.Resource, p quotaPod) bool {
	bestEffort := r.Pod.CPU == 0 && r.Pod.MemoryGiB == 0
	switch s.name {
	case "Terminating":
		return p.terminating
	case "NotTerminating":
		return !p.terminating
	case "BestEffort":
		return bestEffort
	case "NotBestEffort":
		return !bestEffort
	case "CrossNamespacePodAffinity":
		return p.crossNSAff
	case "PriorityClass":
		switch s.operator {
		case "Exists":
			return p.priorityClass != ""
		case "In":
			return slices.Contains(s.values, p.priorityClass)
		case "NotIn":
			return !slices.Contains(s.values, p.priorityClass)
		}
	}
	// PriorityClass DoesNotExist: the evaluator matches the name as a label that is always
	// there ("" or not), so no pod. VolumeAttributesClass counts claims, not pods.
	return false
}
