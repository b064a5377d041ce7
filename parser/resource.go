package parser

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Kind says which family of input a resource came from.
type Kind string

// Input kinds.
const (
	KindTerraform  Kind = "terraform"
	KindKubernetes Kind = "kubernetes"
)

// Cloud providers.
const (
	AWS     = "aws"
	GCP     = "gcp"
	Azure   = "azure"
	Unknown = "unknown"
)

// PurchaseOption is how capacity is bought.
type PurchaseOption string

// Purchase options, as they appear in JSON.
const (
	OnDemand   PurchaseOption = "on_demand"
	Spot       PurchaseOption = "spot"
	Reserved1y PurchaseOption = "reserved_1y"
	Reserved3y PurchaseOption = "reserved_3y"
)

// PurchaseOptions lists every option in the order reports show them.
var PurchaseOptions = []PurchaseOption{OnDemand, Spot, Reserved1y, Reserved3y}

// Location is a place in an input file. Line is 1-based; 0 means the whole file.
type Location struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (l Location) String() string {
	if l.Line > 0 {
		return fmt.Sprintf("%s:%d", l.File, l.Line)
	}
	return l.File
}

// Accelerator is a GPU attached to a machine separately from its machine type (GCP
// guest_accelerator on N1). Machine types that include their GPUs never carry one.
type Accelerator struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// Unresolved names an attribute whose value could not be determined, and why.
type Unresolved struct {
	Attribute string `json:"attribute"`
	Reason    string `json:"reason"`
}

// Reasons of an Unresolved attribute that the configuration leaves out or empty, rather than
// knowing only at apply: nothing at apply will fill it in.
const (
	ReasonNotSet = "not set"
	ReasonEmpty  = "the value is an empty string"
)

// Suppression waives one rule on one resource.
type Suppression struct {
	Rule    string   `json:"rule"`
	Reason  string   `json:"reason,omitempty"`
	Expires string   `json:"expires,omitempty"` // YYYY-MM-DD, empty when it never expires
	Source  Location `json:"source"`
	// Status is set before policies run: active, no_reason, no_rule, invalid_date or expired.
	// Only an active suppression waives its rule.
	Status string `json:"status,omitempty"`
}

