package kubernetes

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/bottlerocket"
)

// Node labels that say which node a pod lands on (shared/reference/pricing/README.md).
const (
	labelInstanceType     = "node.kubernetes.io/instance-type"
	labelInstanceTypeBeta = "beta.kubernetes.io/instance-type"
	labelRegion           = "topology.kubernetes.io/region"
	labelZone             = "topology.kubernetes.io/zone"
	labelKarpenterFamily  = "karpenter.k8s.aws/instance-family"
	labelKarpenterType    = "karpenter.k8s.aws/instance-type"
	labelKarpenterGPUName = "karpenter.k8s.aws/instance-gpu-name"
	labelKarpenterCap     = "karpenter.sh/capacity-type"
	// instance-category is the family's letters (g, p, inf, trn); the GPU labels describe an
	// instance's GPUs. https://karpenter.sh/docs/reference/instance-types/
	labelKarpenterCategory = "karpenter.k8s.aws/instance-category"
	labelKarpenterGPUCount = "karpenter.k8s.aws/instance-gpu-count"
	labelKarpenterGPUMaker = "karpenter.k8s.aws/instance-gpu-manufacturer"
	labelKarpenterGen      = "karpenter.k8s.aws/instance-generation"
	labelKarpenterGPUMem   = "karpenter.k8s.aws/instance-gpu-memory" // MiB, each GPU
	// EKS Auto Mode's NodePools name the same instance properties under its own prefix.
	// https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html
	labelEKSFamily      = "eks.amazonaws.com/instance-family"
	labelEKSGPUName     = "eks.amazonaws.com/instance-gpu-name"
	labelEKSCategory    = "eks.amazonaws.com/instance-category"
	labelEKSGPUCount    = "eks.amazonaws.com/instance-gpu-count"
	labelKarpenterPool  = "karpenter.sh/nodepool"
	labelEKSCapacity    = "eks.amazonaws.com/capacityType"
	labelGKEAccelerator = "cloud.google.com/gke-accelerator"
	// The cluster autoscaler's AWS provider reads the GPU of a node group from this label, which
	// the cluster's operators set on its nodes (nvidia-tesla-v100, nvidia-a10g, nvidia-l4):
	// without "nvidia-tesla-" or "nvidia-" it is the GPU name Karpenter gives (v100, a10g, l4).
	// kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws (GPULabel, availableGPUTypes).
	labelAWSAccelerator   = "k8s.amazonaws.com/accelerator"
	labelGKESpot          = "cloud.google.com/gke-spot"
	labelGKEFlexStart     = "cloud.google.com/gke-flex-start"
	labelGKEPreemptible   = "cloud.google.com/gke-preemptible"
	labelGKEMachineFamily = "cloud.google.com/machine-family"
	// LabelGKESharedClients is on the nodes of a GKE pool whose GPUs are shared (time-sharing or
	// MPS): how many containers share each GPU.
	LabelGKESharedClients = "cloud.google.com/gke-max-shared-clients-per-gpu"
	// LabelGKESharingStrategy is beside it: time-sharing or mps.
	// https://cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus
	LabelGKESharingStrategy = "cloud.google.com/gke-gpu-sharing-strategy"
	// LabelGKEGPUPartition is on the nodes of a GKE pool whose GPUs are split into MIG slices,
	// naming the slice ("1g.5gb"); each nvidia.com/gpu a pod there requests is one slice.
	// https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi
	LabelGKEGPUPartition = "cloud.google.com/gke-gpu-partition-size"
	// LabelMIGConfig names the MIG layout NVIDIA's GPU Operator's MIG manager splits a node's
	// GPUs into (MIGLayoutSlice).
	LabelMIGConfig   = "nvidia.com/mig.config"
	labelAKSPriority = "kubernetes.azure.com/scalesetpriority"
	// AKS node auto-provisioning (Karpenter's Azure provider) names VM sizes under its own
	// prefix: sku-name is the size (Standard_NC24ads_A100_v4), sku-family its first letter (N),
	// sku-gpu-name the accelerator in the size's name (A100).
	// github.com/Azure/karpenter-provider-azure pkg/apis/v1beta1/labels.go (read 2026-11-22).
	labelAzureSKUName   = "karpenter.azure.com/sku-name"
	labelAzureSKUFamily = "karpenter.azure.com/sku-family"
	labelAzureGPUName   = "karpenter.azure.com/sku-gpu-name"
	labelAzureGPUCount  = "karpenter.azure.com/sku-gpu-count"
	labelAzureGPUMaker  = "karpenter.azure.com/sku-gpu-manufacturer"
	// Karpenter's GCP provider (GCENodeClass, group karpenter.k8s.gcp) names a machine type's
	// series (g2, a3) and the GCE accelerator type of its GPUs (nvidia-l4, the same names as
	// cloud.google.com/gke-accelerator, which it also sets on GPU nodes), and reads the series'
	// category (its letters: g, a, n) and generation (its digit: 2 of g2, 4 of a4x) off the name
	// as EC2's are read. Its instance-gpu-count
	// counts the machine type's accelerator entries (one for every GPU type) and it sets no
	// instance-gpu-memory, so neither says how many GPUs or how much memory a node has: gpuguard
	// does not read them. github.com/cloudpilot-ai/karpenter-provider-gcp
	// pkg/apis/v1alpha1/labels.go and pkg/providers/instancetype/types.go, computeRequirements
	// (read 2026-11-27).
	labelGCPKarpenterFamily  = "karpenter.k8s.gcp/instance-family"
	labelGCPKarpenterGPUName = "karpenter.k8s.gcp/instance-gpu-name"
	labelGCPKarpenterCat     = "karpenter.k8s.gcp/instance-category"
	labelGCPKarpenterGen     = "karpenter.k8s.gcp/instance-generation"
	// NVIDIA's GPU feature discovery labels every GPU node with its GPUs' product name, their
	// count, the memory of each in MiB as the driver reports it (NVML's total), their
	// architecture and their CUDA compute capability,
	// https://github.com/NVIDIA/k8s-device-plugin (docs/gpu-feature-discovery, "Generated Labels").
	labelGPUProduct      = "nvidia.com/gpu.product"
	labelGFDCount        = "nvidia.com/gpu.count"
	labelGFDMemory       = "nvidia.com/gpu.memory"
	labelGFDFamily       = "nvidia.com/gpu.family"
	labelGFDComputeMajor = "nvidia.com/gpu.compute.major"
	labelGFDComputeMinor = "nvidia.com/gpu.compute.minor"
)

