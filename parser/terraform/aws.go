package terraform

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

func init() {
	register("aws_instance", mapAWSInstance)
	register("aws_spot_instance_request", mapAWSInstance)
	register("aws_autoscaling_group", mapAWSAutoscalingGroup)
	register("aws_eks_node_group", mapAWSEKSNodeGroup)
	register("aws_sagemaker_endpoint_configuration", mapAWSSageMakerEndpointConfig)
	register("aws_sagemaker_notebook_instance", mapAWSSageMakerNotebook)
	register("aws_batch_compute_environment", mapBatchComputeEnvironment)
	register("aws_ec2_fleet", mapEC2Fleet)
	register("aws_spot_fleet_request", mapSpotFleet)
	register("awscc_sagemaker_cluster", mapHyperPodCluster)
}

// awsCommon sets region and tags from the resource and its provider configuration.
func (c *mapContext) awsCommon(r *parser.Resource, w *view) {
	pv := c.providerConfig("aws")
	if az, ok := w.str("availability_zone"); ok {
		r.Region = awsRegionOfAZ(az)
	}
	if r.Region == "" && pv != nil {
		pv.res = r
		pv.path = "provider.aws."
		if region, ok := pv.str("region"); ok {
			r.Region = region
		}
	}
	if pv != nil {
		applyTags(r, pv.strMap("default_tags", "tags"))
	}
	applyTags(r, w.strMap("tags"))
}

// launchTemplate follows a launch_template block (id or name) to the template it names, with a
// note when the template is not in this configuration.
func (c *mapContext) launchTemplate(r *parser.Resource, w *view, path ...any) *view {
	lt := c.findLaunchTemplate(r, w, path...)
	if blocks := w.blocks(path...); lt == nil && len(blocks) > 0 {
		why := "the launch template is not in this configuration"
		for _, attr := range []string{"id", "launch_template_id", "name", "launch_template_name"} {
			if blocks[0].has(attr) {
				why = blocks[0].notFound("the launch template", attr)
				break
			}
		}
		r.Note("%s: its instance type could not be read", why)
	}
	return lt
}

// findLaunchTemplate is launchTemplate without the note, for a resource that names its instance
// type itself and reads only the template's tags.
func (c *mapContext) findLaunchTemplate(r *parser.Resource, w *view, path ...any) *view {
	blocks := w.blocks(path...)
	if len(blocks) == 0 {
		return nil
	}
	b := blocks[0]
	var inst *instance
	for _, attr := range []string{"id", "launch_template_id"} {
		if inst = c.referenced(b, "aws_launch_template", attr); inst != nil {
			break
		}
	}
	if inst == nil {
		for _, attr := range []string{"name", "launch_template_name"} {
			if name, ok := (&view{obj: b.obj}).str(attr); ok {
				if inst = c.byAttribute("aws_launch_template", "name", name); inst != nil {
					break
				}
			}
		}
	}
	if inst == nil {
		return nil
	}
	return &view{obj: inst.value, res: r, path: inst.addr + "."}
}

// launchTemplateTags are the tags a launch template gives the instances it launches (its
// tag_specifications for resource type "instance"): what cost allocation sees on the instances
// of an Auto Scaling group or EKS node group, whose own tags stay on the group. The template's
// own tags argument tags only the template.
func launchTemplateTags(lt *view) map[string]string {
	if lt == nil {
		return nil
	}
	tags := map[string]string{}
	quiet := &view{obj: lt.obj} // a tag that cannot be read leaves the price alone
	for _, spec := range quiet.blocks("tag_specifications") {
		if rt, ok := spec.str("resource_type"); ok && rt == "instance" {
			for k, v := range spec.strMap("tags") {
				tags[k] = v
			}
		}
	}
	return tags
}

func awsSpot(w *view) bool {
	mt, ok := w.str("instance_market_options", "market_type")
	return ok && strings.EqualFold(mt, "spot")
}

// awsCapacityBlock records on r that the instances w launches run in a Capacity Block
// (instance_market_options.market_type = "capacity-block").
func awsCapacityBlock(r *parser.Resource, w *view) {
	if mt, ok := w.quiet().str("instance_market_options", "market_type"); ok && strings.EqualFold(mt, "capacity-block") {
		r.AddUnresolved(pathString(w.path, []any{"instance_market_options", "market_type"}), parser.CapacityBlockReason)
	}
}