// PodGPUs describes what a Kubernetes pod asks for and what is known of the node it lands on.
// It is nil for Terraform resources.
type PodGPUs struct {
	// Resource is the extended resource requested (nvidia.com/gpu, nvidia.com/mig-1g.10gb, ...).
	Resource string `json:"resource"`
	// Requested is the number of devices of Resource one pod requests (GPUs, MIG slices,
	// time-shared units, Neuron devices).
	Requested int64 `json:"requested"`
	// MIGProfile is set for MIG resources ("1g.10gb").
	MIGProfile string `json:"mig_profile,omitempty"`
	// PerPodGPUs is the share of the node's GPUs one pod pays for; the estimator sets it once it
	// knows the node (a MIG slice is a fraction of its GPU).
	PerPodGPUs float64 `json:"per_pod_gpus"`
	// InstanceTypes, Families and GPUNames narrow the node when no single instance type is
	// named (node affinity with several types, Karpenter instance-family and gpu-name, GKE
	// accelerator): the estimator picks the cheapest catalog type that holds the pod's GPUs.
	InstanceTypes []string `json:"instance_types,omitempty"`
	Families      []string `json:"families,omitempty"`
	GPUNames      []string `json:"gpu_names,omitempty"`
	// AzureGPUNames are GPU names as Azure VM sizes write them (A100 in
	// Standard_NC24ads_A100_v4), from AKS node auto-provisioning's sku-gpu-name label: only sizes
	// whose name carries one of them qualify (Standard_NC6s_v3, a V100 size, names none).
	AzureGPUNames []string `json:"azure_gpu_names,omitempty"`
	// Categories are AWS instance categories (g, p, inf, trn: a family's letters), from
	// Karpenter's instance-category.
	Categories []string `json:"categories,omitempty"`
	// NodeGPUs bounds the GPUs of the node (Karpenter's instance-gpu-count, AKS's sku-gpu-count).
	NodeGPUs *CountRange `json:"node_gpus,omitempty"`
	// Generations bounds an EC2 type's generation (Karpenter's instance-generation: g6e is 6);
	// GPUMemoryMiB the memory of each of its GPUs (instance-gpu-memory).
	Generations  *CountRange `json:"generations,omitempty"`
	GPUMemoryMiB *CountRange `json:"gpu_memory_mib,omitempty"`
	// GPUReportedMiB bounds the memory of each GPU as the driver reports it (NVML's total, as
	// nvidia-smi shows it: 23034 for an L4), from GPU feature discovery's nvidia.com/gpu.memory.
	GPUReportedMiB *CountRange `json:"gpu_reported_mib,omitempty"`
	// GPUFamilies are the GPU architectures a pod's node may have (hopper), and GPUComputeMajor
	// and GPUComputeMinor bound its GPU's CUDA compute capability, from GPU feature discovery's
	// nvidia.com/gpu.family, gpu.compute.major and gpu.compute.minor.
	GPUFamilies     []string    `json:"gpu_families,omitempty"`
	GPUComputeMajor *CountRange `json:"gpu_compute_major,omitempty"`
	GPUComputeMinor *CountRange `json:"gpu_compute_minor,omitempty"`
	// GPUComputeCapability bounds the GPU's CUDA compute capability as a whole (8.6 and up),
	// from a DRA claim's selector on the driver's cudaComputeCapability attribute.
	GPUComputeCapability *ComputeRange `json:"gpu_compute_capability,omitempty"`
	// GPUComputeFloor is the least compute capability the pod's DRA claims or GPU feature
	// discovery labels require of its GPU, wherever it runs (a floor is what the workload needs
	// of the hardware: bf16 from 8.0, FP8 from 8.9). The cheaper types gpuguard suggests are held
	// to it; it does not choose the node (GPUComputeCapability, GPUComputeMajor do).
	GPUComputeFloor *ComputeBound `json:"gpu_compute_floor,omitempty"`
	// AnyGPUType is set when a NodePool or ComputeClass places the pod and only says that its
	// nodes have GPUs: the estimator picks the cheapest GPU type of the provider.
	AnyGPUType bool `json:"any_gpu_type,omitempty"`
	// Excluded is what the selection rules out of the node the estimator picks (NotIn).
	Excluded *NodeExclusions `json:"excluded,omitempty"`
	// SharedReplicas is how many pods share one time-sliced GPU, when a label says so.
	SharedReplicas int `json:"shared_replicas,omitempty"`
	// SharingStrategy is how those pods share it, when known: "time-slicing" (each may use all
	// of its memory, none isolated) or "mps" (each gets an equal share of its memory and
	// compute), as NVIDIA's device plugin configures them, or GKE's "time-sharing" (as
	// time-slicing).
	SharingStrategy string `json:"sharing_strategy,omitempty"`
	// SharedOneUnit says the pod's container may not ask for more than one unit of a shared GPU:
	// NVIDIA's device plugin refuses it (its config's failRequestsGreaterThanOne, which MPS
	// sets unless the config says false), as GKE's GPU sharing does; a pod whose container asks
	// for more fails when its node admits it.
	SharedOneUnit bool `json:"shared_one_unit,omitempty"`
	// LargestContainer is the most units of Resource one of its containers asks for by name:
	// the device plugin allocates each container's request apart. 0 when unknown.
	LargestContainer int64 `json:"-"`
	// SharedPacked says the device plugin packs a pod's units onto as few GPUs as it can
	// (sharedDevicesAllocationPolicy: packed), where its default spreads them over the GPUs
	// with the fewest units taken.
	SharedPacked bool `json:"shared_packed,omitempty"`
	// SharedClaims are the DRA ResourceClaims among the pod's GPUs that pods may share (a
	// ResourceClaim, not a per-pod template): their devices are allocated once, on one node, and
	// every pod that names the claim uses all of them.
	SharedClaims []SharedClaim `json:"shared_claims,omitempty"`
	// ClaimSharing is how NVIDIA's DRA driver shares the GPUs of the pod's claim between the
	// processes that use them, when the claim's (or its DeviceClass's) configuration says; the
	// tightest when several claims do.
	ClaimSharing *ClaimSharing `json:"claim_sharing,omitempty"`
	// ClaimedOnly says all of the pod's GPUs come through DRA claims: a DRA driver allocates
	// them, so a device plugin's sharing or a node's MIG layout for nvidia.com/gpu is not theirs,
	// and a change to them is made in the claims (GPU008's remediation).
	ClaimedOnly bool `json:"claimed_only,omitempty"`
	// Serving is the command line of the container that uses the GPUs when it runs a serving
	// engine gpuguard reads (vLLM, SGLang): a workload profile can be inferred from it.
	Serving *ServingCommand `json:"-"`
	// PyTorchAllocConf is the PyTorch allocator settings that container starts with
	// (PYTORCH_ALLOC_CONF, or the older PYTORCH_CUDA_ALLOC_CONF), and PyTorchAllocConfFrom
	// names the variable and container; both empty when it sets neither literally. They stand
	// in for an attached profile's runtime.pytorch_alloc_conf.
	PyTorchAllocConf     string `json:"-"`
	PyTorchAllocConfFrom string `json:"-"`
	// NodeSource says where the node came from (nodeSelector, affinity, NodePool, config).
	NodeSource string `json:"node_source,omitempty"`
	// NodeGroups, when set, are the node groups among the inputs whose nodes the pods run on
	// (an EKS node group, a GKE node pool, an AKS pool): the one the pod selects, or the several
	// of one kind that carry its selection. The groups' cost holds theirs.
	NodeGroups []GroupRef `json:"-"`
	// CPU (cores) and MemoryGiB are what one pod requests of its node, by Kubernetes' rule for a
	// pod's effective request (requests, else limits); 0 when it requests none. A node chosen
	// for the pod must hold them.
	CPU       float64 `json:"cpu,omitempty"`
	MemoryGiB float64 `json:"memory_gib,omitempty"`
	// NodeShare, when set, is the share of its node one pod pays for because its CPU or memory
	// takes more of the node than its GPUs do, or because no more than MaxPerNode pods of the
	// workload share a node (the estimator sets it); else the share is PerPodGPUs of the node's
	// GPUs.
	NodeShare float64 `json:"node_share,omitempty"`
	// MaxPerNode, when set, is the most pods of the workload one node holds, and MaxPerNodeWhy
	// says why: 1 (no two share a node) for a required pod anti-affinity on kubernetes.io/hostname
	// that selects the pods themselves or a host port; maxSkew for a topology spread on the
	// hostname that Karpenter honours by launching nodes. Each pod pays at least 1/MaxPerNode of
	// its node. 0 when nothing but room caps them.
	MaxPerNode    int    `json:"-"`
	MaxPerNodeWhy string `json:"-"`
	// MaxPerNodeGroup says the cap is a group placed alone on its node (an exclusive
	// placement on the hostname), whose pods, of every role, share that node: a node for them
	// must hold MaxPerNode pods, not one.
	MaxPerNodeGroup bool `json:"-"`
	// Together, when more than 1, is how many pods of the workload must run on one node, and
	// TogetherWhy says why: all of a JobSet's Job, or of a LeaderWorkerSet's group, placed
	// exclusively on kubernetes.io/hostname; all of a workload whose required pod affinity on
	// the hostname selects its own pods. A node that holds fewer leaves the rest pending.
	Together    int    `json:"-"`
	TogetherWhy string `json:"-"`
	// TogetherAdmitted says the pods are admitted together (Kueue's topology-aware scheduling):
	// where no node holds them all, none of them is admitted, not the rest left pending.
	TogetherAdmitted bool `json:"-"`
	// Beside, when set, are pods of the workload's other roles that share one node with
	// BesideOwn of this role's pods (a LeaderWorkerSet's leader and its workers, a
	// RoleBasedGroup's roles, placed exclusively on kubernetes.io/hostname): a node for them
	// must hold all of them. BesideWhy says why.
	Beside    []NodeMate `json:"-"`
	BesideOwn int        `json:"-"`
	BesideWhy string     `json:"-"`
	// BesideAdmitted says the pods beside each other are admitted together (a Kueue PodSet
	// group under topology-aware scheduling): where no node holds them, Kueue admits none.
	BesideAdmitted bool `json:"-"`
}

