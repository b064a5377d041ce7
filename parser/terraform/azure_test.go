package terraform

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// A Flexible scale set's Spot Priority Mix keeps its first base_regular_count VMs, then
// regular_percentage_above_base percent of the rest (rounded up), at Regular priority: those are
// priced on demand, the others at spot, at the scale set's size and at its autoscaler's maximum.
// Without a mix, or with an empty one, a Spot scale set is all Spot; a Regular one ignores it.
// azapi's priorityMixPolicy reads the same way, and an autoscale setting scales an azapi scale
// set as it does azurerm's.
func TestAzureSpotPriorityMix(t *testing.T) {
	res := parseHCL(t, `
locals {
  common = { resource_group_name = "rg", location = "eastus", platform_fault_domain_count = 1, sku_name = "Standard_NC24ads_A100_v4" }
}

resource "azurerm_orchestrated_virtual_machine_scale_set" "mixed" {
  name                        = "mixed"
  resource_group_name         = local.common.resource_group_name
  location                    = local.common.location
  platform_fault_domain_count = 1
  sku_name                    = local.common.sku_name
  instances                   = 10
  priority                    = "Spot"
  eviction_policy             = "Delete"
  priority_mix {
    base_regular_count            = 2
    regular_percentage_above_base = 25
  }
}

resource "azurerm_orchestrated_virtual_machine_scale_set" "all_spot" {
  name                        = "all-spot"
  resource_group_name         = "rg"
  location                    = "eastus"
  platform_fault_domain_count = 1
  sku_name                    = "Standard_NC24ads_A100_v4"
  instances                   = 4
  priority                    = "Spot"
  priority_mix {}
}

resource "azurerm_orchestrated_virtual_machine_scale_set" "regular" {
  name                        = "regular"
  resource_group_name         = "rg"
  location                    = "eastus"
  platform_fault_domain_count = 1
  sku_name                    = "Standard_NC24ads_A100_v4"
  instances                   = 3
  priority_mix {
    base_regular_count = 1
  }
}

resource "azurerm_orchestrated_virtual_machine_scale_set" "autoscaled" {
  name                        = "autoscaled"
  resource_group_name         = "rg"
  location                    = "eastus"
  platform_fault_domain_count = 1
  sku_name                    = "Standard_NC24ads_A100_v4"
  instances                   = 0
  priority                    = "Spot"
  priority_mix {
    base_regular_count            = 1
    regular_percentage_above_base = 50
  }
}

resource "azurerm_monitor_autoscale_setting" "autoscaled" {
  name                = "autoscaled"
  resource_group_name = "rg"
  location            = "eastus"
  target_resource_id  = azurerm_orchestrated_virtual_machine_scale_set.autoscaled.id
  profile {
    name = "default"
    capacity {
      default = 2
      minimum = 2
      maximum = 20
    }
  }
}

resource "azapi_resource" "mixed" {
  type      = "Microsoft.Compute/virtualMachineScaleSets@2024-11-01"
  name      = "azapi-mixed"
  parent_id = "/subscriptions/0000/resourceGroups/rg"
  location  = "eastus"
  body = {
    sku = { name = "Standard_NC24ads_A100_v4", capacity = 5 }
    properties = {
      orchestrationMode     = "Flexible"
      priorityMixPolicy     = { regularPriorityPercentageAboveBase = 20 }
      virtualMachineProfile = { priority = "Spot" }
    }
  }
}

resource "azurerm_monitor_autoscale_setting" "azapi" {
  name                = "azapi"
  resource_group_name = "rg"
  location            = "eastus"
  target_resource_id  = azapi_resource.mixed.id
  profile {
    name = "default"
    capacity {
      default = 5
      minimum = 5
      maximum = 20
    }
  }
}

variable "base" {
  type = number
}

resource "azurerm_orchestrated_virtual_machine_scale_set" "unknown" {
  name                        = "unknown"
  resource_group_name         = "rg"
  location                    = "eastus"
  platform_fault_domain_count = 1
  sku_name                    = "Standard_NC24ads_A100_v4"
  instances                   = 4
  priority                    = "Spot"
  priority_mix {
    base_regular_count = var.base
  }
}
`, Options{})
	got := byAddress(t, res)
	for addr, want := range map[string]struct {
		quantity, spot int
		purchase       parser.PurchaseOption
		maxSpot        int // -1: no maximum
		note           string
	}{
		"azurerm_orchestrated_virtual_machine_scale_set.mixed":      {10, 6, parser.OnDemand, -1, "Spot Priority Mix: 4 Regular (on-demand), 6 Spot (base_regular_count 2, then 25% Regular)"},
		"azurerm_orchestrated_virtual_machine_scale_set.all_spot":   {4, 0, parser.Spot, -1, ""},
		"azurerm_orchestrated_virtual_machine_scale_set.regular":    {3, 0, parser.OnDemand, -1, ""},
		"azurerm_orchestrated_virtual_machine_scale_set.autoscaled": {2, 0, parser.OnDemand, 9, "Spot Priority Mix: 2 Regular (on-demand), 0 Spot"},
		"azapi_resource.mixed": {5, 4, parser.OnDemand, 16, "Spot Priority Mix: 1 Regular (on-demand), 4 Spot (base_regular_count 0, then 20% Regular)"},
	} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: not found", addr)
			continue
		}
		if r.Quantity != want.quantity || r.SpotQuantity != want.spot || r.PurchaseOption != want.purchase || len(r.Unresolved) > 0 {
			t.Errorf("%s: %d VMs, %d spot, purchase %q, unresolved %+v; want %d, %d, %q", addr, r.Quantity, r.SpotQuantity, r.PurchaseOption, r.Unresolved, want.quantity, want.spot, want.purchase)
		}
		if want.maxSpot >= 0 && (r.ScaleMax == nil || r.ScaleMax.Quantity != 20 || r.ScaleMax.SpotQuantity != want.maxSpot) {
			t.Errorf("%s: scale max %+v, want 20 VMs, %d of them Spot", addr, r.ScaleMax, want.maxSpot)
		}
		hasNote := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "Spot Priority Mix") })
		if want.note == "" && hasNote || want.note != "" && !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, want.note) }) {
			t.Errorf("%s: notes %q, want %q", addr, r.Notes, want.note)
		}
	}
	// The split depends on the mix: an unknown base withholds the price instead of guessing it.
	if r := got["azurerm_orchestrated_virtual_machine_scale_set.unknown"]; len(r.Unresolved) == 0 || r.Unresolved[0].Attribute != "priority_mix.0.base_regular_count" {
		t.Errorf("unknown base: %+v", r)
	}
}