func mapAWSInstance(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.AWS, c.inst.addr)
	t, ok := w.str("instance_type")
	var lt *view
	if !ok && w.has("launch_template") {
		if lt = c.launchTemplate(r, w, "launch_template"); lt != nil {
			t, ok = lt.str("instance_type")
			if awsSpot(lt) {
				r.PurchaseOption = parser.Spot
			}
		}
	} else {
		lt = c.findLaunchTemplate(r, w, "launch_template")
	}
	r.InstanceType = t
	requireInstanceType(r, "instance_type", ok)
	if c.inst.decl.typ == "aws_spot_instance_request" || awsSpot(w) {
		r.PurchaseOption = parser.Spot
	}
	if w.has("instance_market_options") {
		awsCapacityBlock(r, w)
	} else if lt != nil {
		awsCapacityBlock(r, lt)
	}
	applyTags(r, launchTemplateTags(lt)) // the instance's own tags, applied next, win
	c.awsCommon(r, w)
	if r.PurchaseOption != parser.Spot {
		c.awsTaker(r, w, r.Quantity)
	}
	if w.has("ami") {
		c.imageDriver(r, w, "ami", "ami")
	} else {
		c.imageDriver(r, lt, "image_id", "the launch template's image_id")
	}
	// The instance's own user data replaces its launch template's.
	if boot := bootTextsOf(w, c.inst.addr, "user data", awsUserData); boot.declared() || lt == nil {
		c.bootNode(r, boot, false)
	} else {
		c.bootNode(r, bootTextsOf(lt, strings.TrimSuffix(lt.path, "."), "user data", awsUserData), false)
	}
	return []*parser.Resource{r}
}

