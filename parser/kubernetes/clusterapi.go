package kubernetes

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// Cluster API (cluster.x-k8s.io) declares a workload cluster's machines as objects of its
// management cluster. A MachineDeployment, MachineSet or MachinePool runs replicas machines of
// the type its infrastructure object holds (infrastructureRef): an AWSMachineTemplate,
// AzureMachineTemplate or GCPMachineTemplate, or for a MachinePool an AWSMachinePool,
// AWSManagedMachinePool (EKS), AzureMachinePool, AzureManagedMachinePool (AKS) or
// GCPManagedMachinePool (GKE); a Machine
// names an AWSMachine, AzureMachine or GCPMachine. Each of them with a GPU type is one resource of
// whole machines, in the region of its cluster's infrastructure (AWSCluster.spec.region,
// AzureCluster.spec.location, GCPCluster.spec.region, or the managed control plane's). Its nodes
// are a node group pods may select, by the labels capinodes.go reads.
//
// Field names and defaults are the providers' API types, read 2026-11-22:
// kubernetes-sigs/cluster-api (MachineDeployment, MachinePool, the autoscaler annotations),
// cluster-api-provider-aws api/v1beta2/awsmachine_types.go and exp/api/v1beta2 (AWSMachinePool,
// AWSManagedMachinePool), cluster-api-provider-azure api/v1beta1 (AzureMachine, AzureMachinePool,
// AzureManagedMachinePool), cluster-api-provider-gcp api/v1beta1/gcpmachine_types.go and (read
// 2026-11-23) exp/api/v1beta1 (GCPManagedMachinePool, GCPManagedControlPlane).

const (
	capiGroup             = "cluster.x-k8s.io"
	capiExpGroup          = "exp.cluster.x-k8s.io" // MachinePool before it left the experimental group
	capiInfraGroup        = "infrastructure.cluster.x-k8s.io"
	capiControlPlaneGroup = "controlplane.cluster.x-k8s.io"
	capiBootstrapGroup    = "bootstrap.cluster.x-k8s.io"
	// The cluster autoscaler's Cluster API provider reads a machine set's bounds from these
	// annotations (cluster.k8s.io/ is the older prefix it still accepts); Cluster API defaults
	// unset replicas to the minimum. https://cluster-api.sigs.k8s.io/tasks/automated-machine-management/autoscaling
	annotationAutoscalerMin = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size"
	annotationAutoscalerMax = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"
	labelCAPICluster        = "cluster.x-k8s.io/cluster-name"
	// A MachinePool whose size an autoscaler outside Cluster API manages (the Auto Scaling group's
	// own, say) carries this annotation; its replicas are then the provider pool's to decide.
	annotationReplicasManagedBy = "cluster.x-k8s.io/replicas-managed-by"
)

// Labels the Cluster API controllers put on the MachineSets and Machines they create: such an
// object is part of one that is read already (its MachineDeployment, MachineSet, MachinePool or
// control plane), and counting it too would count its machines twice.
var capiOwnedLabels = []string{"cluster.x-k8s.io/deployment-name", "cluster.x-k8s.io/set-name", "cluster.x-k8s.io/pool-name", "cluster.x-k8s.io/control-plane"}

// isCAPIMachines reports whether an object runs machines: a MachineDeployment, MachineSet,
// MachinePool or Machine of Cluster API's own group.
func isCAPIMachines(o *object) bool {
	g := group(o.APIVersion)
	switch o.Kind {
	case "MachineDeployment", "MachineSet", "Machine":
		return g == capiGroup
	case "MachinePool":
		return g == capiGroup || g == capiExpGroup
	}
	return false
}

// capiIndex holds the objects machines refer to (clusters, their infrastructure and control
// planes, machine templates and pools), by Kind/namespace/name.
type capiIndex map[string]*object

func capiKey(kind, namespace, name string) string { return kind + "/" + namespace + "/" + name }

func newCAPIIndex(objs []*object) capiIndex {
	ix := capiIndex{}
	for _, o := range objs {
		switch group(o.APIVersion) {
		case capiInfraGroup, capiControlPlaneGroup, capiBootstrapGroup:
		case capiGroup:
			if o.Kind != "Cluster" && o.Kind != "ClusterClass" {
				continue
			}
		default:
			continue
		}
		ix[capiKey(o.Kind, o.namespace(), o.Metadata.Name)] = o
	}
	return ix
}

// capiRef is an object reference of Cluster API: apiVersion in v1beta1, apiGroup in v1beta2.
// The kind and name identify the object; the namespace is the referrer's unless given.
type capiRef struct {
	Kind      string `yaml:"kind"`
	Name      string `yaml:"name"`
	Namespace string `yaml:"namespace"`
}

func (r capiRef) key(o *object) string {
	ns := r.Namespace
	if ns == "" {
		ns = o.namespace()
	}
	return capiKey(r.Kind, ns, r.Name)
}

