package terraform

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
)

// Kubernetes workloads in a plan: the typed resource's blocks come as JSON lists, the manifest's
// object as it is.
func TestKubernetesWorkloadsInAPlan(t *testing.T) {
	plan := `{"format_version":"1.2","planned_values":{"root_module":{"resources":[
{"address":"kubernetes_deployment_v1.x","mode":"managed","type":"kubernetes_deployment_v1","name":"x","values":{"metadata":[{"name":"x","namespace":"ml"}],"spec":[{"replicas":"2","template":[{"metadata":[{}],"spec":[{"node_selector":{"node.kubernetes.io/instance-type":"g5.xlarge"},"container":[{"name":"c","resources":[{"limits":{"nvidia.com/gpu":"1"}}]}]}]}]}]}},
{"address":"kubernetes_manifest.y","mode":"managed","type":"kubernetes_manifest","name":"y","values":{"manifest":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeSelector":{"node.kubernetes.io/instance-type":"g6.xlarge"},"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":2}}}]}}}}
]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	var got []string
	for _, r := range res.Resources {
		got = append(got, fmt.Sprintf("%s %s %s x%d gpus=%d", r.Address, r.Type, r.InstanceType, r.Quantity, r.Pod.Requested))
	}
	want := "kubernetes_deployment_v1.x Deployment g5.xlarge x2 gpus=1,kubernetes_manifest.y Pod g6.xlarge x1 gpus=2"
	if strings.Join(got, ",") != want || len(res.Errors) != 0 {
		t.Fatalf("got %q, errors %+v\nwant %q", got, res.Errors, want)
	}
}

// A plan's Kubernetes objects are read together (an HPA declared by another resource sets the
// floor), and what is wrong in one is an error with the plan's name, not lost.
func TestKubernetesObjectsInAPlanAreReadTogether(t *testing.T) {
	plan := `{"format_version":"1.2","planned_values":{"root_module":{"resources":[
{"address":"kubernetes_manifest.d","mode":"managed","type":"kubernetes_manifest","name":"d","values":{"manifest":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ml"},"spec":{"replicas":1,"template":{"spec":{"nodeSelector":{"node.kubernetes.io/instance-type":"g5.xlarge"},"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}}}},
{"address":"kubernetes_manifest.hpa","mode":"managed","type":"kubernetes_manifest","name":"hpa","values":{"manifest":{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"d","namespace":"ml"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"minReplicas":4,"maxReplicas":8}}}},
{"address":"kubernetes_manifest.bad","mode":"managed","type":"kubernetes_manifest","name":"bad","values":{"manifest":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"lots"}}}]}}}}
]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	if len(res.Resources) != 1 || res.Resources[0].Address != "kubernetes_manifest.d" || res.Resources[0].Quantity != 4 {
		t.Fatalf("resources %+v", res.Resources)
	}
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "kubernetes_manifest.bad: ") || !strings.Contains(res.Errors[0].Message, "lots") {
		t.Fatalf("errors %+v", res.Errors)
	}
}

// A manifest known only at apply is said, not skipped in silence.
func TestUnknownManifestIsAWarning(t *testing.T) {
	src := "data \"http\" \"m\" {\n  url = \"https://example.com/deploy.json\"\n}\nresource \"kubernetes_manifest\" \"m\" {\n  manifest = jsondecode(data.http.m.response_body)\n}\n"
	res := ParseSource("main.tf", []byte(src), Options{})
	if len(res.Resources) != 0 || len(res.Warnings) != 1 || res.Warnings[0].Line != 4 ||
		!strings.Contains(res.Warnings[0].Message, "kubernetes_manifest.m: the manifest cannot be read before apply (data.http.m") {
		t.Fatalf("resources %d, warnings %+v, errors %+v", len(res.Resources), res.Warnings, res.Errors)
	}
}