func mapAWSAutoscalingGroup(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.AWS, c.inst.addr)
	if n, ok := w.num("desired_capacity"); ok {
		r.Quantity = n
	} else if !w.has("desired_capacity") {
		if n, ok := w.num("min_size"); ok {
			r.Quantity = n
			r.Note("desired_capacity is not set: priced at min_size (%d)", n)
		}
	}
	maxSize, maxKnown := w.quiet().num("max_size")
	if maxKnown {
		r.SetScaleMax(maxSize, "max_size")
	} else if why := w.maxWhy("max_size"); why != "" {
		unreadMax(r, "max_size", why)
	}
	minSize, _ := w.quiet().num("min_size")
	name, _ := w.quiet().str("name")
	c.autoScalingSchedule(r, declaredSize(minSize, maxSize, maxKnown, r.Quantity), name)
	var found bool
	var lt *view // the launch template, whose capacity reservation its on-demand instances may use
	var launchConfig *view
	switch {
	case len(w.blocks("mixed_instances_policy")) > 0:
		mip := w.blocks("mixed_instances_policy")[0]
		lt = c.launchTemplate(r, mip, "launch_template", "launch_template_specification")
		var types []string
		var reqs []*view
		for _, o := range mip.blocks("launch_template", "override") {
			if t, ok := o.str("instance_type"); ok {
				types = append(types, t)
			}
			reqs = append(reqs, o.blocks("instance_requirements")...)
		}
		switch {
		case len(types) > 0:
			r.InstanceType, found = types[0], true
			if len(types) > 1 {
				r.Note("%d instance types in the overrides (%s): priced at the first, the highest priority", len(types), strings.Join(types, ", "))
			}
		case len(reqs) > 0:
			if !attributeBased(r, reqs[0]) {
				return nil // attribute-based selection without accelerators: CPU instances
			}
			found = true
		case lt != nil && len(lt.blocks("instance_requirements")) > 0:
			if !attributeBased(r, lt.blocks("instance_requirements")[0]) {
				return nil
			}
			found = true
		case lt != nil:
			r.InstanceType, found = lt.str("instance_type")
		}
		// instances_distribution: the first on_demand_base_capacity instances are on-demand,
		// then on_demand_percentage_above_base_capacity percent of the rest (AWS defaults: 0 and
		// 100). gpuguard rounds the on-demand share up, the costlier side.
		base, pct := 0, 100
		if d := mip.blocks("instances_distribution"); len(d) > 0 {
			if n, ok := d[0].num("on_demand_base_capacity"); ok {
				base = n
			}
			if n, ok := d[0].num("on_demand_percentage_above_base_capacity"); ok {
				pct = n
			}
		}
		if pct > 100 {
			pct = 100
		}
		onDemand := parser.MixedOnDemand(r.Quantity, base, pct)
		r.SpotQuantity = r.Quantity - onDemand
		defer func() {
			if m := r.ScaleMax; m != nil {
				m.SpotQuantity = m.Quantity - parser.MixedOnDemand(m.Quantity, base, pct)
			}
		}()
		switch {
		case r.SpotQuantity == r.Quantity && r.Quantity > 0:
			r.PurchaseOption = parser.Spot
		case r.SpotQuantity > 0:
			r.Note("mixed instances policy: %d on-demand, %d spot", onDemand, r.SpotQuantity)
		}
	case w.has("launch_template"):
		if lt = c.launchTemplate(r, w, "launch_template"); lt != nil {
			if reqs := lt.blocks("instance_requirements"); len(reqs) > 0 {
				if !attributeBased(r, reqs[0]) {
					return nil
				}
				found = true
			} else {
				r.InstanceType, found = lt.str("instance_type")
			}
			if awsSpot(lt) {
				r.PurchaseOption = parser.Spot
			}
			awsCapacityBlock(r, lt)
		}
	case w.has("launch_configuration"):
		var lc *instance
		if inst := c.referenced(w, "aws_launch_configuration", "launch_configuration"); inst != nil {
			lc = inst
		} else if name, ok := w.str("launch_configuration"); ok {
			lc = c.byAttribute("aws_launch_configuration", "name", name)
		}
		if lc != nil {
			lv := &view{obj: lc.value, res: r, path: lc.addr + "."}
			launchConfig = lv
			r.InstanceType, found = lv.str("instance_type")
			if lv.has("spot_price") {
				r.PurchaseOption = parser.Spot
			}
		} else {
			r.Note("the launch configuration is not in this configuration: its instance type could not be read")
		}
	}
	if r.Requirements == nil {
		requireInstanceType(r, "instance_type", found)
	}
	applyTags(r, launchTemplateTags(lt))
	c.awsCommon(r, w)
	tags := c.autoScalingGroupTags(r, w, name)
	applyTags(r, instanceTags(tags))
	noteTagResources(r, tags)
	if r.PurchaseOption != parser.Spot {
		c.awsTaker(r, lt, r.Quantity-r.SpotQuantity)
	}
	c.imageDriver(r, lt, "image_id", "the launch template's image_id")
	c.selfManagedNode(r, tags, cmp.Or(lt, launchConfig))
	if r.NodeLabels != nil {
		r.NodeLabels.Zones = c.awsZones(w, "availability_zones", "vpc_zone_identifier")
	}
	return []*parser.Resource{r}
}

// awsZones names the zones a group's instances run in, which AWS labels its nodes with
// (topology.kubernetes.io/zone=us-east-1a): the zones named at zonesAttr (an Auto Scaling
// group's availability_zones; "" for none), else those of the subnets listed at subnetsAttr
// (subnet_ids, vpc_zone_identifier), when every one is an aws_subnet of this configuration
// (a resource, or a data source that looks it up by zone) whose availability_zone is known (a subnet's zone is where its instances launch,
// https://docs.aws.amazon.com/vpc/latest/userguide/configure-subnets.html); the subnets of
// terraform-aws-modules/vpc/aws are such resources in its stand-in (standins/aws-vpc). Nil
// otherwise: a subnet passed in as a variable, or made by a module whose outputs are known only
// at apply, names no zone here.
func (c *mapContext) awsZones(w *view, zonesAttr, subnetsAttr string) []string {
	if zonesAttr != "" {
		if zs, ok := w.quiet().strList(zonesAttr); ok && len(zs) > 0 {
			return sortedSet(zs)
		}
	}
	v, ok := at(w.obj, subnetsAttr)
	if !ok || v.IsNull() || !v.IsKnown() {
		return nil
	}
	v, _ = v.Unmark()
	if !v.CanIterateElements() || v.LengthInt() == 0 {
		return nil
	}
	var zones []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		refs, data := computedRefs(e), dataRefs(e)
		var subnet *view // the subnet's arguments
		switch {
		case len(refs) == 1 && len(data) == 0:
			if inst, ok := c.ev.instances[refs[0]]; ok && inst.decl.typ == "aws_subnet" {
				subnet = &view{obj: inst.value}
			}
		case len(refs) == 0 && len(data) == 1:
			// A data source that looks the subnet up in its zone (availability_zone is a filter).
			if d := data[0]; d.mod.cfg.data[d.addr] != nil && d.mod.cfg.data[d.addr].typ == "aws_subnet" {
				subnet = &view{obj: d.mod.evalBody(d.mod.cfg.data[d.addr].body, nil, false)}
			}
		}
		if subnet == nil {
			return nil
		}
		z, ok := subnet.str("availability_zone")
		if !ok || z == "" {
			return nil // availability_zone_id (use1-az1) names the zone by ID, not as nodes are labelled
		}
		zones = append(zones, z)
	}
	return sortedSet(zones)
}

