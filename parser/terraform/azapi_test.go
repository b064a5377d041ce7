package terraform

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// azapi_resource declares ARM resources by type and body: AKS agent pools (their region from
// the cluster their parent_id names, azurerm or azapi), a managed cluster's agentPoolProfiles,
// VMs and scale sets, with azapi 2.x object bodies and azapi 1.x jsonencode strings.
func TestAzAPIResources(t *testing.T) {
	res := parseHCL(t, `
resource "azurerm_resource_group" "ml" {
  name     = "ml"
  location = "West Europe"
}

resource "azapi_resource" "aks" {
  type      = "Microsoft.ContainerService/managedClusters@2025-05-01"
  name      = "ml"
  parent_id = azurerm_resource_group.ml.id
  location  = "eastus"
  tags      = { team = "ml" }
  body = {
    properties = {
      agentPoolProfiles = [
        { name = "system", mode = "System", vmSize = "Standard_D4s_v5", count = 3 },
        { name = "a100", vmSize = "Standard_NC24ads_A100_v4", enableAutoScaling = true, minCount = 1, maxCount = 4,
          nodeLabels = { pool = "a100" }, nodeTaints = ["sku=gpu:NoSchedule"] },
      ]
    }
  }
}

resource "azapi_resource" "spot" {
  type      = "Microsoft.ContainerService/managedClusters/agentPools@2025-05-01"
  name      = "spot"
  parent_id = azapi_resource.aks.id
  body = {
    properties = {
      vmSize           = "Standard_NC4as_T4_v3"
      count            = 2
      scaleSetPriority = "Spot"
      gpuProfile       = { driver = "None" }
    }
  }
}

resource "azurerm_kubernetes_cluster" "legacy" {
  name     = "legacy"
  location = "westus2"
  default_node_pool {
    name    = "system"
    vm_size = "Standard_D2s_v3"
  }
}

# azapi 1.x: the body is a JSON string.
resource "azapi_resource" "v1pool" {
  type      = "Microsoft.ContainerService/managedClusters/agentPools@2023-09-01"
  name      = "gpu"
  parent_id = azurerm_kubernetes_cluster.legacy.id
  body = jsonencode({
    properties = { vmSize = "Standard_NC6s_v3", tags = { SkipGPUDriverInstall = "true" } }
  })
}

resource "azapi_resource" "vm" {
  type      = "Microsoft.Compute/virtualMachines@2024-07-01"
  name      = "train"
  parent_id = azurerm_resource_group.ml.id
  body = {
    properties = {
      hardwareProfile = { vmSize = "Standard_ND96asr_v4" }
      priority        = "Spot"
    }
  }
}

resource "azapi_resource" "vmss" {
  type      = "Microsoft.Compute/virtualMachineScaleSets@2024-07-01"
  name      = "infer"
  parent_id = azurerm_resource_group.ml.id
  location  = "eastus"
  body = {
    sku        = { name = "Standard_NV36ads_A10_v5", capacity = 3 }
    properties = { virtualMachineProfile = { priority = "Regular" } }
  }
}

resource "azapi_resource" "storage" {
  type      = "Microsoft.Storage/storageAccounts@2023-05-01"
  name      = "mldata"
  parent_id = azurerm_resource_group.ml.id
  body      = { sku = { name = "Standard_LRS" } }
}

resource "azapi_resource" "hdinsight" {
  type      = "Microsoft.HDInsight/clusters@2021-06-01"
  name      = "spark"
  parent_id = azurerm_resource_group.ml.id
  body = {
    properties = { computeProfile = { roles = [{ name = "workernode", targetInstanceCount = 4, hardwareProfile = { vmSize = "Standard_NC24ads_A100_v4" } }] } }
  }
}
`, Options{})
	type got struct {
		typ, purchase, region string
		n, max                int
		noDriver              bool
	}
	all := map[string]got{}
	for _, r := range res.Resources {
		g := got{typ: r.InstanceType, purchase: string(r.PurchaseOption), region: r.Region, n: r.Quantity, noDriver: r.NoGPUDriver != ""}
		if r.ScaleMax != nil {
			g.max = r.ScaleMax.Quantity
		}
		all[r.Address] = g
		if len(r.Unresolved) > 0 {
			t.Errorf("%s: unresolved %+v", r.Address, r.Unresolved)
		}
	}
	want := map[string]got{
		`azapi_resource.aks.agentPoolProfiles["a100"]`: {typ: "Standard_NC24ads_A100_v4", purchase: "on_demand", region: "eastus", n: 1, max: 4},
		"azapi_resource.spot":                          {typ: "Standard_NC4as_T4_v3", purchase: "spot", region: "eastus", n: 2, noDriver: true},
		"azapi_resource.v1pool":                        {typ: "Standard_NC6s_v3", purchase: "on_demand", region: "westus2", n: 1, noDriver: true},
		"azapi_resource.vm":                            {typ: "Standard_ND96asr_v4", purchase: "spot", region: "westeurope", n: 1},
		"azapi_resource.vmss":                          {typ: "Standard_NV36ads_A10_v5", purchase: "on_demand", region: "eastus", n: 3},
	}
	if !reflect.DeepEqual(all, want) {
		t.Errorf("got  %+v\nwant %+v", all, want)
	}
	m := byAddress(t, res)
	pool := m[`azapi_resource.aks.agentPoolProfiles["a100"]`]
	if pool.Tags["team"] != "ml" || pool.NodeLabels == nil || pool.NodeLabels.Labels["pool"] != "a100" || len(pool.NodeLabels.Taints) != 1 || pool.NodeLabels.Taints[0].Key != "sku" {
		t.Errorf("a100 pool: tags %v, node labels %+v", pool.Tags, pool.NodeLabels)
	}
	// AKS taints a spot pool's nodes: pods that do not tolerate it cannot land there.
	if spot := m["azapi_resource.spot"]; spot.NodeLabels == nil || !slices.Contains(spot.NodeLabels.Taints, parser.Taint{Key: "kubernetes.azure.com/scalesetpriority", Value: "spot", Effect: "NoSchedule"}) {
		t.Errorf("spot pool taints: %+v", spot.NodeLabels)
	}
	if !slices.Contains(m["azapi_resource.v1pool"].Notes, "count is not set: ARM's default of 1 node") {
		t.Errorf("v1pool notes: %q", m["azapi_resource.v1pool"].Notes)
	}
	// An ARM type gpuguard does not read is warned about when its body names a GPU size; one
	// without a GPU is silent.
	var warned []string
	for _, w := range res.Warnings {
		warned = append(warned, w.Message)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "azapi_resource.hdinsight: body.properties.computeProfile.roles.hardwareProfile.vmSize is GPU type Standard_NC24ads_A100_v4, but gpuguard does not price azapi_resource of ARM type Microsoft.HDInsight/clusters@2021-06-01") {
		t.Errorf("warnings: %q", warned)
	}
}