// A GPU count known only at apply lists the workload unresolved, with the reason, in both the
// manifest and the typed form: not dropped, not an error about a null quantity.
func TestUnknownGPUCountIsUnresolved(t *testing.T) {
	src := `variable "gpus" {}
resource "kubernetes_manifest" "u" {
  manifest = { apiVersion = "v1", kind = "Pod", metadata = { name = "u" }, spec = { containers = [{ name = "c", resources = { limits = { "nvidia.com/gpu" = var.gpus } } }] } }
}
resource "kubernetes_pod_v1" "t" {
  metadata { name = "t" }
  spec {
    container {
      name = "c"
      resources { limits = { "nvidia.com/gpu" = var.gpus } }
    }
  }
}
`
	res := ParseSource("main.tf", []byte(src), Options{})
	if len(res.Errors) != 0 || len(res.Resources) != 2 {
		t.Fatalf("resources %d, errors %+v", len(res.Resources), res.Errors)
	}
	for _, r := range res.Resources {
		var got []string
		for _, u := range r.Unresolved {
			got = append(got, u.Attribute+": "+u.Reason)
		}
		if !strings.Contains(strings.Join(got, "; "), "nvidia.com/gpu: var.gpus has no value") {
			t.Errorf("%s: unresolved %q", r.Address, got)
		}
	}
}

// kubectl_manifest (the kubectl providers) declares its object as YAML text: a heredoc, a
// templatefile() or a plan's yaml_body is read like kubernetes_manifest's object, together with
// the others (a Karpenter NodePool in one picks the node of another's pods); a body known only
// at apply is a warning, and YAML that does not parse an error at the block.
func TestKubectlManifest(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"main.tf": `resource "kubectl_manifest" "pool" {
  yaml_body = <<-YAML
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: gpu
    spec:
      template:
        spec:
          requirements:
            - key: karpenter.k8s.aws/instance-family
              operator: In
              values: ["g6"]
          nodeClassRef:
            group: karpenter.k8s.aws
            kind: EC2NodeClass
            name: default
  YAML
}

resource "kubectl_manifest" "vllm" {
  yaml_body = templatefile("${path.module}/vllm.yaml", { replicas = 3 })
}

data "kubectl_file_documents" "docs" {
  content = file("${path.module}/vllm.yaml")
}

resource "kubectl_manifest" "docs" {
  for_each  = data.kubectl_file_documents.docs.manifests
  yaml_body = each.value
}

resource "kubectl_manifest" "broken" {
  yaml_body = "kind: Pod\nspec: [unclosed"
}
`,
		"vllm.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  replicas: ${replicas}
  template:
    spec:
      containers:
        - name: vllm
          resources:
            limits:
              nvidia.com/gpu: 1
`,
	})
	res := ParseModule(dir, []string{filepath.Join(dir, "main.tf")}, Options{FileDirs: []string{dir}})
	if len(res.Resources) != 1 {
		t.Fatalf("resources %+v, errors %+v, warnings %+v", res.Resources, res.Errors, res.Warnings)
	}
	r := res.Resources[0]
	if r.Address != "kubectl_manifest.vllm" || r.Quantity != 3 || r.Pod == nil || r.Pod.Requested != 1 ||
		len(r.Pod.Families) != 1 || r.Pod.Families[0] != "g6" || r.Source.Line != 21 {
		t.Errorf("%s ×%d at line %d, pod %+v: want the Deployment's 3 pods of 1 GPU on the NodePool's g6 family", r.Address, r.Quantity, r.Source.Line, r.Pod)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Line != 29 || !strings.Contains(res.Warnings[0].Message, "kubectl_manifest.docs: yaml_body cannot be read before apply (") {
		t.Errorf("warnings %+v", res.Warnings)
	}
	if len(res.Errors) != 1 || res.Errors[0].Line != 34 || !strings.Contains(res.Errors[0].Message, "kubectl_manifest.broken: ") {
		t.Errorf("errors %+v", res.Errors)
	}

	// override_namespace moves the Deployment into ml, where the HPA of another resource targets
	// it: its floor is the HPA's minReplicas. Without it, the HPA targets nothing.
	for _, tc := range []struct {
		override string
		qty      int
	}{{`override_namespace = "ml"`, 2}, {"", 4}} {
		dir := t.TempDir()
		testutil.WriteFiles(t, dir, map[string]string{"main.tf": `resource "kubectl_manifest" "hpa" {
  yaml_body = <<-YAML
    apiVersion: autoscaling/v2
    kind: HorizontalPodAutoscaler
    metadata: {name: vllm, namespace: ml}
    spec:
      scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: vllm}
      minReplicas: 2
      maxReplicas: 8
  YAML
}