func mapAWSEKSNodeGroup(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.AWS, c.inst.addr)
	types, ok := w.strList("instance_types")
	found := false
	if ok && len(types) > 0 {
		r.InstanceType, found = types[0], true
		if len(types) > 1 {
			r.Note("%d instance types (%s): priced at the first", len(types), strings.Join(types, ", "))
		}
	}
	var lt *view
	if w.has("launch_template") {
		lt = c.launchTemplate(r, w, "launch_template")
	}
	if !found && !w.has("instance_types") && lt != nil {
		r.InstanceType, found = lt.str("instance_type")
	} else if !found && !w.has("instance_types") && !w.has("launch_template") {
		// EKS launches t3.medium when neither instance_types nor a launch template names one.
		r.InstanceType, found = "t3.medium", true
	}
	requireInstanceType(r, "instance_types", found)
	if n, ok := w.num("scaling_config", "desired_size"); ok {
		r.Quantity = n
	} else if !w.has("scaling_config", "desired_size") {
		// Terraform requires scaling_config; the EKS API (and so ACK's Nodegroup) takes a node
		// group without one, and its reference names no default size.
		r.Note("the desired size (scaling_config.desired_size, or scalingConfig.desiredSize) is not set: priced at 1 node")
	}
	maxSize, maxKnown := w.quiet().num("scaling_config", "max_size")
	if maxKnown {
		r.SetScaleMax(maxSize, "scaling_config.max_size")
	} else if why := w.maxWhy("scaling_config", "max_size"); why != "" {
		unreadMax(r, "scaling_config.max_size", why)
	}
	minSize, _ := w.quiet().num("scaling_config", "min_size")
	c.autoScalingSchedule(r, declaredSize(minSize, maxSize, maxKnown, r.Quantity), "")
	if ct, ok := w.str("capacity_type"); ok && strings.EqualFold(ct, "SPOT") {
		r.PurchaseOption = parser.Spot
	} else if ok && strings.EqualFold(ct, "CAPACITY_BLOCK") {
		r.AddUnresolved("capacity_type", parser.CapacityBlockReason)
	}
	applyTags(r, launchTemplateTags(lt))
	c.awsCommon(r, w)
	// The node group's own tags reach neither its Auto Scaling groups nor their instances; an
	// aws_autoscaling_group_tag that propagates at launch tags the instances.
	asgTags := c.autoScalingGroupTags(r, nil, "")
	applyTags(r, instanceTags(asgTags))
	noteTagResources(r, asgTags)
	if r.PurchaseOption != parser.Spot {
		c.awsTaker(r, lt, r.Quantity)
	}
	r.NodeLabels = nodeLabels(w, parser.AWS, nameOf(w, "node_group_name", "node_group_name_prefix"), "labels")
	capacity, known := eksCapacity(w)
	kubernetes.SetCapacity(r.NodeLabels, parser.AWS, capacity, known)
	taintBlocks(r.NodeLabels, w, "taint")
	r.NodeLabels.Zones = c.awsZones(w, "", "subnet_ids")
	eksDriver(r, w)
	c.managedNodeUserData(r, w, lt)
	c.bottlerocketPlugin(r, w, lt)
	if ami, ok := w.quiet().str("ami_type"); !ok || strings.EqualFold(ami, "CUSTOM") {
		c.imageDriver(r, lt, "image_id", "the launch template's image_id") // EKS boots the launch template's own image
	}
	return []*parser.Resource{r}
}

