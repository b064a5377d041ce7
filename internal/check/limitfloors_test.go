package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
)

// floorWarnings checks the files and returns the warnings that say a limit holds fewer pods
// than their floors.
func floorWarnings(t *testing.T, files map[string]string, args ...string) []parser.Error {
	t.Helper()
	root := t.TempDir()
	testutil.WriteFiles(t, root, files)
	doc := Run([]string{root}, Options{Catalog: catalog.MustDefault(), Region: "us-east-1"})
	if len(doc.Errors) > 0 {
		t.Fatalf("errors: %v", doc.Errors)
	}
	var out []parser.Error
	for _, w := range doc.Warnings {
		if strings.Contains(w.Message, "no node is created past the limit") {
			w.File, _ = filepath.Rel(root, w.File)
			out = append(out, w)
		}
	}
	return out
}

const karpenterPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  limits: {nvidia.com/gpu: 4}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.xlarge]}
`

func gpuDeployment(name string, replicas string) string {
	return `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ` + name + `, namespace: ml}
spec:
  replicas: ` + replicas + `
  template:
    spec:
      nodeSelector: {karpenter.sh/nodepool: gpu}
      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
`
}

// Two Deployments on one Karpenter NodePool, each within its GPU limit alone but past it
// together: Karpenter launches nodes for four of their six pods.
func TestKarpenterFloorsPastTheLimitTogether(t *testing.T) {
	ws := floorWarnings(t, map[string]string{"k8s/gpu.yaml": karpenterPool + gpuDeployment("a", "3") + gpuDeployment("b", "3")})
	if len(ws) != 1 || ws[0].File != filepath.Join("k8s", "gpu.yaml") || ws[0].Line != 12 ||
		!strings.Contains(ws[0].Message, "Deployment/ml/a and Deployment/ml/b need 6 at their floors together (3 + 3), but NodePool/gpu's limit of 4 nvidia.com/gpu holds 4") {
		t.Fatalf("warnings %v", ws)
	}
	// The pool and the workloads in three files of one directory: one pool, one limit.
	ws = floorWarnings(t, map[string]string{"k8s/pool.yaml": karpenterPool, "k8s/a.yaml": gpuDeployment("a", "3"), "k8s/b.yaml": gpuDeployment("b", "3")})
	if len(ws) != 1 || ws[0].File != filepath.Join("k8s", "a.yaml") || !strings.Contains(ws[0].Message, "need 6 at their floors together (3 + 3)") {
		t.Fatalf("files apart: warnings %v", ws)
	}
	// Within the limit together: nothing to say.
	if ws := floorWarnings(t, map[string]string{"k8s/gpu.yaml": karpenterPool + gpuDeployment("a", "2") + gpuDeployment("b", "2")}); len(ws) > 0 {
		t.Fatalf("within the limit: %v", ws)
	}
}

// A manifest beside a Terraform GKE cluster runs on the nodes its auto-provisioning creates,
// within the limit its own kubernetes_manifest workers fill already: the YAML pods are read in
// another root, yet counted in the cluster's limit with the workers.
func TestGKEAutoProvisionedFloorsPastTheLimitTogether(t *testing.T) {
	tf, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terraform", "gke_auto_provisioning", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	serve := func(gpus string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  replicas: 1
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}
      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: ` + gpus + `}}}]
`
	}
	// The fixture's workers take 8 of the 8 H100s: 4 more are past it.
	ws := floorWarnings(t, map[string]string{"infra/main.tf": string(tf), "apps/serve.yaml": serve("4")})
	if len(ws) != 1 || ws[0].File != filepath.Join("apps", "serve.yaml") || ws[0].Line != 1 ||
		!strings.Contains(ws[0].Message, "Deployment/ml/serve and kubernetes_manifest.finetune need 12 at their floors together (4 + 8), but google_container_cluster.ml's limit of 8 nvidia-h100-80gb GPUs holds 8") {
		t.Fatalf("warnings %v", ws)
	}
	// The fixture's L4 pool (2 nodes of 2 L4s at its floor) within the 16 L4s, and a pod on
	// spot L4s, which the pool does not run: a pod of 12 fits beside the pool, one of 13 does
	// not.
	spotL4 := func(gpus string) string {
		return strings.ReplaceAll(serve(gpus), "nvidia-h100-80gb}", "nvidia-l4, cloud.google.com/gke-spot: \"true\"}")
	}
	l4 := spotL4("12")
	if ws := floorWarnings(t, map[string]string{"infra/main.tf": string(tf), "apps/serve.yaml": l4}); len(ws) > 0 {
		t.Fatalf("within the limit: %v", ws)
	}
	l4 = spotL4("13")
	ws = floorWarnings(t, map[string]string{"infra/main.tf": string(tf), "apps/serve.yaml": l4})
	if len(ws) != 1 || ws[0].File != filepath.Join("apps", "serve.yaml") ||
		!strings.Contains(ws[0].Message, "Deployment/ml/serve needs 13 at its floor, but google_container_cluster.ml's limit of 16 nvidia-l4 GPUs leaves it 12 after the floor of google_container_cluster.ml.node_pool[\"l4-serving\"] (4)") {
		t.Fatalf("warnings %v", ws)
	}
}

// A namespace's GPU quota caps its workloads' total at full scale-out: floors that fill it leave
// no growth. Floors past it are the parser's warning alone (the API server refuses the pods; no
// node waits for them).
func TestResourceQuotaCapsTheTotal(t *testing.T) {
	src := func(replicas string) string {
		return `apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: ml}
spec: {hard: {requests.nvidia.com/gpu: "4"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: a, namespace: ml}
spec:
  replicas: ` + replicas + `
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}
      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: a, namespace: ml}
spec: {scaleTargetRef: {kind: Deployment, name: a}, minReplicas: ` + replicas + `, maxReplicas: 20}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: b, namespace: ml}
spec:
  replicas: 1
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}
      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]
`
	}
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"ml.yaml": src("2")})
	doc := Run([]string{root}, Options{Catalog: catalog.MustDefault(), Region: "us-east-1"})
	if len(doc.Errors) > 0 || len(doc.Warnings) > 0 || len(doc.Resources) != 2 {
		t.Fatalf("errors %v, warnings %v, %d resources", doc.Errors, doc.Warnings, len(doc.Resources))
	}
	if m := doc.Totals.MaxMonthlyCost; m == nil || *m != doc.Totals.MonthlyCost {
		t.Errorf("max %v, want the floors' %v: they fill the quota", *m, doc.Totals.MonthlyCost)
	}
	testutil.WriteFiles(t, root, map[string]string{"ml.yaml": src("3")})
	doc = Run([]string{root}, Options{Catalog: catalog.MustDefault(), Region: "us-east-1"})
	if len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0].Message, "request 5 nvidia.com/gpu at their floors together, but ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 4) admits 4") {
		t.Errorf("warnings %v", doc.Warnings)
	}
}