// An agent pool whose body the plan does not know yet is unresolved, naming the attribute,
// never priced at $0 or dropped.
func TestAzAPIUnknownBody(t *testing.T) {
	res := parseHCL(t, `
variable "size" { type = string }
resource "azurerm_kubernetes_cluster" "c" {
  name     = "c"
  location = "eastus"
  default_node_pool {
    name    = "system"
    vm_size = "Standard_D2s_v3"
  }
}
resource "azapi_resource" "pool" {
  type      = "Microsoft.ContainerService/managedClusters/agentPools@2025-05-01"
  name      = "gpu"
  parent_id = azurerm_kubernetes_cluster.c.id
  body      = { properties = { vmSize = var.size, count = 2 } }
}
resource "azapi_resource" "json" {
  type      = "Microsoft.ContainerService/managedClusters/agentPools@2023-09-01"
  name      = "gpu2"
  parent_id = azurerm_kubernetes_cluster.c.id
  body      = jsonencode({ properties = { vmSize = var.size } })
}
`, Options{})
	m := byAddress(t, res)
	for _, addr := range []string{"azapi_resource.pool", "azapi_resource.json"} {
		r, ok := m[addr]
		if !ok {
			t.Fatalf("%s missing: %+v", addr, res.Resources)
		}
		if len(r.Unresolved) == 0 || !strings.HasPrefix(r.Unresolved[0].Attribute, "body") {
			t.Errorf("%s: unresolved %+v", addr, r.Unresolved)
		}
	}
}