// eksCapacity is an EKS node group's capacity_type (ON_DEMAND when unset), and false when it
// is known only at apply.
func eksCapacity(w *view) (kubernetes.Capacity, bool) {
	ct, ok := w.quiet().str("capacity_type")
	switch {
	case !ok && w.has("capacity_type"):
		return "", false
	case strings.EqualFold(ct, "SPOT"):
		return kubernetes.CapacitySpot, true
	case strings.EqualFold(ct, "CAPACITY_BLOCK"):
		return kubernetes.CapacityBlock, true
	}
	return kubernetes.CapacityOnDemand, true
}

func mapAWSSageMakerEndpointConfig(c *mapContext) []*parser.Resource {
	var out []*parser.Resource
	for _, kind := range []string{"production_variants", "shadow_production_variants"} {
		for i, pv := range (&view{obj: c.inst.value}).blocks(kind) {
			name, ok := pv.str("variant_name")
			key := fmt.Sprintf("%s[%d]", kind, i)
			if ok {
				key = indexedAddress(kind, name)
			}
			r, _ := c.resource(parser.AWS, c.inst.addr+"."+key)
			pv.res, pv.path = r, key+"."
			if pv.has("serverless_config") && !pv.has("instance_type") {
				continue // serverless inference has no instance
			}
			typeAndCount(r, pv, "initial_instance_count")
			r.NoSpot = true // real-time inference runs on demand (managed spot is for training jobs)
			r.NoMIG = "a SageMaker real-time endpoint"
			if kind == "shadow_production_variants" {
				r.Note("shadow variant: receives a copy of production traffic")
			}
			if kind == "production_variants" {
				c.sageMakerScaling(r, name, ok)
			}
			c.awsCommon(r, &view{obj: c.inst.value, res: r})
			out = append(out, r)
		}
	}
	return out
}

// sageMakerScaling applies Application Auto Scaling to a production variant of the endpoint
// configuration being mapped: an aws_appautoscaling_target of namespace sagemaker whose
// resource_id is "endpoint/<name>/variant/<variant>", for an aws_sagemaker_endpoint that uses
// this configuration. min_capacity is the floor (when over the initial count), max_capacity
// the most it runs. An endpoint whose name is known only after apply matches through its
// reference, and then only a configuration with a single production variant.
// https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-auto-scaling-add-code-define.html
func (c *mapContext) sageMakerScaling(r *parser.Resource, variant string, named bool) {
	cfg := &view{obj: c.inst.value}
	cfgName, _ := cfg.str("name")
	single := len(cfg.blocks("production_variants")) == 1
	// A fresh slice: the lookups return their indexes' own.
	endpoints := slices.Concat(c.withAttribute("aws_sagemaker_endpoint", "endpoint_config_name", cfgName),
		c.referrers("aws_sagemaker_endpoint", "endpoint_config_name"))
	// The first scaling target in evaluation order that names one of the endpoints' variants
	// (or refers to the endpoint, when its resource_id is known only after apply).
	var target *instance
	consider := func(t *instance) {
		if ns, _ := (&view{obj: t.value}).str("service_namespace"); ns == "sagemaker" && (target == nil || t.seq < target.seq) {
			target = t
		}
	}
	for _, e := range endpoints {
		if name, _ := (&view{obj: e.value}).str("name"); named && name != "" {
			for _, t := range c.withAttribute("aws_appautoscaling_target", "resource_id", "endpoint/"+name+"/variant/"+variant) {
				consider(t)
			}
		}
		if single {
			for _, t := range c.referrersOf(e.addr, "aws_appautoscaling_target", "resource_id") {
				if _, known := (&view{obj: t.value}).str("resource_id"); !known {
					consider(t)
				}
			}
		}
	}
	if target == nil {
		return
	}
	t := &view{obj: target.value}
	if n, ok := t.num("min_capacity"); ok && n > r.Quantity {
		r.Quantity = n
		r.Note("autoscaled by %s: priced at its min_capacity (%d)", target.addr, n)
	}
	if n, ok := t.num("max_capacity"); ok {
		r.SetScaleMax(n, "max_capacity of "+target.addr)
	}
}