// NodeMate is pods of another role that share a node with a workload's pods: how many, and
// what each requests (its GPU resource, "" when none, and how many of it; its CPUs and memory).
type NodeMate struct {
	Pods      int
	Resource  string
	GPUs      int64
	CPU       float64
	MemoryGiB float64
}

// LimitGPUs is what pods of the workload take of a limit on GPUs (a Karpenter NodePool's,
// a GKE cluster's): each pod's own devices, and the devices of each shared claim once, however
// many pods name it. counted holds the claims already counted for the limit, by key(address)
// (the claim's build root and address); a claim it holds adds nothing, and one it adds is
// recorded there.
func (p *PodGPUs) LimitGPUs(pods int, counted map[string]bool, key func(claim string) string) int64 {
	var shared int64
	for _, c := range p.SharedClaims {
		if k := key(c.Address); !counted[k] {
			counted[k], shared = true, shared+c.GPUs
		}
	}
	return int64(pods)*max(p.Requested-p.SharedClaimGPUs(), 0) + shared
}

// SharedClaimGPUs is the devices of the pod's shared claims together: what they take of a limit
// however many pods name them.
func (p *PodGPUs) SharedClaimGPUs() int64 {
	var n int64
	for _, c := range p.SharedClaims {
		n += c.GPUs
	}
	return n
}

// SharedClaim is a shared DRA ResourceClaim a pod names, and how many pods name it.
type SharedClaim struct {
	// Address is the claim's, ResourceClaim/namespace/name.
	Address string `json:"address"`
	// GPUs is the number of devices the claim allocates (a floor for allocationMode All).
	GPUs int64 `json:"gpus"`
	// Pods is how many pods, across the workloads read, name the claim (their replicas
	// added): they share its devices. At least 1.
	Pods int `json:"pods"`
	// CPU (cores) and MemoryGiB are what those pods request together (when more than one
	// does): they all run on the node that holds the claim's devices.
	CPU       float64 `json:"cpu,omitempty"`
	MemoryGiB float64 `json:"memory_gib,omitempty"`
}

// ClaimSharing is a DRA claim's sharing configuration for NVIDIA's driver (a GpuConfig's or
// MigDeviceConfig's sharing): time-slicing, or MPS with the limits its control daemon sets on
// each client process.
type ClaimSharing struct {
	// Claim is the claim's address, ResourceClaim/namespace/name or
	// ResourceClaimTemplate/namespace/name.
	Claim string `json:"claim"`
	// Strategy is SharingTimeSlicing or SharingMPS.
	Strategy string `json:"strategy"`
	// MemoryLimitGiB is the device memory each MPS client may allocate of each GPU
	// (defaultPinnedDeviceMemoryLimit; the smallest per-device limit where one is lower); 0
	// when none is set.
	MemoryLimitGiB float64 `json:"memory_limit_gib,omitempty"`
	// ActiveThreadPercent is the share of each GPU's threads an MPS client may use
	// (defaultActiveThreadPercentage); 0 when none is set.
	ActiveThreadPercent int `json:"active_thread_percentage,omitempty"`
	// Kind is the configuration's kind (GpuConfig, MigDeviceConfig: its devices are MIG slices).
	// From names the DeviceClass whose configuration it is, when not the claim's own;
	// LimitPerDevice says MemoryLimitGiB is a device's own limit, lower than the default.
	Kind           string `json:"-"`
	From           string `json:"-"`
	LimitPerDevice bool   `json:"-"`
}

// Tighter reports whether s limits a process more than o: MPS with a memory limit over MPS
// without one or time-slicing, the lower limit over a higher one.
func (s *ClaimSharing) Tighter(o *ClaimSharing) bool {
	switch {
	case s == nil:
		return false
	case o == nil:
		return true
	case s.MemoryLimitGiB > 0 && o.MemoryLimitGiB > 0:
		return s.MemoryLimitGiB < o.MemoryLimitGiB
	case s.MemoryLimitGiB > 0 || o.MemoryLimitGiB > 0:
		return s.MemoryLimitGiB > 0
	}
	return s.Strategy == SharingMPS && o.Strategy != SharingMPS
}

// ClaimNodeAsk is the CPU and memory the node of a pod with shared claims must hold: the most
// that the pods sharing one of its claims request together (they are all on that node), and at
// least the pod's own.
func (p *PodGPUs) ClaimNodeAsk() (cpu, memoryGiB float64) {
	cpu, memoryGiB = p.CPU, p.MemoryGiB
	for _, c := range p.SharedClaims {
		cpu, memoryGiB = max(cpu, c.CPU), max(memoryGiB, c.MemoryGiB)
	}
	return cpu, memoryGiB
}

// ClaimPaid is how many GPUs a pod pays for of the requested ones, when some come from shared
// claims: each of its claims' devices split evenly between the pods that name the claim.
func (p *PodGPUs) ClaimPaid() float64 {
	own, shared := p.Requested, 0.0 // apart: 1/3 is 0.3333333333333333, not 1 - 2/3's 0.33333333333333326
	for _, c := range p.SharedClaims {
		own -= c.GPUs
		shared += float64(c.GPUs) / float64(max(c.Pods, 1))
	}
	return float64(own) + shared
}

