package terraform

import (
	"encoding/json"
	"fmt"

	"github.com/gpuguard/gpuguard/parser"
)

// Managed Spark and Hadoop clusters (Amazon EMR, Google Dataproc) run on the cloud's instances,
// GPU ones for RAPIDS and training: gpuguard prices those instances per node group. The
// services' own fees come on top and are not in its catalog (a note says so).
func init() {
	register("aws_emr_cluster", mapEMRCluster)
	register("aws_emr_instance_group", mapEMRInstanceGroup)
	register("aws_emr_instance_fleet", mapEMRInstanceFleet)
	register("google_dataproc_cluster", mapDataprocCluster)
}

const (
	emrNote      = "the Amazon EMR fee per instance-hour comes on top and is not included"
	dataprocNote = "the Dataproc fee per vCPU-hour comes on top and is not included"
)

// mapEMRCluster prices the master and core groups (instance groups or instance fleets) of an
// EMR cluster; task groups are aws_emr_instance_group / _fleet resources of their own. The core
// group scales with the cluster's managed scaling policy, or its own automatic scaling policy.
// https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/emr_cluster
func mapEMRCluster(c *mapContext) []*parser.Resource {
	var out []*parser.Resource
	for _, role := range []string{"master", "core"} {
		r, w := c.resource(parser.AWS, c.inst.addr+"."+role)
		var weight int
		switch {
		case w.has(role + "_instance_group"):
			g := w.blocks(role + "_instance_group")
			if len(g) == 0 {
				continue
			}
			weight = emrGroup(r, g[0])
		case w.has(role + "_instance_fleet"):
			f := w.blocks(role + "_instance_fleet")
			if len(f) == 0 {
				continue
			}
			weight = emrFleet(r, f[0])
		default:
			continue
		}
		c.awsCommon(r, w)
		r.Note("%s", emrNote)
		if role == "core" {
			c.emrManagedScaling(r, c.inst.addr, true, weight)
		}
		out = append(out, r)
	}
	return out
}

// mapEMRInstanceGroup and mapEMRInstanceFleet price a task (or other) group added to a cluster,
// which scales with the cluster's managed scaling policy or its own automatic scaling policy.
func mapEMRInstanceGroup(c *mapContext) []*parser.Resource { return c.emrAddedGroup(emrGroup) }
func mapEMRInstanceFleet(c *mapContext) []*parser.Resource { return c.emrAddedGroup(emrFleet) }

func (c *mapContext) emrAddedGroup(read func(*parser.Resource, *view) int) []*parser.Resource {
	r, w := c.resource(parser.AWS, c.inst.addr)
	weight := read(r, w)
	c.awsCommon(r, w)
	r.Note("%s", emrNote)
	if cluster := c.referenced(w, "aws_emr_cluster", "cluster_id"); cluster != nil {
		// The group has no tags of its own: EMR tags every instance of the cluster with the
		// cluster's tags.
		applyTags(r, (&view{obj: cluster.value}).strMap("tags"))
		c.emrManagedScaling(r, cluster.addr, false, weight)
	}
	return []*parser.Resource{r}
}

// emrGroup reads an instance group: its type and count (1 when unset), on spot when it bids,
// and the maximum of its automatic scaling policy. A group's instances weigh 1 unit each.
func emrGroup(r *parser.Resource, g *view) int {
	typeAndCount(r, g, "instance_count")
	if bid, ok := g.str("bid_price"); ok && bid != "" {
		r.PurchaseOption = parser.Spot
		r.Note("bid_price %s: spot instances", bid)
	}
	if p, ok := g.str("autoscaling_policy"); ok && p != "" {
		emrAutoscaling(r, p)
	}
	return 1
}

// emrAutoscaling reads an instance group's automatic scaling policy (a JSON document) for its
// Constraints.MaxCapacity: the most instances its rules may run. A policy it cannot read leaves
// the maximum out, with a note, and the floor priced.
// https://docs.aws.amazon.com/emr/latest/APIReference/API_ScalingConstraints.html
func emrAutoscaling(r *parser.Resource, doc string) {
	var p struct {
		Constraints *struct {
			MinCapacity *int
			MaxCapacity *int
		}
	}
	if err := json.Unmarshal([]byte(doc), &p); err != nil {
		r.Note("autoscaling_policy is not a JSON scaling policy (%v): its maximum is not priced", err)
		return
	}
	if p.Constraints == nil || p.Constraints.MaxCapacity == nil {
		r.Note("autoscaling_policy has no Constraints.MaxCapacity: its maximum is not priced")
		return
	}
	max := *p.Constraints.MaxCapacity
	if p.Constraints.MinCapacity != nil {
		r.Note("automatic scaling between %d and %d instances", *p.Constraints.MinCapacity, max)
	}
	if max > r.Quantity {
		r.SetScaleMax(max, "autoscaling_policy Constraints.MaxCapacity")
	}
}

