package terraform

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// azureProfile is an autoscale profile block: capacity minimum lo, maximum hi, and a recurrence
// block's lines when rec is not empty.
func azureProfile(name string, lo, hi int, rec string) string {
	p := `  profile {
    name = "` + name + `"
    capacity {
      default = ` + strconv.Itoa(lo) + `
      minimum = ` + strconv.Itoa(lo) + `
      maximum = ` + strconv.Itoa(hi) + `
    }
`
	if rec != "" {
		p += "    recurrence {\n      " + rec + "\n    }\n"
	}
	return p + "  }\n"
}

// A scale set whose autoscale setting has recurring profiles runs what they set, by time: from
// 08:00 to 19:00 Berlin time on weekdays at the business profile's minimum of 4, else at the
// evening profile's 0. That is 4 VMs for 239.25 hours of gpuguard's 730-hour month, as the same
// schedule on an Auto Scaling group is.
func TestAzureAutoscaleRecurringProfiles(t *testing.T) {
	const scaleSet = `variable "hour" { type = number }
resource "azurerm_linux_virtual_machine_scale_set" "gpu" {
  name                = "gpu"
  resource_group_name = "rg"
  location            = "westeurope"
  sku                 = "Standard_NC24ads_A100_v4"
  instances           = 2
  admin_username      = "azureuser"
}
`
	setting := func(profiles ...string) string {
		return `resource "azurerm_monitor_autoscale_setting" "gpu" {
  name                = "gpu"
  resource_group_name = "rg"
  location            = "westeurope"
  target_resource_id  = azurerm_linux_virtual_machine_scale_set.gpu.id
` + strings.Join(profiles, "") + "}\n"
	}
	const weekdays = `days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]`
	berlin := func(hour string) string {
		return `timezone = "W. Europe Standard Time"
      ` + weekdays + `
      hours = [` + hour + `]
      minutes = [0]`
	}
	def := azureProfile("default", 0, 4, "")
	business := azureProfile("business", 4, 8, berlin("8"))
	evening := azureProfile("evening", 0, 4, berlin("19"))
	officeHours := math.Round(730*4*261*11.0/8760/4*100) / 100 // 239.25
	// The maximum is 8 in business hours and 4 otherwise: 8 for 484.63 hours.
	officeMax := math.Round(730*(8*261*11+4*(8760-261*11.0))/8760/8*100) / 100
	for _, tc := range []struct {
		name     string
		src      string
		quantity int
		hours    float64 // 0: all month
		maxHours float64 // the maximum's hours a month; 0: the scale set's own
		note     string
	}{
		{name: "business hours, then back to none", src: setting(def, business, evening), quantity: 4, hours: officeHours,
			maxHours: officeMax,
			note:     `scheduled by azurerm_monitor_autoscale_setting.gpu's profiles "business" ("0 8 * * 1,2,3,4,5", W. Europe Standard Time), "evening" ("0 19 * * 1,2,3,4,5", W. Europe Standard Time): 0 to 4 instances, 1.31 on average over a year: priced as 4 instances for 239.25 hours a month`},
		{name: "a recurring profile holds until the next starts: without one to end it, all month", src: setting(def, business), quantity: 4,
			note: "0 8 * * 1,2,3,4,5\", W. Europe Standard Time): 4 to 4 instances, 4.00 on average over a year: priced as 4 instances all month"},
		{name: "a recurrence without a timezone is in Pacific Standard Time", src: setting(def,
			azureProfile("business", 4, 8, weekdays+"\n      hours = [8]\n      minutes = [0]"),
			azureProfile("evening", 0, 4, weekdays+"\n      hours = [19]\n      minutes = [0]")),
			quantity: 4, hours: officeHours, maxHours: officeMax, note: `"business" ("0 8 * * 1,2,3,4,5", Pacific Standard Time)`},
		{name: "of profiles that start together, the first applies", src: setting(def,
			azureProfile("two", 2, 8, `days = ["Sunday"]
      hours = [0]
      minutes = [0]`),
			azureProfile("five", 5, 8, `days = ["Sunday"]
      hours = [0]
      minutes = [0]`)),
			quantity: 2},
		{name: "a fixed-date profile is left out", src: setting(def, business, evening, `  profile {
    name = "launch"
    capacity {
      default = 8
      minimum = 8
      maximum = 8
    }
    fixed_date {
      start = "2026-12-01T00:00:00Z"
      end   = "2026-12-02T00:00:00Z"
    }
  }
`), quantity: 4, hours: officeHours, maxHours: officeMax, note: `azurerm_monitor_autoscale_setting.gpu's profile "launch" is for a fixed date: it is left out of the scale set's schedule`},
		{name: "a Windows time zone gpuguard does not know", src: setting(def, azureProfile("business", 4, 8, `timezone = "Mars Standard Time"
      `+weekdays+`
      hours = [8]
      minutes = [0]`)),
			quantity: 2, note: `azurerm_monitor_autoscale_setting.gpu's profile "business": its timezone "Mars Standard Time" is not a Windows time zone gpuguard knows: its schedule is not applied, and the scale set is priced at its smallest capacity minimum`},
		{name: "hours known only at apply", src: setting(def, azureProfile("business", 4, 8, weekdays+"\n      hours = [var.hour]\n      minutes = [0]")),
			quantity: 2, note: `profile "business": its hours are known only at apply: its schedule is not applied`},
		{name: "an hour past 23", src: setting(def, azureProfile("business", 4, 8, weekdays+"\n      hours = [24]\n      minutes = [0]")),
			quantity: 2, note: `profile "business": its hours has "24", not one of the hours of 0 to 23`},
		{name: "a recurrence without minutes", src: setting(def, azureProfile("business", 4, 8, weekdays+"\n      hours = [8]")),
			quantity: 2, note: `profile "business": it names no minutes: its schedule is not applied`},
		{name: "a day that is not one", src: setting(def, azureProfile("business", 4, 8, `days = ["Funday"]
      hours = [8]
      minutes = [0]`)),
			quantity: 2, note: `its days has "Funday", not one of the days from Monday to Sunday`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, scaleSet+tc.src, Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			vmss := byAddress(t, res)["azurerm_linux_virtual_machine_scale_set.gpu"]
			// The maximum is the largest capacity maximum, 8.
			expectScheduled(t, vmss, scheduled{tc.quantity, tc.hours, 8, tc.maxHours, tc.note})
		})
	}
}