// SharedOnly reports whether all of the pod's GPUs come from shared claims: pods an autoscaler
// adds share those devices and add none.
func (p *PodGPUs) SharedOnly() bool {
	var shared int64
	for _, c := range p.SharedClaims {
		shared += c.GPUs
	}
	return len(p.SharedClaims) > 0 && shared >= p.Requested
}

// ClaimSharers is how many pods share the pod's most shared claim (0 when it names none).
func (p *PodGPUs) ClaimSharers() int {
	n := 0
	for _, c := range p.SharedClaims {
		n = max(n, c.Pods)
	}
	return n
}

// GroupRef names a node group: its address, and its root ("" for the pods' own).
type GroupRef struct {
	Address, Root string
}

// SharedLimit is a maximum several autoscaled resources share: a Karpenter NodePool's limit on
// a GPU resource over the workloads it places, an EMR cluster's managed-scaling maximum over
// its core and task groups. Each resource's own maximum fits in it, but theirs together may
// not: the totals count no more of them than the limit holds.
type SharedLimit struct {
	// Owner is what declares the limit (NodePool/gpu, aws_emr_cluster.spark); What says which
	// limit it is, for reports ("limit of 16 nvidia.com/gpu").
	Owner string `json:"owner"`
	What  string `json:"what"`
	// Limit is in Unit ("nvidia.com/gpu", "Instances", "InstanceFleetUnits", "VCPU").
	Limit float64 `json:"limit"`
	Unit  string  `json:"unit"`
	// PerInstance is what one instance, node or pod of the resource takes of the limit: its
	// devices, its fleet weight, 1 instance. 0 with Unit VCPU, or with PerGPU: the type's vCPUs
	// or GPUs, which the estimator knows.
	PerInstance float64 `json:"per_instance,omitempty"`
	// PerGPU says the limit counts GPUs, and each instance takes the GPUs its machine type
	// comes with (a GKE cluster's limit on one GPU type, over its G2 or A3 pools).
	PerGPU bool `json:"-"`
	// Root is the root the owner is declared in, when it is not the resource's own (a pod of a
	// manifest on the nodes a Terraform cluster auto-provisions); "" for the resource's root.
	Root string `json:"-"`
	// Admission says the limit is enforced when pods are created (a namespace's ResourceQuota):
	// pods past it are refused, not left pending for nodes, and the parser warns of floors past
	// it itself.
	Admission bool `json:"-"`
}

// UnitVCPU is the SharedLimit unit whose per-instance share is the instance type's vCPUs.
const UnitVCPU = "VCPU"

// AutoProvision is GPU capacity that an autoscaler creates nodes for when pods wait for them,
// choosing their machine itself: GKE node auto-provisioning within a cluster's limit on one GPU
// type. The resource runs no nodes until pods need them (Quantity 0); the estimator gives it the
// machine a pod asking for one such GPU would get, the cheapest in its region, and prices its
// maximum at MaxGPUs of them.
type AutoProvision struct {
	// Accelerator is the GPU type, as the cloud names it ("nvidia-l4").
	Accelerator string
	// MaxGPUs is the most GPUs of the type the autoscaler may run; MaxUnknown is set instead
	// when that is known only at apply.
	MaxGPUs    int
	MaxUnknown bool
	// From says what declares the maximum, for reports.
	From string
}

// OnAutoProvisioned records on a GPU pod's resource that its pods run on the nodes a cluster's
// node auto-provisioning creates (cluster names it), within the cluster's limit of max GPUs of
// the type accelerator, and returns a warning when its floor of pods, each asking for
// r.Pod.Requested of them, passes the limit: GKE creates nodes for no more of them. The
// Terraform configuration's own pods and those of manifests read beside it say the same.
func (r *Resource) OnAutoProvisioned(cluster string, max int, accelerator string) (Error, bool) {
	r.Note("runs on nodes that %s's node auto-provisioning creates, within the cluster's limit of %d %s GPUs", cluster, max, accelerator)
	fit := int64(max) / r.Pod.Requested
	if int64(r.Quantity) <= fit {
		return Error{}, false
	}
	return Error{File: r.Source.File, Line: r.Source.Line,
		Message: fmt.Sprintf("%s runs %d pods of %d %s GPU%s each, but %s's cluster_autoscaling allows %d in the cluster: GKE creates nodes for at most %d of them, and the others stay pending (priced as declared)",
			r.Address, r.Quantity, r.Pod.Requested, accelerator, Plural(r.Pod.Requested), cluster, max, fit)}, true
}

// AzureMLOnlineSizes names the VM sizes Azure Machine Learning's managed online endpoints
// accept (Resource.OfferedSizes).
const AzureMLOnlineSizes = "azureml-managed-online"

// CountRange is a whole-number constraint from a node selector (a node's GPU count): In lists
// the allowed values (empty: any), Min and Max bound them.
type CountRange struct {
	In  []int `json:"in,omitempty"`
	Min *int  `json:"min,omitempty"`
	Max *int  `json:"max,omitempty"`
}

// String writes the range for a message: "1 or 4", "≥ 2 and ≤ 8".
func (c CountRange) String() string {
	var parts []string
	if len(c.In) > 0 {
		ns := make([]string, len(c.In))
		for i, n := range c.In {
			ns[i] = strconv.Itoa(n)
		}
		parts = append(parts, strings.Join(ns, " or "))
	}
	if c.Min != nil {
		parts = append(parts, "≥ "+strconv.Itoa(*c.Min))
	}
	if c.Max != nil {
		parts = append(parts, "≤ "+strconv.Itoa(*c.Max))
	}
	return strings.Join(parts, " and ")
}

// Allows reports whether n is in the range.
func (c CountRange) Allows(n float64) bool { return c.AllowsWithin(n, 0) }