// emrManagedScaling applies the cluster's managed scaling policy, if it has one, to its core
// group or a task group. compute_limits bound the core and task groups together (in instances,
// fleet units or vCPUs); maximum_core_capacity_units bounds the core group alone. A group alone
// may grow to the maximum, less nothing: the totals count the groups together within it
// (parser.SharedLimit), so their maximums are not added up past it. Units beyond
// maximum_ondemand_capacity_units run on spot; the maximum counts a group at its own purchase
// option, so it stays an upper bound.
// https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/emr_managed_scaling_policy
// https://docs.aws.amazon.com/emr/latest/APIReference/API_ComputeLimits.html
func (c *mapContext) emrManagedScaling(r *parser.Resource, cluster string, core bool, weight int) {
	policies := c.referrersOf(cluster, "aws_emr_managed_scaling_policy", "cluster_id")
	if len(policies) == 0 {
		return
	}
	// Read quietly: a limit known only at apply leaves the maximum out, not the floor's price.
	pv := &view{obj: policies[0].value}
	limits := pv.blocks("compute_limits")
	if len(limits) == 0 {
		return
	}
	l := limits[0]
	unit, _ := l.str("unit_type")
	maxUnits, ok := l.num("maximum_capacity_units")
	if !ok || maxUnits <= 0 {
		r.Note("managed scaling by %s: compute_limits.maximum_capacity_units is unknown or not positive, so the maximum is not priced", policies[0].addr)
		return
	}
	group := maxUnits
	if core {
		if mc, ok := l.num("maximum_core_capacity_units"); ok && mc < group {
			group = mc
		}
	}
	from := "compute_limits of " + policies[0].addr
	units := map[string]string{"Instances": "instances", "InstanceFleetUnits": "fleet units", "VCPU": "vCPUs"}[unit]
	shared := &parser.SharedLimit{Owner: cluster, What: fmt.Sprintf("managed scaling maximum of %d %s", maxUnits, units), Limit: float64(maxUnits), Unit: unit}
	switch unit {
	case "Instances", "InstanceFleetUnits":
		per := 1
		if unit == "InstanceFleetUnits" {
			per = max(weight, 1)
		}
		if n := (group + per - 1) / per; n > r.Quantity {
			r.SetScaleMax(n, from)
			r.ScaleMax.SpotQuantity = r.SpotQuantity // growth counted at on-demand: an upper bound
		}
		shared.PerInstance = float64(per)
	case parser.UnitVCPU:
		// The estimator turns vCPUs into instances and knows each one's share (parser.UnitVCPU).
		r.ScaleMax = &parser.ScaleMax{VCPUs: group, SpotQuantity: r.SpotQuantity, From: from}
	default:
		r.Note("managed scaling by %s: unit_type %q is not Instances, InstanceFleetUnits or VCPU, so the maximum is not priced", policies[0].addr, unit)
		return
	}
	r.SharedLimit = shared
	what := "task"
	if core {
		what = "core"
	}
	r.Note("managed scaling by %s: the cluster's core and task groups together up to %d %s, this %s group up to %d", policies[0].addr, maxUnits, units, what, group)
	if od, ok := l.num("maximum_ondemand_capacity_units"); ok && od < group && r.PurchaseOption != parser.Spot {
		r.Note("past %d %s on demand EMR adds spot capacity; the maximum counts it on demand (an upper bound)", od, units)
	}
}

// emrFleet reads an instance fleet: its target capacities in units of the first instance type's
// weighted capacity, on-demand and spot. It returns that weight.
func emrFleet(r *parser.Resource, f *view) int {
	types, weight := typesAndWeight(f.blocks("instance_type_configs"))
	od, _ := f.num("target_on_demand_capacity")
	spot, _ := f.num("target_spot_capacity")
	fleetCapacity(r, types, od+spot, weight)
	if r.Quantity > 0 && spot > 0 {
		spotInstances := (spot + weight - 1) / weight
		if od == 0 {
			r.PurchaseOption = parser.Spot
		} else {
			r.SpotQuantity = min(spotInstances, r.Quantity)
		}
	}
	return weight
}

