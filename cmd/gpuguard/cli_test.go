package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/testutil"
)

// testNow fixes the clock: suppression expiry is judged against it.
var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// cli runs the real command in-process, as a user would, and returns what it printed.
type cliResult struct {
	stdout, stderr string
	code           int
}

func runCLI(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	return runCLIEnv(t, nil, stdin, args...)
}

// runCLIEnv runs the command with vars as its whole environment.
func runCLIEnv(t *testing.T, vars map[string]string, stdin string, args ...string) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return vars[k] }, now: func() time.Time { return testNow }}
	code := runEnv(e, args)
	return cliResult{stdout: out.String(), stderr: errb.String(), code: code}
}

// repoRoot makes file paths in the output relative to the repository, as in the README.
func repoRoot(t *testing.T) {
	t.Helper()
	t.Chdir(filepath.Join("..", ".."))
}

func TestTerraformGolden(t *testing.T) {
	repoRoot(t)
	cases := []struct {
		name string
		args []string
		code int
	}{
		{name: "aws_instance"},
		{name: "aws_spot_instance_request"},
		{name: "aws_autoscaling_group"},
		{name: "aws_eks_node_group"},
		{name: "aws_batch"},
		{name: "aws_fleets"},
		{name: "attribute_based"},
		{name: "aws_sagemaker", code: exitFindings}, // GPU002: the notebook's workload does not fit
		{name: "google_compute_instance"},
		{name: "google_compute_instance_group_manager"},
		{name: "google_container_node_pool"},
		{name: "google_container_cluster"},
		{name: "gke_sandbox"},           // GKE Sandbox's label and taint: gVisor pods on the sandboxed pool, others off it
		{name: "host_network"},          // a Deployment on the host's network keeps one pod to a node: GPU011, the pool's one node holds one of two
		{name: "gke_auto_provisioning"}, // node auto-provisioning's GPU limits: capacity of their own, and a cap on the pools
		{name: "gcp_machine_from_gpus"}, // machine types known only at apply, named by their GPUs
		{name: "workbench"},
		{name: "vertex_ai"},
		{name: "cloud_run_gpu"},
		{name: "azurerm_virtual_machine"},
		{name: "azurerm_virtual_machine_scale_set"},
		{name: "azurerm_kubernetes_cluster"},
		{name: "device_plugin_sharing"}, // the device plugin's chart values time-slice the node group's GPUs
		{name: "azurerm_machine_learning"},
		{name: "azure_batch"},
		{name: "azapi"},
		{name: "container_apps_gpu"},
		{name: "databricks"},
		{name: "emr_dataproc"},
		{name: "emr_scaling"},
		{name: "terragrunt"},
		{name: "capacity_reservations"},
		{name: "variables", args: []string{"--var-file", "testdata/terraform/variables/override.tfvars", "--var", "from_var_flag=p5.4xlarge"}},
		{name: "count_for_each"},
		{name: "dynamic_blocks"},
		{name: "modules"},
		{name: "downloaded_modules"},
		{name: "registry_modules"},
		{name: "unpriced_types"},
		{name: "kubernetes_manifest", args: []string{"--region", "us-east-1"}},
		{name: "manifest_files", args: []string{"--region", "us-east-1"}},
		{name: "kubernetes_scaling", args: []string{"--region", "us-east-1"}},
		{name: "k8s_limit_range", args: []string{"--region", "us-east-1"}}, // a LimitRange's max gives the sidecar a GPU
		{name: "helm_release", args: []string{"--region", "us-east-1"}},
		{name: "tfjson"},
		{name: "plan"},
		{name: "unknown_type"},
		{name: "region_missing"},
		{name: "malformed", code: exitError},
		{name: "binary", code: exitError},
		{name: "module_cycle", code: exitError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"check", "testdata/terraform/" + tc.name, "--format", "json"}, tc.args...)
			r := runCLI(t, "", args...)
			if r.code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", "terraform", tc.name+".json"), []byte(r.stdout))
		})
	}
}

