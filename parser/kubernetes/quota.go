package kubernetes

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"go.yaml.in/yaml/v3"
)

// ResourceQuotas: a namespace's quota on a GPU extended resource (hard:
// requests.nvidia.com/gpu) is enforced when pods are created. The API server refuses a pod whose
// request would take the namespace past it, so the controller creates no more pods than the quota
// admits: they are never pending, they do not exist, and no node is started for them. Quotas on
// extended resources take only the requests. prefix
// (https://kubernetes.io/docs/concepts/policy/resource-quotas/#resource-quota-for-extended-resources,
// read 2026-11).
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
// Pods whose GPUs come through DRA claims are counted by the claims' quota, not by the extended
// resource's: they are left out.

// resourceQuota is a ResourceQuota's limits on extended resources, by the resource (nvidia.com/gpu).
type resourceQuota struct {
	address   string
	key       string // root|namespace
	namespace string
	file      string
	line      int
	hard      []poolLimit  // resource without the requests. prefix; text as written
	scopes    []quotaScope // all must match a pod for the quota to count it
}

// decodeResourceQuota reads a v1 ResourceQuota's hard requests.* limits and its scopes; ok is
// false for a quota with no such limit.
func decodeResourceQuota(o *object) (q resourceQuota, ok bool, err error) {
	var spec struct {
		Hard          yaml.Node   `yaml:"hard"`
		Scopes        []yaml.Node `yaml:"scopes"`
		ScopeSelector *struct {
			MatchExpressions []yaml.Node `yaml:"matchExpressions"`
		} `yaml:"scopeSelector"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return q, false, err
	}
	// Each scope is checked where it is written: an error names its line.
	add := func(n *yaml.Node, s quotaScope, err error) error {
		if err == nil {
			err = checkScope(s)
		}
		if err != nil {
			return lineError{line: o.lineOf(n), err: err}
		}
		q.scopes = append(q.scopes, s)
		return nil
	}
	for i := range spec.Scopes {
		n := &spec.Scopes[i]
		s := quotaScope{operator: "Exists"}
		if err := add(n, s, n.Decode(&s.name)); err != nil {
			return q, false, err
		}
	}
	if spec.ScopeSelector != nil {
		for i := range spec.ScopeSelector.MatchExpressions {
			n := &spec.ScopeSelector.MatchExpressions[i]
			var m struct {
				ScopeName string   `yaml:"scopeName"`
				Operator  string   `yaml:"operator"`
				Values    []string `yaml:"values"`
			}
			err := n.Decode(&m)
			if err := add(n, quotaScope{name: m.ScopeName, operator: m.Operator, values: m.Values}, err); err != nil {
				return q, false, err
			}
		}
	}
	limits, err := decodeQuantities(o, &spec.Hard, "hard")
	if err != nil {
		return q, false, err
	}
	for _, l := range limits {
		if name, found := strings.CutPrefix(l.resource, "requests."); found {
			l.resource = name
			q.hard = append(q.hard, l)
		}
	}
	q.address, q.key, q.namespace, q.file, q.line = o.address(), o.root+"|"+o.namespace(), o.namespace(), o.file, o.line
	return q, len(q.hard) > 0, nil
}

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
}

// newQuotaPod reads a pod template's scope facts; defaultPriority is the name of its build's
// global default PriorityClass ("" when none is read).
func newQuotaPod(key string, spec *podSpec, defaultPriority string) quotaPod {
	p := quotaPod{key: key, priorityClass: defaultPriority}
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

// counts reports whether the quota's limit on resource counts the pods of r (p: their facts).
func (q *resourceQuota) counts(r *parser.Resource, p quotaPod, resource string) bool {
	g := r.Pod
	if g == nil || p.key != q.key || g.Resource != resource || g.Requested <= 0 || g.ClaimedOnly || len(g.SharedClaims) > 0 {
		return false
	}
	for _, s := range q.scopes {
		if !s.matches(r, p) {
			return false
		}
	}
	return true
}

// quotaShare is one limit of a quota and the workloads (indices into the resources) it counts.
type quotaShare struct {
	q       *resourceQuota
	l       poolLimit
	members []int
}

// what names the limit for messages: "ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 8)",
// with the quota's scopes when it has any: "(requests.nvidia.com/gpu: 8; scope PriorityClass
// In [high])".
func (s quotaShare) what() string {
	scopes := ""
	if len(s.q.scopes) > 0 {
		names := make([]string, len(s.q.scopes))
		for i, sc := range s.q.scopes {
			names[i] = sc.String()
		}
		scopes = fmt.Sprintf("; scope%s %s", parser.Plural(int64(len(names))), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s (requests.%s: %s%s)", s.q.address, s.l.resource, s.l.text, scopes)
}

// capByQuotas applies each quota to the workloads of its namespace whose pods its scopes match
// (pods: each GPU workload's facts, by index): no workload is priced past it at full scale-out, and a floor the
// quota does not admit, alone or with the others it counts, is a warning (priced as declared, as
// a NodePool's limit is). It returns the warnings and the quotas' limits with their workloads,
// for shareQuotas.
func capByQuotas(rs []parser.Resource, pods map[int]quotaPod, quotas []resourceQuota) ([]parser.Error, []quotaShare) {
	var warns []parser.Error
	var shares []quotaShare
	order := slices.Sorted(maps.Keys(pods))
	for qi := range quotas {
		q := &quotas[qi]
		for _, l := range q.hard {
			s := quotaShare{q: q, l: l}
			for _, i := range order {
				if q.counts(&rs[i], pods[i], l.resource) {
					s.members = append(s.members, i)
				}
			}
			if len(s.members) == 0 {
				continue
			}
			alonePast := false
			var floors int64
			for _, i := range s.members {
				r := &rs[i]
				per := r.Pod.Requested
				n := int(math.Min(math.Floor(l.amount/float64(per)+1e-9), maxPods))
				if m := capPods(r, n, s.what()); m != nil {
					r.Note("at most %d pod%s at full scale-out, not the %d of the %s: %s admits no more in namespace %s", n, parser.Plural(int64(n)), m.Quantity, m.From, s.what(), q.namespace)
				}
				if r.Quantity > n {
					alonePast = true
					refused := fmt.Sprintf("admits %d: the API server refuses the others, so they never run", n)
					if n == 0 {
						them := "every one"
						if r.Quantity == 1 {
							them = "it"
						}
						refused = fmt.Sprintf("admits none: a pod's %d pass its %s, so the API server refuses %s", per, l.text, them)
					}
					warns = append(warns, parser.Error{File: r.Source.File, Line: r.Source.Line,
						Message: fmt.Sprintf("%s runs %d pod%s of %d %s each, but %s %s (priced as declared)",
							r.Address, r.Quantity, parser.Plural(int64(r.Quantity)), per, l.resource, s.what(), refused)})
				}
				floors += int64(r.Quantity) * per
			}
			if !alonePast && len(s.members) > 1 && float64(floors) > l.amount {
				first := &rs[s.members[0]]
				warns = append(warns, parser.Error{File: first.Source.File, Line: first.Source.Line,
					Message: fmt.Sprintf("%s request %d %s at their floors together, but %s admits %s in namespace %s: the API server refuses the pods past it, so some of them never run (priced as declared)",
						quotaNames(rs, s.members), floors, l.resource, s.what(), l.text, q.namespace)})
			}
			shares = append(shares, s)
		}
	}
	return warns, shares
}

// shareQuotas records, of the workloads a quota's limit counts, that their maximums together pass
// it: the totals count them within it (parser.SharedLimit), unless another limit (a NodePool's)
// already holds them, which a note then says.
func shareQuotas(rs []parser.Resource, shares []quotaShare) {
	for _, s := range shares {
		if len(s.members) < 2 {
			continue
		}
		var want int64
		for _, i := range s.members {
			r := &rs[i]
			pods := r.Quantity
			if r.ScaleMax != nil {
				pods = max(pods, r.ScaleMax.Quantity)
			}
			want += int64(pods) * r.Pod.Requested
		}
		if float64(want) <= s.l.amount {
			continue
		}
		for _, i := range s.members {
			r := &rs[i]
			r.Note("shares %s with %d other workload%s: together they can request at most %s, not the %d their maximums add up to",
				s.what(), len(s.members)-1, parser.Plural(int64(len(s.members)-1)), s.l.text, want)
			if r.SharedLimit != nil {
				r.Note("the totals count it within %s's %s, not also within the quota", r.SharedLimit.Owner, r.SharedLimit.What)
				continue
			}
			r.SharedLimit = &parser.SharedLimit{Owner: s.q.address, What: "quota of " + s.l.text + " requests." + s.l.resource,
				Limit: s.l.amount, Unit: s.l.resource, PerInstance: float64(r.Pod.Requested), Admission: true}
		}
	}
}

// quotaNames names a quota's workloads for a message (parser.Names).
func quotaNames(rs []parser.Resource, members []int) string {
	names := make([]string, len(members))
	for k, i := range members {
		names[k] = rs[i].Address
	}
	return parser.Names(names)
}
