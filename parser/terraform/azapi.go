package terraform

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/gpuguard/gpuguard/parser"
)

// azapi_resource (Azure/azapi) declares any Azure Resource Manager resource by its ARM type
// ("Microsoft.ContainerService/managedClusters/agentPools@2025-05-01") and the request body ARM
// takes. gpuguard reads the ARM types that run GPU machines, by the ARM API's field names
// (https://learn.microsoft.com/rest/api/aks/agent-pools, .../compute/virtual-machines and
// .../virtual-machine-scale-sets, read 2026-11-23):
//   - managedClusters/agentPools: properties.vmSize, count (ARM's default 1), enableAutoScaling
//     with minCount and maxCount, scaleSetPriority, nodeLabels, nodeTaints, gpuProfile.driver;
//     the pool runs where the cluster its parent_id names does;
//   - managedClusters: each of properties.agentPoolProfiles, read the same way;
//   - virtualMachines: properties.hardwareProfile.vmSize and properties.priority;
//   - virtualMachineScaleSets: sku.name, sku.capacity,
//     properties.virtualMachineProfile.priority and properties.priorityMixPolicy (Spot Priority
//     Mix); an azurerm_monitor_autoscale_setting, or an azapi_resource of type
//     Microsoft.Insights/autoscaleSettings (its body's properties.targetResourceUri), that
//     targets it scales it as it does azurerm's;
//   - workspaces/computes (Azure Machine Learning,
//     https://learn.microsoft.com/rest/api/azureml/compute/create-or-update): an AmlCompute
//     cluster's properties.properties.vmSize, vmPriority and scaleSettings (minNodeCount,
//     maxNodeCount), a ComputeInstance's vmSize; the other compute types attach machines billed
//     elsewhere. It runs where its workspace (parent_id) does, unless its location says;
//   - batchAccounts/pools (https://learn.microsoft.com/rest/api/batchmanagement/pool/create):
//     properties.vmSize, scaleSettings.fixedScale's targetDedicatedNodes and
//     targetLowPriorityNodes (Spot), autoScale priced at none as azurerm_batch_pool is; it runs
//     where its Batch account (parent_id) does.
//
// body is an object (azapi 2.x) or a JSON string (azapi 1.x wrote jsonencode(...)); both are
// read. Any other ARM type is not a GPU resource gpuguard prices; one whose body names a GPU
// size gets unpriced.go's warning.

func init() {
	register("azapi_resource", mapAzAPI)
}

// azapiTypes maps the lower-cased ARM resource type (without its API version) to its reader.
var azapiTypes = map[string]func(c *mapContext, armType string, body *view) []*parser.Resource{
	"microsoft.containerservice/managedclusters/agentpools":                    mapAzAPIAgentPool,
	"microsoft.containerservice/managedclusters":                               mapAzAPIManagedCluster,
	"microsoft.compute/virtualmachines":                                        mapAzAPIVM,
	"microsoft.compute/virtualmachinescalesets":                                mapAzAPIScaleSet,
	"microsoft.machinelearningservices/workspaces/computes":                    mapAzAPIMLCompute,
	"microsoft.batch/batchaccounts/pools":                                      mapAzAPIBatchPool,
	"microsoft.machinelearningservices/workspaces/onlineendpoints/deployments": mapAzAPIOnlineDeployment,
}

// armType splits an azapi type into the lower-cased ARM resource type and its API version.
func armType(t string) (string, string) {
	typ, version, _ := strings.Cut(strings.TrimSpace(t), "@")
	return strings.ToLower(typ), version
}

func mapAzAPI(c *mapContext) []*parser.Resource {
	w := &view{obj: c.inst.value}
	t, ok := w.str("type")
	if !ok {
		return nil
	}
	typ, _ := armType(t)
	read, ok := azapiTypes[typ]
	if !ok {
		return nil
	}
	return read(c, t, &view{obj: azapiBody(c.inst.value)})
}

// azapiReads reports whether an azapi_resource's type, when written as a literal, is an ARM type
// gpuguard reads; a type computed from variables is taken to be one.
func azapiReads(body hcl.Body) bool {
	t := azapiLiteralType(body)
	if t == "" {
		return true
	}
	typ, _ := armType(t)
	_, reads := azapiTypes[typ]
	return reads
}

// azapiLiteralType is an azapi_resource's type when written as a literal string, else "".
func azapiLiteralType(body hcl.Body) string {
	attrs, _ := body.JustAttributes()
	a, ok := attrs["type"]
	if !ok || len(a.Expr.Variables()) > 0 {
		return ""
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return ""
	}
	return v.AsString()
}