// In plan JSON a profile's capacity and recurrence are lists of one block, and the setting
// targets a scale set whose id is known only at apply.
func TestAzureAutoscaleRecurringProfilesInAPlan(t *testing.T) {
	vmss := `{"sku": "Standard_NC24ads_A100_v4", "instances": 0, "location": "westeurope", "name": "gpu"}`
	setting := `{"name": "gpu", "location": "westeurope", "enabled": true, "profile": [
	  {"name": "default", "capacity": [{"default": 0, "minimum": 0, "maximum": 4}], "recurrence": [], "fixed_date": []},
	  {"name": "business", "capacity": [{"default": 4, "minimum": 4, "maximum": 8}], "fixed_date": [],
	   "recurrence": [{"timezone": "W. Europe Standard Time", "days": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], "hours": [8], "minutes": [0]}]},
	  {"name": "evening", "capacity": [{"default": 0, "minimum": 0, "maximum": 4}], "fixed_date": [],
	   "recurrence": [{"timezone": "W. Europe Standard Time", "days": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], "hours": [19], "minutes": [0]}]}]}`
	plan := `{"format_version": "1.2", "terraform_version": "1.9.0",
	"planned_values": {"root_module": {"resources": [
	  {"address": "azurerm_linux_virtual_machine_scale_set.gpu", "mode": "managed", "type": "azurerm_linux_virtual_machine_scale_set", "name": "gpu", "provider_name": "registry.terraform.io/hashicorp/azurerm", "values": ` + vmss + `},
	  {"address": "azurerm_monitor_autoscale_setting.gpu", "mode": "managed", "type": "azurerm_monitor_autoscale_setting", "name": "gpu", "provider_name": "registry.terraform.io/hashicorp/azurerm", "values": ` + setting + `}]}},
	"resource_changes": [
	  {"address": "azurerm_linux_virtual_machine_scale_set.gpu", "mode": "managed", "type": "azurerm_linux_virtual_machine_scale_set", "name": "gpu", "change": {"actions": ["create"], "before": null, "after": ` + vmss + `, "after_unknown": {"id": true}}},
	  {"address": "azurerm_monitor_autoscale_setting.gpu", "mode": "managed", "type": "azurerm_monitor_autoscale_setting", "name": "gpu", "change": {"actions": ["create"], "before": null, "after": ` + setting + `, "after_unknown": {"id": true, "target_resource_id": true}}}],
	"configuration": {"root_module": {"resources": [
	  {"address": "azurerm_monitor_autoscale_setting.gpu", "mode": "managed", "type": "azurerm_monitor_autoscale_setting", "name": "gpu", "provider_config_key": "azurerm",
	   "expressions": {"target_resource_id": {"references": ["azurerm_linux_virtual_machine_scale_set.gpu.id", "azurerm_linux_virtual_machine_scale_set.gpu"]}}}]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	got := byAddress(t, res)["azurerm_linux_virtual_machine_scale_set.gpu"]
	if want := math.Round(730*4*261*11.0/8760/4*100) / 100; got.Quantity != 4 || got.HoursPerMonth != want {
		t.Errorf("%d VMs for %.2f hours, want 4 for %.2f; notes %q", got.Quantity, got.HoursPerMonth, want, got.Notes)
	}
}

// armProfile is an ARM autoscale profile (an azapi_resource body's): capacity as strings, and a
// weekly recurrence whose schedule holds extra (a timeZone, days, hours, minutes) when rec is not
// empty.
func armProfile(name string, lo, hi int, frequency, rec string) string {
	p := `{ name = "` + name + `", capacity = { default = "` + strconv.Itoa(lo) + `", minimum = "` + strconv.Itoa(lo) + `", maximum = "` + strconv.Itoa(hi) + `" }`
	if rec != "" {
		p += `, recurrence = { frequency = "` + frequency + `", schedule = { ` + rec + ` } }`
	}
	return p + " }"
}

// An autoscale setting declared as an azapi_resource of ARM type
// Microsoft.Insights/autoscaleSettings scales the scale set its properties.targetResourceUri
// names as azurerm's setting does: the same business hours are 4 VMs for 239.25 hours, up to 8.
// ARM's enabled is false unless set, its recurrence is weekly only, and its schedule must name
// its time zone.
func TestARMAutoscaleSettingRecurringProfiles(t *testing.T) {
	const scaleSets = `resource "azurerm_linux_virtual_machine_scale_set" "gpu" {
  name                = "gpu"
  resource_group_name = "rg"
  location            = "westeurope"
  sku                 = "Standard_NC24ads_A100_v4"
  instances           = 2
  admin_username      = "azureuser"
}
resource "azapi_resource" "vmss" {
  type      = "Microsoft.Compute/virtualMachineScaleSets@2024-07-01"
  name      = "vmss"
  parent_id = "/subscriptions/0/resourceGroups/rg"
  location  = "westeurope"
  body = {
    sku = { name = "Standard_NC24ads_A100_v4", capacity = 2 }
  }
}
`
	setting := func(target, enabled string, profiles ...string) string {
		return `resource "azapi_resource" "autoscale" {
  type      = "Microsoft.Insights/autoscalesettings@2022-10-01"
  name      = "gpu"
  parent_id = "/subscriptions/0/resourceGroups/rg"
  location  = "westeurope"
  body = {
    properties = {
      ` + enabled + `
      targetResourceUri = ` + target + `
      profiles = [` + strings.Join(profiles, ", ") + `]
    }
  }
}
`
	}
	const on = "enabled = true"
	berlin := func(hour string) string {
		return `timeZone = "W. Europe Standard Time", days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], hours = [` + hour + `], minutes = [0]`
	}
	def := armProfile("default", 0, 4, "", "")
	business, evening := armProfile("business", 4, 8, "Week", berlin("8")), armProfile("evening", 0, 4, "Week", berlin("19"))
	officeHours := math.Round(730*4*261*11.0/8760/4*100) / 100
	officeMax := math.Round(730*(8*261*11+4*(8760-261*11.0))/8760/8*100) / 100
	const azurerm, azapi = "azurerm_linux_virtual_machine_scale_set.gpu.id", "azapi_resource.vmss.id"
	for _, tc := range []struct {
		name, src, addr string
		want            scheduled
		noMax           bool
	}{
		{name: "business hours", src: setting(azurerm, on, def, business, evening), addr: "azurerm_linux_virtual_machine_scale_set.gpu",
			want: scheduled{4, officeHours, 8, officeMax, `scheduled by azapi_resource.autoscale's profiles "business" ("0 8 * * 1,2,3,4,5", W. Europe Standard Time), "evening" ("0 19 * * 1,2,3,4,5", W. Europe Standard Time): 0 to 4 instances, 1.31 on average over a year: priced as 4 instances for 239.25 hours a month`}},
		{name: "an azapi scale set", src: setting(azapi, on, def, business, evening), addr: "azapi_resource.vmss",
			want: scheduled{4, officeHours, 8, officeMax, `scheduled by azapi_resource.autoscale's profiles "business"`}},
		{name: "enabled not set: ARM's default is false", src: setting(azurerm, "", def, business, evening), addr: "azurerm_linux_virtual_machine_scale_set.gpu", noMax: true,
			want: scheduled{quantity: 2, note: "azapi_resource.autoscale does not set body.properties.enabled: ARM's default is false, and the scale set keeps its size"}},
		{name: "disabled", src: setting(azurerm, "enabled = false", def, business, evening), addr: "azurerm_linux_virtual_machine_scale_set.gpu", noMax: true,
			want: scheduled{quantity: 2, note: "azapi_resource.autoscale is disabled: the scale set keeps its size"}},
		{name: "a daily recurrence", src: setting(azurerm, on, def, armProfile("business", 4, 8, "Day", berlin("8"))), addr: "azurerm_linux_virtual_machine_scale_set.gpu",
			want: scheduled{2, 0, 8, 0, `azapi_resource.autoscale's profile "business": its frequency is "Day", and autoscale recurs weekly only: its schedule is not applied`}},
		{name: "a schedule without its time zone", src: setting(azurerm, on, def, armProfile("business", 4, 8, "Week", `days = ["Monday"], hours = [8], minutes = [0]`)),
			addr: "azurerm_linux_virtual_machine_scale_set.gpu",
			want: scheduled{2, 0, 8, 0, `azapi_resource.autoscale's profile "business": its schedule names no timeZone: its schedule is not applied`}},
		{name: "a recurrence without a schedule", src: setting(azurerm, on, def, `{ name = "business", capacity = { minimum = "4", maximum = "8" }, recurrence = { frequency = "Week" } }`),
			addr: "azurerm_linux_virtual_machine_scale_set.gpu",
			want: scheduled{2, 0, 8, 0, `azapi_resource.autoscale's profile "business": its recurrence has no schedule: its schedule is not applied`}},
		{name: "another ARM type naming the scale set", src: strings.Replace(setting(azurerm, on, def, business, evening), "Microsoft.Insights/autoscalesettings", "Microsoft.Example/schedules", 1),
			addr: "azurerm_linux_virtual_machine_scale_set.gpu", noMax: true, want: scheduled{quantity: 2}},
		{name: "a fixed date", src: setting(azurerm, on, armProfile("default", 3, 6, "", ""), `{ name = "launch", capacity = { minimum = "8", maximum = "8" }, fixedDate = { start = "2026-12-01T00:00:00Z", end = "2026-12-02T00:00:00Z" } }`),
			addr: "azurerm_linux_virtual_machine_scale_set.gpu",
			want: scheduled{3, 0, 8, 0, `azapi_resource.autoscale's profile "launch" is for a fixed date`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, scaleSets+tc.src, Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			r := byAddress(t, res)[tc.addr]
			if tc.noMax {
				if r.Quantity != tc.want.quantity || r.HoursPerMonth != 0 || r.ScaleMax != nil || !strings.Contains(strings.Join(r.Notes, "\n"), tc.want.note) {
					t.Errorf("%d for %.2f hours, max %+v, notes %q; want %d all month, no maximum, and %q", r.Quantity, r.HoursPerMonth, r.ScaleMax, r.Notes, tc.want.quantity, tc.want.note)
				}
				return
			}
			expectScheduled(t, r, tc.want)
		})
	}
}
