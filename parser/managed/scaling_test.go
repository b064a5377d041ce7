package managed

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// scheduledManifests are the Terraform fixtures' scheduled groups written as the official
// providers' managed resources, the way their examples are: every resource of an example
// carries the same testing label and name, and the group, its template and its autoscaler
// find each other by label selector.
const scheduledManifests = `apiVersion: compute.gcp.upbound.io/v1beta2
kind: InstanceTemplate
metadata:
  name: batch
  labels: {example: batch}
spec:
  forProvider:
    machineType: g2-standard-4
    scheduling: {preemptible: true}
---
apiVersion: compute.gcp.upbound.io/v1beta2
kind: InstanceGroupManager
metadata:
  name: batch
  labels: {example: batch}
spec:
  forProvider:
    zone: us-east4-a
    baseInstanceName: batch
    version:
      - instanceTemplateSelector:
          matchLabels: {example: batch}
---
apiVersion: compute.gcp.upbound.io/v1beta2
kind: Autoscaler
metadata:
  name: batch
  labels: {example: batch}
spec:
  forProvider:
    zone: us-east4-a
    targetSelector:
      matchLabels: {example: batch}
    autoscalingPolicy:
      minReplicas: 1
      maxReplicas: 6
      cpuUtilization: {target: 0.7}
      scalingSchedules:
        - name: weekdays
          schedule: 0 8 * * MON-FRI
          timeZone: America/New_York
          durationSec: 36000
          minRequiredReplicas: 4
---
apiVersion: compute.azure.upbound.io/v1beta2
kind: LinuxVirtualMachineScaleSet
metadata:
  name: dev
  labels: {example: dev}
spec:
  forProvider:
    location: East US
    sku: Standard_NC8as_T4_v3
    instances: 0
    adminUsername: azure
---
apiVersion: insights.azure.upbound.io/v1beta2
kind: MonitorAutoscaleSetting
metadata:
  name: dev
  labels: {example: dev}
spec:
  forProvider:
    location: East US
    targetResourceIdSelector:
      matchLabels: {example: dev}
    profile:
      - name: default
        capacity: {default: 0, minimum: 0, maximum: 2}
      - name: office
        capacity: {default: 2, minimum: 2, maximum: 4}
        recurrence:
          timezone: Eastern Standard Time
          days: [Monday, Tuesday, Wednesday, Thursday, Friday]
          hours: [9]
          minutes: [0]
      - name: night
        capacity: {default: 0, minimum: 0, maximum: 2}
        recurrence:
          timezone: Eastern Standard Time
          days: [Monday, Tuesday, Wednesday, Thursday, Friday]
          hours: [18]
          minutes: [0]
---
apiVersion: autoscaling.aws.upbound.io/v1beta1
kind: LaunchConfiguration
metadata:
  name: l4
  labels: {example: dev}
spec:
  forProvider:
    region: us-east-1
    imageId: ami-0123456789abcdef0
    instanceType: g6.xlarge
---
apiVersion: autoscaling.aws.upbound.io/v1beta3
kind: AutoscalingGroup
metadata:
  name: dev
  labels: {example: dev}
spec:
  forProvider:
    region: us-east-1
    availabilityZones: [us-east-1a]
    minSize: 0
    maxSize: 4
    launchConfigurationSelector:
      matchLabels: {example: dev}
---
apiVersion: autoscaling.aws.upbound.io/v1beta1
kind: Schedule
metadata:
  name: office-start
  labels: {example: dev}
spec:
  forProvider:
    region: us-east-1
    autoscalingGroupNameSelector:
      matchLabels: {example: dev}
    recurrence: 0 9 * * MON-FRI
    timeZone: America/New_York
    minSize: 0
    maxSize: 4
    desiredCapacity: 2
---
apiVersion: autoscaling.aws.upbound.io/v1beta1
kind: Schedule
metadata:
  name: office-end
spec:
  forProvider:
    region: us-east-1
    autoscalingGroupName: dev
    recurrence: 0 18 * * MON-FRI
    timeZone: America/New_York
    minSize: 0
    maxSize: 4
    desiredCapacity: 0
`