// azapiBody returns the request body as an object: azapi 1.x took it as a JSON string.
func azapiBody(v cty.Value) cty.Value {
	body, ok := at(v, "body")
	if !ok || !body.IsKnown() {
		return body
	}
	body, marks := body.Unmark()
	if body.Type() != cty.String || body.IsNull() {
		return body.WithMarks(marks)
	}
	obj, err := parseJSON(body.AsString())
	if err != nil {
		return unresolved("body is not JSON: %v", err)
	}
	return obj.WithMarks(marks)
}

// parseJSON reads a JSON document as a cty value of the type it implies.
func parseJSON(doc string) (cty.Value, error) {
	ty, err := ctyjson.ImpliedType([]byte(doc))
	if err != nil {
		return cty.NilVal, err
	}
	return ctyjson.Unmarshal([]byte(doc), ty)
}

// azapiResource starts a resource for an azapi_resource and returns a view of its body that
// records on it why a value it needed is unknown.
func azapiResource(c *mapContext, address, typ string, body *view) (*parser.Resource, *view, *view) {
	r, w := c.resource(parser.Azure, address)
	r.Note("azapi_resource of ARM type %s", typ)
	return r, w, &view{obj: body.obj, res: r, path: "body."}
}

// azapiLocation reads location; without one, azapi creates the resource where its parent is (the
// resource group its parent_id names).
func (c *mapContext) azapiLocation(r *parser.Resource, w *view) {
	if loc, ok := w.str("location"); ok {
		r.Region = parser.NormalizeRegion(loc)
		return
	}
	if w.has("location") {
		return // unknown: recorded
	}
	parentLocation(r, c.referenced(w, "azurerm_resource_group", "parent_id"), "parent_id", "resource group")
}

// azapiTags applies the resource's tags: the azapi tags attribute, or tags in the body.
func azapiTags(r *parser.Resource, w, body *view) {
	applyTags(r, body.quiet().strMap("tags"))
	applyTags(r, w.quiet().strMap("tags"))
}

// armAgentPool reads one AKS agent pool's properties (an agentPools resource's body.properties,
// or one of a managed cluster's agentPoolProfiles).
func armAgentPool(r *parser.Resource, p *view, name groupName) {
	aksPool(r, p, armPool)
	r.NodeLabels = nodeLabels(p, parser.Azure, name, "nodeLabels")
	aksTaints(r.NodeLabels, p, armPool)
	applyTags(r, p.quiet().strMap("tags"))
}

// armDriver says when an AKS pool's GPU nodes start without the NVIDIA driver: gpuProfile.driver
// "None", or the SkipGPUDriverInstall tag (among the tags applied so far).
func armDriver(r *parser.Resource, p *view) {
	if !parser.IsGPUInstanceType(parser.Azure, r.InstanceType) {
		return
	}
	driver, _ := p.quiet().str("gpuProfile", "driver")
	r.NoGPUDriver = parser.AKSNoDriver(driver, r.Tags)
}

func mapAzAPIAgentPool(c *mapContext, typ string, body *view) []*parser.Resource {
	r, w, b := azapiResource(c, c.inst.addr, typ, body)
	props, ok := at(b.obj, "properties")
	if !ok {
		props = cty.EmptyObjectVal
	}
	p := &view{obj: props, res: r, path: "body.properties."}
	armAgentPool(r, p, nameOf(w, "name", ""))
	azapiTags(r, w, b)
	armDriver(r, p)
	// An agent pool runs where its cluster does: the cluster its parent_id names.
	parent := c.referenced(w, "azurerm_kubernetes_cluster", "parent_id")
	if parent == nil {
		parent = c.referencedARM(w, "microsoft.containerservice/managedclusters")
	}
	parentLocation(r, parent, "parent_id", "cluster")
	aksZones(r, p, armPool)
	c.azureTaker(r, w)
	return []*parser.Resource{r}
}

func mapAzAPIManagedCluster(c *mapContext, typ string, body *view) []*parser.Resource {
	var out []*parser.Resource
	profiles, ok := at(body.obj, "properties", "agentPoolProfiles")
	if !ok || !profiles.IsKnown() {
		return nil
	}
	profiles, _ = profiles.Unmark()
	if !profiles.CanIterateElements() {
		return nil
	}
	for i, it := 0, profiles.ElementIterator(); it.Next(); i++ {
		_, pv := it.Element()
		name := nameOf(&view{obj: pv}, "name", "")
		key := fmt.Sprintf("agentPoolProfiles[%d]", i)
		if name.known {
			key = indexedAddress("agentPoolProfiles", name.name)
		}
		r, w, b := azapiResource(c, c.inst.addr+"."+key, typ, body)
		p := &view{obj: pv, res: r, path: fmt.Sprintf("body.properties.agentPoolProfiles[%d].", i)}
		c.azapiLocation(r, w)
		azapiTags(r, w, b)
		armAgentPool(r, p, name)
		armDriver(r, p)
		aksZones(r, p, armPool)
		out = append(out, r)
	}
	return out
}