// machines is what an infrastructure object says about the machines it describes.
type machines struct {
	provider string
	types    []string // the first is priced
	from     string   // the field the types come from
	spot     string   // why the machines run on spot, "" when on demand
	block    string   // the field that puts them in a Capacity Block, "" when none
	// mixed, when set, splits the machines between on-demand and spot as an Auto Scaling group's
	// instances distribution does.
	mixed    *[2]int // on-demand base, on-demand percentage above it
	tags     map[string]string
	region   string // the object's own region (AzureMachinePool.spec.location)
	min, max *int   // the pool's own bounds (AWSMachinePool minSize/maxSize, managed pools' scaling)
	maxFrom  string
	// noDriver, when set, says why the machines start without the NVIDIA driver (an EKS AMI
	// type without it, an AKS pool's gpuProfile.driver None); it counts only for GPU instance
	// types (NVIDIA's on EC2).
	noDriver string
	// zones, when above 0, is how many zones a GKE pool's replicas are spread over (CAPG sends
	// GKE replicas/zones per zone), and zonesFrom where that number comes from.
	zones     int
	zonesFrom string
	// zoneNames are the zones the machines run in, when the pool or machine names them (a GKE
	// pool's spec.nodeLocations, an AWS pool's spec.availabilityZones): parser.NodeLabels.Zones.
	zoneNames []string
	// azureZones are the availability zones an AKS pool names ("1", "2"), which AKS labels its
	// nodes with as REGION-N (eastus2-1): zoneNames once the pool's region is known.
	azureZones []string
	// pool, for a managed pool (EKS, GKE, AKS), is what its cloud registers its nodes with:
	// the pool's name under the cloud's group-name label, and the labels and taints it declares.
	pool *parser.NodeLabels
}

// spotOptions is CAPA's spotMarketOptions or CAPZ's spotVMOptions: the machines run on spot when
// it is present, even empty ({}); null leaves the pointer nil.
type spotOptions struct{}

type awsMachineSpec struct {
	InstanceType      string            `yaml:"instanceType"`
	SpotMarketOptions *spotOptions      `yaml:"spotMarketOptions"`
	MarketType        string            `yaml:"marketType"`
	AdditionalTags    map[string]string `yaml:"additionalTags"`
}

// newMachines starts the machines of one instance type (none when typ is empty), read from field.
func newMachines(provider, field, typ string, tags map[string]string) machines {
	m := machines{provider: provider, from: field, tags: tags}
	if typ != "" {
		m.types = []string{typ}
	}
	return m
}

func (s awsMachineSpec) machines(from string) machines {
	m := newMachines(parser.AWS, from+"instanceType", s.InstanceType, s.AdditionalTags)
	switch {
	case strings.EqualFold(s.MarketType, "CapacityBlock"):
		m.block = from + "marketType"
	case strings.EqualFold(s.MarketType, "Spot"):
		m.spot = from + "marketType Spot"
	case s.SpotMarketOptions != nil && !strings.EqualFold(s.MarketType, "OnDemand"):
		m.spot = from + "spotMarketOptions"
	}
	return m
}

type azureMachineSpec struct {
	VMSize         string            `yaml:"vmSize"`
	SpotVMOptions  *spotOptions      `yaml:"spotVMOptions"`
	AdditionalTags map[string]string `yaml:"additionalTags"`
}

func (s azureMachineSpec) machines(from string) machines {
	m := newMachines(parser.Azure, from+"vmSize", s.VMSize, s.AdditionalTags)
	if s.SpotVMOptions != nil {
		m.spot = from + "spotVMOptions"
	}
	return m
}

type gcpMachineSpec struct {
	InstanceType      string            `yaml:"instanceType"`
	Preemptible       bool              `yaml:"preemptible"`
	ProvisioningModel string            `yaml:"provisioningModel"`
	AdditionalLabels  map[string]string `yaml:"additionalLabels"`
}

func (s gcpMachineSpec) machines(from string) machines {
	m := newMachines(parser.GCP, from+"instanceType", s.InstanceType, s.AdditionalLabels)
	switch {
	case strings.EqualFold(s.ProvisioningModel, "Spot"):
		m.spot = from + "provisioningModel Spot"
	case s.Preemptible:
		m.spot = from + "preemptible (priced at spot rates)"
	}
	return m
}

// managedScaling is the scaling of an EKS or AKS managed machine pool.
type managedScaling struct {
	MinSize *int `yaml:"minSize"`
	MaxSize *int `yaml:"maxSize"`
}

