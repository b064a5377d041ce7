package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A helm_release whose chart cannot be rendered says why at the release's line: a chart outside
// the checked directories, a directory that is not a chart, values that are not YAML. A remote
// chart is a warning only when its values ask for GPUs.
func TestHelmReleaseProblems(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "notachart"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ body, want string }{
		{`chart = "/etc"`, "outside"},
		{`chart = "./notachart"`, "is not a Helm chart (no Chart.yaml)"},
		{"chart = \"./notachart\"\n  values = [\"a: [\"]", "values[0]"},
		{"repository = \"https://charts.example.com\"\n  chart = \"x\"\n  set {\n    name = \"resources.limits.nvidia\\\\.com/gpu\"\n    value = \"1\"\n  }", "comes from https://charts.example.com, which gpuguard does not download"},
		{"repository = \"https://charts.example.com\"\n  chart = \"ingress\"", ""},
		{`chart = "bitnami/nginx"`, ""}, // a chart of a repository helm repo add knows
		{"chart = \"oci://registry.example.com/charts/llm\"\n  values = [\"resources: {limits: {nvidia.com/gpu: 1}}\"]", "comes from its repository"},
	}
	for _, tc := range cases {
		src := "resource \"helm_release\" \"r\" {\n  name = \"r\"\n  " + tc.body + "\n}\n"
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		res := ParseModuleDir(dir, Options{FileDirs: []string{dir}})
		var msgs []string
		for _, e := range append(res.Errors, res.Warnings...) {
			msgs = append(msgs, e.Message)
		}
		got := strings.Join(msgs, "|")
		if tc.want == "" && got != "" || tc.want != "" && (!strings.Contains(got, tc.want) || len(res.Resources) != 0) {
			t.Errorf("%s: %q, resources %d", tc.body, got, len(res.Resources))
		}
	}
}

// The NVIDIA device plugin installed by a helm_release of its chart (or of the GPU Operator's)
// shares GPUs as its values say, for the configuration's own Kubernetes objects: the chart is not
// downloaded, its values are read. No warning says GPUs are not counted: the values name
// nvidia.com/gpu only to share it. A config the plugin would refuse is an error at the release.
func TestHelmReleaseSharesGPUs(t *testing.T) {
	deployment := `
resource "kubernetes_deployment_v1" "embed" {
  metadata {
    name = "embed"
  }
  spec {
    replicas = 4
    template {
      metadata {}
      spec {
        node_selector = { "node.kubernetes.io/instance-type" = "g5.xlarge" }
        container {
          name = "c"
          resources {
            limits = { "nvidia.com/gpu" = 1 }
          }
        }
      }
    }
  }
}
`
	config := `
locals {
  time_slicing = <<-EOT
    version: v1
    sharing:
      timeSlicing:
        resources:
        - name: nvidia.com/gpu
          replicas: REPLICAS
  EOT
}
`
	plugin := config + `
resource "helm_release" "nvdp" {
  name       = "nvdp"
  namespace  = "nvidia"
  repository = "https://nvidia.github.io/k8s-device-plugin"
  chart      = "nvidia-device-plugin"
  values = [yamlencode({ config = { map = { default = local.time_slicing } } })]
}
`
	operator := `
resource "kubernetes_config_map_v1" "ts" {
  metadata {
    name      = "time-slicing-config"
    namespace = "gpu-operator"
  }
  data = {
    "a10g.yaml" = replace(local.time_slicing, "timeSlicing", "mps")
  }
}
` + config + `
resource "helm_release" "gpu_operator" {
  name       = "gpu-operator"
  namespace  = "gpu-operator"
  repository = "https://helm.ngc.nvidia.com/nvidia"
  chart      = "gpu-operator"
  set {
    name  = "devicePlugin.config.name"
    value = kubernetes_config_map_v1.ts.metadata[0].name
  }
  set {
    name  = "devicePlugin.config.default"
    value = "a10g.yaml"
  }
}
`
	for _, tc := range []struct {
		name, src string
		want      int
		strategy  string
		note      string
	}{
		{"the device plugin chart's config.map", strings.Replace(plugin, "REPLICAS", "4", 1) + deployment, 4, "time-slicing",
			"helm_release.nvdp's values (config.map, key default), the device plugin's default config, shares each GPU as 4 units of nvidia.com/gpu (time-slicing)"},
		{"the GPU Operator naming a kubernetes_config_map_v1", strings.Replace(operator, "REPLICAS", "2", 1) + deployment, 2, "mps",
			"ConfigMap gpu-operator/time-slicing-config, key a10g.yaml, the device plugin's default config in helm_release.gpu_operator's values, shares each GPU as 2 units"},
	} {
		res := ParseSource("main.tf", []byte(tc.src), Options{})
		if len(res.Errors) != 0 || len(res.Warnings) != 0 || len(res.Resources) != 1 {
			t.Fatalf("%s: errors %+v, warnings %+v, %d resources", tc.name, res.Errors, res.Warnings, len(res.Resources))
		}
		r := res.Resources[0]
		if r.Pod.SharedReplicas != tc.want || r.Pod.SharingStrategy != tc.strategy || !strings.Contains(strings.Join(r.Notes, "\n"), tc.note) {
			t.Errorf("%s: shared by %d (%s), notes %q\nwant %d (%s), %q", tc.name, r.Pod.SharedReplicas, r.Pod.SharingStrategy, r.Notes, tc.want, tc.strategy, tc.note)
		}
	}

	res := ParseSource("main.tf", []byte(strings.Replace(plugin, "REPLICAS", "0", 1)+deployment), Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 13 || !strings.Contains(res.Errors[0].Message, "helm_release.nvdp: config.map.default: the device plugin's sharing config") {
		t.Errorf("errors %+v, want one at the release's line naming config.map.default", res.Errors)
	}
}