// AllowsWithin is Allows with In values matched within a relative tolerance (memory sizes the
// cloud's API and the catalog round differently).
func (c CountRange) AllowsWithin(n, tolerance float64) bool {
	if c.Min != nil && n < float64(*c.Min) || c.Max != nil && n > float64(*c.Max) {
		return false
	}
	if len(c.In) == 0 {
		return true
	}
	for _, x := range c.In {
		if math.Abs(float64(x)-n) <= tolerance*float64(x) {
			return true
		}
	}
	return false
}

// AllowsGPUs reports whether the range admits a node with GPUs at all.
func (c CountRange) AllowsGPUs() bool {
	if c.Max != nil && *c.Max < 1 {
		return false
	}
	if len(c.In) == 0 {
		return true
	}
	for _, x := range c.In {
		if x >= 1 && (c.Min == nil || x >= *c.Min) && (c.Max == nil || x <= *c.Max) {
			return true
		}
	}
	return false
}

// ForgetNodeChoice drops what narrows the node (for a pod priced on a named type instead).
func (p *PodGPUs) ForgetNodeChoice() {
	p.InstanceTypes, p.Families, p.GPUNames, p.AzureGPUNames, p.Categories, p.NodeGPUs, p.AnyGPUType = nil, nil, nil, nil, nil, nil, false
	p.Generations, p.GPUMemoryMiB, p.GPUReportedMiB = nil, nil, nil
	p.GPUFamilies, p.GPUComputeMajor, p.GPUComputeMinor, p.GPUComputeCapability = nil, nil, nil, nil
	p.Excluded = nil
}

// NodeExclusions are the values of the well-known node labels a pod's selection rules out
// (NotIn), each field the counterpart of PodGPUs's: a node that carries one does not take the
// pod. They narrow the node the estimator picks; alone they do not make it pick one, as a
// selection that only rules nodes out does not say which node the pod gets.
type NodeExclusions struct {
	InstanceTypes  []string `json:"instance_types,omitempty"`
	Families       []string `json:"families,omitempty"`
	GPUNames       []string `json:"gpu_names,omitempty"`
	AzureGPUNames  []string `json:"azure_gpu_names,omitempty"`
	Categories     []string `json:"categories,omitempty"`
	GPUFamilies    []string `json:"gpu_families,omitempty"`
	NodeGPUs       []int    `json:"node_gpus,omitempty"`
	Generations    []int    `json:"generations,omitempty"`
	GPUMemoryMiB   []int    `json:"gpu_memory_mib,omitempty"`
	GPUReportedMiB []int    `json:"gpu_reported_mib,omitempty"`
	ComputeMajor   []int    `json:"gpu_compute_major,omitempty"`
	ComputeMinor   []int    `json:"gpu_compute_minor,omitempty"`
}

// String writes the exclusions for a message: "not g4dn|g5, not GPU family ampere, not 0 GPUs a
// node".
func (x NodeExclusions) String() string {
	var parts []string
	words := func(prefix, suffix string, v []string) {
		if len(v) > 0 {
			parts = append(parts, "not "+prefix+strings.Join(v, "|")+suffix)
		}
	}
	nums := func(prefix, suffix string, v []int) {
		ns := make([]string, len(v))
		for i, n := range v {
			ns[i] = strconv.Itoa(n)
		}
		words(prefix, suffix, ns)
	}
	words("", "", x.InstanceTypes)
	words("family ", "", x.Families)
	words("", "", x.GPUNames)
	words("", "", x.AzureGPUNames)
	words("category ", "", x.Categories)
	words("GPU family ", "", x.GPUFamilies)
	nums("", " GPUs a node", x.NodeGPUs)
	nums("generation ", "", x.Generations)
	nums("", " MiB a GPU", x.GPUMemoryMiB)
	nums("", " MiB a GPU as the driver reports it", x.GPUReportedMiB)
	nums("compute capability major ", "", x.ComputeMajor)
	nums("compute capability minor ", "", x.ComputeMinor)
	return strings.Join(parts, ", ")
}

// ChoosesNode reports whether the estimator is to pick the node type from the catalog within
// the pod's constraints (no single type is named).
func (p *PodGPUs) ChoosesNode() bool {
	return len(p.InstanceTypes) > 0 || len(p.Families) > 0 || len(p.GPUNames) > 0 || len(p.AzureGPUNames) > 0 ||
		len(p.Categories) > 0 || p.NodeGPUs != nil || p.Generations != nil || p.GPUMemoryMiB != nil || p.GPUReportedMiB != nil ||
		len(p.GPUFamilies) > 0 || p.GPUComputeMajor != nil || p.GPUComputeMinor != nil || p.GPUComputeCapability != nil || p.AnyGPUType
}

// InstanceRequirements are the attributes an EC2 Auto Scaling group or fleet chooses its
// instance types by (instance_requirements) instead of naming them: the estimator prices the
// cheapest catalog type that meets them.
type InstanceRequirements struct {
	GPUs          *CountRange `json:"gpus,omitempty"`          // accelerator_count
	GPUNames      []string    `json:"gpu_names,omitempty"`     // accelerator_names (a100, t4, ...)
	Manufacturers []string    `json:"manufacturers,omitempty"` // accelerator_manufacturers
	Types         []string    `json:"accelerator_types,omitempty"`
	GPUMemoryMiB  *CountRange `json:"gpu_memory_mib,omitempty"` // accelerator_total_memory_mib, all GPUs
	VCPUs         *CountRange `json:"vcpus,omitempty"`
	MemoryMiB     *CountRange `json:"memory_mib,omitempty"`
	Allowed       []string    `json:"allowed_instance_types,omitempty"` // with * wildcards
	Excluded      []string    `json:"excluded_instance_types,omitempty"`
}