// readMachines reads the machines of an infrastructure object; ok is false for a kind gpuguard
// does not read.
func readMachines(o *object) (m machines, ok bool, err error) {
	switch o.Kind {
	case "AWSMachineTemplate", "AzureMachineTemplate", "GCPMachineTemplate":
		var spec struct {
			Template struct {
				Spec yaml.Node `yaml:"spec"`
			} `yaml:"template"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return m, true, err
		}
		m, err = readMachineSpec(o.Kind, &spec.Template.Spec, "spec.template.spec.")
		return m, true, err
	case "AWSMachine", "AzureMachine", "GCPMachine":
		m, err = readMachineSpec(o.Kind, &o.Spec, "spec.")
		return m, true, err
	case "AWSMachinePool":
		var spec struct {
			MinSize           *int              `yaml:"minSize"`
			MaxSize           *int              `yaml:"maxSize"`
			AdditionalTags    map[string]string `yaml:"additionalTags"`
			AWSLaunchTemplate awsMachineSpec    `yaml:"awsLaunchTemplate"`
			AvailabilityZones []string          `yaml:"availabilityZones"`
			Subnets           []yaml.Node       `yaml:"subnets"`
			Mixed             *struct {
				Distribution *struct {
					Base *int `yaml:"onDemandBaseCapacity"`
					Pct  *int `yaml:"onDemandPercentageAboveBaseCapacity"`
				} `yaml:"instancesDistribution"`
				Overrides []struct {
					InstanceType string `yaml:"instanceType"`
				} `yaml:"overrides"`
			} `yaml:"mixedInstancesPolicy"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return m, true, err
		}
		m = spec.AWSLaunchTemplate.machines("spec.awsLaunchTemplate.")
		m.tags = spec.AdditionalTags
		if len(spec.Subnets) == 0 { // subnets of their own put the instances in theirs, not read
			m.zoneNames = zoneSet(spec.AvailabilityZones)
		}
		// CAPA's defaults: minSize 1, maxSize 1.
		m.min, m.max, m.maxFrom = spec.MinSize, spec.MaxSize, "maxSize of "+o.address()
		if mp := spec.Mixed; mp != nil {
			var overrides []string
			for _, ov := range mp.Overrides {
				if ov.InstanceType != "" {
					overrides = append(overrides, ov.InstanceType)
				}
			}
			if len(overrides) > 0 {
				m.types, m.from = overrides, "spec.mixedInstancesPolicy.overrides"
			}
			// The Auto Scaling group's defaults: base 0, 100% on demand above it.
			base, pct := 0, 100
			if d := mp.Distribution; d != nil {
				base, pct = intOr(d.Base, 0), min(intOr(d.Pct, 100), 100)
			}
			if base < 0 || pct < 0 {
				return m, true, fmt.Errorf("mixedInstancesPolicy.instancesDistribution: on-demand base %d and percentage %d must not be negative", base, pct)
			}
			m.mixed = &[2]int{base, pct}
		}
		return m, true, nil
	case "AWSManagedMachinePool":
		var spec struct {
			InstanceType      string            `yaml:"instanceType"`
			AWSLaunchTemplate *awsMachineSpec   `yaml:"awsLaunchTemplate"`
			Scaling           managedScaling    `yaml:"scaling"`
			CapacityType      string            `yaml:"capacityType"`
			AdditionalTags    map[string]string `yaml:"additionalTags"`
			AMIType           *string           `yaml:"amiType"`
			EKSNodegroupName  string            `yaml:"eksNodegroupName"`
			Labels            map[string]string `yaml:"labels"`
			Taints            []capiTaint       `yaml:"taints"`
			AvailabilityZones []string          `yaml:"availabilityZones"`
			SubnetIDs         []yaml.Node       `yaml:"subnetIDs"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return m, true, err
		}
		m = newMachines(parser.AWS, "spec.instanceType", spec.InstanceType, spec.AdditionalTags)
		if lt := spec.AWSLaunchTemplate; lt != nil && spec.InstanceType == "" {
			m = lt.machines("spec.awsLaunchTemplate.")
			m.tags = spec.AdditionalTags
		}
		// EKS takes the AMI type CAPA sends; CAPA's CRD defaults an unset amiType to AL2_x86_64
		// (exp/api/v1beta2/awsmanagedmachinepool_types.go, +kubebuilder:default, read
		// 2026-11-23), which has no NVIDIA driver. With a launch template the image may be its
		// own: not judged.
		switch {
		case spec.AMIType != nil && parser.EKSAMITypeWithoutDriver(*spec.AMIType):
			m.noDriver = fmt.Sprintf("spec.amiType %s, an EKS AMI type without the NVIDIA driver", *spec.AMIType)
		case spec.AMIType == nil && spec.AWSLaunchTemplate == nil:
			m.noDriver = "spec.amiType is not set, and CAPA's default, AL2_x86_64, is an EKS AMI type without the NVIDIA driver"
		}
		capacity := CapacityOnDemand
		if strings.EqualFold(spec.CapacityType, "spot") {
			m.spot, capacity = "spec.capacityType spot", CapacitySpot
		}
		m.min, m.max, m.maxFrom = spec.Scaling.MinSize, spec.Scaling.MaxSize, "scaling.maxSize of "+o.address()
		m.pool = managedPoolLabels(parser.AWS, eksNodegroupName(spec.EKSNodegroupName, o), capacity, spec.Labels, spec.Taints)
		if len(spec.SubnetIDs) == 0 { // subnets of their own put the nodes in theirs, not read
			m.zoneNames = zoneSet(spec.AvailabilityZones)
		}
		return m, true, nil
	case "GCPManagedMachinePool":
		return gkeMachines(o)
	case "AzureASOManagedMachinePool":
		return asoPoolMachines(o)
	case "AzureMachinePool":
		var spec struct {
			Location       string            `yaml:"location"`
			Template       azureMachineSpec  `yaml:"template"`
			AdditionalTags map[string]string `yaml:"additionalTags"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return m, true, err
		}
		m = spec.Template.machines("spec.template.")
		m.tags, m.region = spec.AdditionalTags, spec.Location
		return m, true, nil
	case "AzureManagedMachinePool":
		var spec struct {
			SKU              string            `yaml:"sku"`
			Scaling          managedScaling    `yaml:"scaling"`
			ScaleSetPriority string            `yaml:"scaleSetPriority"`
			AdditionalTags   map[string]string `yaml:"additionalTags"`
			Name             string            `yaml:"name"`
			NodeLabels       map[string]string `yaml:"nodeLabels"`
			Taints           []capiTaint       `yaml:"taints"`
			// AvailabilityZones as CAPZ's AzureManagedMachinePoolClassSpec has them
			// (api/v1beta1/azuremanagedmachinepool_types.go).
			AvailabilityZones []string `yaml:"availabilityZones"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return m, true, err
		}
		m = newMachines(parser.Azure, "spec.sku", spec.SKU, spec.AdditionalTags)
		m.azureZones = spec.AvailabilityZones
		// The agent pool is named spec.name, else the object's name (CAPZ's field doc).
		capacity := CapacityOnDemand
		if strings.EqualFold(spec.ScaleSetPriority, "Spot") {
			m.spot, capacity = "spec.scaleSetPriority Spot", CapacitySpot
		}
		m.pool = managedPoolLabels(parser.Azure, poolName(spec.Name, o), capacity, spec.NodeLabels, spec.Taints)
		m.min, m.max, m.maxFrom = spec.Scaling.MinSize, spec.Scaling.MaxSize, "scaling.maxSize of "+o.address()
		return m, true, nil
	}
	return m, false, nil
}

// gkeMachines reads a CAPG GCPManagedMachinePool, a GKE node pool. What CAPG sends GKE
// (cluster-api-provider-gcp cloud/scope/managedmachinepool.go ConvertToSdkNodePool and
// cloud/services/shared/machinepool.go, read 2026-11-23): the machine type is spec.instanceType,
// else the deprecated spec.machineType, else GKE's default e2-medium (no GPU); the MachinePool's
// replicas are the pool's total, divided among spec.nodeLocations or cloud.DefaultNumRegionsPerZone
// (3) zones, and refused before creation when they do not divide evenly; spec.scaling's minCount
// and maxCount are GKE's total (not per-zone) autoscaling bounds; spec.spot and spec.preemptible
// pick Spot or preemptible VMs; spec.additionalLabels become the nodes' resource labels. The
// pool has no accelerator field: its GPUs are those of an accelerator-optimized machine type.
func gkeMachines(o *object) (machines, bool, error) {
	var spec struct {
		InstanceType     string            `yaml:"instanceType"`
		MachineType      string            `yaml:"machineType"`
		NodeLocations    []string          `yaml:"nodeLocations"`
		Spot             bool              `yaml:"spot"`
		Preemptible      bool              `yaml:"preemptible"`
		AdditionalLabels map[string]string `yaml:"additionalLabels"`
		NodePoolName     string            `yaml:"nodePoolName"`
		KubernetesLabels map[string]string `yaml:"kubernetesLabels"`
		KubernetesTaints []capiTaint       `yaml:"kubernetesTaints"`
		Scaling          *struct {
			MinCount *int `yaml:"minCount"`
			MaxCount *int `yaml:"maxCount"`
		} `yaml:"scaling"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return machines{}, true, err
	}
	m := newMachines(parser.GCP, "spec.instanceType", spec.InstanceType, spec.AdditionalLabels)
	if spec.InstanceType == "" {
		m = newMachines(parser.GCP, "spec.machineType", spec.MachineType, spec.AdditionalLabels)
	}
	capacity := CapacityOnDemand
	switch {
	case spec.Spot:
		m.spot, capacity = "spec.spot", CapacitySpot
	case spec.Preemptible:
		m.spot, capacity = "spec.preemptible (priced at spot rates)", CapacityPreemptible
	}
	if sc := spec.Scaling; sc != nil {
		m.min, m.max, m.maxFrom = sc.MinCount, sc.MaxCount, "scaling.maxCount of "+o.address()
	}
	// The node pool is named spec.nodePoolName, else the object's name (CAPG's
	// ManagedMachinePoolScope.NodePoolName, cloud/scope/managedmachinepool.go).
	m.pool = managedPoolLabels(parser.GCP, poolName(spec.NodePoolName, o), capacity, spec.KubernetesLabels, spec.KubernetesTaints)
	// Without a machine type the pool runs GKE's default, e2-medium, without GPUs.
	SetGKEAccelerator(m.pool, parser.GCPBuiltInAccelerator(cmp.Or(spec.InstanceType, spec.MachineType)), true)
	m.zones, m.zonesFrom = 3, "CAPG's default of 3 zones"
	if n := len(spec.NodeLocations); n > 0 {
		m.zones, m.zonesFrom = n, "spec.nodeLocations of "+o.address()
		m.zoneNames = zoneSet(spec.NodeLocations)
	}
	return m, true, nil
}

// asoPoolMachines reads a CAPZ AzureASOManagedMachinePool, an AKS pool CAPZ declares through
// Azure Service Operator: spec.resources holds the ManagedClustersAgentPool it creates, whose
// spec is ARM's agent pool (vmSize, scaleSetPriority, enableAutoScaling with minCount and
// maxCount, tags, gpuProfile.driver), while its count follows the MachinePool's replicas
// (cluster-api-provider-azure docs/book/src/managed/asomanagedcluster.md and
// templates/cluster-template-aks-aso.yaml, read 2026-11-23). Its region is the location of the
// ManagedCluster in its AzureASOManagedControlPlane's spec.resources.
func asoPoolMachines(o *object) (machines, bool, error) {
	var spec struct {
		Resources []struct {
			Kind     string      `yaml:"kind"`
			Metadata objectMeta  `yaml:"metadata"`
			Spec     asoPoolSpec `yaml:"spec"`
		} `yaml:"resources"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return machines{}, true, err
	}
	for i, r := range spec.Resources {
		if r.Kind != "ManagedClustersAgentPool" {
			continue
		}
		from := fmt.Sprintf("spec.resources[%d].spec.", i)
		p := r.Spec
		m := newMachines(parser.Azure, from+"vmSize", p.VMSize, p.Tags)
		// ASO names the agent pool spec.azureName, else the resource's name.
		capacity := CapacityOnDemand
		if strings.EqualFold(p.ScaleSetPriority, "Spot") {
			m.spot, capacity = from+"scaleSetPriority Spot", CapacitySpot
		}
		m.pool = managedPoolLabels(parser.Azure, groupName{name: cmp.Or(p.AzureName, r.Metadata.Name)}, capacity, p.NodeLabels, nil)
		for j, spec := range p.NodeTaints {
			t, err := parser.ParseTaint(spec)
			if err != nil {
				return m, true, fmt.Errorf("%snodeTaints[%d]: %w", from, j, err)
			}
			m.pool.Taints = append(m.pool.Taints, t)
		}
		if p.EnableAutoScaling {
			m.min, m.max, m.maxFrom = p.MinCount, p.MaxCount, from+"maxCount of "+o.address()
		}
		m.azureZones = p.AvailabilityZones
		if why := parser.AKSNoDriver(p.GPUProfile.Driver, p.Tags); why != "" {
			m.noDriver = why + " (in " + strings.TrimSuffix(from, ".") + ")"
		}
		return m, true, nil
	}
	return machines{provider: parser.Azure}, true, nil
}

// asoPoolSpec is what gpuguard reads of an ASO ManagedClustersAgentPool's spec.
type asoPoolSpec struct {
	AzureName         string            `yaml:"azureName"`
	NodeLabels        map[string]string `yaml:"nodeLabels"`
	NodeTaints        []string          `yaml:"nodeTaints"`
	VMSize            string            `yaml:"vmSize"`
	AvailabilityZones []string          `yaml:"availabilityZones"`
	ScaleSetPriority  string            `yaml:"scaleSetPriority"`
	EnableAutoScaling bool              `yaml:"enableAutoScaling"`
	MinCount          *int              `yaml:"minCount"`
	MaxCount          *int              `yaml:"maxCount"`
	Tags              map[string]string `yaml:"tags"`
	GPUProfile        struct {
		Driver string `yaml:"driver"`
	} `yaml:"gpuProfile"`
}

// readsMachinesOf reports whether readMachines reads a kind: it asks it about an empty object of
// that kind, so the kinds are listed once, in readMachines' switch.
func readsMachinesOf(kind string) bool {
	_, ok, _ := readMachines(&object{Kind: kind})
	return ok
}

func readMachineSpec(kind string, n *yaml.Node, from string) (machines, error) {
	if n.Kind == 0 {
		return machines{}, nil
	}
	switch {
	case strings.HasPrefix(kind, "AWS"):
		var s awsMachineSpec
		err := n.Decode(&s)
		return s.machines(from), err
	case strings.HasPrefix(kind, "Azure"):
		var s azureMachineSpec
		err := n.Decode(&s)
		return s.machines(from), err
	default:
		var s gcpMachineSpec
		err := n.Decode(&s)
		return s.machines(from), err
	}
}

// clusterPlace is what a cluster's objects say about where its machines run and how they are
// tagged.
type clusterPlace struct {
	region  string
	from    string // the object the region comes from
	missing string // when region is "", what would have named it
	tags    map[string]string
}

// place finds the region of a cluster: on the infrastructure or control plane object its Cluster
// names, or, without the Cluster among the files, on an AWSCluster, AzureCluster, GCPCluster or
// managed control plane of the cluster's name (the names clusterctl's templates give them).
func (ix capiIndex) place(namespace, cluster string) clusterPlace {
	if cluster == "" {
		return clusterPlace{missing: "the machines name no cluster (spec.clusterName)"}
	}
	var candidates []string
	clusterKey := capiKey("Cluster", namespace, cluster)
	if c, ok := ix[clusterKey]; ok {
		var spec struct {
			InfrastructureRef capiRef `yaml:"infrastructureRef"`
			ControlPlaneRef   capiRef `yaml:"controlPlaneRef"`
		}
		if err := decodeSpec(c, &spec); err == nil {
			for _, r := range []capiRef{spec.InfrastructureRef, spec.ControlPlaneRef} {
				if r.Kind != "" && r.Name != "" {
					candidates = append(candidates, r.key(c))
				}
			}
		}
		if len(candidates) == 0 {
			return clusterPlace{missing: clusterKey + " names no infrastructure"}
		}
	} else {
		for _, k := range []string{"AWSCluster", "AzureCluster", "GCPCluster", "AWSManagedControlPlane", "AzureManagedControlPlane", "AzureASOManagedControlPlane", "GCPManagedCluster", "GCPManagedControlPlane"} {
			candidates = append(candidates, capiKey(k, namespace, cluster))
		}
	}
	var p clusterPlace
	for _, k := range candidates {
		o, ok := ix[k]
		if !ok {
			continue
		}
		var spec struct {
			Region           string            `yaml:"region"`
			Location         string            `yaml:"location"`
			AdditionalTags   map[string]string `yaml:"additionalTags"`
			AdditionalLabels map[string]string `yaml:"additionalLabels"`
			// CAPZ's ASO control plane and cluster hold the ASO ManagedCluster (or
			// ResourceGroup) they create, with its location.
			Resources []struct {
				Kind string `yaml:"kind"`
				Spec struct {
					Location string `yaml:"location"`
				} `yaml:"spec"`
			} `yaml:"resources"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			continue
		}
		for _, r := range spec.Resources {
			if r.Kind == "ManagedCluster" && spec.Location == "" {
				spec.Location = r.Spec.Location
			}
		}
		if p.tags == nil {
			p.tags = spec.AdditionalTags
			if p.tags == nil {
				p.tags = spec.AdditionalLabels
			}
		}
		if r := cmp.Or(spec.Region, spec.Location); r != "" && p.region == "" {
			if name, def, ok := clusterctlVariable(r); ok {
				if def == "" {
					p.missing = fmt.Sprintf("the region of %s is clusterctl variable %s, set when the template is generated", o.address(), name)
					continue
				}
				r = def
			}
			p.region, p.from = parser.NormalizeRegion(r), o.address()
			// A GKE control plane's location is a region or a zone (us-central1-a): its
			// machines are priced in the zone's region.
			if m := gcpZone.FindStringSubmatch(p.region); m != nil && strings.HasPrefix(o.Kind, "GCP") {
				p.region, p.from = m[1], fmt.Sprintf("%s (zone %s)", o.address(), p.region)
			}
		}
	}
	if p.region == "" && p.missing == "" {
		if _, ok := ix[clusterKey]; ok {
			p.missing = fmt.Sprintf("the region is on the infrastructure %s names (%s), which is not among the files read", clusterKey, strings.Join(candidates, ", "))
		} else {
			p.missing = fmt.Sprintf("the region is on %s's infrastructure, and neither it nor an AWSCluster, AzureCluster or GCPCluster of that name is among the files read", clusterKey)
		}
	}
	return p
}