// attributeBased reads EC2 instance_requirements (attribute-based instance type selection) into
// the resource, and reports whether they ask for accelerators; without any the instances are
// CPU ones and the resource is not a GPU resource.
// https://docs.aws.amazon.com/autoscaling/ec2/userguide/create-mixed-instances-group-attribute-based-instance-type-selection.html
func attributeBased(r *parser.Resource, v *view) bool {
	rng := func(block string) *parser.CountRange {
		if !v.has(block) {
			return nil
		}
		var c parser.CountRange
		if n, ok := v.num(block, "min"); ok {
			c.Min = new(n)
		}
		if n, ok := v.num(block, "max"); ok {
			c.Max = new(n)
		}
		return &c
	}
	list := func(attr string) []string {
		l, _ := v.strList(attr)
		return l
	}
	req := &parser.InstanceRequirements{GPUs: rng("accelerator_count"), GPUNames: list("accelerator_names"),
		Manufacturers: list("accelerator_manufacturers"), Types: list("accelerator_types"),
		GPUMemoryMiB: rng("accelerator_total_memory_mib"), VCPUs: rng("vcpu_count"), MemoryMiB: rng("memory_mib"),
		Allowed: list("allowed_instance_types"), Excluded: list("excluded_instance_types")}
	if req.GPUs != nil && req.GPUs.Max != nil && *req.GPUs.Max == 0 {
		return false // accelerators excluded
	}
	gpu := req.GPUs != nil && req.GPUs.Min != nil && *req.GPUs.Min > 0 ||
		len(req.GPUNames) > 0 || len(req.Manufacturers) > 0 || len(req.Types) > 0 || req.GPUMemoryMiB != nil
	if !gpu {
		return false
	}
	r.Requirements = req
	r.Note("instance types chosen by attributes (instance_requirements): EC2 picks among every type that meets them")
	return true
}

// mapHyperPodCluster reads a SageMaker HyperPod cluster (the AWS Cloud Control provider's
// awscc_sagemaker_cluster): one resource per instance group, its ml. type priced at the EC2 rate
// as other SageMaker instances are; a group whose capacity_requirements name spot (and not
// on_demand) runs on spot instances.
// https://registry.terraform.io/providers/hashicorp/awscc/latest/docs/resources/sagemaker_cluster
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterCapacityRequirements.html
func mapHyperPodCluster(c *mapContext) []*parser.Resource {
	var out []*parser.Resource
	for i, g := range (&view{obj: c.inst.value}).blocks("instance_groups") {
		key := fmt.Sprintf("instance_groups[%d]", i)
		if name, ok := g.str("instance_group_name"); ok {
			key = indexedAddress("instance_groups", name)
		}
		r, _ := c.resource(parser.AWS, c.inst.addr+"."+key)
		g.res, g.path = r, key+"."
		typeAndCount(r, g, "instance_count")
		if g.has("capacity_requirements", "spot") && !g.has("capacity_requirements", "on_demand") {
			r.PurchaseOption = parser.Spot // CapacityRequirements.Spot: the group runs on spot instances
		}
		if pv := c.providerConfig("awscc"); pv != nil {
			pv.res, pv.path = r, "provider.awscc."
			if region, ok := pv.str("region"); ok {
				r.Region = region
			}
		}
		// Cloud Control tags are a list of {key, value}.
		tags := map[string]string{}
		for _, tag := range (&view{obj: c.inst.value}).blocks("tags") {
			k, kok := tag.str("key")
			v, vok := tag.str("value")
			if kok && vok {
				tags[k] = v
			}
		}
		applyTags(r, tags)
		r.Note("a SageMaker HyperPod instance group: its nodes run until the group is scaled down")
		out = append(out, r)
	}
	return out
}

func mapAWSSageMakerNotebook(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.AWS, c.inst.addr)
	t, found := w.str("instance_type")
	r.InstanceType = t
	r.NoSpot = true
	requireInstanceType(r, "instance_type", found)
	c.awsCommon(r, w)
	return []*parser.Resource{r}
}