func TestCheckExitCodes(t *testing.T) {
	repoRoot(t)
	t.Run("bad flag", func(t *testing.T) {
		r := runCLI(t, "", "check", "--no-such-flag")
		if r.code != exitError || !strings.Contains(r.stderr, "unknown flag") {
			t.Fatalf("code %d stderr %q", r.code, r.stderr)
		}
	})
	t.Run("bad fail-on", func(t *testing.T) {
		r := runCLI(t, "", "check", "testdata/terraform/aws_instance", "--fail-on", "sometimes")
		if r.code != exitError || !strings.Contains(r.stderr, "--fail-on") {
			t.Fatalf("code %d stderr %q", r.code, r.stderr)
		}
	})
	t.Run("missing path", func(t *testing.T) {
		r := runCLI(t, "", "check", "testdata/terraform/does-not-exist", "--format", "json")
		if r.code != exitError || !strings.Contains(r.stdout, "does-not-exist") {
			t.Fatalf("code %d stdout %q", r.code, r.stdout)
		}
	})
	t.Run("bad format", func(t *testing.T) {
		r := runCLI(t, "", "check", "testdata/terraform/aws_instance", "--format", "yaml")
		if r.code != exitError || !strings.Contains(r.stderr, "unknown format") {
			t.Fatalf("code %d stderr %q", r.code, r.stderr)
		}
	})
	t.Run("malformed file does not hide good ones", func(t *testing.T) {
		r := runCLI(t, "", "check", "testdata/terraform/malformed", "--format", "json")
		var doc struct {
			Resources []struct{ Address string }
			Errors    []struct {
				File string
				Line int
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		if r.code != exitError || len(doc.Resources) != 1 || doc.Resources[0].Address != "aws_instance.fine" {
			t.Fatalf("code %d, resources %+v", r.code, doc.Resources)
		}
		if len(doc.Errors) != 1 || !strings.HasSuffix(doc.Errors[0].File, "bad/main.tf") || doc.Errors[0].Line != 9 {
			t.Fatalf("errors %+v", doc.Errors)
		}
	})
}

func TestCheckStdinHCL(t *testing.T) {
	src := `provider "aws" { region = "us-east-1" }
resource "aws_instance" "x" { instance_type = "g5.xlarge" }`
	r := runCLI(t, src, "check", "-", "--format", "json")
	if r.code != exitOK {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `"monthly_cost": 734.38`) {
		t.Fatalf("g5.xlarge from stdin not priced at 1.006 × 730:\n%s", r.stdout)
	}
}

func TestCheckOutputFileAndFormats(t *testing.T) {
	repoRoot(t)
	out := filepath.Join(t.TempDir(), "report.md")
	r := runCLI(t, "", "check", "testdata/terraform/aws_instance", "--format", "markdown", "--output", out)
	if r.code != exitOK || r.stdout != "" {
		t.Fatalf("code %d, stdout %q", r.code, r.stdout)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| `aws_instance.trainer[0]` | p4d.24xlarge | 8× NVIDIA A100 40GB | 1 | on-demand | us-east-1 | $16,029.08 |", "$32,351.91/month"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	r = runCLI(t, "", "check", "testdata/terraform/region_missing", "--format", "table")
	for _, want := range []string{"unpriced (1)", "in us-east-1 it would cost $734.38/month", "Total: $0.00/month for 3 GPU resources (3 unpriced, not in the total)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestVersion(t *testing.T) {
	r := runCLI(t, "", "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "gpuguard ") {
		t.Fatalf("%+v", r)
	}
}

func TestRegionFallback(t *testing.T) {
	src := `resource "aws_instance" "x" { instance_type = "g5.xlarge" }`
	r := runCLI(t, src, "check", "-", "--format", "json")
	if !strings.Contains(r.stdout, `"unpriced_reason": "no region: set it on the resource or its provider`) {
		t.Fatalf("a resource without any region was priced:\n%s", r.stdout)
	}
	r = runCLI(t, src, "check", "-", "--format", "json", "--region", "us-east-1")
	if !strings.Contains(r.stdout, `"monthly_cost": 734.38`) || !strings.Contains(r.stdout, "region us-east-1 from the default") {
		t.Fatalf("--region not applied:\n%s", r.stdout)
	}
}

// A region the catalog has no price for is unpriced, with what the nearest priced region would
// cost, unless --region-fallback nearest (or the config's region_fallback) asks for that rate as
// an estimate; a bad value is an error with the config's line.
func TestNearestRegionPrices(t *testing.T) {
	src := `resource "aws_instance" "x" { instance_type = "g5.xlarge" }`
	r := runCLI(t, src, "check", "-", "--format", "json", "--region", "sa-east-1")
	if !strings.Contains(r.stdout, `"unpriced_reason": "g5.xlarge has no price for region sa-east-1 in the catalog; in us-east-1 it would cost $734.38/month"`) {
		t.Fatalf("sa-east-1 priced without the fallback:\n%s", r.stdout)
	}
	r = runCLI(t, src, "check", "-", "--format", "json", "--region", "sa-east-1", "--region-fallback", "nearest")
	if !strings.Contains(r.stdout, `"monthly_cost": 734.38`) || !strings.Contains(r.stdout, `"price_estimated": true`) ||
		!strings.Contains(r.stdout, `no sa-east-1 price in the catalog: us-east-1's rate (region_fallback: nearest)`) {
		t.Fatalf("--region-fallback nearest not applied:\n%s", r.stdout)
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tf := write("main.tf", src)
	cfg := write(".gpuguard.yaml", "region: sa-east-1\nregion_fallback: nearest\n")
	if r = runCLI(t, "", "check", tf, "--format", "json", "--config", cfg); !strings.Contains(r.stdout, `"monthly_cost": 734.38`) {
		t.Fatalf("config region_fallback not applied (code %d): %s %s", r.code, r.stdout, r.stderr)
	}
	if r = runCLI(t, "", "check", tf, "--format", "json", "--config", cfg, "--region-fallback", "none"); strings.Contains(r.stdout, `"monthly_cost": 734.38`) {
		t.Fatalf("--region-fallback none did not override the config:\n%s", r.stdout)
	}
	bad := write("bad.yaml", "region: sa-east-1\nregion_fallback: closest\n")
	if r = runCLI(t, "", "check", tf, "--config", bad); r.code != exitError || !strings.Contains(r.stderr, "bad.yaml:2: region_fallback must be none or nearest") {
		t.Fatalf("bad region_fallback: code %d, stderr %s", r.code, r.stderr)
	}
}

func TestKubernetesGolden(t *testing.T) {
	repoRoot(t)
	cases := []struct {
		name string
		path string
		code int
	}{
		{"pod", "pod.yaml", 0},
		{"vllm", "vllm.yaml", exitFindings},                     // GPU002: the 70B server's profile, inferred from its arguments, does not fit
		{"sglang", "sglang.yaml", exitFindings},                 // GPU002: the 70B server's weights overflow SGLang's static share
		{"gpt-oss", "gpt-oss.yaml", exitFindings},               // GPU002: gpt-oss-120b's MXFP4 weights outgrow an L40S
		{"model-contexts", "model-contexts.yaml", exitFindings}, // GPU002: Mistral NeMo's 1,024,000-token context on an L40S
		{"deepseek", "deepseek.yaml", exitFindings},             // GPU002: DeepSeek R1's FP8 weights over eight H100s
		{"deployment-hpa", "deployment-hpa.yaml", 0},
		{"statefulset", "statefulset.yaml", 0},
		{"replicaset", "replicaset.yaml", 0},
		{"daemonset", "daemonset.yaml", 0},
		{"job", "job.yaml", 0},
		{"cronjob", "cronjob.yaml", 0},
		{"kubeflow", "kubeflow.yaml", 0},
		{"kubeflow-trainer", "kubeflow-trainer.yaml", 0},
		{"keda-scaledjob", "keda-scaledjob.yaml", 0},
		{"keda-cron", "keda-cron.yaml", 0},
		{"katib", "katib.yaml", 0},
		{"ray", "ray.yaml", 0},
		{"leaderworkerset", "leaderworkerset.yaml", 0},
		{"inferenceservice", "inferenceservice.yaml", exitFindings}, // GPU002: Llama 3.1 at its full context on an L4, from the Hugging Face runtime's arguments
		{"llminferenceservice", "llminferenceservice.yaml", 0},
		{"karpenter", "karpenter.yaml", 0},
		{"karpenter-gpu-pools", "karpenter-gpu-pools.yaml", 0},
		{"karpenter-limits", "karpenter-limits.yaml", 0},
		{"resource-quota", "resource-quota.yaml", 0},
		{"karpenter-weights", "karpenter-weights.yaml", 0},
		{"karpenter-gcp", "karpenter-gcp", 0},
		{"aks", "aks.yaml", 0},
		{"aks-nap", "aks-nap.yaml", 0},
		{"gke-computeclass", "gke-computeclass.yaml", 0},
		{"gke-n1-gpus", "gke-n1-gpus.yaml", 0},
		{"kueue", "kueue.yaml", 0},
		{"kueue-quota", "kueue-quota.yaml", 0},           // a Job past the first flavor's quota (and the cohort's loan) goes to the next; one asking for an uncovered resource is never admitted
		{"kueue-cohorts", "kueue-cohorts.yaml", 0},       // a Cohort object's own quota lends down the tree, up to a borrowingLimit: one Job borrows it, a larger one goes to spot
		{"kueue-dws", "kueue-dws.yaml", 0},               // an admission check through GKE's queued provisioning: flex-start VMs, the on-demand price an upper bound
		{"kueue-multikueue", "kueue-multikueue.yaml", 0}, // a MultiKueue admission check sends a Job to a worker cluster: priced on the manager's flavor, with a note
		{"kueue-config", "kueue-config.yaml", 0},         // Kueue's own configuration: an excluded EFA request, a MIG slice counted as GPU memory, a job with no queue suspended for good
		{"kueue-tas", "kueue-tas.yaml", 0},               // Kueue's topology-aware scheduling: a JobSet in slices of one node each, a Job required on one node that no node holds (GPU006), a Job that asks for none passing over a TAS flavor
		{"kueue-dra", "kueue-dra.yaml", 0},               // Kueue's deviceClassMappings count DRA devices against the queue: 16 GPUs go past the A100 flavor; allocationMode All is never admitted
		{"gpu-product", "gpu-product.yaml", 0},
		{"mig", "mig.yaml", 0},
		{"accelerators", "accelerators.yaml", 0},
		{"dra", "dra.yaml", 0},
		{"dra-nodes", "dra-nodes", 0},                          // claims' selectors choose among node groups
		{"dra-karpenter", "dra-karpenter.yaml", 0},             // and among Karpenter NodePools
		{"dra-mps", "dra-mps.yaml", exitFindings},              // GPU002: a 7B server under 5 and 8 GiB MPS memory limits
		{"dra-extended", "dra-extended.yaml", exitFindings},    // GPUs by DRA extended resource names; GPU002: a 7B server under a class's 6 GiB MPS limit
		{"dra-quota", "dra-quota.yaml", 0},                     // a quota on a device class's devices caps an HPA, after a shared claim's
		{"limit-range", "limit-range.yaml", 0},                 // a LimitRange's default requests size the pods' node shares; its pod max refuses a job
		{"runtime-class", "runtime-class.yaml", 0},             // a RuntimeClass's overhead moves a Kata pod to a larger node; its node selector places it, and refuses a pod that selects otherwise
		{"pod-level-resources", "pod-level-resources.yaml", 0}, // pod-level requests size the node; a pod-level limit is the request no container makes; a GPU at the pod level is refused
		{"anti-affinity", "anti-affinity.yaml", 0},             // pods kept one to a node by a required anti-affinity pay for whole nodes; GPU003 names the 1-GPU node
		{"karpenter-spread", "karpenter-spread.yaml", 0},       // a topology spread on the hostname: Karpenter puts at most maxSkew pods on a node, each pays its share of it
		{"host-ports", "host-ports.yaml", 0},                   // a host port (or the host's network with a container port) keeps the pods one to a node
		{"exclusive-placement", "exclusive-placement.yaml", 0}, // JobSet and LeaderWorkerSet exclusive placement, pods kept together on one node
		{"slurm-nodeset", "slurm-nodeset.yaml", 0},             // Slinky NodeSets: slurmd pods as Slurm compute nodes
		{"rolebasedgroup", "rolebasedgroup.yaml", 0},           // RoleBasedGroups: roles by template, templateRef and leader-worker; an exclusive set
		{"batch-and-serverless", "batch-and-serverless.yaml", 0},
		{"operators", "operators.yaml", 0},
		{"controllers", "controllers.yaml", 0},
		{"appwrapper", "appwrapper.yaml", 0},
		{"uniteddeployment", "uniteddeployment.yaml", 0},
		{"cloudrun", "cloudrun.yaml", 0},
		{"gpu-sharing", "gpu-sharing", 0},
		{"gpu-sharing-gitops", "gpu-sharing-gitops", 0},
		{"dynamo", "dynamo.yaml", 0},
		{"cluster-api", "cluster-api.yaml", 0},
		{"cluster-api-workloads", "cluster-api-workloads.yaml", 0},
		{"cluster-api-managed-pools", "cluster-api-managed-pools.yaml", 0},
		{"cluster-class", "cluster-class.yaml", 0},
		{"kaito", "kaito.yaml", 0},
		{"argo", "argo.yaml", 0},
		{"argo-rollouts", "argo-rollouts.yaml", 0},
		{"crossplane", "crossplane.yaml", 0},
		{"crossplane-composition", "crossplane-composition.yaml", 0},
		{"crossplane-scheduled", "crossplane-scheduled.yaml", 0},
		{"azure-service-operator", "azure-service-operator.yaml", 0},
		{"ack", "ack.yaml", 0},
		{"multi-document", "multi-document.yaml", 0},
		{"malformed", "malformed.yaml", exitError},
		{"cross-file", "cross-file", 0},
		{"with-config", "with-config", 0},
		{"kustomize", "kustomize", 0},
		{"kustomize-replacements", "kustomize-replacements", 0},
		{"helm-chart", "helm-chart", 0},
		{"terraform-node-groups", "terraform-node-groups", 0},
		{"node-group-zones", "node-group-zones", 0}, // Terraform pools' zones: replicas kept one a zone past them stay pending; a pod pinning a zone lands on the pool there
		{"eks-vpc-zones", "eks-vpc-zones", 0},       // EKS node groups name the zones of the VPC module's subnets they run in
		{"capacity-labels", "capacity-labels", 0},
		{"self-managed-nodes", "self-managed-nodes", 0},
		{"self-managed-gcp-azure", "self-managed-gcp-azure", 0},
		{"multi-cluster", "multi-cluster", 0},
		{"split-trees", "split-trees", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"check", "testdata/kubernetes/" + tc.path, "--format", "json"}
			switch tc.name {
			case "with-config":
			case "kaito": // KAITO adds Azure VMs to the cluster it runs in, whose region only the default names
				args = append(args, "--region", "eastus")
			case "karpenter-gcp":
				args = append(args, "--region", "us-central1")
			default:
				args = append(args, "--region", "us-east-1")
			}
			r := runCLI(t, "", args...)
			if r.code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", "kubernetes", tc.name+".json"), []byte(r.stdout))
		})
	}
}

// helm template ... | gpuguard check -
func TestKubernetesFromStdin(t *testing.T) {
	repoRoot(t)
	stream, err := os.ReadFile("testdata/kubernetes/helm-rendered.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, string(stream), "check", "-", "--format", "json", "--region", "us-east-1")
	if r.code != exitOK {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	testutil.Golden(t, filepath.Join("testdata", "golden", "kubernetes", "helm-stdin.json"), []byte(r.stdout))
}

func TestFitGolden(t *testing.T) {
	repoRoot(t)
	cases := []struct {
		name string
		args []string
	}{
		{"llama-7b-lora", []string{"testdata/profiles/llama-7b-lora.yaml", "--region", "us-east-1"}},
		{"vllm-llama-8b", []string{"testdata/profiles/vllm-llama-8b.yaml", "--region", "us-central1"}},
		{"llama-70b-fsdp", []string{"testdata/profiles/llama-70b-fsdp.yaml", "--instance-type", "p5.48xlarge", "--instance-type", "p4de.24xlarge", "--instance-type", "g5.xlarge", "--instance-type", "inf2.48xlarge"}},
		{"embedder-measured", []string{"testdata/profiles/embedder-measured.yaml", "--instance-type", "p4de.24xlarge", "--instance-type", "g6.xlarge", "--purchase-option", "spot"}},
		{"mistral-int4-azure", []string{"testdata/profiles/mistral-7b-small.yaml", "--region", "eastus"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, "", append([]string{"fit", "--format", "json"}, tc.args...)...)
			if r.code != exitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", "fit", tc.name+".json"), []byte(r.stdout))
		})
	}
	r := runCLI(t, "", "fit", "testdata/profiles/does-not-exist.yaml")
	if r.code != exitError || !strings.Contains(r.stderr, "does-not-exist.yaml") {
		t.Fatalf("missing profile: %+v", r)
	}
}

func TestProfileAttachment(t *testing.T) {
	repoRoot(t)
	r := runCLI(t, "", "check", "testdata/attach", "--format", "json")
	var doc struct {
		Resources []struct {
			Address string
			Profile *string
			Fit     struct{ Verdict, Reason string }
		}
		Errors []struct {
			File    string
			Line    int
			Message string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if r.code != exitError {
		t.Fatalf("a broken profile must fail the run: exit %d", r.code)
	}
	got := map[string]string{}
	for _, res := range doc.Resources {
		p := "-"
		if res.Profile != nil {
			p = *res.Profile
		}
		got[res.Address] = p + " " + res.Fit.Verdict
	}
	want := map[string]string{
		"aws_instance.by_config":       "profiles/small.yaml fits", // the config map wins over the tag
		"aws_instance.by_tag":          "profiles/small.yaml fits", // 18.3 GiB, 41% of an L40S
		"aws_instance.broken_profile":  "profiles/broken.yaml unknown",
		"aws_instance.missing_profile": "profiles/nope.yaml unknown",
		"aws_instance.config_missing":  "profiles/gone.yaml unknown",
		"aws_instance.bare_missing":    "absent unknown",
		"aws_instance.bare_unsized":    "unsized unknown",
		"Deployment/ml/annotated":      "profiles/small.yaml fits", // config glob wins over the annotation
		"Deployment/serving/annotated": "profiles/small.yaml fits",
	}
	for addr, w := range want {
		if got[addr] != w {
			t.Errorf("%s: %q, want %q", addr, got[addr], w)
		}
	}
	var msgs []string
	for _, e := range doc.Errors {
		msgs = append(msgs, fmt.Sprintf("%s:%d %s", e.File, e.Line, e.Message))
	}
	joined := strings.Join(msgs, "\n")
	// A profile with a mistake is an error at its line; a missing one where it is attached (the
	// tag's resource, the config's glob), saying where it was looked for.
	if len(doc.Errors) != 5 || !strings.Contains(joined, "testdata/attach/profiles/unsized.yaml:5 profile of aws_instance.bare_unsized: model.layers") || !strings.Contains(joined, "testdata/attach/profiles/broken.yaml:9 profile of aws_instance.broken_profile: unknown field max_seqence_length") ||
		!strings.Contains(joined, "testdata/attach/main.tf:21 profile profiles/nope.yaml of aws_instance.missing_profile: cannot read profile") ||
		!strings.Contains(joined, filepath.Join("profiles", "nope.yaml")+")") || !strings.Contains(joined, "(looked for ") ||
		!strings.Contains(joined, "testdata/attach/.gpuguard.yaml:5 profile profiles/gone.yaml of aws_instance.config_missing: cannot read profile") ||
		!strings.Contains(joined, "testdata/attach/main.tf:32 profile absent of aws_instance.bare_missing: cannot read profile") ||
		!strings.Contains(joined, filepath.Join("profiles", "absent")+".yaml and ") ||
		strings.Contains(joined, "max_seqence_length (looked for") {
		t.Fatalf("errors:\n%s", joined)
	}
}

func TestExampleGolden(t *testing.T) {
	repoRoot(t)
	r := runCLI(t, "", "check", "testdata/examples/ml-platform", "--format", "json")
	if r.code != exitOK {
		t.Fatalf("the README's example must pass: exit %d\n%s", r.code, r.stderr)
	}
	testutil.Golden(t, filepath.Join("testdata", "golden", "examples", "ml-platform.json"), []byte(r.stdout))
}

// The README shows the table of the example; it must be what the command prints.
func TestReadmeExampleTable(t *testing.T) {
	repoRoot(t)
	r := runCLI(t, "", "check", "testdata/examples/ml-platform", "--format", "table")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	testutil.Excerpt(t, "README.md", "$ gpuguard check testdata/examples/ml-platform --format table\n", "```", r.stdout)
}

func TestGuardrailsAndFailOn(t *testing.T) {
	repoRoot(t)
	args := []string{"check", "testdata/guardrails", "--policy", "testdata/policies-custom", "--format", "json"}
	r := runCLI(t, "", args...)
	if r.code != exitFindings {
		t.Fatalf("deny findings must exit 2, got %d: %s", r.code, r.stderr)
	}
	testutil.Golden(t, filepath.Join("testdata", "golden", "guardrails", "check.json"), []byte(r.stdout))
	var doc struct {
		Findings []struct {
			Rule, Severity, Address, File string
			Line                          int
			Suppressed                    bool
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range doc.Findings {
		seen[f.Rule+" "+f.Address] = true
		if f.Rule == "GPU007" && f.Address == "aws_instance.sandbox" && !f.Suppressed {
			t.Errorf("the active gpuguard:ignore comment did not waive GPU007: %+v", f)
		}
		if f.Rule == "GPU010" && (f.File != "testdata/guardrails/main.tf" || f.Line != 39) {
			t.Errorf("GPU010 must point at the suppression comment: %+v", f)
		}
	}
	for _, want := range []string{"GPU001 ", "GPU001 aws_eks_node_group.big", "GPU002 aws_instance.train[0]", "GPU004 aws_instance.serve",
		"GPU005 aws_instance.sandbox", "GPU010 aws_instance.sandbox", "ACME001 aws_instance.train[1]"} {
		if !seen[want] {
			t.Errorf("missing finding %q", want)
		}
	}
	// --fail-on never: findings never fail the run.
	if r := runCLI(t, "", append(args, "--fail-on", "never")...); r.code != exitOK {
		t.Errorf("--fail-on never: exit %d", r.code)
	}
	// Without the deny-level inputs, warnings fail only with --fail-on warn; the suppressed
	// GPU007 on the sandbox does not count.
	warnOnly := []string{"check", "testdata/examples/ml-platform", "--format", "json"}
	if r := runCLI(t, "", warnOnly...); r.code != exitOK {
		t.Errorf("warn findings with --fail-on deny: exit %d", r.code)
	}
	if r := runCLI(t, "", append(warnOnly, "--fail-on", "warn")...); r.code != exitFindings {
		t.Errorf("warn findings with --fail-on warn: exit %d", r.code)
	}
}

func TestPoliciesCommands(t *testing.T) {
	repoRoot(t)
	r := runCLI(t, "", "policies", "list", "--format", "table")
	if r.code != exitOK || !strings.Contains(r.stdout, "GPU004  warn      Spot capacity mismatch") {
		t.Fatalf("list: %+v", r)
	}
	r = runCLI(t, "", "policies", "test", "testdata/policies-custom")
	if r.code != exitOK || !strings.Contains(r.stdout, "3/3 tests passed") {
		t.Fatalf("test: %+v", r)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x_test.rego"), []byte("package x_test\n\ntest_fails if { 1 == 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "", "policies", "test", dir)
	if r.code != exitError || !strings.Contains(r.stdout, "FAIL x_test.test_fails") || !strings.Contains(r.stdout, "0/1 tests passed") {
		t.Fatalf("failing test: %+v", r)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.rego"), []byte("package main\n\ndeny contains x if { x := http.send({\"url\": \"http://example.com\", \"method\": \"GET\"}) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "", "check", "testdata/terraform/aws_instance", "--policy", dir, "--format", "json")
	if r.code != exitError || !strings.Contains(r.stderr, "bad.rego:3") || !strings.Contains(r.stderr, "http.send") {
		t.Fatalf("a policy calling http.send must not compile: %+v", r)
	}
}

// A pull request controls its Terraform, manifests and .gpuguard.yaml. None of them may make
// gpuguard read a file outside the checked tree and print it: not file() through a symlink or
// ../, not a profile path in a tag, the config or through a symlink. The secret sits beside
// the repository, as a runner's credentials would.
func TestInputCannotReadOutsideTheCheckedTree(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	testutil.WriteFiles(t, repo, map[string]string{
		".git/HEAD":      "ref: refs/heads/main\n",
		".gpuguard.yaml": "profiles:\n  aws_instance.by_config: profiles/linked.yaml\n",
		"infra/main.tf": `provider "aws" { region = "us-east-1" }
resource "aws_instance" "by_file" {
  for_each      = toset([trimspace(file("link.txt")), trimspace(file("../../secret.txt"))])
  instance_type = "g5.xlarge"
}
resource "aws_instance" "by_tag" {
  instance_type = "g5.xlarge"
  tags          = { gpuguard-profile = "../secret.txt" }
}
resource "aws_instance" "by_config" { instance_type = "g5.xlarge" }
`,
	})
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte("ghp_SECRETTOKEN\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"infra/link.txt": "secret.txt", "profiles/linked.yaml": "secret.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(base, target), filepath.Join(repo, link)); err != nil {
			t.Skipf("no symlinks: %v", err)
		}
	}
	for _, format := range []string{"json", "markdown", "table", "sarif", "github"} {
		r := runCLI(t, "", "check", filepath.Join(repo, "infra"), "--format", format, "--fail-on", "never")
		if r.code != exitError || !strings.Contains(r.stdout, "by_config") {
			t.Fatalf("%s: exit %d (want %d: the unreadable profiles are input errors)\n%s%s", format, r.code, exitError, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, "ghp_") {
			t.Fatalf("%s output shows the secret:\n%s\n%s", format, r.stdout, r.stderr)
		}
		if format != "json" {
			continue
		}
		var doc struct {
			Resources []struct {
				Address    string
				Unresolved []struct{ Reason string }
				Fit        struct{ Reason string }
			}
			Errors []struct{ Message string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		outside := 0
		for _, res := range doc.Resources {
			for _, u := range res.Unresolved {
				if strings.Contains(u.Reason, "outside the checked directories") {
					outside++
				}
			}
		}
		for _, e := range doc.Errors {
			if strings.Contains(e.Message, "outside the checked directories") {
				outside++
			}
		}
		if outside < 3 {
			t.Errorf("want the symlinked file(), the tag's profile and the config's symlinked profile refused as outside; got %+v", doc)
		}
	}
}

// A profiles glob with a | picks one Terragrunt unit among those that deploy the same address.
func TestProfileGlobByRoot(t *testing.T) {
	repoRoot(t)
	dir := t.TempDir()
	prof, err := os.ReadFile("testdata/profiles/llama-7b-lora.yaml")
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFiles(t, dir, map[string]string{
		"profiles/llama.yaml": string(prof),
		".gpuguard.yaml":      "profiles:\n  \"testdata/terraform/terragrunt/live/prod/*|aws_eks_node_group.gpu\": profiles/llama.yaml\n",
	})
	r := runCLI(t, "", "check", "testdata/terraform/terragrunt", "--config", filepath.Join(dir, ".gpuguard.yaml"), "--format", "json")
	var doc struct {
		Resources []struct {
			ID      string
			Profile *string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stderr)
	}
	attached := map[string]bool{}
	for _, res := range doc.Resources {
		attached[res.ID] = res.Profile != nil
	}
	if !attached["testdata/terraform/terragrunt/live/prod/training|aws_eks_node_group.gpu"] || attached["testdata/terraform/terragrunt/live/dev/training|aws_eks_node_group.gpu"] {
		t.Fatalf("attached %v", attached)
	}
}

// A chart is rendered with the values files the config names for it, over its values.yaml; a
// values file outside the project is a config error with its line.
func TestHelmValuesFromConfig(t *testing.T) {
	repoRoot(t)
	chart, err := filepath.Abs("testdata/kubernetes/helm-chart")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"values-prod.yaml": "autoscaling:\n  enabled: false\nreplicaCount: 4\nresources:\n  limits:\n    nvidia.com/gpu: 4\nnodeSelector:\n  node.kubernetes.io/instance-type: g6e.12xlarge\nbatch:\n  enabled: false\n",
		".gpuguard.yaml":   "kubernetes:\n  helm_values:\n    " + strconv.Quote(chart) + ": [values-prod.yaml]\n",
		"bad.yaml":         "kubernetes:\n  helm_values:\n    " + strconv.Quote(chart) + ":\n      - /etc/hostname\n",
	})
	r := runCLI(t, "", "check", "testdata/kubernetes/helm-chart", "--config", filepath.Join(dir, ".gpuguard.yaml"), "--format", "json")
	var doc struct {
		Resources []struct {
			Address      string
			InstanceType string `json:"instance_type"`
			Quantity     int
			Notes        []string
		}
		Errors []struct{ Message string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stderr)
	}
	if len(doc.Resources) != 1 || doc.Resources[0].InstanceType != "g6e.12xlarge" || doc.Resources[0].Quantity != 4 || !strings.Contains(strings.Join(doc.Resources[0].Notes, " "), "with values.yaml and values-prod.yaml") {
		t.Fatalf("resources %+v errors %+v", doc.Resources, doc.Errors)
	}
	r = runCLI(t, "", "check", "testdata/kubernetes/helm-chart", "--config", filepath.Join(dir, "bad.yaml"), "--format", "json")
	if r.code != exitError || !strings.Contains(r.stdout, "bad.yaml") || !strings.Contains(r.stdout, "kubernetes.helm_values") || !strings.Contains(r.stdout, "outside") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// GPUs attached where GCP refuses them are a warning at the resource's line: terraform apply
// would fail. The resource is still priced as written.
func TestRefusedAttachedGPUsAreWarned(t *testing.T) {
	src := `provider "google" {
  region = "us-central1"
}

resource "google_compute_instance" "ok" {
  name         = "ok"
  machine_type = "n1-standard-8"
  zone         = "us-central1-a"
  guest_accelerator {
    type  = "nvidia-tesla-t4"
    count = 1
  }
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
}

resource "google_compute_instance" "too_big" {
  name         = "too-big"
  machine_type = "n1-standard-64"
  zone         = "us-central1-a"
  guest_accelerator {
    type  = "nvidia-tesla-t4"
    count = 1
  }
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
}
`
	r := runCLI(t, src, "check", "-", "--format", "json")
	var doc struct {
		Resources []struct {
			Address     string   `json:"address"`
			MonthlyCost *float64 `json:"monthly_cost"`
		} `json:"resources"`
		Warnings []struct {
			Line    int    `json:"line"`
			Message string `json:"message"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v: %s %s", err, r.stdout, r.stderr)
	}
	if len(doc.Resources) != 2 || doc.Resources[0].MonthlyCost == nil || doc.Resources[1].MonthlyCost == nil {
		t.Fatalf("resources %+v", doc.Resources)
	}
	if len(doc.Warnings) != 1 || doc.Warnings[0].Line != 18 ||
		!strings.Contains(doc.Warnings[0].Message, "google_compute_instance.too_big: GCP refuses n1-standard-64 with 1× nvidia-tesla-t4") ||
		!strings.Contains(doc.Warnings[0].Message, "terraform apply would fail") {
		t.Fatalf("warnings %+v", doc.Warnings)
	}
}

// The budgets at the maximum see what the other budgets do not: an AKS pool priced at its one
// node passes budgets.per_resource_monthly but not, at its max_count of 4, the budget at the
// maximum; the run fails on it (exit 2) and says why.
func TestBudgetsAtTheAutoscalersMaximum(t *testing.T) {
	repoRoot(t)
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		".gpuguard.yaml": "budgets:\n  per_resource_monthly: 1000\n  per_resource_monthly_at_max: 1000\n",
	})
	cfg := filepath.Join(dir, ".gpuguard.yaml")
	r := runCLI(t, "", "check", "testdata/terraform/azurerm_kubernetes_cluster", "--config", cfg, "--format", "json")
	var doc struct {
		Findings []struct{ Rule, Severity, Address, Message string }
		Totals   struct {
			Monthly float64  `json:"monthly_cost"`
			AtMax   *float64 `json:"max_monthly_cost"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stderr)
	}
	var gpu001 []string
	for _, f := range doc.Findings {
		if f.Rule == "GPU001" {
			gpu001 = append(gpu001, f.Address+": "+f.Message)
		}
	}
	want := "azurerm_kubernetes_cluster_node_pool.gpu: azurerm_kubernetes_cluster_node_pool.gpu can cost $1,297.74* a month at its declared maximum of 4 (max_count), over the per-resource budget at the maximum of $1,000.00 (budgets.per_resource_monthly_at_max)"
	if r.code != exitFindings || len(gpu001) != 1 || gpu001[0] != want {
		t.Fatalf("exit %d, GPU001 findings %q, want [%q]", r.code, gpu001, want)
	}
	if doc.Totals.AtMax == nil || *doc.Totals.AtMax <= doc.Totals.Monthly {
		t.Errorf("totals %+v", doc.Totals)
	}
}

// --explain follows the table with how each resource's numbers are made: on real runs, every
// priced resource's rate × hours is the month the table shows, every price names its source and
// date, and an unpriced resource says why. The Markdown report and the diff table carry the same.
func TestExplain(t *testing.T) {
	repoRoot(t)
	costLine := regexp.MustCompile(`^      cost: \$([0-9,.]+)\*? an hour(?: for \d+ \w+)? × ([0-9.]+) hours = (\$[0-9,.]+)\*? a month$`)
	for _, path := range []string{"testdata/examples/ml-platform", "testdata/kubernetes/karpenter.yaml", "testdata/terraform/region_missing"} {
		r := runCLI(t, "", "check", path, "--format", "table", "--explain", "--fail-on", "never")
		var doc struct {
			Resources []struct {
				Address      string
				MonthlyCost  *float64                `json:"monthly_cost"`
				PriceSources []struct{ Date string } `json:"price_sources"`
			}
		}
		j := runCLI(t, "", "check", path, "--format", "json", "--fail-on", "never")
		if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		at := strings.Index(r.stdout, "\nHow each number is made:\n")
		if at < 0 {
			t.Fatalf("%s: no explanation:\n%s", path, r.stdout)
		}
		var blocks [][]string // a resource's line, then its explanation's
		for _, l := range strings.Split(strings.TrimRight(r.stdout[at+len("\nHow each number is made:\n"):], "\n"), "\n") {
			if strings.HasPrefix(l, "      ") && len(blocks) > 0 {
				blocks[len(blocks)-1] = append(blocks[len(blocks)-1], l)
			} else {
				blocks = append(blocks, []string{l})
			}
		}
		if len(blocks) != len(doc.Resources) {
			t.Fatalf("%s: %d explained, %d resources", path, len(blocks), len(doc.Resources))
		}
		for i, lines := range blocks {
			res := doc.Resources[i]
			b := strings.Join(lines, "\n")
			if !strings.HasPrefix(lines[0], "  "+res.Address+"  ") {
				t.Errorf("%s: block %d is %q, want %s", path, i, lines[0], res.Address)
				continue
			}
			if res.MonthlyCost == nil {
				if len(lines) < 2 || !strings.HasPrefix(lines[1], "      unpriced, not in the totals: ") {
					t.Errorf("%s: unpriced without its reason:\n%s", res.Address, b)
				}
				continue
			}
			m := costLine.FindStringSubmatch(lines[1])
			if m == nil {
				t.Errorf("%s: no cost line:\n%s", res.Address, b)
				continue
			}
			rate, _ := money.Parse(strings.ReplaceAll(m[1], ",", ""))
			hours, _ := strconv.ParseFloat(m[2], 64)
			if got := rate.Mul(hours).String(); got != m[3] || m[3] != money.FromDollars(*res.MonthlyCost).String() {
				t.Errorf("%s: %s × %s hours = %s, the line says %s, the JSON %v", res.Address, m[1], m[2], got, m[3], *res.MonthlyCost)
			}
			sources := 0
			for _, l := range lines[2:] {
				if strings.HasPrefix(l, "      price of ") {
					sources++
					if !strings.Contains(l, ", 20") && !strings.Contains(l, ", undated") {
						t.Errorf("%s: a price without its date: %s", res.Address, l)
					}
				}
			}
			if sources != len(res.PriceSources) || sources == 0 {
				t.Errorf("%s: %d price lines for %d sources", res.Address, sources, len(res.PriceSources))
			}
		}
	}
	md := runCLI(t, "", "check", "testdata/examples/ml-platform", "--format", "markdown", "--explain")
	if !strings.Contains(md.stdout, "**How each number is made:**\n\n- `CronJob/search/reindex` (testdata/examples/ml-platform/kubernetes/batch.yaml:1)\n  - cost: $0.8048 an hour × 62 hours = $49.90 a month\n") {
		t.Errorf("markdown:\n%s", md.stdout)
	}
	d := runCLI(t, "", "diff", "--base", "testdata/diff/increase/base", "--head", "testdata/diff/increase/head", "--format", "table", "--explain", "--fail-on", "never")
	explained := d.stdout[strings.Index(d.stdout, "How each number is made:"):]
	for _, want := range []string{"  aws_eks_node_group.train  ", "  aws_instance.serve[2]  ", "  aws_instance.experiment  ", "unpriced, not in the totals: p6e-gb200.36xlarge"} {
		if !strings.Contains(explained, want) {
			t.Errorf("diff: the changed resources are explained; %q missing:\n%s", want, explained)
		}
	}
	if strings.Contains(explained, "aws_instance.notebook") {
		t.Errorf("diff: an unchanged resource is explained:\n%s", explained)
	}
	if plain := runCLI(t, "", "check", "testdata/examples/ml-platform", "--format", "table"); strings.Contains(plain.stdout, "How each number") {
		t.Error("the explanation is shown without --explain")
	}
}