// buildMachineSets makes a resource of each Cluster API machine set with a GPU instance type.
func buildMachineSets(objs []*object, res *parser.Result) {
	var ix capiIndex
	index := func() capiIndex {
		if ix == nil {
			ix = newCAPIIndex(objs)
		}
		return ix
	}
	// Clusters with a managed topology first: the machine sets Cluster API created for them, when
	// they are among the files too, are theirs.
	topologies := map[string]bool{}
	classes := map[*object]*clusterClass{}
	for _, o := range objs {
		if o.Kind == "Cluster" && group(o.APIVersion) == capiGroup && buildTopology(o, index(), classes, res) {
			topologies[capiKey("Cluster", o.namespace(), o.Metadata.Name)] = true
		}
	}
	for _, o := range objs {
		if !isCAPIMachines(o) || owned(o) {
			continue
		}
		if _, ok := o.Metadata.Labels[labelTopologyOwned]; ok && topologies[capiKey("Cluster", o.namespace(), o.Metadata.Labels[labelCAPICluster])] {
			continue
		}
		index()
		r, warn, err := machineSet(o, ix, &res.Errors)
		if err != nil {
			res.Errors = append(res.Errors, specError(o, err))
			continue
		}
		if warn != "" {
			res.Warnings = append(res.Warnings, parser.Error{File: o.file, Line: o.line, Message: warn})
		}
		if r != nil {
			res.Resources = append(res.Resources, *r)
		}
	}
}