// NodeLabels are the Kubernetes labels on the nodes of a cluster's node group: the label the
// cloud names the group by (its name on eks.amazonaws.com/nodegroup,
// cloud.google.com/gke-nodepool, kubernetes.azure.com/agentpool) and the labels the group
// declares; and the taints the group puts on its nodes, which keep off pods that do not
// tolerate them.
type NodeLabels struct {
	Labels map[string]string
	// Unknown are labels whose values are known only at apply (a name generated then, a label
	// set from a computed value): a pod selecting any value of them may land on the group.
	Unknown []string
	// Prefixes are labels known only at apply but for how they start (a name generated from a
	// name prefix): only a value that starts so may select the group.
	Prefixes map[string]string
	// Partial is set when the declared labels are known only at apply: the group may carry
	// any label but those in Without.
	Partial bool
	// Without are labels the group's nodes are known not to carry: the labels its cloud puts on
	// nodes of another capacity (a GKE pool of regular VMs has no cloud.google.com/gke-spot).
	Without []string
	// Zones are the zones the group's nodes run in, as their topology.kubernetes.io/zone label
	// names them (us-central1-a, eastus2-1), sorted: a label with one value a node, several
	// values a group. Nil when the configuration does not say (a regional GKE pool left to
	// GKE's default zones, subnets known only at apply).
	Zones []string
	// Taints are the taints on the group's nodes that it declares, or that its cloud adds for
	// what it declares (an AKS spot pool's).
	Taints []Taint
	// TaintsUnknown is set when some of the group's taints are known only at apply.
	TaintsUnknown bool
	// DevicePlugin is how the NVIDIA device plugin that the group's own configuration deploys
	// (its ConfigMaps, ClusterPolicy and chart releases) shares the GPUs of the group's nodes,
	// for pods declared elsewhere that run there; nil when the configuration deploys no config.
	DevicePlugin *DevicePluginConfig
}

// DevicePluginConfig is the NVIDIA device plugin config a node group's nodes take, as the
// configuration that declares the group resolves it (package kubernetes).
type DevicePluginConfig struct {
	// Source names the config (a ConfigMap's key, a chart release's values) and From why the
	// group's nodes take it (its label, the plugin's default).
	Source, From string
	Strategy     string          // SharingTimeSlicing or SharingMPS
	Replicas     map[string]int  // how many units each GPU is advertised as, by resource
	Partial      map[string]bool // resources whose replicas cover only some of a node's GPUs
	// OneUnit says the plugin refuses a request for more than one unit of a shared resource
	// (failRequestsGreaterThanOne); Packed that it packs a request's units onto as few GPUs as
	// it can (sharedDevicesAllocationPolicy: packed) instead of spreading them.
	OneUnit, Packed bool
	// Undecided, when no config is resolved, are the keys of the configs that share GPUs, and
	// Shares the resources some of them share: which the nodes take is not said.
	Undecided []string
	Shares    map[string]bool
}

// Taint is a Kubernetes taint on a node group's nodes, with Kubernetes' names for its effect:
// NoSchedule, PreferNoSchedule or NoExecute.
type Taint struct {
	Key, Value, Effect string
}

// String writes a taint as kubectl does: key=value:Effect, or key:Effect without a value.
func (t Taint) String() string {
	if t.Value == "" {
		return t.Key + ":" + t.Effect
	}
	return t.Key + "=" + t.Value + ":" + t.Effect
}

// ParseTaint reads a taint as kubectl and the kubelet's --register-with-taints write it:
// key=value:Effect, or key:Effect. The effect must be one of Kubernetes' three.
func ParseTaint(spec string) (Taint, error) {
	kv, effect, ok := strings.Cut(strings.TrimSpace(spec), ":")
	key, value, _ := strings.Cut(kv, "=")
	t := Taint{Key: strings.TrimSpace(key), Value: strings.TrimSpace(value), Effect: strings.TrimSpace(effect)}
	switch {
	case !ok || t.Key == "":
		return Taint{}, fmt.Errorf("taint %q is not key=value:Effect", spec)
	case t.Effect != "NoSchedule" && t.Effect != "PreferNoSchedule" && t.Effect != "NoExecute":
		return Taint{}, fmt.Errorf("taint %q: the effect is %q, not NoSchedule, PreferNoSchedule or NoExecute", spec, t.Effect)
	}
	return t, nil
}

