package kubernetes

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// GPU extended resources gpuguard counts.
const (
	ResourceNvidiaGPU    = "nvidia.com/gpu"
	ResourceNvidiaShared = "nvidia.com/gpu.shared"
	ResourceNvidiaMIG    = "nvidia.com/mig-" // + profile, e.g. nvidia.com/mig-1g.10gb
	ResourceAMDGPU       = "amd.com/gpu"
	ResourceNeuron       = "aws.amazon.com/neuron"
	// ResourceNeuronDevice is the Neuron device plugin's other name for whole devices;
	// ResourceNeuronCore asks for NeuronCores, two to a device on Inferentia2 and Trainium1.
	ResourceNeuronDevice = "aws.amazon.com/neurondevice"
	ResourceNeuronCore   = "aws.amazon.com/neuroncore"
)

type podTemplate struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     podSpec    `yaml:"spec"`
}

type podSpec struct {
	Containers     []container       `yaml:"containers"`
	InitContainers []container       `yaml:"initContainers"`
	ResourceClaims []podClaim        `yaml:"resourceClaims"`
	NodeSelector   map[string]string `yaml:"nodeSelector"`
	Affinity       *affinity         `yaml:"affinity"`
	Tolerations    []toleration      `yaml:"tolerations"`
	// PriorityClassName and ActiveDeadlineSeconds are what a ResourceQuota's scopes test
	// (quota.go); kept as nodes, so that a shape the API would refuse does not fail the object.
	PriorityClassName     yaml.Node `yaml:"priorityClassName"`
	ActiveDeadlineSeconds yaml.Node `yaml:"activeDeadlineSeconds"`
	// RuntimeClassName names the pods' RuntimeClass, whose overhead the admission plugin sets
	// as Overhead (runtimeclass.go): added to what the pods request.
	RuntimeClassName string               `yaml:"runtimeClassName"`
	Overhead         map[string]yaml.Node `yaml:"overhead"`
	// Resources are the pod-level requests and limits (podlevel.go).
	Resources resources `yaml:"resources"`
	// TopologySpreadConstraints are read for those on kubernetes.io/hostname (spread.go) and
	// for minDomains on other keys (domains.go); kept as a node, so that a shape the API would
	// refuse does not fail the object.
	TopologySpreadConstraints yaml.Node `yaml:"topologySpreadConstraints"`
	// HostNetwork makes the containers' ports host ports (hostport.go); a node, like Ports.
	HostNetwork yaml.Node `yaml:"hostNetwork"`
}

type container struct {
	Name      string    `yaml:"name"`
	Resources resources `yaml:"resources"`
	// Command, Args and Env are kept as nodes: only a serving engine's command line is read
	// from them (serving.go), and a shape the API would refuse must not fail the object.
	Image   yaml.Node `yaml:"image"`
	Command yaml.Node `yaml:"command"`
	Args    yaml.Node `yaml:"args"`
	Env     yaml.Node `yaml:"env"`
	EnvFrom yaml.Node `yaml:"envFrom"`
	// RestartPolicy Always on an init container makes it a sidecar: it keeps running beside the
	// app containers (Kubernetes 1.29+).
	RestartPolicy string `yaml:"restartPolicy"`
	// Ports are read for host ports (hostport.go).
	Ports yaml.Node `yaml:"ports"`
	// kserveHF, on a KServe predictor's model container served by the Hugging Face runtime,
	// is the predictor's storageUri ("" when it has none); nil otherwise.
	kserveHF *string
}

type resources struct {
	Limits   map[string]yaml.Node `yaml:"limits"`
	Requests map[string]yaml.Node `yaml:"requests"`
	// Claims name the pod's resourceClaims the container uses (DRA).
	Claims []claimRef `yaml:"claims"`
}

type claimRef struct {
	Name string `yaml:"name"`
}

// usesClaim reports whether the container uses one of the named pod claims.
func (c *container) usesClaim(names map[string]bool) bool {
	return slices.ContainsFunc(c.Resources.Claims, func(r claimRef) bool { return names[r.Name] })
}

type affinity struct {
	NodeAffinity *nodeAffinity `yaml:"nodeAffinity"`
	// PodAffinity and PodAntiAffinity are read only for their terms' namespaces (a quota's
	// CrossNamespacePodAffinity scope); kept as nodes.
	PodAffinity     yaml.Node `yaml:"podAffinity"`
	PodAntiAffinity yaml.Node `yaml:"podAntiAffinity"`
}