func owned(o *object) bool {
	for _, l := range capiOwnedLabels {
		if _, ok := o.Metadata.Labels[l]; ok {
			return true
		}
	}
	return false
}

// machineSet reads one MachineDeployment, MachineSet, MachinePool or Machine: its resource when
// its machines are GPU machines, or a warning when their type cannot be read. Errors in
// annotations that leave the resource priced are added to errs.
func machineSet(o *object, ix capiIndex, errs *[]parser.Error) (*parser.Resource, string, error) {
	var spec struct {
		ClusterName       string        `yaml:"clusterName"`
		Replicas          yaml.Node     `yaml:"replicas"`
		InfrastructureRef capiRef       `yaml:"infrastructureRef"` // a Machine's
		Bootstrap         capiBootstrap `yaml:"bootstrap"`         // a Machine's
		Template          struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				InfrastructureRef capiRef       `yaml:"infrastructureRef"`
				Bootstrap         capiBootstrap `yaml:"bootstrap"`
				FailureDomain     string        `yaml:"failureDomain"`
			} `yaml:"spec"`
		} `yaml:"template"`
		FailureDomain string `yaml:"failureDomain"` // a Machine's
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, "", err
	}
	ref, machineLabels, bootstrap := spec.Template.Spec.InfrastructureRef, spec.Template.Metadata.Labels, spec.Template.Spec.Bootstrap
	if o.Kind == "Machine" {
		ref, machineLabels, bootstrap = spec.InfrastructureRef, o.Metadata.Labels, spec.Bootstrap
	}
	if ref.Kind == "" || ref.Name == "" {
		return nil, "", nil
	}
	infra, found := ix[ref.key(o)]
	if !found {
		if readsMachinesOf(ref.Kind) {
			return nil, fmt.Sprintf("%s takes its machines' type from %s, which is not among the files read: if they are GPU machines, they are not counted", o.address(), ref.key(o)), nil
		}
		return nil, "", nil
	}
	m, reads, err := readMachines(infra)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", infra.address(), err)
	}
	if !reads {
		if typ, field := gpuTypeIn(&infra.Spec, "spec"); typ != "" {
			return nil, fmt.Sprintf("%s runs machines of %s, whose %s names GPU type %s, but gpuguard does not read %s (%s): those GPUs are not counted",
				o.address(), infra.address(), field, typ, infra.Kind, infra.APIVersion), nil
		}
		return nil, "", nil
	}
	var typeNote string
	if len(m.types) > 0 {
		if name, def, ok := clusterctlVariable(m.types[0]); ok {
			if def == "" {
				return nil, fmt.Sprintf("%s runs machines of %s, whose %s is clusterctl variable %s, set when the template is generated: if they are GPU machines, they are not counted",
					o.address(), infra.address(), m.from, name), nil
			}
			m.types[0], typeNote = def, fmt.Sprintf("%s is clusterctl variable %s: priced at its default %s", m.from, name, def)
		}
	}
	if !anyGPU(m) {
		return nil, "", nil
	}
	replicas, replicasVar, err := clusterctlInt(&spec.Replicas, "replicas")
	if err != nil {
		return nil, "", lineError{line: o.lineOf(&spec.Replicas), err: err}
	}
	n, max, maxFrom, notes, err := machineCount(o, replicas, m)
	if err != nil {
		return nil, "", err
	}
	cluster := cmp.Or(spec.ClusterName, o.Metadata.Labels[labelCAPICluster])
	place := ix.place(o.namespace(), cluster)
	r := &parser.Resource{Address: o.address(), Root: o.rootName(), Source: parser.Location{File: o.file, Line: o.line},
		Kind: parser.KindKubernetes, Type: o.Kind, Provider: m.provider, InstanceType: m.types[0], Quantity: n, PurchaseOption: parser.OnDemand}
	if o.note != "" {
		r.Note("%s", o.note)
	}
	r.Note("Cluster API machines: %s of %s", m.from, infra.address())
	if typeNote != "" {
		r.Note("%s", typeNote)
	}
	if replicasVar != "" {
		r.Note("%s", replicasVar)
	}
	if len(m.types) > 1 {
		r.Note("%d instance types (%s): priced at the first, the highest priority", len(m.types), strings.Join(m.types, ", "))
	}
	for _, s := range notes {
		r.Note("%s", s)
	}
	switch {
	case m.region != "":
		r.Region = parser.NormalizeRegion(m.region)
	case place.region != "":
		r.Region = place.region
		r.Note("region %s from %s", r.Region, place.from)
	default:
		r.RegionUnknown = place.missing
	}
	if max > 0 {
		r.SetScaleMax(max, maxFrom)
	}
	switch {
	case m.block != "":
		r.AddUnresolved(m.block, parser.CapacityBlockReason)
	case m.spot != "":
		r.PurchaseOption = parser.Spot
		r.Note("spot: %s", m.spot)
	case m.mixed != nil:
		base, pct := m.mixed[0], m.mixed[1]
		r.SpotQuantity = n - parser.MixedOnDemand(n, base, pct)
		if r.ScaleMax != nil {
			r.ScaleMax.SpotQuantity = r.ScaleMax.Quantity - parser.MixedOnDemand(r.ScaleMax.Quantity, base, pct)
		}
		if r.SpotQuantity == n && n > 0 {
			r.PurchaseOption, r.SpotQuantity = parser.Spot, 0
			if r.ScaleMax != nil {
				r.ScaleMax.SpotQuantity = 0
			}
		} else if r.SpotQuantity > 0 {
			r.Note("mixed instances policy: %d on-demand, %d spot", n-r.SpotQuantity, r.SpotQuantity)
		}
	}
	if m.noDriver != "" && (parser.NVIDIAEC2(r.InstanceType) || m.provider == parser.Azure && parser.IsGPUInstanceType(parser.Azure, r.InstanceType)) {
		r.NoGPUDriver = m.noDriver
	}
	tags := maps.Clone(place.tags)
	if len(m.tags) > 0 {
		if tags == nil {
			tags = map[string]string{}
		}
		maps.Copy(tags, m.tags) // the machines' own tags win over the cluster's
	}
	if len(tags) > 0 {
		r.Tags = tags
	}
	annotations := o.Metadata.Annotations
	if p := annotations[AnnotationProfile]; p != "" {
		r.Profile = p
	}
	if v, ok := annotations[AnnotationIgnore]; ok {
		r.Suppressions = parser.ParseSuppressionAnnotation(v, r.Source)
	}
	hoursFromManifest(r, role{}, annotations, o, errs)
	r.NodeLabels = capiNodeLabels(machineLabels, bootstrap, o, ix, errs)
	if m.pool != nil {
		mergePoolLabels(r.NodeLabels, m.pool)
	}
	r.NodeLabels.Zones = m.zoneNames
	if zs := parser.AKSZoneLabels(r.Region, m.azureZones); zs != nil {
		r.NodeLabels.Zones = zs
	}
	// A failure domain puts the machines in it: on AWS and GCP it is a zone, named as the nodes'
	// zone label names it (CAPA's and CAPG's failure domains are their availability zones);
	// CAPZ's ("1") are not read.
	fd := spec.Template.Spec.FailureDomain
	if o.Kind == "Machine" {
		fd = spec.FailureDomain
	}
	if fd != "" && (m.provider == parser.AWS || m.provider == parser.GCP) && regionOfZone(fd) != "" {
		r.NodeLabels.Zones = []string{fd}
	}
	return r, "", nil
}