// nodeChoice is what a pod's selection (and a matching NodePool) says about its node.
type nodeChoice struct {
	provider       string
	instanceTypes  []string
	families       []string
	gpuNames       []string
	azureGPUNames  []string
	categories     []string
	gpuCounts      *parser.CountRange
	generations    *parser.CountRange
	gpuMemory      *parser.CountRange
	gpuReported    *parser.CountRange     // GPU feature discovery's gpu.memory
	gpuFamilies    []string               // GPU feature discovery's gpu.family
	computeMajor   *parser.CountRange     // and gpu.compute.major
	computeMinor   *parser.CountRange     // and gpu.compute.minor
	compute        *parser.ComputeRange   // a DRA claim's cudaComputeCapability
	excluded       *parser.NodeExclusions // what the selection rules out (NotIn)
	excludedFrom   []string               // the labels it rules them out by, as sources
	purchase       parser.PurchaseOption
	region         string
	source         []string
	sharedReplicas int
	sharingGKE     string // the GKE sharing strategy the selection names
	// ownPrice is the price of the nodes' own provisioning model (flex-start), when not the
	// catalog's.
	ownPrice *parser.OwnPrice
}

// narrowed reports whether the choice narrows the node down from any GPU type of its cloud.
func (n nodeChoice) narrowed() bool {
	return len(n.instanceTypes) > 1 || len(n.families) > 0 || len(n.gpuNames) > 0 || len(n.azureGPUNames) > 0 ||
		len(n.categories) > 0 || n.gpuCounts != nil || n.gpuMemory != nil || n.gpuReported != nil || len(n.gpuFamilies) > 0 ||
		n.computeMajor != nil || n.computeMinor != nil || n.compute != nil || n.generations != nil && n.provider != ""
}

// onPod writes what the choice allows of the node onto the pod, for the estimator to choose
// its type among the catalog's.
func (n nodeChoice) onPod(pod *parser.PodGPUs) {
	pod.InstanceTypes, pod.Families, pod.GPUNames, pod.AzureGPUNames = n.instanceTypes, n.families, n.gpuNames, n.azureGPUNames
	pod.Categories, pod.NodeGPUs, pod.AnyGPUType = n.categories, n.gpuCounts, !n.narrowed()
	pod.Generations, pod.GPUMemoryMiB, pod.GPUReportedMiB = n.generations, n.gpuMemory, n.gpuReported
	pod.GPUFamilies, pod.GPUComputeMajor, pod.GPUComputeMinor = n.gpuFamilies, n.computeMajor, n.computeMinor
	pod.GPUComputeCapability = n.compute
	pod.Excluded = n.excluded
}

func (n *nodeChoice) addSource(s string) {
	for _, x := range n.source {
		if x == s {
			return
		}
	}
	n.source = append(n.source, s)
}