// In a plan, the azapi body is the object (or JSON string) the provider will send, and the pool
// finds its cluster through the configuration's references.
func TestAzAPIInAPlan(t *testing.T) {
	res := ParsePlan("plan.json", []byte(`{"format_version": "1.2", "terraform_version": "1.9.0",
"planned_values": {"root_module": {"resources": [
 {"address": "azapi_resource.aks", "mode": "managed", "type": "azapi_resource", "name": "aks", "provider_name": "registry.terraform.io/azure/azapi",
  "values": {"type": "Microsoft.ContainerService/managedClusters@2025-05-01", "name": "aks", "location": "northeurope", "body": {"properties": {"agentPoolProfiles": [{"name": "system", "vmSize": "Standard_D4s_v5", "count": 1}]}}}},
 {"address": "azapi_resource.gpu", "mode": "managed", "type": "azapi_resource", "name": "gpu", "provider_name": "registry.terraform.io/azure/azapi",
  "values": {"type": "Microsoft.ContainerService/managedClusters/agentPools@2025-05-01", "name": "gpu", "body": "{\"properties\":{\"vmSize\":\"Standard_NC24ads_A100_v4\",\"count\":2}}"}}
]}},
"resource_changes": [{"address": "azapi_resource.gpu", "mode": "managed", "type": "azapi_resource", "name": "gpu",
  "change": {"actions": ["create"], "before": null, "after": {"type": "Microsoft.ContainerService/managedClusters/agentPools@2025-05-01", "name": "gpu"}, "after_unknown": {"id": true, "parent_id": true}}}],
"configuration": {"root_module": {"resources": [
 {"address": "azapi_resource.gpu", "mode": "managed", "type": "azapi_resource", "name": "gpu", "provider_config_key": "azapi",
  "expressions": {"parent_id": {"references": ["azapi_resource.aks.id", "azapi_resource.aks"]}}}
]}}}`))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	got := byAddress(t, res)
	gpu, ok := got["azapi_resource.gpu"]
	if !ok || gpu.InstanceType != "Standard_NC24ads_A100_v4" || gpu.Quantity != 2 || gpu.Region != "northeurope" {
		t.Errorf("gpu pool: %+v (resources %d)", gpu, len(res.Resources))
	}
	if _, ok := got[`azapi_resource.aks.agentPoolProfiles["system"]`]; ok {
		t.Errorf("a CPU profile was kept")
	}
}