// A GCP managed instance group, an Azure scale set and an AWS Auto Scaling group, declared as
// Crossplane managed resources and scheduled by their autoscalers, are priced by time as their
// Terraform resources are: the label selectors resolve to the resource of the kind each field
// names although every resource of an example carries the same label, and an Auto Scaling
// group is found by its name (its external name) as well as by selector.
func TestCrossplaneScheduledGroups(t *testing.T) {
	f := kubernetes.Decode("scheduled.yaml", []byte(scheduledManifests))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := map[string]string{}
	for _, r := range res.Resources {
		max := "no maximum"
		if r.ScaleMax != nil {
			max = fmt.Sprintf("up to %d for %.2f h", r.ScaleMax.Quantity, r.ScaleMax.HoursPerMonth)
			if strings.Contains(r.ScaleMax.From, "google_") || strings.Contains(r.ScaleMax.From, "aws_") || strings.Contains(r.ScaleMax.From, "azurerm_") {
				t.Errorf("%s: its maximum is from %q, not a manifest", r.Address, r.ScaleMax.From)
			}
		}
		got[r.Address] = fmt.Sprintf("%s ×%d for %.2f h, %s, %s in %s", r.InstanceType, r.Quantity, r.HoursPerMonth, max, r.PurchaseOption, r.Region)
	}
	want := map[string]string{
		// The fixtures' numbers: testdata/terraform/google_compute_instance_group_manager,
		// azurerm_virtual_machine_scale_set and aws_autoscaling_group.
		"InstanceGroupManager/batch":      "g2-standard-4 ×4 for 345.63 h, up to 6 for 730.00 h, spot in us-east4",
		"LinuxVirtualMachineScaleSet/dev": "Standard_NC8as_T4_v3 ×2 for 195.75 h, up to 4 for 462.88 h, on_demand in eastus",
		"AutoscalingGroup/dev":            "g6.xlarge ×2 for 195.75 h, up to 4 for 730.00 h, on_demand in us-east-1",
	}
	for addr, w := range want {
		if got[addr] != w {
			t.Errorf("%s:\n got  %s\n want %s", addr, got[addr], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("resources %v, want only %d", got, len(want))
	}
	for _, r := range res.Resources {
		notes := strings.Join(r.Notes, "\n")
		// The notes name the manifests, not the Terraform addresses they were read as.
		if strings.Contains(notes, "google_compute_autoscaler.") || strings.Contains(notes, "aws_autoscaling_schedule.") || strings.Contains(notes, "azurerm_monitor_autoscale_setting.") {
			t.Errorf("%s: notes name Terraform addresses:\n%s", r.Address, notes)
		}
	}
}

// asoScheduledManifests are the same Azure scale set and schedule as Azure Service Operator
// resources, the way ASO's sample writes an Autoscalesetting: ARM's profiles, capacities as
// strings, and the scale set named by targetResourceUriReference.
const asoScheduledManifests = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: rg, namespace: ml}
spec: {location: eastus}
---
apiVersion: compute.azure.com/v1api20220301
kind: VirtualMachineScaleSet
metadata: {name: dev, namespace: ml}
spec:
  owner: {name: rg}
  location: eastus
  sku: {name: Standard_NC8as_T4_v3, capacity: 0}
---
apiVersion: insights.azure.com/v1api20221001
kind: Autoscalesetting
metadata: {name: dev, namespace: ml}
spec:
  location: eastus
  owner: {name: rg}
  enabled: true
  targetResourceUriReference: {group: compute.azure.com, kind: VirtualMachineScaleSet, name: dev}
  profiles:
    - name: default
      capacity: {default: "0", minimum: "0", maximum: "2"}
    - name: office
      capacity: {default: "2", minimum: "2", maximum: "4"}
      recurrence:
        frequency: Week
        schedule: {timeZone: Eastern Standard Time, days: [Monday, Tuesday, Wednesday, Thursday, Friday], hours: [9], minutes: [0]}
    - name: night
      capacity: {default: "0", minimum: "0", maximum: "2"}
      recurrence:
        frequency: Week
        schedule: {timeZone: Eastern Standard Time, days: [Monday, Tuesday, Wednesday, Thursday, Friday], hours: [18], minutes: [0]}
`

// An Azure Service Operator Autoscalesetting scales the scale set its
// targetResourceUriReference names, by time, as the azurerm setting of the Terraform fixture
// does (testdata/terraform/azurerm_virtual_machine_scale_set): 2 VMs for 195.75 hours, up to 4.
// Without enabled (ARM's default is false), or naming a scale set of another kind or
// namespace, it scales nothing.
func TestASOAutoscaleSetting(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want, note string
	}{
		{name: "scheduled", want: "Standard_NC8as_T4_v3 ×0 → 2 for 195.75 h, up to 4 for 462.88 h",
			note: `scheduled by Autoscalesetting/ml/dev's profiles "office" ("0 9 * * 1,2,3,4,5", Eastern Standard Time), "night"`},
		{name: "by ARM ID: not among the manifests", old: "{group: compute.azure.com, kind: VirtualMachineScaleSet, name: dev}", new: "{armId: /subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/dev}",
			want: "Standard_NC8as_T4_v3 ×0 → 0 for 0.00 h, no maximum"},
		{name: "another kind", old: "kind: VirtualMachineScaleSet, name: dev}", new: "kind: VirtualMachine, name: dev}", want: "Standard_NC8as_T4_v3 ×0 → 0 for 0.00 h, no maximum"},
		{name: "another group", old: "group: compute.azure.com,", new: "group: compute.example.com,", want: "Standard_NC8as_T4_v3 ×0 → 0 for 0.00 h, no maximum"},
		{name: "another namespace", old: "kind: Autoscalesetting\nmetadata: {name: dev, namespace: ml}", new: "kind: Autoscalesetting\nmetadata: {name: dev, namespace: team-b}",
			want: "Standard_NC8as_T4_v3 ×0 → 0 for 0.00 h, no maximum"},
		{name: "enabled not set", old: "  enabled: true\n", new: "", want: "Standard_NC8as_T4_v3 ×0 → 0 for 0.00 h, no maximum",
			note: "Autoscalesetting/ml/dev does not set spec.enabled: ARM's default is false, and the scale set keeps its size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(asoScheduledManifests, tc.old, tc.new, 1)
			if src == asoScheduledManifests && tc.old != "" {
				t.Fatalf("%q is not in the manifests", tc.old)
			}
			res := kubernetes.Build([]*kubernetes.File{kubernetes.Decode("aso.yaml", []byte(src))}, kubernetes.Options{Managed: Resources})
			if len(res.Errors) != 0 || len(res.Warnings) != 0 || len(res.Resources) != 1 {
				t.Fatalf("resources %d, errors %+v, warnings %+v", len(res.Resources), res.Errors, res.Warnings)
			}
			r := res.Resources[0]
			max := "no maximum"
			if r.ScaleMax != nil {
				max = fmt.Sprintf("up to %d for %.2f h", r.ScaleMax.Quantity, r.ScaleMax.HoursPerMonth)
			}
			if got := fmt.Sprintf("%s ×0 → %d for %.2f h, %s", r.InstanceType, r.Quantity, r.HoursPerMonth, max); r.Address != "VirtualMachineScaleSet/ml/dev" || got != tc.want {
				t.Errorf("%s: %s, want %s", r.Address, got, tc.want)
			}
			notes := strings.Join(r.Notes, "\n")
			if !strings.Contains(notes, tc.note) || strings.Contains(notes, "azapi_resource") || strings.Contains(notes, "body.") {
				t.Errorf("notes, want %q in the manifests' terms:\n%s", tc.note, notes)
			}
		})
	}
}