// fromSelector reads the well-known node labels from a selector.
func fromSelector(sel selector, origin string) nodeChoice {
	var n nodeChoice
	if v, ok := sel.values(labelInstanceType, labelInstanceTypeBeta, labelKarpenterType, labelAzureSKUName); ok && len(v) > 0 {
		n.instanceTypes = v
		n.provider = parser.ProviderOfInstanceType(v[0])
		n.addSource(origin + " instance-type")
	}
	// list reads a label naming one cloud's node attribute (in order: a later one's cloud wins).
	list := func(field *[]string, provider, what string, keys ...string) {
		if v, ok := sel.values(keys...); ok && len(v) > 0 {
			*field, n.provider = v, provider
			n.addSource(origin + " " + what)
		}
	}
	list(&n.families, parser.AWS, "karpenter instance-family", labelKarpenterFamily, labelEKSFamily)
	list(&n.gpuNames, parser.AWS, "karpenter instance-gpu-name", labelKarpenterGPUName, labelEKSGPUName)
	if v, ok := sel.values(labelAWSAccelerator); ok && len(n.gpuNames) == 0 {
		if names := awsAcceleratorNames(v); len(names) > 0 {
			n.gpuNames, n.provider = names, parser.AWS
			n.addSource(origin + " k8s.amazonaws.com/accelerator")
		}
	}
	list(&n.families, parser.Azure, "azure sku-family", labelAzureSKUFamily)
	list(&n.azureGPUNames, parser.Azure, "azure sku-gpu-name", labelAzureGPUName)
	list(&n.categories, parser.AWS, "instance-category", labelKarpenterCategory, labelEKSCategory)
	for _, k := range []string{labelKarpenterGPUCount, labelEKSGPUCount, labelAzureGPUCount} {
		if c, ok := sel.countRange(k); ok {
			n.gpuCounts = &c
			if n.provider == "" && k == labelAzureGPUCount {
				n.provider = parser.Azure
			} else if n.provider == "" {
				n.provider = parser.AWS
			}
			n.addSource(origin + " gpu-count")
			break
		}
	}
	if c, ok := sel.countRange(labelKarpenterGen); ok {
		n.generations = &c
		n.addSource(origin + " instance-generation")
	}
	if c, ok := sel.countRange(labelKarpenterGPUMem); ok {
		n.gpuMemory = &c
		n.addSource(origin + " instance-gpu-memory")
		if n.provider == "" {
			n.provider = parser.AWS
		}
	}
	if _, ok := sel.values(labelKarpenterGPUMaker); ok && n.provider == "" {
		n.provider = parser.AWS
	}
	if _, ok := sel.values(labelAzureGPUMaker); ok && n.provider == "" {
		n.provider = parser.Azure
	}
	list(&n.families, parser.GCP, "karpenter.k8s.gcp instance-family", labelGCPKarpenterFamily)
	list(&n.categories, parser.GCP, "karpenter.k8s.gcp instance-category", labelGCPKarpenterCat)
	if c, ok := sel.countRange(labelGCPKarpenterGen); ok {
		n.generations, n.provider = &c, parser.GCP
		n.addSource(origin + " karpenter.k8s.gcp instance-generation")
	}
	list(&n.gpuNames, parser.GCP, "karpenter.k8s.gcp instance-gpu-name", labelGCPKarpenterGPUName)
	list(&n.gpuNames, parser.GCP, "gke-accelerator", labelGKEAccelerator)
	list(&n.families, parser.GCP, "gke machine-family", labelGKEMachineFamily)
	if v, ok := sel.values(labelGPUProduct); ok && len(v) > 0 && len(n.gpuNames) == 0 {
		n.gpuNames = v
		n.addSource(origin + " nvidia.com/gpu.product")
	}
	// GPU feature discovery's count and memory say nothing of the cloud.
	if c, ok := sel.countRange(labelGFDCount); ok && n.gpuCounts == nil {
		n.gpuCounts = &c
		n.addSource(origin + " nvidia.com/gpu.count")
	}
	for _, b := range []struct {
		label string
		dst   **parser.CountRange
	}{{labelGFDMemory, &n.gpuReported}, {labelGFDComputeMajor, &n.computeMajor}, {labelGFDComputeMinor, &n.computeMinor}} {
		if c, ok := sel.countRange(b.label); ok {
			*b.dst = &c
			n.addSource(origin + " " + b.label)
		}
	}
	if v, ok := sel.values(labelGFDFamily); ok && len(v) > 0 {
		n.gpuFamilies = v
		n.addSource(origin + " " + labelGFDFamily)
	}
	if v, ok := sel.values(labelKarpenterCap); ok {
		n.purchase = karpenterCapacity(v)
		if n.provider == "" {
			n.provider = parser.AWS
		}
	}
	if v, ok := sel.values(labelEKSCapacity); ok && len(v) == 1 {
		n.provider = parser.AWS
		if strings.EqualFold(v[0], "SPOT") {
			n.purchase = parser.Spot
		} else {
			n.purchase = parser.OnDemand
		}
	}
	if v, ok := sel.values(labelGKESpot, labelGKEPreemptible); ok && len(v) == 1 && v[0] == "true" {
		n.purchase, n.provider = parser.Spot, parser.GCP
	}
	if v, ok := sel.values(labelGKEFlexStart); ok && len(v) == 1 && v[0] == "true" {
		n.ownPrice, n.provider = parser.FlexStart(), parser.GCP
		n.addSource(origin + " gke-flex-start")
	}
	if v, ok := sel.values(labelAKSPriority); ok && len(v) == 1 {
		n.provider = parser.Azure
		if strings.EqualFold(v[0], "spot") {
			n.purchase = parser.Spot
		}
	}
	if _, ok := sel.values(LabelGKEGPUPartition); ok && n.provider == "" {
		n.provider = parser.GCP
	}
	if v, ok := sel.values(LabelGKESharedClients); ok && len(v) == 1 {
		fmt.Sscanf(v[0], "%d", &n.sharedReplicas)
	}
	if v, ok := sel.values(LabelGKESharingStrategy); ok && len(v) == 1 {
		n.sharingGKE = v[0]
	}
	if v, ok := sel.values(labelRegion); ok && len(v) == 1 {
		n.region = v[0]
	} else if v, ok := sel.values(labelZone); ok && len(v) == 1 {
		n.region = regionOfZone(v[0])
	}
	n.excluded, n.excludedFrom = exclusions(sel, origin)
	return n
}