// Azure Machine Learning computes declared through azapi: an AmlCompute cluster runs its
// minimum nodes up to its maximum, low priority at spot rates, in its workspace's region (azurerm
// or azapi, through parent_id); a compute instance is one VM, in its own location; attached
// compute (Kubernetes) runs no machine of its own.
func TestAzAPIMLCompute(t *testing.T) {
	res := parseHCL(t, `
resource "azurerm_machine_learning_workspace" "ws" {
  name     = "ws"
  location = "West US 2"
}

resource "azapi_resource" "ws" {
  type      = "Microsoft.MachineLearningServices/workspaces@2024-04-01"
  name      = "ws2"
  location  = "eastus"
  body      = { properties = {} }
}

resource "azapi_resource" "cluster" {
  type      = "Microsoft.MachineLearningServices/workspaces/computes@2024-04-01"
  name      = "gpu"
  parent_id = azapi_resource.ws.id
  body = {
    properties = {
      computeType = "AmlCompute"
      properties = {
        vmSize        = "Standard_NC24ads_A100_v4"
        vmPriority    = "LowPriority"
        scaleSettings = { minNodeCount = 1, maxNodeCount = 4 }
      }
    }
  }
}

resource "azapi_resource" "idle" {
  type      = "Microsoft.MachineLearningServices/workspaces/computes@2024-04-01"
  name      = "idle"
  parent_id = azurerm_machine_learning_workspace.ws.id
  body = jsonencode({ properties = { computeType = "AmlCompute", properties = { vmSize = "Standard_NC4as_T4_v3", scaleSettings = { maxNodeCount = 2 } } } })
}

resource "azapi_resource" "notebook" {
  type      = "Microsoft.MachineLearningServices/workspaces/computes@2024-04-01"
  name      = "nb"
  parent_id = azapi_resource.ws.id
  location  = "westeurope"
  body      = { properties = { computeType = "ComputeInstance", properties = { vmSize = "Standard_NC4as_T4_v3" } } }
}

resource "azapi_resource" "attached" {
  type      = "Microsoft.MachineLearningServices/workspaces/computes@2024-04-01"
  name      = "aks"
  parent_id = azapi_resource.ws.id
  body      = { properties = { computeType = "Kubernetes", properties = {} } }
}
`, Options{})
	var got []string
	for _, r := range res.Resources {
		max := 0
		if r.ScaleMax != nil {
			max = r.ScaleMax.Quantity
		}
		got = append(got, r.Address+" "+r.InstanceType+" "+string(r.PurchaseOption)+" "+r.Region+" "+strings.Repeat("n", r.Quantity)+"/"+strings.Repeat("m", max))
	}
	want := []string{
		"azapi_resource.cluster Standard_NC24ads_A100_v4 spot eastus n/mmmm",
		"azapi_resource.idle Standard_NC4as_T4_v3 on_demand westus2 /mm",
		"azapi_resource.notebook Standard_NC4as_T4_v3 on_demand westeurope n/",
	}
	slices.Sort(got)
	if !reflect.DeepEqual(got, want) || len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("got %q\nwant %q\nerrors %v warnings %v", got, want, res.Errors, res.Warnings)
	}
}

// A Batch pool declared through azapi runs its fixed scale's dedicated and low-priority (Spot)
// nodes in its account's location; an autoscaled pool is priced at none, with a note.
func TestAzAPIBatchPool(t *testing.T) {
	res := parseHCL(t, `
resource "azapi_resource" "account" {
  type     = "Microsoft.Batch/batchAccounts@2024-07-01"
  name     = "render"
  location = "eastus"
  body     = { properties = {} }
}

resource "azapi_resource" "fixed" {
  type      = "Microsoft.Batch/batchAccounts/pools@2024-07-01"
  name      = "t4"
  parent_id = azapi_resource.account.id
  body = {
    properties = {
      vmSize        = "Standard_NC4as_T4_v3"
      scaleSettings = { fixedScale = { targetDedicatedNodes = 1, targetLowPriorityNodes = 3 } }
    }
  }
}

resource "azapi_resource" "auto" {
  type      = "Microsoft.Batch/batchAccounts/pools@2024-07-01"
  name      = "a100"
  parent_id = azapi_resource.account.id
  body = jsonencode({ properties = { vmSize = "Standard_NC24ads_A100_v4", scaleSettings = { autoScale = { formula = "$TargetDedicatedNodes = 2;" } } } })
}
`, Options{})
	m := byAddress(t, res)
	fixed, auto := m["azapi_resource.fixed"], m["azapi_resource.auto"]
	if fixed.InstanceType != "Standard_NC4as_T4_v3" || fixed.Quantity != 4 || fixed.SpotQuantity != 3 || fixed.Region != "eastus" {
		t.Errorf("fixed: %s ×%d (%d spot) in %q", fixed.InstanceType, fixed.Quantity, fixed.SpotQuantity, fixed.Region)
	}
	if auto.InstanceType != "Standard_NC24ads_A100_v4" || auto.Quantity != 0 || auto.Region != "eastus" || !strings.Contains(strings.Join(auto.Notes, " "), "autoScale") {
		t.Errorf("auto: %s ×%d in %q, notes %q", auto.InstanceType, auto.Quantity, auto.Region, auto.Notes)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %+v", res.Warnings)
	}
}

