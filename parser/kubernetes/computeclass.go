package kubernetes

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// labelComputeClass selects a GKE ComputeClass for a pod.
const labelComputeClass = "cloud.google.com/compute-class"

// builtInComputeClasses are the classes GKE defines itself: Autopilot's compute classes
// (https://cloud.google.com/kubernetes-engine/docs/concepts/autopilot-compute-classes) and the
// built-in ComputeClasses autopilot and autopilot-spot, whose nodes are Spot VMs
// (https://cloud.google.com/kubernetes-engine/docs/concepts/about-built-in-compute-classes).
var builtInComputeClasses = map[string]bool{
	"Accelerator": true, "Balanced": true, "Performance": true, "Scale-Out": true, "autopilot": true, "autopilot-spot": true,
}

// computeClass is a GKE custom ComputeClass (cloud.google.com/v1): the node configurations GKE
// tries in order when it adds nodes for the pods that select the class. The first rule is where
// the pods run when its capacity is there; the rest are fallbacks.
// https://cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass
type computeClass struct {
	address string
	rules   []classRule
}

// classRule is one priority rule as node labels a pod could have selected, with its GPUs per node.
type classRule struct {
	labels    selector
	gpus      int
	nodepools []string
}

type priorityRule struct {
	MachineFamily string `yaml:"machineFamily"`
	MachineType   string `yaml:"machineType"`
	Spot          *bool  `yaml:"spot"`
	FlexStart     *struct {
		Enabled bool `yaml:"enabled"`
	} `yaml:"flexStart"`
	GPU *struct {
		Type  string    `yaml:"type"`
		Count yaml.Node `yaml:"count"`
		// GPU sharing on the class's nodes (GKE 1.35.2+): time-sharing or MPS.
		GPUSharing struct {
			MaxSharedClientsPerGPU int `yaml:"maxSharedClientsPerGPU"`
		} `yaml:"gpuSharing"`
	} `yaml:"gpu"`
	Nodepools []string `yaml:"nodepools"`
	Location  struct {
		Zones []string `yaml:"zones"`
	} `yaml:"location"`
}

func decodeComputeClass(o *object) (*computeClass, error) {
	var spec struct {
		Priorities       []priorityRule `yaml:"priorities"`
		PriorityDefaults priorityRule   `yaml:"priorityDefaults"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	cc := &computeClass{address: "ComputeClass/" + o.Metadata.Name}
	d := spec.PriorityDefaults
	for _, p := range spec.Priorities {
		// priorityDefaults fill what a rule leaves out.
		if p.Spot == nil {
			p.Spot = d.Spot
		}
		if p.GPU == nil {
			p.GPU = d.GPU
		}
		if len(p.Location.Zones) == 0 {
			p.Location.Zones = d.Location.Zones
		}
		r := classRule{labels: newSelector(), nodepools: p.Nodepools}
		set := func(k, v string) {
			if v != "" {
				r.labels.allowed[k] = []string{v}
			}
		}
		set(labelInstanceType, p.MachineType)
		set(labelGKEMachineFamily, p.MachineFamily)
		if p.GPU != nil {
			set(labelGKEAccelerator, p.GPU.Type)
			if n := p.GPU.GPUSharing.MaxSharedClientsPerGPU; n > 1 {
				set(LabelGKESharedClients, fmt.Sprint(n))
			}
			if c := &p.GPU.Count; c.Kind != 0 {
				if err := c.Decode(&r.gpus); err != nil || r.gpus < 0 {
					return nil, lineError{line: o.lineOf(c), err: fmt.Errorf("gpu count %s is not a number of GPUs", c.Value)}
				}
			}
		}
		if p.Spot != nil && *p.Spot {
			set(labelGKESpot, "true")
		}
		if p.FlexStart != nil && p.FlexStart.Enabled {
			set(labelGKEFlexStart, "true")
		}
		regions := map[string]bool{}
		for _, z := range p.Location.Zones {
			regions[regionOfZone(z)] = true
		}
		if len(regions) == 1 {
			for reg := range regions {
				set(labelRegion, reg)
			}
		}
		cc.rules = append(cc.rules, r)
	}
	return cc, nil
}

// place reads where a pod that selects the class runs: its first rule, narrowed by the pod's
// own selection. It returns why not when that rule says nothing gpuguard can price.
func (cc *computeClass) place(sel selector) (nodeChoice, string) {
	if len(cc.rules) == 0 {
		return nodeChoice{}, cc.address + " has no priority rules"
	}
	r := cc.rules[0]
	if len(r.nodepools) > 0 {
		return nodeChoice{}, fmt.Sprintf("%s places its pods first on the node pools %s, whose machines are not in the manifests: set node.kubernetes.io/instance-type or kubernetes.default_instance_type",
			cc.address, strings.Join(r.nodepools, ", "))
	}
	n := fromSelector(mergeSelectors(r.labels, sel), cc.address)
	n.provider = parser.GCP
	if r.gpus > 0 && len(n.instanceTypes) != 1 {
		n.gpuCounts = &parser.CountRange{In: []int{r.gpus}}
	}
	n.addSource(cc.address)
	return n, ""
}