// mapBatchComputeEnvironment reads an AWS Batch managed compute environment: its EC2 or spot
// instances, sized in vCPUs (desired_vcpus, else min_vcpus, the floor it keeps running).
// Batch picks among instance_type entries; the first is priced, with a note when there are
// several. A family name ("g5") or "optimal" leaves the size to Batch: unresolved. Fargate
// environments have no GPUs.
// https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/batch_compute_environment
func mapBatchComputeEnvironment(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.AWS, c.inst.addr)
	cr := w.blocks("compute_resources")
	if len(cr) == 0 {
		return nil // an unmanaged environment: its instances are declared elsewhere
	}
	c.awsCommon(r, w)
	res := cr[0]
	switch typ, _ := res.str("type"); strings.ToUpper(typ) {
	case "FARGATE", "FARGATE_SPOT":
		return nil
	case "SPOT":
		r.PurchaseOption = parser.Spot
	}
	types, _ := res.strList("instance_type")
	if len(types) == 0 {
		r.AddUnresolved("compute_resources.instance_type", parser.ReasonNotSet)
		return []*parser.Resource{r}
	}
	r.InstanceType = types[0]
	if len(types) > 1 {
		r.Note("Batch chooses among %d instance types: priced at the first, %s", len(types), types[0])
	}
	if !strings.Contains(r.InstanceType, ".") {
		r.AddUnresolved("compute_resources.instance_type", fmt.Sprintf("%q is a family or \"optimal\": Batch picks the size", r.InstanceType))
		r.InstanceType = ""
		return []*parser.Resource{r}
	}
	vcpus, ok := res.num("desired_vcpus")
	from := "desired_vcpus"
	if !ok && !res.has("desired_vcpus") {
		vcpus, ok = res.num("min_vcpus")
		from = "min_vcpus"
	}
	if !ok {
		vcpus = 0
	}
	max, maxOK := res.quiet().num("max_vcpus")
	r.Quantity, r.QuantityVCPUs = 0, vcpus
	if max > 0 {
		r.ScaleMax = &parser.ScaleMax{VCPUs: max, From: "compute_resources.max_vcpus"}
	}
	why := res.maxWhy("max_vcpus")
	switch {
	case !ok:
		// The vCPUs it runs cannot be read: the resource is unresolved, and says nothing of them.
	case vcpus == 0 && (maxOK || why == ""):
		r.Note("scales to zero (%s 0): nothing runs while the queue is empty; up to %d vCPUs when jobs run", from, max)
	case vcpus == 0:
		r.Note("scales to zero (%s 0): nothing runs while the queue is empty", from)
	case maxOK || why == "":
		r.Note("%d vCPUs from %s (up to %d when jobs run)", vcpus, from, max)
	default:
		r.Note("%d vCPUs from %s", vcpus, from)
	}
	if !maxOK && why != "" {
		unreadMax(r, "compute_resources.max_vcpus", why)
	}
	return []*parser.Resource{r}
}

// fleetTypes reads the instance types a fleet's launch template configs offer: the overrides'
// instance types in order, else the template's own, and the weight of the first (capacity units
// per instance, default 1).
// fleetTypes reads the instance types a fleet's launch template configs offer, the first one's
// weight, and — when they choose types by attributes instead — the instance requirements into
// the resource; cpuOnly is set when those requirements ask for no accelerators.
func (c *mapContext) fleetTypes(r *parser.Resource, configs []*view, overrideBlock string) (types []string, weight int, cpuOnly bool) {
	weight = 1
	var reqs []*view
	for _, cfg := range configs {
		lt := c.launchTemplate(r, cfg, "launch_template_specification")
		overrides := cfg.blocks(overrideBlock)
		for _, o := range overrides {
			if t, ok := o.str("instance_type"); ok {
				if len(types) == 0 {
					if wc, ok := o.num("weighted_capacity"); ok && wc > 0 {
						weight = wc
					}
				}
				types = append(types, t)
			}
			reqs = append(reqs, o.blocks("instance_requirements")...)
		}
		if len(overrides) == 0 && lt != nil {
			if t, ok := lt.str("instance_type"); ok {
				types = append(types, t)
			}
			reqs = append(reqs, lt.blocks("instance_requirements")...)
		}
	}
	if len(types) == 0 && len(reqs) > 0 {
		cpuOnly = !attributeBased(r, reqs[0])
	}
	return types, weight, cpuOnly
}

// typeAndCount reads a group's instance_type and its count (1 when unset): a SageMaker variant,
// a HyperPod or EMR instance group.
func typeAndCount(r *parser.Resource, v *view, countAttr string) {
	t, found := v.str("instance_type")
	r.InstanceType = t
	requireInstanceType(r, "instance_type", found)
	r.Quantity = 1
	if n, ok := v.num(countAttr); ok {
		r.Quantity = n
	}
}