// A Flexible scale set without a SKU creates no VMs of its own (VMs are attached to it and priced
// as what they are): it is not reported, azurerm or azapi. A Windows VM or scale set declared
// through azapi, or a Flexible scale set with a Windows os_profile, says that the Windows license
// is not in the price, as azurerm's Windows types do.
func TestAzureFlexibleScaleSetWithoutSKUAndWindowsBodies(t *testing.T) {
	res := parseHCL(t, `
resource "azurerm_orchestrated_virtual_machine_scale_set" "attach" {
  name                        = "attach"
  resource_group_name         = "rg"
  location                    = "eastus"
  platform_fault_domain_count = 1
}

resource "azurerm_linux_virtual_machine" "member" {
  name                         = "member"
  resource_group_name          = "rg"
  location                     = "eastus"
  size                         = "Standard_NC4as_T4_v3"
  virtual_machine_scale_set_id = azurerm_orchestrated_virtual_machine_scale_set.attach.id
}

resource "azapi_resource" "attach" {
  type     = "Microsoft.Compute/virtualMachineScaleSets@2024-11-01"
  name     = "attach"
  location = "eastus"
  body     = { properties = { orchestrationMode = "Flexible", platformFaultDomainCount = 1 } }
}

resource "azapi_resource" "uniform" {
  type     = "Microsoft.Compute/virtualMachineScaleSets@2024-11-01"
  name     = "uniform"
  location = "eastus"
  body     = { properties = { orchestrationMode = "Uniform" } }
}

resource "azapi_resource" "windows_vm" {
  type     = "Microsoft.Compute/virtualMachines@2024-11-01"
  name     = "win"
  location = "eastus"
  body = {
    properties = {
      hardwareProfile = { vmSize = "Standard_NV36ads_A10_v5" }
      osProfile       = { computerName = "win", windowsConfiguration = { provisionVMAgent = true } }
    }
  }
}

resource "azurerm_orchestrated_virtual_machine_scale_set" "windows" {
  name                        = "windows"
  resource_group_name         = "rg"
  location                    = "eastus"
  platform_fault_domain_count = 1
  sku_name                    = "Standard_NV36ads_A10_v5"
  instances                   = 1
  os_profile {
    windows_configuration {
      admin_username = "a"
    }
  }
}

resource "azurerm_orchestrated_virtual_machine_scale_set" "linux" {
  name                        = "linux"
  resource_group_name         = "rg"
  location                    = "eastus"
  platform_fault_domain_count = 1
  sku_name                    = "Standard_NV36ads_A10_v5"
  instances                   = 1
  os_profile {
    linux_configuration {
      admin_username = "a"
    }
    dynamic "windows_configuration" {
      for_each = []
      content {
        admin_username = "a"
      }
    }
  }
}

resource "azapi_resource" "linux_vm" {
  type     = "Microsoft.Compute/virtualMachines@2024-11-01"
  name     = "linux"
  location = "eastus"
  body = {
    properties = {
      hardwareProfile = { vmSize = "Standard_NV36ads_A10_v5" }
      osProfile       = { computerName = "linux", linuxConfiguration = { disablePasswordAuthentication = true } }
    }
  }
}
`, Options{})
	got := byAddress(t, res)
	if _, ok := got["azurerm_orchestrated_virtual_machine_scale_set.attach"]; ok {
		t.Error("a Flexible scale set without sku_name is reported")
	}
	if _, ok := got["azapi_resource.attach"]; ok {
		t.Error("a Flexible azapi scale set without sku.name is reported")
	}
	if r, ok := got["azurerm_linux_virtual_machine.member"]; !ok || r.InstanceType != "Standard_NC4as_T4_v3" {
		t.Errorf("the attached VM: %+v", r)
	}
	// A Uniform scale set must have a SKU: without one it is unresolved, not dropped.
	if r, ok := got["azapi_resource.uniform"]; !ok || len(r.Unresolved) == 0 {
		t.Errorf("a Uniform scale set without a SKU: %+v", r)
	}
	windows := func(addr string) bool {
		return slices.ContainsFunc(got[addr].Notes, func(n string) bool { return strings.HasPrefix(n, "Windows VM") })
	}
	if !windows("azapi_resource.windows_vm") || windows("azapi_resource.linux_vm") {
		t.Errorf("Windows notes: windows %q, linux %q", got["azapi_resource.windows_vm"].Notes, got["azapi_resource.linux_vm"].Notes)
	}
	// A Flexible scale set's OS is its os_profile's configuration; a dynamic block that makes
	// none is not one.
	if !windows("azurerm_orchestrated_virtual_machine_scale_set.windows") || windows("azurerm_orchestrated_virtual_machine_scale_set.linux") {
		t.Errorf("Windows notes: windows %q, linux %q", got["azurerm_orchestrated_virtual_machine_scale_set.windows"].Notes, got["azurerm_orchestrated_virtual_machine_scale_set.linux"].Notes)
	}
}