// exclusions reads what a selection rules out (NotIn) of the well-known node labels the
// estimator picks a node by, and names the labels as sources ("origin key NotIn"); nil when it
// rules out none of them.
func exclusions(sel selector, origin string) (*parser.NodeExclusions, []string) {
	var from []string
	words := func(keys ...string) []string {
		var out []string
		for _, k := range keys {
			if len(sel.excluded[k]) > 0 {
				out = append(out, sel.excluded[k]...)
				from = append(from, origin+" "+k+" NotIn")
			}
		}
		return out
	}
	nums := func(keys ...string) []int {
		var out []int
		for _, v := range words(keys...) {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				out = append(out, n)
			}
		}
		return out
	}
	x := parser.NodeExclusions{
		InstanceTypes:  words(labelInstanceType, labelInstanceTypeBeta, labelKarpenterType, labelAzureSKUName),
		Families:       words(labelKarpenterFamily, labelEKSFamily, labelAzureSKUFamily, labelGKEMachineFamily, labelGCPKarpenterFamily),
		GPUNames:       words(labelKarpenterGPUName, labelEKSGPUName, labelGKEAccelerator, labelGPUProduct, labelGCPKarpenterGPUName),
		AzureGPUNames:  words(labelAzureGPUName),
		Categories:     words(labelKarpenterCategory, labelEKSCategory, labelGCPKarpenterCat),
		GPUFamilies:    words(labelGFDFamily),
		NodeGPUs:       nums(labelKarpenterGPUCount, labelEKSGPUCount, labelAzureGPUCount, labelGFDCount),
		Generations:    nums(labelKarpenterGen, labelGCPKarpenterGen),
		GPUMemoryMiB:   nums(labelKarpenterGPUMem),
		GPUReportedMiB: nums(labelGFDMemory),
		ComputeMajor:   nums(labelGFDComputeMajor),
		ComputeMinor:   nums(labelGFDComputeMinor),
	}
	if x.String() == "" {
		return nil, nil
	}
	return &x, from
}

// karpenterCapacity: when spot is allowed Karpenter launches spot first, so the pod is priced at
// spot; reserved capacity is priced as a 1-year commitment.
func karpenterCapacity(values []string) parser.PurchaseOption {
	has := func(v string) bool {
		for _, x := range values {
			if x == v {
				return true
			}
		}
		return false
	}
	switch {
	case has("spot"):
		return parser.Spot
	case has("on-demand"):
		return parser.OnDemand
	case has("reserved"):
		return parser.Reserved1y
	}
	return ""
}

var (
	awsZone   = regexp.MustCompile(`^([a-z]{2}(-gov)?-[a-z]+-\d)[a-z]$`)
	gcpZone   = regexp.MustCompile(`^([a-z]+-[a-z]+\d+)-[a-z]$`)
	azureZone = regexp.MustCompile(`^([a-z]+\d*)-\d$`)
)

func regionOfZone(z string) string {
	for _, re := range []*regexp.Regexp{awsZone, gcpZone, azureZone} {
		if m := re.FindStringSubmatch(z); m != nil {
			return m[1]
		}
	}
	return ""
}

// nodePool is a Karpenter NodePool (karpenter.sh/v1): the requirements and taints of the nodes
// it launches.
type nodePool struct {
	name         string
	address      string
	root         string // the kustomization or file that declares it
	provider     string // from the node class it names, when that says
	weight       int
	requirements selector
	labels       map[string]string
	taints       []toleration
	// limits is what the pool's spec.limits allow all its nodes together, by resource (cpu in
	// cores, memory in bytes, GPUs in devices), in the order declared; Karpenter launches no
	// node past them.
	limits []poolLimit
	// nodeClass is the EC2NodeClass its nodeClassRef names (AWS only), and noGPUDriver what
	// that class's AMI selection says when its nodes boot without the NVIDIA driver.
	nodeClass   string
	noGPUDriver string
	// bottlerocket is the NVIDIA device plugin settings of that class's Bottlerocket userData,
	// and bottlerocketFrom where they are; nil when it sets none.
	bottlerocket     *bottlerocket.DevicePlugin
	bottlerocketFrom string
}

// bottlerocketSlice makes each nvidia.com/gpu a pod asks for on the pool's nodes the MIG slice
// their Bottlerocket settings split its instance type's GPUs into (the plugin's single MIG
// strategy), when the pod's node is one instance type.
func (np *nodePool) bottlerocketSlice(res *parser.Resource) {
	pod := res.Pod
	if np == nil || np.bottlerocket == nil || pod.Resource != ResourceNvidiaGPU || pod.MIGProfile != "" || res.InstanceType == "" {
		return
	}
	switch slice, why := np.bottlerocket.Slice(res.InstanceType); {
	case slice != "":
		pod.MIGProfile = slice
		res.Note("%s splits the GPUs of %s's nodes into MIG %s slices (device-partitioning-strategy = \"mig\"): each nvidia.com/gpu the pod requests is one", np.bottlerocketFrom, np.address, slice)
	case why != "":
		res.Note("%s asks for MIG, but %s", np.bottlerocketFrom, why)
	}
}

// ec2Class is what gpuguard reads of a Karpenter EC2NodeClass: why its nodes boot without the
// NVIDIA driver, and the device plugin settings of its Bottlerocket userData.
type ec2Class struct {
	noGPUDriver  string
	bottlerocket *bottlerocket.DevicePlugin
}

// poolLimit is one entry of a NodePool's spec.limits.
type poolLimit struct {
	resource string
	amount   float64
	text     string // as written ("16", "1000Gi")
}

