package terraform

import (
	"strings"
	"testing"
)

// A helm_release of Kueue's chart holds Kueue's configuration in its values
// (managerConfig.controllerManagerConfigYaml): the queues the configuration declares with
// kubernetes_manifest admit what it leaves in.
func TestKueueChartRelease(t *testing.T) {
	src := func(values string) string {
		return `resource "helm_release" "kueue" {
  name       = "kueue"
  namespace  = "kueue-system"
  repository = "oci://registry.k8s.io/kueue/charts"
  chart      = "kueue"
` + values + `}
` + kueueFlavorHCL + `resource "kubernetes_manifest" "queue" {
  manifest = {
    apiVersion = "kueue.x-k8s.io/v1beta1"
    kind       = "ClusterQueue"
    metadata   = { name = "train" }
    spec = {
      namespaceSelector = {}
      resourceGroups = [{
        coveredResources = ["cpu", "nvidia.com/gpu"]
        flavors = [{ name = "h100", resources = [{ name = "cpu", nominalQuota = 1000 }, { name = "nvidia.com/gpu", nominalQuota = 64 }] }]
      }]
    }
  }
}
` + kueueLocalQueueHCL + `resource "kubernetes_job_v1" "train" {
  metadata {
    name      = "train"
    namespace = "ml"
    labels    = { "kueue.x-k8s.io/queue-name" = "q" }
  }
  spec {
    template {
      metadata {}
      spec {
        container {
          name = "c"
          resources {
            requests = { cpu = "8" }
            limits   = { "nvidia.com/gpu" = 8, "vpc.amazonaws.com/efa" = 32 }
          }
        }
      }
    }
  }
}
`
	}
	for _, tc := range []struct {
		name, values string
		typ          string // the job's instance type; "" where Kueue never admits it
		note         string // among the job's notes
		warning      string // among the warnings
	}{
		{"no configuration", "", "", "", "covers no vpc.amazonaws.com/efa"},
		{"the release's values leave EFA out", `  values = [yamlencode({ managerConfig = { controllerManagerConfigYaml = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nresources: {excludeResourcePrefixes: [vpc.amazonaws.com/efa]}" } })]
`, "p5.48xlarge", "Kueue's configuration (helm_release.kueue's values, managerConfig.controllerManagerConfigYaml; main.tf:1) leaves vpc.amazonaws.com/efa out of quota", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, src(tc.values), Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			var warns []string
			for _, w := range res.Warnings {
				warns = append(warns, w.Message)
			}
			if got := strings.Join(warns, "\n"); tc.warning == "" && strings.Contains(got, "Kueue") || !strings.Contains(got, tc.warning) {
				t.Errorf("warnings %q, want %q", got, tc.warning)
			}
			job := byAddress(t, res)["kubernetes_job_v1.train"]
			if job.InstanceType != tc.typ || !strings.Contains(strings.Join(job.Notes, "\n"), tc.note) {
				t.Errorf("priced on %q, notes %q; want %q and %q", job.InstanceType, job.Notes, tc.typ, tc.note)
			}
		})
	}
}