func mapAzAPIVM(c *mapContext, typ string, body *view) []*parser.Resource {
	r, w, b := azapiResource(c, c.inst.addr, typ, body)
	size, found := b.str("properties", "hardwareProfile", "vmSize")
	r.InstanceType = size
	requireInstanceType(r, "body.properties.hardwareProfile.vmSize", found)
	azurePriority(r, b, "properties", "priority")
	windowsNote(r, b.quiet())
	c.azapiLocation(r, w)
	azapiTags(r, w, b)
	c.azureTaker(r, w)
	c.armBootNode(r, b, false, "properties", "osProfile")
	return []*parser.Resource{r}
}

// armBootNode reads the Kubernetes node a Linux VM's (or scale set's) customData boots
// (bootNode), in the ARM body's osProfile at profile (or the sensitive_body's), and the Custom
// Script extensions that run on it: a scale set's extensionProfile, and the extension
// resources whose parent it is.
func (c *mapContext) armBootNode(r *parser.Resource, b *view, group bool, profile ...any) {
	if runsWindows(r, b) {
		return
	}
	req := &view{obj: azapiRequest(c.inst.value)}
	path := append(slices.Clip(profile), "customData")
	attr := []bootAttr{{name: "body." + pathString("", path), path: path}}
	texts := bootTextsOf(req, c.inst.addr, "customData", attr)
	if group {
		for _, e := range req.quiet().blocks("properties", "virtualMachineProfile", "extensionProfile", "extensions") {
			name, _ := e.quiet().str("name")
			texts.add(scriptExtension(e, armExtension, c.inst.addr, "extension "+name, "body.properties.virtualMachineProfile.extensionProfile.extensions["+name+"]."))
		}
	}
	texts.add(c.extensionResources(group)...)
	c.bootNode(r, texts, group)
}

func mapAzAPIScaleSet(c *mapContext, typ string, body *view) []*parser.Resource {
	if mode, _ := body.quiet().str("properties", "orchestrationMode"); strings.EqualFold(mode, "Flexible") && !body.has("sku", "name") {
		return nil // no VMs of its own: those attached to it are priced as what they are
	}
	r, w, b := azapiResource(c, c.inst.addr, typ, body)
	size, found := b.str("sku", "name")
	r.InstanceType = size
	requireInstanceType(r, "body.sku.name", found)
	r.Quantity = 0
	if n, ok := b.num("sku", "capacity"); ok {
		r.Quantity = n
	} else if !b.has("sku", "capacity") {
		r.Note("sku.capacity is not set: the scale set starts empty")
	}
	c.azureAutoscale(r)
	azurePriority(r, b, "properties", "virtualMachineProfile", "priority")
	if b.has("properties", "priorityMixPolicy") {
		azureSpotMix(r, b, []any{"properties", "priorityMixPolicy", "baseRegularPriorityCount"},
			[]any{"properties", "priorityMixPolicy", "regularPriorityPercentageAboveBase"})
	}
	windowsNote(r, b.quiet())
	c.azapiLocation(r, w)
	azapiTags(r, w, b)
	c.azureTaker(r, w)
	c.armBootNode(r, b, true, "properties", "virtualMachineProfile", "osProfile")
	return []*parser.Resource{r}
}

func mapAzAPIMLCompute(c *mapContext, typ string, body *view) []*parser.Resource {
	ct, ok := body.quiet().str("properties", "computeType")
	if !ok || !strings.EqualFold(ct, "AmlCompute") && !strings.EqualFold(ct, "ComputeInstance") {
		return nil // attached compute (Kubernetes, a VM, Databricks): its machines are billed as what they are
	}
	r, w, b := azapiResource(c, c.inst.addr, typ, body)
	size, found := b.str("properties", "properties", "vmSize")
	r.InstanceType = size
	requireInstanceType(r, "body.properties.properties.vmSize", found)
	if strings.EqualFold(ct, "AmlCompute") {
		// A cluster runs its minimum when idle and scales to its maximum under load
		// (scaleSettings.minNodeCount defaults to 0).
		r.Quantity = 0
		if n, ok := b.num("properties", "properties", "scaleSettings", "minNodeCount"); ok {
			r.Quantity = n
		}
		if max, ok := b.quiet().num("properties", "properties", "scaleSettings", "maxNodeCount"); ok {
			r.Note("scales between %d and %d nodes: priced at the minimum", r.Quantity, max)
			r.SetScaleMax(max, "body.properties.properties.scaleSettings.maxNodeCount")
		} else if why := b.maxWhy("properties", "properties", "scaleSettings", "maxNodeCount"); why != "" {
			unreadMax(r, "body.properties.properties.scaleSettings.maxNodeCount", why)
		}
		azurePriority(r, b, "properties", "properties", "vmPriority")
	}
	if !ownLocation(r, w, b) {
		parent := c.referenced(w, "azurerm_machine_learning_workspace", "parent_id")
		if parent == nil {
			parent = c.referencedARM(w, "microsoft.machinelearningservices/workspaces")
		}
		parentLocation(r, parent, "parent_id", "workspace")
	}
	azapiTags(r, w, b)
	return []*parser.Resource{r}
}