// Resource is one GPU resource found in an input, before pricing.
type Resource struct {
	Address string
	// Root is the input the address is relative to: the Terraform root module's directory, the
	// plan file, or the manifest file. Addresses repeat across roots (every stack may have an
	// aws_instance.gpu); root and address together identify a resource.
	Root     string
	Source   Location
	Kind     Kind
	Type     string
	Provider string
	Region   string
	// RegionUnknown says why Region is empty when no manifest can name it (an AKS pool whose
	// cluster is managed elsewhere): the default region (config or --region) prices the
	// resource, and without one this is the reason it stays unpriced.
	RegionUnknown string
	InstanceType  string
	Quantity      int
	// QuantityVCPUs, when set, sizes the resource in vCPUs instead of instances (an AWS Batch
	// compute environment's desired vCPUs): the estimator, which knows the type's vCPUs, turns it
	// into instances.
	QuantityVCPUs int
	SpotQuantity  int // of Quantity, how many run on spot when purchase is split (AWS ASG mixed policy)
	// ScaleMax, when set, is the most an autoscaler declared with the resource may run: the
	// estimator prices it too, as the resource's cost at full scale-out.
	ScaleMax *ScaleMax
	// ScaleMaxUnknown is set when the resource declares an autoscaler's maximum that is known
	// only at apply (ScaleMax is nil then): its size is not the most it may run.
	ScaleMaxUnknown bool
	// SharedLimit, when set, is a maximum the resource shares with others (see SharedLimit).
	SharedLimit *SharedLimit
	// AutoProvision, when set, says the resource is GPU capacity an autoscaler may create nodes
	// for without the configuration naming their machine (see AutoProvision).
	AutoProvision  *AutoProvision
	PurchaseOption PurchaseOption
	// OwnPrice, when set, says the instances are billed at prices of their own that the catalog
	// does not hold: the catalog's price of the same machine and GPUs stands in, marked
	// estimated, as a bound, and the cloud's sustained-use discounts and commitments, which do not
	// cover those prices, are not applied or offered.
	OwnPrice *OwnPrice
	// NoSpot says the service that runs the instances offers no spot capacity (a SageMaker
	// real-time endpoint or notebook instance, an Azure ML managed online deployment): no spot
	// alternative is recommended for it.
	NoSpot bool
	// NoMIG names the service that runs the instances when it gives its users no way to
	// partition their GPUs with MIG (a SageMaker real-time endpoint, Vertex AI prediction, an
	// Azure ML managed online deployment): no MIG slice is suggested for it. Empty otherwise.
	NoMIG string
	// OfferedSizes names the list of instance types the service that runs the instances
	// accepts, when it accepts only some of its cloud's (AzureMLOnlineSizes): cheaper
	// alternatives are drawn from that list. Empty: any type of the cloud.
	OfferedSizes string
	// HoursPerMonth is 0 when the resource runs the default month.
	HoursPerMonth float64
	// CalendarHours marks HoursPerMonth as a share of the calendar that a replayed schedule
	// (parser/schedule, a CronJob's runs) gives in gpuguard's default 730-hour month, a twelfth
	// of a year: the pricer scales it to the month the config sets. Hours an annotation or the
	// config's usage sets are hours, and are not scaled.
	CalendarHours bool
	// RunsToCompletion marks batch workloads (Jobs, CronJobs, training jobs): without hours from
	// an annotation or the config they are priced all month, with a note saying so.
	RunsToCompletion bool
	// RunHours bounds one run of a batch workload that runs once (a Job's
	// activeDeadlineSeconds), in hours; 0 when nothing does. Without hours from an annotation or
	// the config, such a workload is priced as one run of that length in the month.
	RunHours     float64
	Accelerators []Accelerator
	// GPUPartition, on a node group whose GPUs are split into MIG slices, names the slice each
	// GPU is split into: a MIG profile ("1g.5gb", GKE's gpu_partition_size) or AKS's
	// GPU-instance profile ("MIG1g", the compute share: the smallest slice with it). A
	// workload on the group gets one slice per copy.
	GPUPartition string
	// GPUSharedClients, on a GKE pool whose GPUs are shared (time-sharing or MPS), is how many
	// containers share each GPU (max_shared_clients_per_gpu); 0 when they are not shared.
	GPUSharedClients int
	// GPUSharingStrategy is how: GKE's gpu_sharing_strategy, "TIME_SHARING" or "MPS".
	GPUSharingStrategy string
	Pod                *PodGPUs
	// Requirements, when set and InstanceType is empty, are the attributes its instance types
	// are chosen by.
	Requirements *InstanceRequirements
	Tags         map[string]string
	// TagsUnsupported says the resource's type carries no tags or labels (a Vertex AI
	// deployment resource pool): no cost-allocation tag can be asked of it.
	TagsUnsupported bool
	// NodeLabels, on a Kubernetes cluster's node group (an EKS node group, a GKE node pool, an
	// AKS agent pool), are the labels its nodes carry: pods in manifests select the group by them.
	NodeLabels *NodeLabels
	// NoGPUDriver, on a node group of GPU machines, says which of its settings start its nodes
	// without the GPU driver (an EKS AMI type without the NVIDIA driver, an AKS pool's
	// gpu_driver = "None"): the nodes then offer no GPUs to pods unless something else on the
	// cluster installs the driver (the NVIDIA GPU Operator). Empty when the configuration does
	// not say so.
	NoGPUDriver string
	// Profile is the workload profile path a tag, label or annotation attaches.
	Profile      string
	Unresolved   []Unresolved
	Notes        []string
	Suppressions []Suppression
}

// OwnPrice names who bills a resource's instances at prices of their own, and whether those are
// above the cloud's list price or below it.
type OwnPrice struct {
	// By is the service or provisioning model that sets the price ("Vertex AI prediction").
	By string
	// Higher says the own price is above the catalog's (which is then a lower bound); else it
	// is below (an upper bound).
	Higher bool
	// Only, when set, is the one purchase option the own price replaces (flex-start VMs are an
	// on-demand model: priced on spot, they are spot VMs).
	Only PurchaseOption
}

// FlexStart is the price of flex-start VMs, which Google Cloud's Dynamic Workload Scheduler
// provisions: on demand, below Compute Engine's on-demand price (GPUs and vCPUs up to 53 % off),
// in SKUs the catalog does not hold. GKE's flex-start node pools, queued provisioning and pods
// that select cloud.google.com/gke-flex-start run on such VMs.
// https://cloud.google.com/kubernetes-engine/docs/concepts/dws (Flex-start pricing)
// https://cloud.google.com/compute/docs/instances/provisioning-models
func FlexStart() *OwnPrice {
	return &OwnPrice{By: "Flex-start (Dynamic Workload Scheduler)", Only: OnDemand}
}

// Applies reports whether the own price replaces the catalog's for a purchase option.
func (o *OwnPrice) Applies(opt PurchaseOption) bool {
	return o != nil && (o.Only == "" || o.Only == opt)
}

