package kubernetes

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// A claim's request, and the DeviceClass it names, may narrow the devices it takes with CEL
// selectors over the attributes and capacity a DRA driver publishes for each device. NVIDIA's
// driver (gpu.nvidia.com) publishes a GPU's productName (NVML's name: "NVIDIA H100 80GB HBM3"),
// its architecture ("Hopper") and its memory capacity (NVML's total), the names GPU feature
// discovery labels nodes with (nvidia.com/gpu.product, gpu.family, gpu.memory): gpuguard reads
// the common shapes of those terms and gives the pod's node the same narrowing those labels do.
// It also reads the GPU's cudaComputeCapability (dracompute.go).
// https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/#devicerequest
// https://github.com/NVIDIA/k8s-dra-driver-gpu (cmd/gpu-kubelet-plugin deviceinfo.go: attributes)

// deviceSelection is what CEL selectors say of a claim's GPUs.
type deviceSelection struct {
	products      []string // productName values or literal patterns, as GFD's product label reads them
	architectures []string // lower case, as GFD's gpu.family
	minMemoryMiB  int      // 0: none
	// compute bounds the GPU's CUDA compute capability (the driver's cudaComputeCapability).
	compute *parser.ComputeRange
	// migProfile is the MIG profile a request's devices have (a MIG device's profile
	// attribute, "1g.10gb"); mig says they are MIG devices (type == "mig", or a MIG class).
	migProfile string
	mig        bool
	// unread are the selector expressions that name a GPU attribute gpuguard cannot narrow
	// the node by (an || with other terms, a productName term of another shape).
	unread []string
}

func (s deviceSelection) empty() bool {
	return len(s.products) == 0 && len(s.architectures) == 0 && s.minMemoryMiB == 0 && s.compute == nil && s.migProfile == "" && !s.mig
}

// and narrows s by t: t's terms where s has none of that kind.
func (s deviceSelection) and(t deviceSelection) deviceSelection {
	if len(s.products) == 0 {
		s.products = t.products
	}
	if len(s.architectures) == 0 {
		s.architectures = t.architectures
	}
	s.minMemoryMiB = max(s.minMemoryMiB, t.minMemoryMiB)
	s.compute = andCompute(s.compute, t.compute)
	s.migProfile = cmp.Or(s.migProfile, t.migProfile)
	s.mig = s.mig || t.mig
	s.unread = append(slices.Clip(s.unread), t.unread...)
	return s
}

type celSelector struct {
	CEL *struct {
		Expression string `yaml:"expression"`
	} `yaml:"cel"`
}

var (
	// An NVIDIA GPU's attributes are device.attributes["gpu.nvidia.com"].<name>, its capacity
	// device.capacity["gpu.nvidia.com"].memory; a DeviceClass names the driver with
	// device.driver == "gpu.nvidia.com".
	celDriver    = regexp.MustCompile(`device\.driver\s*==\s*"([^"]*)"`)
	celProduct   = regexp.MustCompile(`device\.attributes\["gpu\.nvidia\.com"\]\.productName\s*(?:==\s*"([^"]*)"|\.(?:matches|startsWith|contains|endsWith)\(\s*"([^"]*)"\s*\)|\.lower(?:Ascii)?\(\)\s*\.(?:contains|startsWith)\(\s*"([^"]*)"\s*\))`)
	celProductIn = regexp.MustCompile(`device\.attributes\["gpu\.nvidia\.com"\]\.productName\s+in\s*\[([^\]]*)\]`)
	celArch      = regexp.MustCompile(`device\.attributes\["gpu\.nvidia\.com"\]\.architecture\s*==\s*"([^"]*)"`)
	celArchIn    = regexp.MustCompile(`device\.attributes\["gpu\.nvidia\.com"\]\.architecture\s+in\s*\[([^\]]*)\]`)
	// memory: .compareTo(quantity("40Gi")) >= 0 (or > 0), or a comparison with a quantity.
	celMemory     = regexp.MustCompile(`device\.capacity\["gpu\.nvidia\.com"\]\.memory\s*(?:\.compareTo\(\s*quantity\(\s*"([^"]*)"\s*\)\s*\)\s*(>=|>)\s*0|(>=|>)\s*quantity\(\s*"([^"]*)"\s*\))`)
	celAnyProduct = regexp.MustCompile(`\.productName\b`)
	celProfile    = regexp.MustCompile(`device\.attributes\["gpu\.nvidia\.com"\]\.profile\s*==\s*"([^"]*)"`)
	celAnyProfile = regexp.MustCompile(`\.profile\b`)
	celMIGType    = regexp.MustCompile(`device\.attributes\["gpu\.nvidia\.com"\]\.type\s*==\s*"mig"`)
	celQuoted     = regexp.MustCompile(`"([^"]*)"`)
)