// mapAzAPIOnlineDeployment reads a deployment of an Azure Machine Learning managed online
// endpoint: sku.capacity instances (1 by default) of properties.instanceType, which Azure bills
// at the VM's price (Azure Machine Learning charges nothing of its own for them). With
// scaleSettings of scaleType TargetUtilization the deployment runs between minInstances and
// maxInstances (1 each by default); an azurerm_monitor_autoscale_setting whose
// target_resource_id is the deployment scales it as it does a scale set. A deployment of
// endpointComputeType Kubernetes runs on the
// nodes of an attached cluster, billed as those: it is not listed.
// https://learn.microsoft.com/azure/templates/microsoft.machinelearningservices/workspaces/onlineendpoints/deployments
// https://learn.microsoft.com/azure/machine-learning/how-to-view-online-endpoints-costs
func mapAzAPIOnlineDeployment(c *mapContext, typ string, body *view) []*parser.Resource {
	if ct, ok := body.quiet().str("properties", "endpointComputeType"); ok && !strings.EqualFold(ct, "Managed") {
		return nil
	}
	r, w, b := azapiResource(c, c.inst.addr, typ, body)
	size, found := b.str("properties", "instanceType")
	r.InstanceType = size
	requireInstanceType(r, "body.properties.instanceType", found)
	r.NoSpot = true // low-priority VMs are for compute clusters and batch endpoints, not online ones
	r.NoMIG = "an Azure ML managed online deployment"
	r.OfferedSizes = parser.AzureMLOnlineSizes
	if n, ok := b.num("sku", "capacity"); ok {
		r.Quantity = n
	}
	if st, _ := b.quiet().str("properties", "scaleSettings", "scaleType"); strings.EqualFold(st, "TargetUtilization") {
		r.Quantity = 1
		if n, ok := b.num("properties", "scaleSettings", "minInstances"); ok {
			r.Quantity = n
		}
		max := 1
		if n, ok := b.quiet().num("properties", "scaleSettings", "maxInstances"); ok {
			max = n
		}
		r.Note("scales on utilization between %d and %d instances: priced at the minimum", r.Quantity, max)
		if max > r.Quantity {
			r.SetScaleMax(max, "body.properties.scaleSettings.maxInstances")
		}
	}
	c.azureAutoscale(r) // Azure Monitor autoscale is how the docs scale a deployment
	if !ownLocation(r, w, b) {
		parentLocation(r, c.referencedARM(w, "microsoft.machinelearningservices/workspaces/onlineendpoints"), "parent_id", "online endpoint")
	}
	azapiTags(r, w, b)
	return []*parser.Resource{r}
}

// ownLocation sets the region from an azapi resource's own location, in its body or as the
// azapi attribute, and reports whether it had one (else its parent's applies).
func ownLocation(r *parser.Resource, w, body *view) bool {
	for _, v := range []*view{body, w} {
		if loc, ok := v.quiet().str("location"); ok {
			r.Region = parser.NormalizeRegion(loc)
			return true
		}
	}
	return false
}

// referencedARM is the azapi_resource of an ARM type that an azapi_resource's parent_id names.
func (c *mapContext) referencedARM(w *view, armTypeLower string) *instance {
	cand := c.referenced(w, "azapi_resource", "parent_id")
	if cand == nil {
		return nil
	}
	if t, ok := (&view{obj: cand.value}).str("type"); ok {
		if pt, _ := armType(t); pt == armTypeLower {
			return cand
		}
	}
	return nil
}

func mapAzAPIBatchPool(c *mapContext, typ string, body *view) []*parser.Resource {
	r, w, b := azapiResource(c, c.inst.addr, typ, body)
	size, found := b.str("properties", "vmSize")
	r.InstanceType = size
	requireInstanceType(r, "body.properties.vmSize", found)
	batchScale(r, b, batchFields{path: []any{"properties", "scaleSettings"}, fixed: "fixedScale", auto: "autoScale", dedicated: "targetDedicatedNodes", low: "targetLowPriorityNodes"})
	parent := c.referenced(w, "azurerm_batch_account", "parent_id")
	if parent == nil {
		parent = c.referencedARM(w, "microsoft.batch/batchaccounts")
	}
	parentLocation(r, parent, "parent_id", "Batch account")
	azapiTags(r, w, b)
	return []*parser.Resource{r}
}