// ScaleMax is the maximum size an autoscaler may give a resource (an Auto Scaling group's
// max_size, a node pool's max_count, a HorizontalPodAutoscaler's maxReplicas).
type ScaleMax struct {
	// Quantity is the instances, nodes or pods at the maximum; SpotQuantity how many of them
	// run on spot when the purchase is split.
	Quantity     int
	SpotQuantity int
	// VCPUs, when set, sizes the maximum in vCPUs instead (an AWS Batch environment's
	// max_vcpus).
	VCPUs int
	// From names what declares the maximum ("max_size", "maxReplicas of
	// HorizontalPodAutoscaler/ml/chat").
	From string
	// HoursPerMonth is the hours a month the maximum is priced for, when not the resource's
	// own: a scheduled group runs its peak for some hours, but may run its maximum for others.
	// They are hours of the 730-hour month the schedule was replayed in, scaled as
	// Resource.CalendarHours are.
	HoursPerMonth float64
}

// SetScaleMax records a declared maximum of n instances, nodes or pods.
func (r *Resource) SetScaleMax(n int, from string) {
	r.ScaleMax = &ScaleMax{Quantity: n, From: from}
}

// AddUnresolved records an attribute that could not be resolved, once per attribute.
func (r *Resource) AddUnresolved(attr, reason string) {
	for _, u := range r.Unresolved {
		if u.Attribute == attr {
			return
		}
	}
	r.Unresolved = append(r.Unresolved, Unresolved{Attribute: attr, Reason: reason})
}

// Note adds a human-readable note, once.
func (r *Resource) Note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	for _, have := range r.Notes {
		if have == n {
			return
		}
	}
	r.Notes = append(r.Notes, n)
}

// Error is a problem with an input: the file could not be read, parsed or evaluated.
type Error struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func (e Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message)
	}
	if e.File == "" {
		return e.Message
	}
	return e.File + ": " + e.Message
}

// Result is what parsing a set of inputs yields: the resources, and the problems met on the way.
// Warnings are problems that did not stop a file from being read (or files skipped on purpose).
type Result struct {
	Resources []Resource
	Errors    []Error
	Warnings  []Error
	// Included lists directories read as part of this input (a Terraform root's local modules),
	// so that discovery does not count them again as roots of their own.
	Included []string
	// Consumed lists the files (real paths) a Terraform configuration read with file() or
	// templatefile(), and the chart directories its helm_releases rendered: a manifest it loads
	// into kubernetes_manifest, or a chart it installs, is its input, not one of its own to count
	// a second time.
	Consumed []string
	// Moves are the refactorings a Terraform configuration declares (moved blocks, in its own
	// files and its local modules) or a plan records (previous_address): an object that was at
	// From is at To, so that a diff matches it across the rename instead of removing and adding it.
	Moves []Move
}

// Move says that the Terraform object, or every object under the module or resource, at From
// is now at To (https://developer.hashicorp.com/terraform/language/modules/develop/refactoring).
// Both are full addresses in Root, the Terraform root module's directory.
type Move struct {
	Root string
	From string
	To   string
}

// Merge appends another result.
func (r *Result) Merge(o Result) {
	r.Resources = append(r.Resources, o.Resources...)
	r.Moves = append(r.Moves, o.Moves...)
	r.Errors = append(r.Errors, o.Errors...)
	r.Warnings = append(r.Warnings, o.Warnings...)
}

// Sort orders resources by file, line and address, and errors by file and line, so output is
// stable whatever order files were read in.
func (r *Result) Sort() {
	sort.SliceStable(r.Resources, func(i, j int) bool {
		a, b := r.Resources[i], r.Resources[j]
		if a.Source.File != b.Source.File {
			return a.Source.File < b.Source.File
		}
		if a.Source.Line != b.Source.Line {
			return a.Source.Line < b.Source.Line
		}
		return CompareAddresses(a.Address, b.Address) < 0
	})
	sortErrors(r.Errors)
	sortErrors(r.Warnings)
}

// CompareAddresses orders addresses as a reader counts: the numbers in them by value, so that
// x[2] comes before x[10] (byte order puts x[10] first); the rest byte by byte. It returns -1, 0
// or +1, as cmp.Compare does.
func CompareAddresses(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da == 0 || db == 0 {
			if a[0] != b[0] {
				return cmp.Compare(a[0], b[0])
			}
			a, b = a[1:], b[1:]
			continue
		}
		na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
		if len(na) != len(nb) {
			return cmp.Compare(len(na), len(nb))
		}
		if na != nb {
			return strings.Compare(na, nb)
		}
		if da != db { // the same number: fewer leading zeros first
			return cmp.Compare(da, db)
		}
		a, b = a[da:], b[db:]
	}
	return cmp.Compare(len(a), len(b))
}

// digitRun is how many ASCII digits s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func sortErrors(errs []Error) {
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].File != errs[j].File {
			return errs[i].File < errs[j].File
		}
		if errs[i].Line != errs[j].Line {
			return errs[i].Line < errs[j].Line
		}
		return errs[i].Message < errs[j].Message
	})
}

// NormalizeRegion lower-cases a region and removes spaces, so that Azure's "East US" and
// "eastus" are one region.
func NormalizeRegion(r string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(r), " ", ""))
}

// UnitDevice names what one unit of the pod's GPU resource is a share of, or is when nothing
// shares it: a GPU, or a MIG slice.
func (p *PodGPUs) UnitDevice() string {
	if p.MIGProfile != "" {
		return "MIG " + p.MIGProfile + " slice"
	}
	return "GPU"
}

// Strategies of a shared GPU (PodGPUs.SharingStrategy): NVIDIA's device plugin's time-slicing
// and MPS, and GKE's time-sharing.
const (
	SharingTimeSlicing    = "time-slicing"
	SharingMPS            = "mps"
	SharingGKETimeSharing = "time-sharing"
)

// ServingCommand is a container's command line (command then args, with Kubernetes' $(VAR)
// references to the container's literal env values expanded) and where it is declared.
type ServingCommand struct {
	// Engine is the server the command runs: EngineVLLM or EngineSGLang.
	Engine    string
	Container string
	Argv      []string
	Source    Location
}

// The serving engines whose command lines gpuguard reads.
const (
	EngineVLLM   = "vLLM"
	EngineSGLang = "SGLang"
)