// zoneSet is the zones sorted, each once; nil when there are none.
func zoneSet(zones []string) []string {
	if len(zones) == 0 {
		return nil
	}
	out := slices.Clone(zones)
	slices.Sort(out)
	return slices.Compact(out)
}

// anyGPU reports whether any of the machines' types is a GPU type.
func anyGPU(m machines) bool {
	for _, t := range m.types {
		if parser.IsGPUInstanceType(m.provider, t) {
			return true
		}
	}
	return false
}

// machineCount is how many machines a machine set runs, and the most it may scale to (0 when
// no maximum above that is declared). Unset replicas are the autoscaler's minimum when its
// annotations are there (Cluster API's defaulting), else 1.
func machineCount(o *object, replicas *int, m machines) (n, max int, maxFrom string, notes []string, err error) {
	minA, err := autoscalerBound(o, annotationAutoscalerMin)
	if err != nil {
		return 0, 0, "", nil, err
	}
	maxA, err := autoscalerBound(o, annotationAutoscalerMax)
	if err != nil {
		return 0, 0, "", nil, err
	}
	switch {
	case o.Kind == "Machine":
		n = 1
	case o.Metadata.Annotations[annotationReplicasManagedBy] != "" && m.min != nil:
		n = *m.min
		notes = append(notes, fmt.Sprintf("replicas managed outside Cluster API (%s): %d, the pool's minimum", annotationReplicasManagedBy, n))
	case replicas != nil:
		n = *replicas
	case minA != nil:
		n = *minA
		notes = append(notes, fmt.Sprintf("replicas not set: %d, the autoscaler's minimum (%s)", n, annotationAutoscalerMin))
	default:
		n = 1
		notes = append(notes, "replicas not set: Cluster API's default of 1")
	}
	if n < 0 || n > maxPods {
		return 0, 0, "", nil, fmt.Errorf("replicas %d is not a number of machines", n)
	}
	switch {
	case maxA != nil && *maxA > n:
		max, maxFrom = *maxA, "annotation "+annotationAutoscalerMax
	case maxA == nil && m.max != nil && *m.max > n:
		max, maxFrom = *m.max, m.maxFrom
	}
	if max > maxPods {
		return 0, 0, "", nil, fmt.Errorf("%s: %d is not a number of machines", maxFrom, max)
	}
	if n == 0 {
		notes = append(notes, "0 machines: scaled to zero, no cost while it stays so")
	}
	if z := m.zones; z > 0 && n > 0 {
		if n%z == 0 {
			notes = append(notes, fmt.Sprintf("GKE pool: %d machines in all, %d in each of %d zones (%s)", n, n/z, z, m.zonesFrom))
		} else {
			notes = append(notes, fmt.Sprintf("GKE pool: %d machines are not a multiple of its %d zones (%s): CAPG refuses to create it until they are; priced at %d", n, z, m.zonesFrom, n))
		}
	}
	return n, max, maxFrom, notes, nil
}