// readSelectors reads the CEL selectors of a request or a DeviceClass. A product no catalog GPU
// is known as is kept: the estimator says so when it chooses the node.
func readSelectors(sels []celSelector) deviceSelection {
	var s deviceSelection
	for _, sel := range sels {
		if sel.CEL == nil {
			continue
		}
		s = s.and(readCEL(sel.CEL.Expression))
	}
	return s
}

// readCEL reads one selector expression. Terms joined by && narrow together; an expression with
// || is read only when it lists products and nothing else that narrows (productName == "A" ||
// productName == "B"), and one with a negation not at all: otherwise it is unread, and the node
// is not narrowed by it.
func readCEL(expr string) deviceSelection {
	var s deviceSelection
	for _, m := range celProduct.FindAllStringSubmatch(expr, -1) {
		s.products = append(s.products, literal(m[1]+m[2]+m[3], m[1] == ""))
	}
	for _, m := range celProductIn.FindAllStringSubmatch(expr, -1) {
		for _, q := range celQuoted.FindAllStringSubmatch(m[1], -1) {
			s.products = append(s.products, q[1])
		}
	}
	// NVML's names ("Ada Lovelace") are GFD's family label in lower case with dashes
	// (go-nvlib device.GetArchitectureAsString; catalog.GPU.Family).
	family := func(name string) string {
		return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "-")
	}
	for _, m := range celArch.FindAllStringSubmatch(expr, -1) {
		s.architectures = append(s.architectures, family(m[1]))
	}
	for _, m := range celArchIn.FindAllStringSubmatch(expr, -1) {
		for _, q := range celQuoted.FindAllStringSubmatch(m[1], -1) {
			s.architectures = append(s.architectures, family(q[1]))
		}
	}
	for _, m := range celMemory.FindAllStringSubmatch(expr, -1) {
		q := m[1] + m[4]
		mib, err := quantityMiB(q)
		if err != nil {
			s.unread = append(s.unread, fmt.Sprintf("%s (memory %q: %v)", strings.TrimSpace(expr), q, err))
			continue
		}
		if m[2] == ">" || m[3] == ">" {
			mib++
		}
		s.minMemoryMiB = max(s.minMemoryMiB, mib)
	}
	for _, m := range celProfile.FindAllStringSubmatch(expr, -1) {
		s.migProfile, s.mig = m[1], true
	}
	s.mig = s.mig || celMIGType.MatchString(expr)
	rest, compute, why := readCompute(expr)
	if why != "" {
		s.unread = append(s.unread, strings.TrimSpace(expr)+" ("+why+")")
	}
	s.compute = compute
	if (strings.Contains(rest, "!") || strings.Contains(rest, "== false")) && !s.empty() {
		return deviceSelection{unread: []string{strings.TrimSpace(expr) + " (a negation)"}}
	}
	if strings.Contains(expr, "||") && (len(s.architectures) > 0 || s.minMemoryMiB > 0 || s.compute != nil || s.mig || len(s.products) > 0 && len(s.products) < strings.Count(expr, "||")+1) {
		return deviceSelection{unread: []string{strings.TrimSpace(expr) + " (an || with other terms)"}}
	}
	if len(s.products) == 0 && celAnyProduct.MatchString(expr) {
		s.unread = append(s.unread, strings.TrimSpace(expr)+" (a productName term of another shape)")
	}
	if s.migProfile == "" && celAnyProfile.MatchString(expr) {
		s.unread = append(s.unread, strings.TrimSpace(expr)+" (a MIG profile term of another shape)")
	}
	return s
}