func decodeNodePool(o *object) (*nodePool, error) {
	var spec struct {
		Weight   int `yaml:"weight"`
		Template struct {
			Metadata objectMeta `yaml:"metadata"`
			Spec     struct {
				Requirements []requirement `yaml:"requirements"`
				Taints       []toleration  `yaml:"taints"`
				NodeClassRef struct {
					Group string `yaml:"group"`
					// APIVersion names the class's group in karpenter.sh/v1beta1 NodePools
					// (karpenter.k8s.aws/v1beta1), which had no group field.
					APIVersion string `yaml:"apiVersion"`
					Kind       string `yaml:"kind"`
					Name       string `yaml:"name"`
				} `yaml:"nodeClassRef"`
			} `yaml:"spec"`
		} `yaml:"template"`
		Limits yaml.Node `yaml:"limits"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	limits, err := decodePoolLimits(o, &spec.Limits)
	if err != nil {
		return nil, err
	}
	ref := spec.Template.Spec.NodeClassRef
	if ref.Group == "" {
		ref.Group = group(ref.APIVersion)
	}
	np := &nodePool{name: o.Metadata.Name, address: "NodePool/" + o.Metadata.Name, root: o.rootName(), weight: spec.Weight,
		requirements: newSelector(),
		labels:       spec.Template.Metadata.Labels, taints: spec.Template.Spec.Taints,
		provider: nodeClassProvider[ref.Group], limits: limits}
	for k, v := range spec.Template.Metadata.Labels {
		np.requirements.allowed[k] = []string{v}
	}
	np.requirements.allowed[labelKarpenterPool] = []string{o.Metadata.Name}
	if ref.Group == "karpenter.k8s.aws" && (ref.Kind == "" || ref.Kind == "EC2NodeClass") {
		np.nodeClass = ref.Name
	}
	for _, r := range spec.Template.Spec.Requirements {
		np.requirements.add(r)
	}
	return np, nil
}

// decodePoolLimits reads a NodePool's spec.limits: a mapping of resource names to quantities.
func decodePoolLimits(o *object, n *yaml.Node) ([]poolLimit, error) {
	return decodeQuantities(o, n, "limits")
}

// decodeQuantities reads a mapping of resource names to quantities, field in messages.
func decodeQuantities(o *object, n *yaml.Node, field string) ([]poolLimit, error) {
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, lineError{line: o.lineOf(n), err: fmt.Errorf("%s must be a mapping of resources to quantities", field)}
	}
	var out []poolLimit
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return nil, lineError{line: o.lineOf(v), err: fmt.Errorf("%s: %s: quantity must be a number", field, k.Value)}
		}
		q, err := computeQuantity(v.Value)
		if err != nil {
			return nil, lineError{line: o.lineOf(v), err: fmt.Errorf("%s: %s: %w", field, k.Value, err)}
		}
		out = append(out, poolLimit{resource: k.Value, amount: q, text: strings.TrimSpace(v.Value)})
	}
	return out, nil
}

// podsWithin is the most pods of this resource's shape the pool's limits let Karpenter launch
// nodes for, and the limit that decides it (ok is false when no limit bounds them). Every pod
// needs its GPUs, CPU and memory on some node of the pool, so pods × request ≤ limit for each
// limited resource — an upper bound, since nodes also hold what the kubelet and daemons reserve.
func (np *nodePool) podsWithin(pod *parser.PodGPUs) (n int, by poolLimit, ok bool) {
	for _, l := range np.limits {
		var per float64
		amount := l.amount
		switch {
		case l.resource == pod.Resource && pod.Resource != ResourceNvidiaShared && pod.SharedReplicas == 0:
			// A shared claim's devices are allocated once, whatever the pods that name it: they
			// take that much of the limit, and each pod only its own devices more.
			shared := pod.SharedClaimGPUs()
			per, amount = float64(pod.Requested-shared), amount-float64(shared)
			if per <= 0 {
				if amount >= 0 {
					continue // any number of pods share the claims' devices within the limit
				}
				per = 1 // the claims alone pass the limit: no pod fits (below)
			}
		default:
			per = podLimitShare(pod, l.resource) // cpu, memory; 0 for other resources
		}
		if per <= 0 {
			continue
		}
		// The small margin keeps a limit that is an exact multiple of the request from losing
		// a pod to rounding (0.3 / 0.1 is 2.9999999999999996). A bound past maxPods bounds
		// nothing (and would overflow an int).
		f := math.Floor(amount/per + 1e-9)
		if amount < 0 {
			f = 0 // the claims alone pass the limit
		}
		if f >= maxPods {
			continue
		}
		if pods := int(f); !ok || pods < n {
			n, by, ok = pods, l, true
		}
	}
	return n, by, ok
}

// nodeClassProvider is the cloud of a NodePool's node class, by the class's API group.
var nodeClassProvider = map[string]string{
	"karpenter.k8s.aws":   parser.AWS,   // EC2NodeClass
	"eks.amazonaws.com":   parser.AWS,   // EKS Auto Mode's NodeClass
	"karpenter.azure.com": parser.Azure, // AKSNodeClass
	"karpenter.k8s.gcp":   parser.GCP,   // GCENodeClass
}

// admits reports whether a pod with this selection and these tolerations can land on the
// pool's nodes: every key both constrain must share a value (a value the pod does not exclude),
// every taint must be tolerated, and
// every label the pod requires must be one Karpenter knows, or one the pool defines (a
// requirement or a template label).
func (np *nodePool) admits(sel selector, tols []toleration) bool {
	for k, want := range sel.allowed {
		have, ok := np.requirements.allowed[k]
		if !ok {
			if _, defined := np.requirements.excluded[k]; !defined && !karpenterKnownLabel(k, np.provider) {
				return false
			}
			continue
		}
		if want == nil || have == nil {
			continue
		}
		if len(intersect(filterOut(want, np.requirements.excluded[k]), have)) == 0 {
			return false
		}
	}
	// A pod's NotIn that rules out every value the pool allows leaves the two no node in
	// common, as Karpenter's requirements intersect (a NotIn on a key the pool does not
	// constrain is met by nodes without the label).
	for k, out := range sel.excluded {
		if have := np.requirements.allowed[k]; have != nil && len(filterOut(have, out)) == 0 {
			return false
		}
	}
	for _, t := range np.taints {
		if !tolerates(tols, t) {
			return false
		}
	}
	return true
}

// karpenterWellKnown are the labels Karpenter knows the values of on the nodes it launches without
// a NodePool defining them: Kubernetes' well-known node labels (and their beta names) and its own
// (kubernetes-sigs/karpenter pkg/apis/v1/labels.go, WellKnownLabels). With the labels under its
// providers' domains (karpenterKnownLabel), they are the labels a pod may select that a NodePool
// does not name. A pod that requires any other label (a team's own, GPU feature discovery's
// nvidia.com/gpu.product, another cloud's) is not scheduled on a pool that neither requires nor
// sets it: Karpenter launches no node for it (Azure/karpenter-provider-azure
// designs/0006-requirements-and-labels.md, "can NOT be set on Pod when not set on
// NodePool/NodeClaim", read 2026-11-27); Karpenter's event for such a pod reads "incompatible
// requirements, label "workload" does not have known values" (aws/karpenter-provider-aws#7535,
// kubernetes-sigs/karpenter#1162).
var karpenterWellKnown = map[string]bool{
	labelInstanceType: true, labelInstanceTypeBeta: true, labelRegion: true, labelZone: true,
	"failure-domain.beta.kubernetes.io/region": true, "failure-domain.beta.kubernetes.io/zone": true,
	"kubernetes.io/arch": true, "kubernetes.io/os": true, "beta.kubernetes.io/arch": true, "beta.kubernetes.io/os": true,
	"node.kubernetes.io/windows-build": true, labelKarpenterCap: true, labelKarpenterPool: true,
	// EKS Auto Mode's nodes, which its docs select with eks.amazonaws.com/compute-type: auto
	// (https://docs.aws.amazon.com/eks/latest/userguide/associate-workload.html).
	"eks.amazonaws.com/compute-type": true,
}

// karpenterKnownLabel reports whether Karpenter knows a label's values without a NodePool naming
// it: a well-known one, or one under its providers' instance domains (karpenter.k8s.aws/,
// topology.k8s.aws/, EKS Auto Mode's eks.amazonaws.com/instance-, karpenter.azure.com/,
// karpenter.k8s.gcp/, topology.k8s.gcp/); on a pool of Karpenter's GCP provider (provider GCP),
// also cloud.google.com/gke-accelerator, which it registers as well known.
func karpenterKnownLabel(k, provider string) bool {
	if karpenterWellKnown[k] || provider == parser.GCP && k == labelGKEAccelerator {
		return true
	}
	for _, p := range []string{"karpenter.k8s.aws/", "topology.k8s.aws/", "eks.amazonaws.com/instance-", "karpenter.azure.com/", "karpenter.k8s.gcp/", "topology.k8s.gcp/"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// allowsType reports whether the pool's instance-type and instance-family requirements, where
// it has them, allow an instance type (an EC2 family is the part before the dot).
func (np *nodePool) allowsType(typ string) bool {
	req := np.requirements
	if v := req.allowed[labelInstanceType]; v != nil && !slices.Contains(v, typ) || slices.Contains(req.excluded[labelInstanceType], typ) {
		return false
	}
	family, _, ok := strings.Cut(typ, ".")
	if !ok {
		return true
	}
	for _, k := range []string{labelKarpenterFamily, labelEKSFamily} {
		if v := req.allowed[k]; v != nil && !slices.Contains(v, family) || slices.Contains(req.excluded[k], family) {
			return false
		}
	}
	return true
}

// namesType says how the pool's requirements name an instance type: the type itself, or "the
// <family> family" for its EC2 family; "" when they do not name it (a pool meant for that type,
// not one that merely does not exclude it).
func (np *nodePool) namesType(typ string) string {
	req := np.requirements
	for _, k := range []string{labelInstanceType, labelKarpenterType, labelAzureSKUName} {
		if slices.Contains(req.allowed[k], typ) {
			return typ
		}
	}
	family, _, ok := strings.Cut(typ, ".")
	if ok && (slices.Contains(req.allowed[labelKarpenterFamily], family) || slices.Contains(req.allowed[labelEKSFamily], family)) {
		return "the " + family + " family"
	}
	return ""
}

// matchPinnedPool finds the pool Karpenter launches a node from for a pod that pins its instance
// type without naming a pool: the highest-weight pool that admits the pod and names the type or
// its family in its requirements (ties by name). A pool that only allows the type among others
// is not taken for it: the pinned type may as well run on nodes no pool in the files manages.
func matchPinnedPool(pools []*nodePool, sel selector, tols []toleration, typ string) *nodePool {
	var named []*nodePool
	for _, np := range pools {
		if np.namesType(typ) != "" && np.allowsType(typ) {
			named = append(named, np)
		}
	}
	np, _ := matchNodePool(named, sel, tols, nil)
	return np
}

// offersGPUs reports whether the pool's requirements point at GPU instances at all.
func (np *nodePool) offersGPUs() bool {
	req := np.requirements
	for _, k := range []string{labelKarpenterGPUCount, labelEKSGPUCount, labelAzureGPUCount} {
		if c, ok := req.countRange(k); ok && c.AllowsGPUs() {
			return true
		}
	}
	if c, ok := req.countRange(labelKarpenterGPUMem); ok && c.AllowsGPUs() {
		return true
	}
	for _, k := range []string{labelKarpenterGPUName, labelEKSGPUName, labelAzureGPUName, labelKarpenterFamily, labelEKSFamily,
		labelAzureSKUFamily, labelInstanceType, labelKarpenterType, labelAzureSKUName, labelKarpenterCategory,
		labelEKSCategory, labelKarpenterGPUMaker, labelAzureGPUMaker, labelGPUProduct, labelGCPKarpenterGPUName,
		labelGCPKarpenterFamily, labelGCPKarpenterCat, labelGKEAccelerator} {
		v, ok := req.allowed[k]
		if !ok {
			continue
		}
		switch k {
		case labelKarpenterCategory, labelEKSCategory:
			for _, c := range v {
				if c == "g" || c == "p" || c == "inf" || c == "trn" {
					return true
				}
			}
		case labelKarpenterFamily, labelEKSFamily:
			for _, f := range v {
				if parser.IsGPUInstanceType(parser.AWS, f+".x") {
					return true
				}
			}
		case labelGCPKarpenterCat:
			// GCP's GPU series are A (a2, a3, a4) and G (g2, g4); N1 takes GPUs only attached,
			// and an n pool is one of general-purpose machines.
			if slices.Contains(v, "a") || slices.Contains(v, "g") {
				return true
			}
		case labelGCPKarpenterFamily:
			for _, f := range v {
				if parser.IsGPUInstanceType(parser.GCP, f+"-") {
					return true
				}
			}
		case labelAzureSKUFamily:
			for _, f := range v {
				if strings.EqualFold(f, "N") { // the N series are Azure's GPU sizes
					return true
				}
			}
		case labelInstanceType, labelKarpenterType, labelAzureSKUName:
			for _, t := range v {
				if parser.IsGPUInstanceType(parser.ProviderOfInstanceType(t), t) {
					return true
				}
			}
		default:
			return true
		}
	}
	return false
}

// gpuPoolsOn lists the addresses of the pools that offer GPUs on a cloud (any pool whose cloud,
// or the pod's, is not known), in name order, each once (two clusters' pools may share a name).
func gpuPoolsOn(pools []*nodePool, provider string) []string {
	var out []string
	for _, np := range pools {
		if np.offersGPUs() && (provider == "" || np.provider == "" || np.provider == provider) {
			out = append(out, np.address)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// managedGroupLabels are the labels the clouds put on the nodes of a managed node group (EKS node
// group, GKE node pool, AKS agent pool): a pod that selects one is meant for that group, not for
// a Karpenter NodePool.
var managedGroupLabels = []string{"eks.amazonaws.com/nodegroup", "cloud.google.com/gke-nodepool", "kubernetes.azure.com/agentpool", "agentpool"}

func namesManagedGroup(sel selector) bool {
	_, ok := sel.values(managedGroupLabels...)
	return ok
}

// nodePools are the Karpenter NodePools of a scan, sorted by name. A NodePool is
// cluster-scoped: two of one name are two clusters' (a repository that keeps envs/dev beside
// envs/prod, or kustomize overlays that each deploy the same pool), and severalClusters says so.
type nodePools struct {
	all             []*nodePool
	severalClusters bool
}

func newNodePools(pools []*nodePool) nodePools {
	slices.SortStableFunc(pools, func(a, b *nodePool) int {
		return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.root, b.root))
	})
	p := nodePools{all: pools}
	for i := 1; i < len(pools) && !p.severalClusters; i++ { // sorted: a repeated name is adjacent
		p.severalClusters = pools[i].name == pools[i-1].name
	}
	return p
}

// near returns the pools a pod declared at podRoot may land on: in a scan of several clusters,
// those declared nearest the pod (nearestBy), its cluster's; otherwise all of them.
func (p nodePools) near(podRoot string) []*nodePool {
	if !p.severalClusters {
		return p.all
	}
	near, _ := nearestBy(p.all, func(np *nodePool) string { return np.root }, podRoot)
	return near
}

// matchNodePool finds the pool a GPU pod lands on: the highest-weight admitting pool that
// offers GPU instances (ties by name), as Karpenter orders pools, and of those, the first with
// an instance type for the pod (hasType; nil takes the first). passed are the admitting pools
// before it that have none, or all of them when none has: Karpenter tries each pool's
// compatible instance types in that order and moves on from a pool that has none.
func matchNodePool(pools []*nodePool, sel selector, tols []toleration, hasType func(*nodePool) bool) (np *nodePool, passed []*nodePool) {
	var cands []*nodePool
	for _, np := range pools {
		if np.offersGPUs() && np.admits(sel, tols) {
			cands = append(cands, np)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].weight != cands[j].weight {
			return cands[i].weight > cands[j].weight
		}
		return cands[i].name < cands[j].name
	})
	for i, np := range cands {
		if hasType == nil || hasType(np) {
			return np, cands[:i]
		}
	}
	return nil, cands
}

// nodeFor is the node the pool launches for a pod with this selection: the pool's requirements
// narrowed by the pod's, on the cloud of the pool's node class when that says.
func (np *nodePool) nodeFor(sel selector) nodeChoice {
	n := fromSelector(np.merge(sel), np.address)
	if np.provider != "" {
		n.provider = np.provider
	}
	return n
}

// merge combines the pod's own selection with its NodePool's requirements: the pod narrows
// what the pool allows.
func (np *nodePool) merge(sel selector) selector { return mergeSelectors(np.requirements, sel) }

// mergeSelectors narrows what base allows by sel.
func mergeSelectors(base, sel selector) selector {
	out := newSelector()
	for _, s := range []selector{base, sel} {
		for k, n := range s.above {
			out.bound("Gt", k, n)
		}
		for k, n := range s.below {
			out.bound("Lt", k, n)
		}
	}
	for k, v := range base.allowed {
		out.allowed[k] = v
	}
	for k, v := range base.excluded {
		out.excluded[k] = append(out.excluded[k], v...)
	}
	for k, v := range sel.allowed {
		if have, ok := out.allowed[k]; ok && have != nil && v != nil {
			out.allowed[k] = intersect(have, v)
		} else if !ok || have == nil {
			out.allowed[k] = v
		}
	}
	for k, v := range sel.excluded {
		out.excluded[k] = append(out.excluded[k], v...)
	}
	return out
}

// decodeEC2NodeClass reads a Karpenter EC2NodeClass's AMI selection (spec.amiSelectorTerms)
// and returns what it says when the nodes boot an EKS-optimized AMI without the NVIDIA driver:
// every term names such an AMI by name or by SSM parameter. An alias (al2023@latest,
// bottlerocket@latest) lets Karpenter pick the NVIDIA variant for GPU instance types, and an
// id or tags name an image gpuguard cannot see: neither is judged
// (https://karpenter.sh/docs/concepts/nodeclasses/#specamiselectorterms). With a Bottlerocket
// AMI (amiFamily, or a bottlerocket@ alias) it reads the NVIDIA device plugin settings of its
// userData; settings Bottlerocket refuses are an error.
func decodeEC2NodeClass(o *object) (ec2Class, error) {
	var spec struct {
		AMIFamily        string `yaml:"amiFamily"`
		UserData         string `yaml:"userData"`
		AMISelectorTerms []struct {
			Alias        string            `yaml:"alias"`
			ID           string            `yaml:"id"`
			Name         string            `yaml:"name"`
			SSMParameter string            `yaml:"ssmParameter"`
			Tags         map[string]string `yaml:"tags"`
		} `yaml:"amiSelectorTerms"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return ec2Class{}, err
	}
	var class ec2Class
	// Bottlerocket's userData is TOML settings, which Karpenter merges with its own: those of
	// the NVIDIA device plugin Bottlerocket runs are read (parser/bottlerocket).
	// https://karpenter.sh/docs/concepts/nodeclasses/#specuserdata
	bottlerocketAMI := strings.EqualFold(spec.AMIFamily, "Bottlerocket")
	for _, t := range spec.AMISelectorTerms {
		family, _, _ := strings.Cut(t.Alias, "@")
		bottlerocketAMI = bottlerocketAMI || strings.EqualFold(family, "bottlerocket")
	}
	if bottlerocketAMI && spec.UserData != "" {
		d, set, err := bottlerocket.Read(spec.UserData)
		if err != nil {
			return ec2Class{}, fmt.Errorf("spec.userData: %w", err)
		}
		if set {
			class.bottlerocket = &d
		}
	}
	var named []string
	for _, t := range spec.AMISelectorTerms {
		if t.Alias != "" || t.ID != "" || len(t.Tags) > 0 {
			return class, nil
		}
		field, value := "name", t.Name
		if t.SSMParameter != "" {
			field, value = "ssmParameter", t.SSMParameter
		}
		what := parser.EKSImageWithoutDriver(value)
		if what == "" {
			return class, nil
		}
		named = append(named, fmt.Sprintf("%s %q, %s", field, value, what))
	}
	if len(named) > 0 {
		class.noGPUDriver = fmt.Sprintf("EC2NodeClass/%s selects its AMI by %s, without the NVIDIA driver", o.Metadata.Name, strings.Join(named, ", or "))
	}
	return class, nil
}

// awsAcceleratorNames are the GPU names of k8s.amazonaws.com/accelerator values: nvidia-tesla-v100
// is v100, nvidia-l4 l4. A value that names no NVIDIA GPU ("true") is left out.
func awsAcceleratorNames(values []string) []string {
	var out []string
	for _, v := range values {
		v = strings.ToLower(strings.TrimSpace(v))
		name, ok := strings.CutPrefix(v, "nvidia-tesla-")
		if !ok {
			name, ok = strings.CutPrefix(v, "nvidia-")
		}
		if ok && name != "" {
			out = append(out, name)
		}
	}
	return out
}