resource "kubectl_manifest" "vllm" {
  ` + tc.override + `
  yaml_body = <<-YAML
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: vllm, namespace: staging}
    spec:
      replicas: 4
      template:
        spec:
          nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}
          containers: [{name: vllm, resources: {limits: {nvidia.com/gpu: 1}}}]
  YAML
}
`})
		res := ParseModule(dir, []string{filepath.Join(dir, "main.tf")}, Options{})
		if len(res.Resources) != 1 || res.Resources[0].Quantity != tc.qty || len(res.Errors) != 0 {
			t.Errorf("%q: resources %+v, errors %+v; want %d pods", tc.override, res.Resources, res.Errors, tc.qty)
		}
	}

	plan := `{"format_version":"1.2","planned_values":{"root_module":{"resources":[
{"address":"kubectl_manifest.p","mode":"managed","type":"kubectl_manifest","name":"p","values":{"yaml_body":"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  nodeSelector:\n    node.kubernetes.io/instance-type: g6.xlarge\n  containers:\n    - name: c\n      resources:\n        limits:\n          nvidia.com/gpu: 1\n"}}
]}}}`
	pres := ParsePlan("plan.json", []byte(plan))
	if len(pres.Resources) != 1 || pres.Resources[0].Address != "kubectl_manifest.p" || pres.Resources[0].InstanceType != "g6.xlarge" || len(pres.Errors) != 0 {
		t.Errorf("plan: resources %+v, errors %+v", pres.Resources, pres.Errors)
	}
}

// The provider's typed autoscalers scale the typed workload they name, as a manifest HPA does,
// and a typed ReplicationController is read like a Deployment.
func TestTypedAutoscalersAndReplicationControllers(t *testing.T) {
	workload := func(typ, name, replicas, instance string) string {
		return `resource "` + typ + `" "` + name + `" {
  metadata {
    name      = "` + name + `"
    namespace = "ml"
  }
  spec {
    replicas = ` + replicas + `
    template {
      metadata {}
      spec {
        node_selector = { "node.kubernetes.io/instance-type" = "` + instance + `" }
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
	}
	hpa := func(typ, name, target, kind string, min, max int) string {
		return fmt.Sprintf(`resource "%s" "%s" {
  metadata {
    name      = "%s"
    namespace = "ml"
  }
  spec {
    min_replicas = %d
    max_replicas = %d
    scale_target_ref {
      kind = "%s"
      name = %s
    }
  }
}
`, typ, name, name, min, max, kind, target)
	}
	src := workload("kubernetes_deployment_v1", "api", "1", "g5.xlarge") +
		workload("kubernetes_replication_controller_v1", "ocr", "3", "g4dn.xlarge") +
		workload("kubernetes_stateful_set_v1", "db", "2", "g6.xlarge") +
		hpa("kubernetes_horizontal_pod_autoscaler_v2", "api", "kubernetes_deployment_v1.api.metadata[0].name", "Deployment", 2, 10) +
		hpa("kubernetes_horizontal_pod_autoscaler", "ocr", `"ocr"`, "ReplicationController", 4, 6)
	res := ParseSource("main.tf", []byte(src), Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	var got []string
	for _, r := range res.Resources {
		max := 0
		if r.ScaleMax != nil {
			max = r.ScaleMax.Quantity
		}
		got = append(got, fmt.Sprintf("%s %s %s x%d max %d", r.Address, r.Type, r.InstanceType, r.Quantity, max))
	}
	want := []string{
		"kubernetes_deployment_v1.api Deployment g5.xlarge x2 max 10",
		"kubernetes_replication_controller_v1.ocr ReplicationController g4dn.xlarge x4 max 6",
		"kubernetes_stateful_set_v1.db StatefulSet g6.xlarge x2 max 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A typed Kubernetes workload's env and env_from blocks reach the allocator settings the same
// way a manifest's do: a kubernetes_config_map_v1 of the module is a ConfigMap its container's
// env_from reads.
func TestTypedWorkloadReadsAllocatorSettingsFromAConfigMap(t *testing.T) {
	res := ParseSource("main.tf", []byte(`
resource "kubernetes_config_map_v1" "torch" {
  metadata {
    name      = "torch-env"
    namespace = "ml"
  }
  data = { PYTORCH_ALLOC_CONF = "expandable_segments:True" }
}
resource "kubernetes_job_v1" "train" {
  metadata {
    name      = "train"
    namespace = "ml"
  }
  spec {
    template {
      metadata {}
      spec {
        node_selector = { "node.kubernetes.io/instance-type" = "g6e.xlarge" }
        container {
          name  = "trainer"
          image = "trainer"
          env_from {
            config_map_ref { name = kubernetes_config_map_v1.torch.metadata[0].name }
          }
          resources { limits = { "nvidia.com/gpu" = 1 } }
        }
      }
    }
  }
}
`), Options{})
	r, ok := byAddress(t, res)["kubernetes_job_v1.train"]
	if !ok || r.Pod == nil {
		t.Fatalf("no pod: %+v", res.Resources)
	}
	if r.Pod.PyTorchAllocConf != "expandable_segments:True" || r.Pod.PyTorchAllocConfFrom != "container trainer's PYTORCH_ALLOC_CONF (from ConfigMap ml/torch-env)" {
		t.Errorf("%q from %q", r.Pod.PyTorchAllocConf, r.Pod.PyTorchAllocConfFrom)
	}
}

// kueueFlavorHCL is a Kueue ResourceFlavor h100 of p5.48xlarge nodes, and kueueLocalQueueHCL
// the LocalQueue ml/q of ClusterQueue train, as kubernetes_manifest resources.
const (
	kueueFlavorHCL = `resource "kubernetes_manifest" "flavor" {
  manifest = {
    apiVersion = "kueue.x-k8s.io/v1beta1"
    kind       = "ResourceFlavor"
    metadata   = { name = "h100" }
    spec       = { nodeLabels = { "node.kubernetes.io/instance-type" = "p5.48xlarge" } }
  }
}
`
	kueueLocalQueueHCL = `resource "kubernetes_manifest" "local_queue" {
  manifest = {
    apiVersion = "kueue.x-k8s.io/v1beta1"
    kind       = "LocalQueue"
    metadata   = { name = "q", namespace = "ml" }
    spec       = { clusterQueue = "train" }
  }
}
`
)

// Kueue's objects declared with kubernetes_manifest place a typed Job queued on them: an empty
// namespaceSelector written in HCL ({}) admits all namespaces, and the flavor's quota decides.
func TestKueueFromTerraform(t *testing.T) {
	src := func(selector string, quota int) string {
		return fmt.Sprintf(`
`+kueueFlavorHCL+`resource "kubernetes_manifest" "cq" {
  manifest = {
    apiVersion = "kueue.x-k8s.io/v1beta1"
    kind       = "ClusterQueue"
    metadata   = { name = "train" }
    spec = {
      %s
      resourceGroups = [{
        coveredResources = ["nvidia.com/gpu"]
        flavors          = [{ name = "h100", resources = [{ name = "nvidia.com/gpu", nominalQuota = %d }] }]
      }]
    }
  }
}
`+kueueLocalQueueHCL+`resource "kubernetes_job_v1" "train" {
  metadata {
    name      = "train"
    namespace = "ml"
    labels    = { "kueue.x-k8s.io/queue-name" = "q" }
  }
  spec {
    parallelism = 2
    template {
      metadata {}
      spec {
        container {
          name  = "t"
          image = "x"
          resources {
            limits = { "nvidia.com/gpu" = 8 }
          }
        }
      }
    }
  }
}
`, selector, quota)
	}
	res := ParseSource("main.tf", []byte(src("namespaceSelector = {}", 16)), Options{})
	if len(res.Resources) != 1 || res.Resources[0].InstanceType != "p5.48xlarge" || len(res.Warnings) != 0 || len(res.Errors) != 0 {
		t.Fatalf("admitted: %+v, warnings %v, errors %v", res.Resources, res.Warnings, res.Errors)
	}
	for want, s := range map[string]string{
		"ClusterQueue train sets no namespaceSelector":                                                              src("", 16),
		"no flavor of ClusterQueue train holds its pods' nvidia.com/gpu (h100: 16 nvidia.com/gpu asked, 8 at most)": src("namespaceSelector = {}", 8),
	} {
		res := ParseSource("main.tf", []byte(s), Options{})
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "kubernetes_job_v1.train: Job/ml/train: Kueue never admits it: "+want) {
			t.Errorf("want %q: warnings %v", want, res.Warnings)
		}
	}
}