// autoscalerBound reads one of the autoscaler's annotations (or its older cluster.k8s.io/ form).
func autoscalerBound(o *object, key string) (*int, error) {
	v, ok := o.Metadata.Annotations[key]
	if !ok {
		v, ok = o.Metadata.Annotations["cluster.k8s.io/"+strings.TrimPrefix(key, "cluster.x-k8s.io/")]
	}
	if !ok {
		return nil, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n > maxPods {
		return nil, fmt.Errorf("annotation %s=%q is not a number of machines", key, v)
	}
	return &n, nil
}

// gpuTypeIn finds, in an object of a kind gpuguard does not read, a field named like an instance
// type (instanceType, vmSize, machineType, sku, or a list of them: instanceTypes) whose value is
// a GPU type of some cloud, with the field's path under path ("spec").
func gpuTypeIn(n *yaml.Node, path string) (string, string) {
	if n == nil {
		return "", ""
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if t, f := gpuTypeIn(c, fmt.Sprintf("%s[%d]", path, i)); t != "" {
				return t, f
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if v.Kind == yaml.ScalarNode {
				switch k.Value {
				case "instanceType", "vmSize", "machineType", "sku", "vmType":
					if prov := parser.ProviderOfInstanceType(v.Value); parser.IsGPUInstanceType(prov, v.Value) {
						return v.Value, p
					}
				case "acceleratorType", "type":
					// A GPU attached by accelerator type (GCP's nvidia-tesla-t4, nvidia-l4).
					if (k.Value == "acceleratorType" || strings.Contains(strings.ToLower(path), "accelerator")) && strings.HasPrefix(strings.ToLower(v.Value), "nvidia-") {
						return v.Value, p
					}
				}
				continue
			}
			if v.Kind == yaml.SequenceNode && instanceTypeLists[k.Value] {
				for i, c := range v.Content {
					if c.Kind == yaml.ScalarNode && parser.IsGPUInstanceType(parser.ProviderOfInstanceType(c.Value), c.Value) {
						return c.Value, fmt.Sprintf("%s[%d]", p, i)
					}
				}
			}
			if t, f := gpuTypeIn(v, p); t != "" {
				return t, f
			}
		}
	}
	return "", ""
}

// instanceTypeLists are the keys that hold a list of instance types (EKS's instanceTypes).
var instanceTypeLists = map[string]bool{"instanceTypes": true, "machineTypes": true, "vmSizes": true}

// clusterctl's templates (cluster-template*.yaml) hold variables that `clusterctl generate
// cluster` fills in: ${NAME}, or ${NAME:=default} with a default.
// https://cluster-api.sigs.k8s.io/clusterctl/provider-contract#cluster-templates
var clusterctlVar = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::=(.*))?\}$`)

// clusterctlVariable reports whether s is one clusterctl variable, with its name and default.
func clusterctlVariable(s string) (name, def string, ok bool) {
	m := clusterctlVar.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// clusterctlInt reads a count written as a number or a clusterctl variable: a variable's default
// is the count, with a note; a variable without one is 1, with a note saying so. It returns nil
// when the field is absent.
func clusterctlInt(n *yaml.Node, field string) (*int, string, error) {
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil, "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return nil, "", fmt.Errorf("%s is not a number", field)
	}
	v, note := n.Value, ""
	if name, def, ok := clusterctlVariable(v); ok {
		if def == "" {
			one := 1
			return &one, fmt.Sprintf("%s is clusterctl variable %s, set when the template is generated: priced at 1", field, name), nil
		}
		v, note = def, fmt.Sprintf("%s is clusterctl variable %s: priced at its default %s", field, name, def)
	}
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return nil, "", fmt.Errorf("%s %q is not a number of machines", field, n.Value)
	}
	return &i, note, nil
}