// mapDataprocCluster prices a Dataproc cluster's master, primary workers and secondary
// (preemptible or spot) workers, each with the accelerators its config attaches.
// https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/dataproc_cluster
func mapDataprocCluster(c *mapContext) []*parser.Resource {
	_, w := c.resource(parser.GCP, c.inst.addr)
	cc := w.blocks("cluster_config")
	if len(cc) == 0 {
		return nil
	}
	cfg := cc[0]
	var out []*parser.Resource
	// Dataproc's defaults: one master and two primary workers of n1-standard-4 when unset.
	roles := []struct {
		block, name string
		instances   int
	}{{"master_config", "master", 1}, {"worker_config", "worker", 2}, {"preemptible_worker_config", "preemptible_worker", 0}}
	var workerType string
	var workerAccels []*view
	policy, policyAddr := c.dataprocPolicy(cfg)
	for _, role := range roles {
		r, rw := c.resource(parser.GCP, c.inst.addr+"."+role.name)
		blocks := cfg.blocks(role.block)
		var b *view
		if len(blocks) > 0 {
			b = blocks[0]
			b.res, b.path = r, "cluster_config."+role.block+"."
		}
		r.Quantity = role.instances
		sized := false
		if b != nil {
			if n, ok := b.num("num_instances"); ok {
				r.Quantity, sized = n, true
			}
		}
		if policy != nil && role.name != "master" {
			dataprocScaling(r, policy, policyAddr, role.name == "worker", sized)
		}
		if role.name == "preemptible_worker" {
			// Secondary workers are created like the primary workers.
			r.InstanceType = workerType
			gcpAccelerators(r, workerAccels, "accelerator_type", "accelerator_count", "accelerators block", lastSegment)
			r.PurchaseOption = parser.Spot
			how := "PREEMPTIBLE"
			if b != nil {
				if p, ok := b.str("preemptibility"); ok && p != "" {
					how = p
				}
			}
			if how == "NON_PREEMPTIBLE" {
				r.PurchaseOption = parser.OnDemand
			}
			r.Note("secondary workers (%s), of the primary workers' machine type", how)
		} else {
			r.InstanceType = "n1-standard-4"
			var accels []*view
			if b != nil {
				if mt, ok := b.str("machine_type"); ok && mt != "" {
					r.InstanceType = lastSegment(mt)
				}
				accels = b.blocks("accelerators")
			}
			gcpAccelerators(r, accels, "accelerator_type", "accelerator_count", "accelerators block", lastSegment)
			if role.name == "worker" {
				workerType, workerAccels = r.InstanceType, accels
			}
		}
		if r.Quantity == 0 && r.ScaleMax == nil {
			continue
		}
		c.dataprocRegion(r, rw, cfg)
		applyTags(r, rw.strMap("labels"))
		r.Note("%s", dataprocNote)
		out = append(out, r)
	}
	return out
}

// dataprocPolicy is the google_dataproc_autoscaling_policy a cluster's autoscaling_config names
// in policy_uri: by reference (its name or id), or by a URI or name ending in its policy_id.
func (c *mapContext) dataprocPolicy(cfg *view) (*view, string) {
	const typ = "google_dataproc_autoscaling_policy"
	inst := c.referenced(cfg, typ, "autoscaling_config", "policy_uri")
	if inst == nil {
		if uri, ok := cfg.str("autoscaling_config", "policy_uri"); ok && uri != "" {
			inst = c.byAttribute(typ, "policy_id", lastSegment(uri))
		}
	}
	if inst == nil {
		return nil, ""
	}
	return &view{obj: inst.value}, inst.addr
}

// dataprocScaling applies an autoscaling policy to the primary workers (worker_config) or the
// secondary workers (secondary_worker_config). Dataproc keeps a group between min_instances
// (2 primary, 0 secondary by default) and max_instances (0 secondary by default); a size the
// cluster declares wins as the floor, as for the other autoscaled groups.
// https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/dataproc_autoscaling_policy
func dataprocScaling(r *parser.Resource, policy *view, addr string, primary bool, sized bool) {
	block, min := "secondary_worker_config", 0
	if primary {
		block, min = "worker_config", 2
	}
	if n, ok := policy.num(block, "min_instances"); ok {
		min = n
	}
	if !sized {
		r.Quantity = min
	}
	max, ok := policy.num(block, "max_instances")
	if !ok {
		return
	}
	r.Note("autoscaled by %s between %d and %d %s workers", addr, min, max, map[bool]string{true: "primary", false: "secondary"}[primary])
	if max > r.Quantity {
		r.SetScaleMax(max, fmt.Sprintf("%s.max_instances of %s", block, addr))
	}
}

// dataprocRegion: the cluster's zone, else its region ("global" is no region), else the
// provider's.
func (c *mapContext) dataprocRegion(r *parser.Resource, w, cfg *view) {
	if z, ok := cfg.str("gce_cluster_config", "zone"); ok && z != "" {
		if reg, _ := gcpRegionOf(z); reg != "" {
			r.Region = reg
			return
		}
	}
	if reg, ok := w.str("region"); ok && reg != "" && reg != "global" {
		r.Region = reg
		return
	}
	r.Region = c.gcpProviderLocation(r)
}