// literal is the text a pattern matches literally: a regular expression's (matches) without its
// anchors and wildcards; a plain string as it is.
func literal(s string, pattern bool) string {
	if !pattern {
		return s
	}
	s = strings.NewReplacer(".*", " ", ".+", " ", "^", "", "$", "", `\`, "").Replace(s)
	return strings.TrimSpace(s)
}

// quantityMiB reads a Kubernetes quantity of bytes ("80Gi", "40G", "81559Mi") as MiB, rounded
// down.
func quantityMiB(q string) (int, error) {
	v, err := computeQuantity(q)
	if err != nil {
		return 0, err
	}
	return int(v / (1 << 20)), nil
}

// onNode narrows the pod's node by the selection: the products as GPU feature discovery's
// product label, the architectures as its family, the memory as its memory (NVML's total, in
// MiB) — but a MIG device's memory capacity is its slice's, which says nothing of the GPU. Where
// the node's labels (the pod's, a NodePool's) already name GPUs or families, the node keeps those
// the claim can take (the catalog matches the names: without it the labels' stand), and refused
// says what the claim asks for that none of them is: the claim cannot be allocated there.
func (s deviceSelection) onNode(n *nodeChoice, from string, gpus GPUCatalog) (refused string) {
	switch {
	case len(s.products) == 0:
	case len(n.gpuNames) == 0:
		n.gpuNames = slices.Clone(s.products)
		n.addSource(from + " productName")
	case gpus != nil:
		both := gpus.Narrow(n.gpuNames, s.products)
		if len(both) == 0 {
			return fmt.Sprintf("productName %s, which the node's GPUs (%s) are not", strings.Join(s.products, "|"), strings.Join(n.gpuNames, ", "))
		}
		if !slices.Equal(both, n.gpuNames) {
			n.gpuNames = both
			n.addSource(from + " productName")
		}
	}
	switch {
	case len(s.architectures) == 0:
	case len(n.gpuFamilies) == 0:
		n.gpuFamilies = slices.Clone(s.architectures)
		n.addSource(from + " architecture")
	default:
		both := slices.DeleteFunc(slices.Clone(n.gpuFamilies), func(f string) bool { return !slices.Contains(s.architectures, f) })
		if len(both) == 0 {
			return fmt.Sprintf("architecture %s, which the node's GPUs (%s) are not", strings.Join(s.architectures, "|"), strings.Join(n.gpuFamilies, ", "))
		}
		if len(both) < len(n.gpuFamilies) {
			n.gpuFamilies = both
			n.addSource(from + " architecture")
		}
	}
	if s.minMemoryMiB > 0 && n.gpuReported == nil && !s.mig {
		n.gpuReported = &parser.CountRange{Min: new(s.minMemoryMiB)}
		n.addSource(from + " memory")
	}
	if s.compute != nil {
		n.compute = s.compute // no label sets it: the pod's claims' selection, already taken together, does
		n.addSource(from + " cudaComputeCapability")
	}
	return ""
}

// refuses says what the selection asks for that a node's GPUs are not (their product,
// architecture, or memory as NVML reports it, within parser.ReportedMiBTolerance): "" when the
// claim can take them, or when the catalog does not say.
func (s deviceSelection) refuses(g parser.NodeGPUs, gpus GPUCatalog) string {
	switch {
	case len(s.products) > 0 && !gpus.Names(g.Key, s.products):
		return "productName " + strings.Join(s.products, "|")
	case len(s.architectures) > 0 && g.Family != "" && !slices.Contains(s.architectures, g.Family):
		return "architecture " + strings.Join(s.architectures, "|")
	case s.minMemoryMiB > 0 && !s.mig && g.ReportedMiB > 0 && !(parser.CountRange{Min: new(s.minMemoryMiB)}).AllowsWithin(float64(g.ReportedMiB), parser.ReportedMiBTolerance):
		return fmt.Sprintf("memory of at least %d MiB", s.minMemoryMiB)
	case s.compute != nil && g.ComputeMajor > 0 && !s.compute.Allows(parser.Capability{Major: g.ComputeMajor, Minor: g.ComputeMinor}):
		return "cudaComputeCapability " + s.compute.String()
	}
	return ""
}

// fromClaimSelectors is the source a pod's node is narrowed from by its claims' selectors.
const fromClaimSelectors = "DRA claim selector"

// claimLabels name the attributes a claim's selection narrows the node by as the GPU feature
// discovery labels that carry the same facts, for the notes that show them.
var claimLabels = map[string]string{labelGPUProduct: "productName", labelGFDFamily: "architecture", labelGFDMemory: "memory", keyClaimCompute: "cudaComputeCapability"}

// keyClaimCompute stands in a node selection for a claim's bound on the GPU's compute
// capability as a whole (selector.compute), which no one label carries: GPU feature discovery
// splits it into gpu.compute.major and gpu.compute.minor, which a range like "8.6 and up"
// cannot be written with. Node groups are matched on it by their GPUs (groupIndex.gfdFits).
const keyClaimCompute = "gpu.nvidia.com/cudaComputeCapability"

// onSelector returns the pod's node selection with the claim's selection added as the GPU
// feature discovery labels it narrows the node like (product, family, memory), where the pod
// does not constrain those labels itself: the scheduler places the pod only on a node whose
// devices the claim can take, so the node groups that can run it are those whose GPUs match,
// as the catalog says of their instance types. The keys it adds are marked claimed; the pod's
// own selector is not changed.
func (s deviceSelection) onSelector(sel selector) selector {
	free := func(k string) bool {
		_, in := sel.allowed[k]
		_, out := sel.excluded[k]
		return !in && !out && !sel.bounded(k)
	}
	add := map[string][]string{}
	if len(s.products) > 0 && free(labelGPUProduct) {
		add[labelGPUProduct] = s.products
	}
	if len(s.architectures) > 0 && free(labelGFDFamily) {
		add[labelGFDFamily] = s.architectures
	}
	memory := s.minMemoryMiB > 0 && !s.mig && free(labelGFDMemory)
	if s.compute != nil {
		add[keyClaimCompute] = []string{s.compute.String()}
	}
	if len(add) == 0 && !memory {
		return sel
	}
	out := mergeSelectors(newSelector(), sel)
	out.compute = s.compute
	out.claimed = map[string]bool{}
	for k, v := range add {
		out.allowed[k], out.claimed[k] = v, true
	}
	if memory {
		out.bound("Gt", labelGFDMemory, s.minMemoryMiB-1)
		out.claimed[labelGFDMemory] = true
	}
	return out
}
