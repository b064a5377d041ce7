package terraform

import (
	"fmt"
	"strings"
	"testing"
)

// largeModule writes one module with n of each lookup the mappers make: GCP instance groups
// with their autoscalers (referrers), AWS autoscaling groups naming their launch templates
// (byAttribute), Azure scale sets with their autoscale settings (referrers) and counted
// instances referring to a counted template by index (referenced).
func largeModule(n int) string {
	var b strings.Builder
	b.WriteString(`provider "google" { region = "us-central1" }
provider "aws" { region = "us-east-1" }
provider "azurerm" {
  features {}
}
resource "aws_launch_template" "counted" {
  count         = ` + fmt.Sprint(n) + `
  instance_type = "g6.xlarge"
}
resource "aws_autoscaling_group" "counted" {
  count            = ` + fmt.Sprint(n) + `
  desired_capacity = 1
  launch_template { id = aws_launch_template.counted[count.index].id }
}
`)
	for i := range n {
		fmt.Fprintf(&b, `
resource "google_compute_instance_template" "t%[1]d" {
  machine_type = "g2-standard-8"
}
resource "google_compute_instance_group_manager" "m%[1]d" {
  zone = "us-central1-a"
  version { instance_template = google_compute_instance_template.t%[1]d.id }
}
resource "google_compute_autoscaler" "a%[1]d" {
  zone   = "us-central1-a"
  target = google_compute_instance_group_manager.m%[1]d.id
  autoscaling_policy {
    min_replicas = 1
    max_replicas = %[2]d
  }
}
resource "aws_launch_template" "lt%[1]d" {
  name          = "lt%[1]d"
  instance_type = "%[3]s"
}
resource "aws_autoscaling_group" "asg%[1]d" {
  desired_capacity = 1
  launch_template { name = "lt%[1]d" }
}
resource "azurerm_linux_virtual_machine_scale_set" "vmss%[1]d" {
  name                = "vmss%[1]d"
  location            = "eastus"
  resource_group_name = "rg"
  sku                 = "Standard_NC4as_T4_v3"
  instances           = 1
  admin_username      = "a"
}
resource "azurerm_monitor_autoscale_setting" "as%[1]d" {
  name                = "as%[1]d"
  resource_group_name = "rg"
  location            = "eastus"
  target_resource_id  = azurerm_linux_virtual_machine_scale_set.vmss%[1]d.id
  profile {
    name = "default"
    capacity {
      default = 1
      minimum = 1
      maximum = %[2]d
    }
  }
}
`, i, 2+i%7, []string{"g5.xlarge", "g6.xlarge", "p4d.24xlarge"}[i%3])
	}
	return b.String()
}

// Every resource of a large module finds its own template, autoscaler and autoscale setting:
// the lookup indexes give what a pass over the module gave.
func TestLargeModuleLookups(t *testing.T) {
	const n = 60
	res := ParseSource("main.tf", []byte(largeModule(n)), Options{})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	got := byAddress(t, res)
	for i := range n {
		wantMax := 2 + i%7
		mig, ok1 := got[fmt.Sprintf("google_compute_instance_group_manager.m%d", i)]
		if !ok1 || mig.ScaleMax == nil || mig.ScaleMax.Quantity != wantMax || mig.ScaleMax.From != fmt.Sprintf("max_replicas of google_compute_autoscaler.a%d", i) {
			t.Fatalf("m%d: %+v", i, mig)
		}
		vmss, ok2 := got[fmt.Sprintf("azurerm_linux_virtual_machine_scale_set.vmss%d", i)]
		if !ok2 || vmss.ScaleMax == nil || vmss.ScaleMax.Quantity != wantMax || !strings.Contains(vmss.ScaleMax.From, fmt.Sprintf("azurerm_monitor_autoscale_setting.as%d", i)) {
			t.Fatalf("vmss%d: %+v", i, vmss)
		}
		asg, ok3 := got[fmt.Sprintf("aws_autoscaling_group.asg%d", i)]
		if want := []string{"g5.xlarge", "g6.xlarge", "p4d.24xlarge"}[i%3]; !ok3 || asg.InstanceType != want {
			t.Fatalf("asg%d: %+v, want %s", i, asg, want)
		}
		counted, ok4 := got[fmt.Sprintf("aws_autoscaling_group.counted[%d]", i)]
		if !ok4 || counted.InstanceType != "g6.xlarge" || len(counted.Unresolved) > 0 {
			t.Fatalf("counted[%d]: %+v", i, counted)
		}
	}
}

// BenchmarkLargeModule maps one module of 2,000 resources of each kind above (22,000
// resources, 8,000 of them GPU node groups): each mapper's lookup must not pass over the whole
// module (before the indexes, 1,000 of each took 1.5 s and 2,000 6.2 s).
func BenchmarkLargeModule(b *testing.B) {
	src := []byte(largeModule(2000))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		res := ParseSource("main.tf", src, Options{})
		if len(res.Errors) > 0 || len(res.Resources) != 8000 {
			b.Fatalf("%d resources, errors %v", len(res.Resources), res.Errors)
		}
	}
}