// An Azure Machine Learning online deployment: sku.capacity instances of its instanceType (1
// when no sku says), or under a TargetUtilization scale setting minInstances up to maxInstances
// (1 each by default); its region its own location, else its endpoint's. A Kubernetes deployment
// runs on an attached cluster and is not listed; a size known only at apply is unresolved.
func TestAzAPIOnlineDeployments(t *testing.T) {
	res := parseHCL(t, `
variable "size" {}
resource "azapi_resource" "ep" {
  type      = "Microsoft.MachineLearningServices/workspaces/onlineEndpoints@2024-04-01"
  name      = "ep"
  parent_id = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/w"
  location  = "westus3"
  body      = { kind = "Managed", properties = { authMode = "Key" } }
}
resource "azapi_resource" "plain" {
  type      = "Microsoft.MachineLearningServices/workspaces/onlineEndpoints/deployments@2024-04-01"
  name      = "plain"
  parent_id = azapi_resource.ep.id
  body      = { properties = { endpointComputeType = "Managed", instanceType = "Standard_NC4as_T4_v3" } }
}
resource "azapi_resource" "scaled" {
  type      = "Microsoft.MachineLearningServices/workspaces/onlineEndpoints/deployments@2024-04-01"
  name      = "scaled"
  parent_id = azapi_resource.ep.id
  location  = "eastus2"
  body = {
    sku        = { name = "Default", capacity = 4 }
    properties = { endpointComputeType = "Managed", instanceType = "Standard_NC4as_T4_v3", scaleSettings = { scaleType = "TargetUtilization", maxInstances = 5 } }
  }
}
resource "azapi_resource" "later" {
  type      = "Microsoft.MachineLearningServices/workspaces/onlineEndpoints/deployments@2024-04-01"
  name      = "later"
  parent_id = azapi_resource.ep.id
  body      = { sku = { capacity = 3 }, properties = { endpointComputeType = "Managed", instanceType = var.size } }
}
resource "azapi_resource" "aks" {
  type      = "Microsoft.MachineLearningServices/workspaces/onlineEndpoints/deployments@2024-04-01"
  name      = "aks"
  parent_id = azapi_resource.ep.id
  body      = { properties = { endpointComputeType = "Kubernetes", instanceType = "Standard_NC4as_T4_v3" } }
}
`, Options{})
	got := byAddress(t, res)
	if len(got) != 3 {
		t.Fatalf("resources %v, want plain, scaled and later", slices.Collect(maps.Keys(got)))
	}
	plain := got["azapi_resource.plain"]
	if plain.InstanceType != "Standard_NC4as_T4_v3" || plain.Quantity != 1 || plain.ScaleMax != nil || plain.Region != "westus3" || !plain.NoSpot || plain.NoMIG == "" || plain.OfferedSizes != parser.AzureMLOnlineSizes {
		t.Errorf("plain: %+v", plain)
	}
	scaled := got["azapi_resource.scaled"]
	if scaled.Quantity != 1 || scaled.ScaleMax == nil || scaled.ScaleMax.Quantity != 5 || scaled.Region != "eastus2" {
		t.Errorf("scaled: %+v (max %+v)", scaled, scaled.ScaleMax)
	}
	later := got["azapi_resource.later"]
	if later.InstanceType != "" || later.Quantity != 3 || len(later.Unresolved) != 1 || later.Unresolved[0].Attribute != "body.properties.instanceType" {
		t.Errorf("later: %+v", later)
	}
}