// typesAndWeight reads the instance types of blocks that each offer one (a Spot Fleet's launch
// specifications, an EMR fleet's instance type configs), and the first one's weighted capacity.
func typesAndWeight(blocks []*view) (types []string, weight int) {
	weight = 1
	for _, b := range blocks {
		t, ok := b.str("instance_type")
		if !ok {
			continue
		}
		if len(types) == 0 {
			if wc, ok := b.num("weighted_capacity"); ok && wc > 0 {
				weight = wc
			}
		}
		types = append(types, t)
	}
	return types, weight
}

// fleetCapacity turns target capacity units into instances of the first type's weight, rounding
// up, and says so.
func fleetCapacity(r *parser.Resource, types []string, units, weight int) {
	if len(types) == 0 && r.Requirements != nil {
		r.Quantity = units
		r.Note("%d capacity units priced as %d instances (weights are per type, and the type is chosen by attributes)", units, units)
		return
	}
	if len(types) == 0 {
		r.AddUnresolved("instance_type", "no instance type in the launch template configs or overrides")
		return
	}
	r.InstanceType = types[0]
	if len(types) > 1 {
		r.Note("the fleet chooses among %d instance types (%s): priced at the first", len(types), strings.Join(types, ", "))
	}
	r.Quantity = (units + weight - 1) / weight
	if weight > 1 {
		r.Note("%d capacity units at weighted_capacity %d: %d instances", units, weight, r.Quantity)
	}
}

// mapEC2Fleet reads an EC2 Fleet: total_target_capacity across its launch template configs'
// types, split into on-demand and spot by the target capacity specification.
// https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/ec2_fleet
func mapEC2Fleet(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.AWS, c.inst.addr)
	c.awsCommon(r, w)
	types, weight, cpuOnly := c.fleetTypes(r, w.blocks("launch_template_config"), "override")
	if cpuOnly {
		return nil
	}
	spec := w.blocks("target_capacity_specification")
	if len(spec) == 0 {
		r.AddUnresolved("target_capacity_specification", parser.ReasonNotSet)
		return []*parser.Resource{r}
	}
	total, ok := spec[0].num("total_target_capacity")
	if !ok {
		r.AddUnresolved("target_capacity_specification.total_target_capacity", parser.ReasonNotSet)
		return []*parser.Resource{r}
	}
	fleetCapacity(r, types, total, weight)
	onDemand, _ := spec[0].num("on_demand_target_capacity")
	spot, hasSpot := spec[0].num("spot_target_capacity")
	def, _ := spec[0].str("default_target_capacity_type")
	// The rest of the total goes to the default type: spot's share only grows when spot is the
	// default (on demand is whatever spot leaves).
	if strings.EqualFold(def, "spot") && !hasSpot {
		spot = total - onDemand
	}
	spotInstances := min(r.Quantity, (max(spot, 0)+weight-1)/weight)
	switch {
	case spotInstances >= r.Quantity && r.Quantity > 0:
		r.PurchaseOption = parser.Spot
	case spotInstances > 0:
		r.SpotQuantity = spotInstances
		r.Note("EC2 Fleet: %d on-demand, %d spot", r.Quantity-spotInstances, spotInstances)
	}
	return []*parser.Resource{r}
}

// mapSpotFleet reads a Spot Fleet request: target_capacity units of spot instances (on-demand for
// on_demand_target_capacity of them), from launch_specification blocks or launch template
// configs. https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/spot_fleet_request
func mapSpotFleet(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.AWS, c.inst.addr)
	c.awsCommon(r, w)
	types, weight, cpuOnly := c.fleetTypes(r, w.blocks("launch_template_config"), "overrides")
	if cpuOnly {
		return nil
	}
	if len(types) == 0 && r.Requirements == nil {
		types, weight = typesAndWeight(w.blocks("launch_specification"))
	}
	total, ok := w.num("target_capacity")
	if !ok {
		r.AddUnresolved("target_capacity", parser.ReasonNotSet)
		return []*parser.Resource{r}
	}
	fleetCapacity(r, types, total, weight)
	onDemand, _ := w.num("on_demand_target_capacity")
	odInstances := min(r.Quantity, (max(onDemand, 0)+weight-1)/weight)
	switch {
	case odInstances == 0:
		r.PurchaseOption = parser.Spot
	case odInstances < r.Quantity:
		r.SpotQuantity = r.Quantity - odInstances
		r.Note("Spot Fleet: %d on-demand, %d spot", odInstances, r.SpotQuantity)
	}
	return []*parser.Resource{r}
}