type nodeAffinity struct {
	Required *nodeSelector `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
}

type nodeSelector struct {
	Terms []nodeSelectorTerm `yaml:"nodeSelectorTerms"`
}

type nodeSelectorTerm struct {
	MatchExpressions []requirement `yaml:"matchExpressions"`
}

type requirement struct {
	Key      string   `yaml:"key"`
	Operator string   `yaml:"operator"`
	Values   []string `yaml:"values"`
}

type toleration struct {
	Key      string `yaml:"key"`
	Operator string `yaml:"operator"`
	Value    string `yaml:"value"`
	Effect   string `yaml:"effect"`
}

// gpuRequest is what one pod asks for.
type gpuRequest struct {
	resource string // extended resource name
	count    int64  // devices (GPUs, MIG slices, shared units, Neuron devices)
	line     int
	// notes say which GPUs came through DRA claims; missing names the claims that were not
	// among the objects read.
	notes, missing []string
	// extended are the GPU extended resources the pod's containers request by name (not
	// through DRA claims), sorted.
	extended []string
	// largest is the most of resource one container requests by name: a device plugin
	// allocates each container's request apart.
	largest int64
	// shared are the ResourceClaims among count that pods may share; claimed, the names of
	// the pod's resourceClaims that brought GPUs of resource.
	shared  []parser.SharedClaim
	claimed map[string]bool
	// selection is what the CEL selectors of those claims say of the GPUs; sharing, how
	// NVIDIA's driver shares them.
	selection deviceSelection
	sharing   *parser.ClaimSharing
	// draExtended are the extended resource names through which DRA brought GPUs
	// (draextended.go): the containers that ask for them use the GPUs.
	draExtended map[string]bool
}

// IsGPUResource reports whether an extended resource name is one gpuguard counts.
func IsGPUResource(name string) bool {
	return name == ResourceNvidiaGPU || name == ResourceNvidiaShared || name == ResourceAMDGPU ||
		name == ResourceNeuron || name == ResourceNeuronDevice || name == ResourceNeuronCore ||
		strings.HasPrefix(name, ResourceNvidiaMIG)
}

// quantity parses a Kubernetes quantity for an extended resource: a whole number, quoted or
// not. Extended resources cannot be fractional, so "0.5" is an error.
func quantity(n *yaml.Node) (int64, error) {
	v := strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode || v == "" {
		return 0, fmt.Errorf("quantity must be a number")
	}
	i, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		// Kubernetes accepts suffixed whole quantities such as "1k"; for GPUs that is never
		// meant, so anything but a plain whole number is reported.
		return 0, fmt.Errorf("quantity %q is not a whole number of devices", v)
	}
	if i < 0 {
		return 0, fmt.Errorf("quantity %q is negative", v)
	}
	if i > 1024 {
		return 0, fmt.Errorf("quantity %q is more devices than any node has", v)
	}
	return i, nil
}

// containerGPUs returns a container's GPU requests by resource: limits, else requests.
func containerGPUs(c container, o *object) (map[string]gpuRequest, []error) {
	out := map[string]gpuRequest{}
	var errs []error
	read := func(m map[string]yaml.Node) {
		for name, n := range m {
			if !IsGPUResource(name) {
				continue
			}
			if _, done := out[name]; done {
				continue
			}
			n := n
			q, err := quantity(&n)
			if err != nil {
				errs = append(errs, lineError{line: o.lineOf(&n), err: fmt.Errorf("container %q: %s: %w", c.Name, name, err)})
				continue
			}
			out[name] = gpuRequest{resource: name, count: q, line: o.lineOf(&n)}
		}
	}
	read(c.Resources.Limits)
	read(c.Resources.Requests)
	return out, errs
}

// effectiveRequest is a pod's effective request of one resource, given each container's,
// Kubernetes' rule (https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/#resource-sharing-within-containers,
// KEP-753): app containers run together, so they add up; init containers run one at a time
// before them, so the pod needs the largest; a sidecar (an init container with restartPolicy
// Always) keeps running, so it adds to every init container after it and to the app
// containers.
func effectiveRequest[N int64 | float64](spec podSpec, amount func(c *container) N) N {
	var apps, sidecars, initPeak N
	for i := range spec.Containers {
		apps += amount(&spec.Containers[i])
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		q := amount(c)
		need := q + sidecars // sidecars started so far keep running beside it
		if c.RestartPolicy == "Always" {
			sidecars += q
			need = sidecars
		}
		initPeak = max(initPeak, need)
	}
	return max(apps+sidecars, initPeak)
}

// podGPUs works out a pod's effective GPU request (effectiveRequest for each GPU resource it
// names). A pod asking for two kinds of GPU resource is reported.
func podGPUs(spec podSpec, o *object, claims *claimIndex) (gpuRequest, []error) {
	line := map[string]int{}
	var errs []error
	// Each container's GPU requests, read once: apps first, then init containers.
	parsed := map[*container]map[string]gpuRequest{}
	for _, cs := range [][]container{spec.Containers, spec.InitContainers} {
		for i := range cs {
			reqs, e := containerGPUs(cs[i], o)
			errs = append(errs, e...)
			parsed[&cs[i]] = reqs
			for name, r := range reqs {
				if line[name] == 0 {
					line[name] = r.line
				}
			}
		}
	}
	sum := map[string]int64{}
	var extended []string
	for name := range line {
		sum[name] = effectiveRequest(spec, func(c *container) int64 { return parsed[c][name].count })
		if sum[name] > 0 {
			extended = append(extended, name)
		}
	}
	slices.Sort(extended)
	// Neuron devices go by two names; NeuronCores become the devices that hold them.
	if n := sum[ResourceNeuronDevice]; n > 0 {
		sum[ResourceNeuron] += n
		line[ResourceNeuron] = cmp.Or(line[ResourceNeuron], line[ResourceNeuronDevice])
		delete(sum, ResourceNeuronDevice)
	}
	var neuronNote string
	if cores := sum[ResourceNeuronCore]; cores > 0 {
		devices := (cores + neuronCoresPerDevice - 1) / neuronCoresPerDevice
		sum[ResourceNeuron] += devices
		line[ResourceNeuron] = cmp.Or(line[ResourceNeuron], line[ResourceNeuronCore])
		delete(sum, ResourceNeuronCore)
		neuronNote = fmt.Sprintf("%d NeuronCores: %d Neuron device%s at %d cores each (Inferentia2, Trainium1)", cores, devices, parser.Plural(devices), neuronCoresPerDevice)
	}
	// Devices claimed through DRA belong to the pod, whichever containers use them.
	dra := podClaims(spec, o.namespace(), claims)
	draExtended, xerrs := claims.draExtended(spec, o, &dra)
	errs = append(errs, xerrs...)
	notes := dra.notes
	for name, n := range dra.sum {
		sum[name] += n
		if line[name] == 0 {
			line[name] = o.line
		}
	}
	var best gpuRequest
	kinds := 0
	for name, n := range sum {
		if n == 0 {
			continue
		}
		kinds++
		if best.resource == "" || name < best.resource {
			best = gpuRequest{resource: name, count: n, line: line[name]}
		}
	}
	if kinds > 1 {
		errs = append(errs, lineError{line: best.line, err: fmt.Errorf("pod requests several GPU resources (%s): only %s is priced", strings.Join(keys(sum), ", "), best.resource)})
	}
	if neuronNote != "" {
		notes = append(notes, neuronNote)
	}
	best.notes, best.missing, best.extended, best.draExtended = notes, dra.missing, extended, draExtended
	if g := dra.of[best.resource]; g != nil {
		best.shared, best.claimed, best.selection, best.sharing = g.shared, g.names, g.selection, g.sharing
	}
	for _, reqs := range parsed {
		best.largest = max(best.largest, reqs[best.resource].count)
	}
	return best, errs
}

// neuronCoresPerDevice is NeuronCores per Neuron device on Inferentia2 and Trainium1, the Neuron
// instances in the catalog (https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/inferentia2.html).
const neuronCoresPerDevice = 2

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

// lineError is an error at a line of the current document.
type lineError struct {
	line int
	err  error
}

func (e lineError) Error() string { return e.err.Error() }

// selector is what a pod's node selection allows: for each label key, the allowed values
// (nil = any value, the key must exist), from nodeSelector and the first required node-affinity
// term. Excluded values (NotIn) are kept apart.
type selector struct {
	allowed  map[string][]string
	excluded map[string][]string
	// above and below are numeric bounds (Gt and Lt): a value is greater than above[k] and less
	// than below[k]. They are made on the first bound (few selectors have one).
	above, below map[string]int
	// claimed are the keys a DRA claim's selectors add (deviceSelection.onSelector), not the
	// pod's own labels.
	claimed map[string]bool
	// compute is a claim's bound on the GPU's compute capability (keyClaimCompute).
	compute *parser.ComputeRange
}

func newSelector() selector {
	return selector{allowed: map[string][]string{}, excluded: map[string][]string{}}
}

func podSelector(spec podSpec) selector {
	s := newSelector()
	for k, v := range spec.NodeSelector {
		s.allowed[k] = []string{v}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.Required != nil && len(a.NodeAffinity.Required.Terms) > 0 {
		// Terms are ORed: the first one is where the scheduler may place the pod; gpuguard
		// prices that one.
		for _, r := range a.NodeAffinity.Required.Terms[0].MatchExpressions {
			s.add(r)
		}
	}
	return s
}

func (s *selector) add(r requirement) {
	switch r.Operator {
	case "In":
		if prev, ok := s.allowed[r.Key]; ok && prev != nil {
			s.allowed[r.Key] = intersect(prev, r.Values)
		} else {
			s.allowed[r.Key] = append([]string(nil), r.Values...)
		}
	case "NotIn":
		s.excluded[r.Key] = append(s.excluded[r.Key], r.Values...)
	case "Exists":
		if _, ok := s.allowed[r.Key]; !ok {
			s.allowed[r.Key] = nil
		}
	case "Gt", "Lt":
		if len(r.Values) == 1 {
			if n, err := strconv.Atoi(strings.TrimSpace(r.Values[0])); err == nil {
				s.bound(r.Operator, r.Key, n)
			}
		}
	case "DoesNotExist":
		// Absence narrows nothing gpuguard prices by.
	}
}

// countRange reads a whole-number label as a range: In values (less NotIn ones), Gt and Lt;
// Exists is any value. ok is false when the selector does not constrain the key.
func (s selector) countRange(key string) (parser.CountRange, bool) {
	var c parser.CountRange
	v, present := s.allowed[key]
	if v != nil {
		for _, x := range filterOut(v, s.excluded[key]) {
			if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
				c.In = append(c.In, n)
			}
		}
		if len(c.In) == 0 {
			c.Max = new(-1) // no usable value: nothing qualifies
		}
	}
	gt, above := s.above[key]
	if above {
		c.Min = new(gt + 1)
	}
	lt, below := s.below[key]
	if below && (c.Max == nil || lt-1 < *c.Max) {
		c.Max = new(lt - 1)
	}
	return c, present || above || below
}

// bounded reports whether the selection bounds a label's value with Gt or Lt.
func (s selector) bounded(key string) bool {
	_, above := s.above[key]
	_, below := s.below[key]
	return above || below
}

// bound narrows a numeric bound: the larger Gt and the smaller Lt win.
func (s *selector) bound(op, key string, n int) {
	if s.above == nil {
		s.above, s.below = map[string]int{}, map[string]int{}
	}
	if op == "Gt" {
		if prev, ok := s.above[key]; !ok || n > prev {
			s.above[key] = n
		}
	} else if prev, ok := s.below[key]; !ok || n < prev {
		s.below[key] = n
	}
}

// values returns the allowed values of the first key present, and whether any was present.
func (s selector) values(keys ...string) ([]string, bool) {
	for _, k := range keys {
		if v, ok := s.allowed[k]; ok {
			return filterOut(v, s.excluded[k]), true
		}
	}
	return nil, false
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
			}
		}
	}
	return out
}

func filterOut(vals, excluded []string) []string {
	if len(excluded) == 0 {
		return vals
	}
	var out []string
	for _, v := range vals {
		skip := false
		for _, e := range excluded {
			if v == e {
				skip = true
			}
		}
		if !skip {
			out = append(out, v)
		}
	}
	return out
}

// withExtendedResourceTolerations adds to a pod's tolerations those the ExtendedResourceToleration
// admission controller gives a pod that requests extended resources: for each one, key the
// resource's name, operator Exists, effect NoSchedule (kubernetes/kubernetes#55839). Nodes
// tainted with the name of the device they carry (nvidia.com/gpu:NoSchedule, the usual way to
// keep other pods off GPU nodes) so take the pods that request it. The managed clusters enable
// the controller: GKE, which also taints its GPU node pools so; EKS since Kubernetes 1.19
// (aws/containers-roadmap#739); AKS (Azure/AKS#1449, shipped).
func withExtendedResourceTolerations(tols []toleration, requested []string) []toleration {
	if len(requested) == 0 {
		return tols
	}
	out := make([]toleration, 0, len(tols)+len(requested))
	out = append(out, tols...)
	for _, name := range requested {
		out = append(out, toleration{Key: name, Operator: "Exists", Effect: "NoSchedule"})
	}
	return out
}

// tolerates reports whether tolerations allow a taint.
func tolerates(tols []toleration, t toleration) bool {
	for _, tol := range tols {
		if tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		switch {
		case tol.Key == "" && tol.Operator == "Exists":
			return true
		case tol.Key == t.Key && tol.Operator == "Exists":
			return true
		case tol.Key == t.Key && (tol.Operator == "" || tol.Operator == "Equal") && tol.Value == t.Value:
			return true
		}
	}
	return false
}
