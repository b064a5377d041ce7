package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/terraform"
)

const gpu = "provider \"aws\" { region = \"us-east-1\" }\nresource \"aws_instance\" \"x\" { instance_type = \"g5.xlarge\" }\n"

func addresses(t *testing.T, root string, paths ...string) []string {
	t.Helper()
	res := Scan(paths, Options{})
	var out []string
	for _, r := range res.Resources {
		rel, _ := filepath.Rel(root, r.Source.File)
		out = append(out, filepath.ToSlash(rel)+" "+r.Address)
	}
	sort.Strings(out)
	return out
}

func TestDiscoverySkipsToolDirectories(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"infra/main.tf":                      gpu,
		"infra/.terraform/modules/x/main.tf": gpu,
		"infra/vendor/main.tf":               gpu,
		"node_modules/pkg/main.tf":           gpu,
		".git/hooks/main.tf":                 gpu,
		".hidden/main.tf":                    gpu,
		"other/stack/main.tf":                gpu,
		"other/stack/terraform.tfvars":       "x = 1\n",
		"other/README.md":                    "# not an input\n",
		"other/package.json":                 `{"name": "x"}`,
	})
	got := addresses(t, root, root)
	want := []string{"infra/main.tf aws_instance.x", "other/stack/main.tf aws_instance.x"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestLocalModulesAreNotCountedTwice(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"live/main.tf":           "provider \"aws\" { region = \"us-east-1\" }\nmodule \"m\" { source = \"../modules/gpu\" }\n",
		"modules/gpu/main.tf":    "resource \"aws_instance\" \"x\" { instance_type = \"g5.xlarge\" }\nmodule \"inner\" { source = \"./inner\" }\n",
		"modules/gpu/inner/a.tf": "resource \"aws_instance\" \"y\" { instance_type = \"g6.xlarge\" }\n",
		"standalone/main.tf":     gpu,
	})
	got := addresses(t, root, root)
	want := []string{"modules/gpu/inner/a.tf module.m.module.inner.aws_instance.y", "modules/gpu/main.tf module.m.aws_instance.x", "standalone/main.tf aws_instance.x"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Named explicitly, a module directory is a root of its own.
	got = addresses(t, root, filepath.Join(root, "modules", "gpu"))
	if len(got) != 2 || !strings.HasSuffix(got[1], " aws_instance.x") {
		t.Fatalf("explicit module dir: %v", got)
	}
}

func TestStdinIsSniffed(t *testing.T) {
	res := Scan([]string{"-"}, Options{Stdin: strings.NewReader(gpu)})
	if len(res.Resources) != 1 || res.Resources[0].Source.File != "<stdin>.tf" {
		t.Fatalf("HCL on stdin: %+v %v", res.Resources, res.Errors)
	}
	res = Scan([]string{"-"}, Options{Stdin: strings.NewReader("hello world")})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "unrecognised input") {
		t.Fatalf("garbage on stdin: %+v", res.Errors)
	}
}

func TestExplicitFiles(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"a/main.tf": gpu, "a/notes.txt": "x", "a/vars.tfvars": "a = 1"})
	res := Scan([]string{filepath.Join(root, "a", "main.tf"), filepath.Join(root, "a", "notes.txt"), filepath.Join(root, "a", "vars.tfvars"), filepath.Join(root, "missing")}, Options{})
	if len(res.Resources) != 1 {
		t.Fatalf("resources: %+v", res.Resources)
	}
	var msgs []string
	for _, e := range res.Errors {
		msgs = append(msgs, filepath.Base(e.File)+": "+e.Message)
	}
	sort.Strings(msgs)
	if len(msgs) != 3 || !strings.Contains(msgs[0], "missing: cannot read") || !strings.Contains(msgs[1], "notes.txt: unrecognised file") || !strings.Contains(msgs[2], "--var-file") {
		t.Fatalf("errors: %v", msgs)
	}
}

func TestOversizedFilesAreSkippedWithAWarning(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("# padding\n", (16<<20)/10+10)
	testutil.WriteFiles(t, root, map[string]string{"a/main.tf": gpu + big, "b/main.tf": gpu})
	res := Scan([]string{root}, Options{})
	if len(res.Resources) != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "over the") {
		t.Fatalf("resources %d warnings %+v errors %+v", len(res.Resources), res.Warnings, res.Errors)
	}
}

// Symbolic links are followed when they stay inside the checked directories (a shared
// providers.tf or tfvars linked into each stack, a manifest linked from another folder) and
// not otherwise: a link out is a warning and its target is never read.
func TestLinksAreFollowedOnlyInside(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	testutil.WriteFiles(t, repo, map[string]string{
		"shared/providers.tf":    "provider \"aws\" { region = \"eu-west-1\" }\n",
		"shared/common.tfvars":   "gpu_type = \"g6.xlarge\"\n",
		"stack/main.tf":          "variable \"gpu_type\" {}\nresource \"aws_instance\" \"x\" { instance_type = var.gpu_type }\nmodule \"m\" { source = \"../modules/m\" }\n",
		"modules/m/main.tf":      "resource \"aws_instance\" \"y\" { instance_type = \"g5.xlarge\" }\n",
		"manifests/real/job.yml": "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train, namespace: ml}\nspec:\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n",
	})
	outside := filepath.Join(base, "outside")
	testutil.WriteFiles(t, outside, map[string]string{
		"evil.tf":   "resource \"aws_instance\" \"evil\" { instance_type = \"p5.48xlarge\" }\n",
		"evil.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: ghp_SECRET}\nspec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}\n",
	})
	for link, target := range map[string]string{
		"stack/providers.tf":     filepath.Join(repo, "shared", "providers.tf"),
		"stack/terraform.tfvars": filepath.Join(repo, "shared", "common.tfvars"),
		"manifests/job.yml":      filepath.Join(repo, "manifests", "real", "job.yml"),
		"stack/evil.tf":          filepath.Join(outside, "evil.tf"),
		"modules/m/evil.tf":      filepath.Join(outside, "evil.tf"),
		"manifests/evil.yaml":    filepath.Join(outside, "evil.yaml"),
		"manifests/linked-dir":   outside, // a link to a directory is not walked
		"stack/dangling.tf":      filepath.Join(repo, "missing.tf"),
	} {
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Skipf("no symlinks: %v", err)
		}
	}
	res := Scan([]string{repo}, Options{})
	var got []string
	for _, r := range res.Resources {
		rel, _ := filepath.Rel(repo, r.Source.File)
		got = append(got, filepath.ToSlash(rel)+" "+r.Address+" "+r.InstanceType+" "+r.Region)
	}
	sort.Strings(got)
	want := []string{
		"manifests/job.yml Job/ml/train g5.xlarge ",
		"manifests/real/job.yml Job/ml/train g5.xlarge ",
		"modules/m/main.tf module.m.aws_instance.y g5.xlarge eu-west-1",
		"stack/main.tf aws_instance.x g6.xlarge eu-west-1",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("resources\n got %q\nwant %q", got, want)
	}
	var warned []string
	for _, w := range res.Warnings {
		if strings.Contains(w.Message, "link out of the checked directories") {
			rel, _ := filepath.Rel(repo, w.File)
			warned = append(warned, filepath.ToSlash(rel))
		}
	}
	sort.Strings(warned)
	if strings.Join(warned, " ") != "manifests/evil.yaml modules/m/evil.tf stack/evil.tf" {
		t.Errorf("warnings %q (all: %+v)", warned, res.Warnings)
	}
	if dump := fmt.Sprintf("%+v", res); strings.Contains(dump, "ghp_") || strings.Contains(dump, "p5.48xlarge") {
		t.Errorf("a file outside was read: %s", dump)
	}
}

const gpuDeployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: chat, namespace: serving}\nspec:\n  replicas: 1\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6e.2xlarge}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"

// Helm charts are rendered with their default values; a chart gpuguard cannot render and
// other templates are left out with a warning naming the command that renders them, never
// input errors that fail the run.
func TestTemplatesAndCharts(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"charts/app/Chart.yaml":                  "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - {name: sub, version: 0.1.0}\n  - {name: vllm-stack, version: 0.1.5, repository: \"https://vllm-project.github.io/production-stack\"}\n",
		"charts/app/values.yaml":                 "replicas: 2\ngpus: 2\n",
		"charts/app/templates/deployment.yaml":   "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n  labels:\n    {{- include \"app.labels\" . | nindent 4 }}\nspec:\n  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6e.2xlarge}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: {{ .Values.gpus }}}}}]\n",
		"charts/app/templates/_helpers.tpl":      "{{- define \"app.labels\" -}}\napp: x\n{{- end }}\n",
		"charts/app/charts/sub/Chart.yaml":       "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"charts/app/charts/sub/templates/p.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: sub}\nspec:\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n",
		"charts/certs/Chart.yaml":                "apiVersion: v2\nname: certs\nversion: 0.1.0\n",
		"charts/certs/templates/secret.yaml":     "{{ $ca := genCA \"ca\" 365 }}\n",
		"ansible/pod.yaml":                       "apiVersion: v1\nkind: Pod\nmetadata:\n  labels:\n    {{ labels }}\n",
		"docs/templates/deploy.yaml":             gpuDeployment, // "templates" outside a chart is just a folder
	})
	res := Scan([]string{root}, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %+v", res.Errors)
	}
	var got []string
	for _, r := range res.Resources {
		rel, _ := filepath.Rel(root, r.Source.File)
		got = append(got, fmt.Sprintf("%s %s %d×%d", filepath.ToSlash(rel), r.Address, r.Quantity, r.Pod.Requested))
	}
	sort.Strings(got)
	// The chart's Deployment as its values render it; its subchart once, through the chart.
	want := "charts/app/charts/sub/templates/p.yaml Pod/default/sub 1×1|charts/app/templates/deployment.yaml Deployment/default/app 2×2|docs/templates/deploy.yaml Deployment/serving/chat 1×1"
	if strings.Join(got, "|") != want {
		t.Errorf("resources\n got %q\nwant %q", strings.Join(got, "|"), want)
	}
	var warned []string
	for _, w := range res.Warnings {
		rel, _ := filepath.Rel(root, w.File)
		switch {
		case strings.Contains(w.Message, "a Helm chart gpuguard could not render") && strings.Contains(w.Message, `function "genCA" not defined`) && strings.Contains(w.Message, "helm template"):
			warned = append(warned, "helm "+filepath.ToSlash(rel))
		case strings.Contains(w.Message, "a template ({{ … }})"):
			warned = append(warned, "template "+filepath.ToSlash(rel))
		case w.Message == "dependency vllm-stack 0.1.5 from https://vllm-project.github.io/production-stack is not in charts/ (run helm dependency build): what it deploys is not counted":
			warned = append(warned, "dependency "+filepath.ToSlash(rel))
		default:
			t.Errorf("unexpected warning %+v", w)
		}
	}
	sort.Strings(warned)
	if want := "dependency charts/app/Chart.yaml|helm charts/certs|template ansible/pod.yaml"; strings.Join(warned, "|") != want {
		t.Errorf("warnings %q, want %q", strings.Join(warned, "|"), want)
	}
}

// Each kustomization no other builds on is built and counted as it deploys: overlays with their
// patches, replica counts, namespaces and prefixes, under their own root. The base's manifests
// and the patch files are not counted again on their own; an autoscaler follows its renamed
// target within its overlay.
func TestKustomizationsAreBuilt(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"base/deploy.yaml":                 gpuDeployment,
		"base/hpa.yaml":                    "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: chat, namespace: serving}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: chat}\n  minReplicas: 2\n  maxReplicas: 8\n",
		"base/kustomization.yaml":          "resources: [deploy.yaml]\n",
		"overlays/prod/kustomization.yaml": "resources: [../../base, ../../base/hpa.yaml]\nnamePrefix: prod-\ncommonLabels: {env: prod}\npatches:\n  - path: gpu-patch.yaml\n  - target: {kind: Deployment, name: chat}\n    patch: |-\n      - op: replace\n        path: /spec/template/spec/nodeSelector/node.kubernetes.io~1instance-type\n        value: p4d.24xlarge\n",
		"overlays/prod/gpu-patch.yaml":     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: chat, namespace: serving}\nspec:\n  template:\n    spec:\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]\n",
		"overlays/dev/kustomization.yaml":  "resources: [../../base]\nnamespace: dev\nreplicas: [{name: chat, count: 3}]\n",
		"plain/job.yaml":                   strings.Replace(gpuDeployment, "name: chat", "name: plain", 1),
	})
	t.Chdir(root)
	res := Scan([]string{"."}, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %+v", res.Errors)
	}
	var got []string
	for _, r := range res.Resources {
		got = append(got, fmt.Sprintf("%s %s %s %s×%d gpu=%d line %d", r.Root, r.Address, filepath.ToSlash(r.Source.File), r.InstanceType, r.Quantity, r.Pod.Requested, r.Source.Line))
	}
	sort.Strings(got)
	want := []string{
		"overlays/dev Deployment/dev/chat base/deploy.yaml g6e.2xlarge×3 gpu=1 line 1",
		"overlays/prod Deployment/serving/prod-chat base/deploy.yaml p4d.24xlarge×2 gpu=2 line 1",
		"plain/job.yaml Deployment/serving/plain plain/job.yaml g6e.2xlarge×1 gpu=1 line 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resources\n got %q\nwant %q", got, want)
	}
	for _, r := range res.Resources {
		if r.Root == "overlays/prod" && r.Tags["env"] != "prod" {
			t.Errorf("commonLabels not applied: %+v", r.Tags)
		}
	}
}

// A Terragrunt unit deploys its module with its inputs, under its own root; the module's
// directory is not counted again on its own, and a configuration that deploys nothing says so.
func TestTerragruntUnitsDeployTheirModule(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"live/prod/gpu/terragrunt.hcl":    "terraform { source = \"../../../modules/gpu\" }\ninputs = { instance_type = \"p4d.24xlarge\" }\n",
		"live/dev/gpu/terragrunt.hcl":     "terraform { source = \"../../../modules//gpu\" }\n",
		"live/terragrunt.hcl":             "remote_state {}\n",
		"modules/gpu/main.tf":             "variable \"instance_type\" {}\nresource \"aws_instance\" \"g\" { instance_type = var.instance_type }\n",
		"live/stack/terragrunt.stack.hcl": "unit \"gpu\" {}\n",
	})
	t.Chdir(root)
	res := Scan([]string{"."}, Options{})
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Root] = r
	}
	if len(res.Resources) != 2 || got["live/prod/gpu"].InstanceType != "p4d.24xlarge" || got["live/dev/gpu"].InstanceType != "" || len(got["live/dev/gpu"].Unresolved) == 0 {
		t.Fatalf("resources %+v", res.Resources)
	}
	var nothing, stack bool
	for _, w := range res.Warnings {
		nothing = nothing || w.File == filepath.Join("live", "terragrunt.hcl") && strings.Contains(w.Message, "deploys nothing")
		stack = stack || strings.Contains(w.Message, "Terragrunt stack")
	}
	if !nothing || !stack || len(res.Errors) > 0 {
		t.Fatalf("warnings %+v errors %+v", res.Warnings, res.Errors)
	}
}

// A kustomization, a terragrunt.hcl or a Chart.yaml named on the command line is built,
// evaluated or rendered, not read as a manifest or skipped.
func TestNamedKustomizationAndUnitFiles(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"base/deploy.yaml":                 gpuDeployment,
		"base/kustomization.yaml":          "resources: [deploy.yaml]\n",
		"overlays/prod/kustomization.yaml": "resources: [../../base]\nreplicas: [{name: chat, count: 5}]\n",
		"modules/gpu/main.tf":              "variable \"t\" {}\nprovider \"aws\" { region = \"us-east-1\" }\nresource \"aws_instance\" \"g\" { instance_type = var.t }\n",
		"live/terragrunt.hcl":              "terraform { source = \"../modules/gpu\" }\ninputs = { t = \"g5.xlarge\" }\n",
		"chart/Chart.yaml":                 "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"chart/templates/pod.yaml":         "apiVersion: v1\nkind: Pod\nmetadata: {name: {{ .Chart.Name }}}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n",
	})
	t.Chdir(root)
	res := Scan([]string{"overlays/prod/kustomization.yaml", "live/terragrunt.hcl", "chart/Chart.yaml"}, Options{Terraform: terraform.Options{FileDirs: []string{"."}}})
	var got []string
	for _, r := range res.Resources {
		got = append(got, fmt.Sprintf("%s %s %s×%d", r.Root, r.Address, r.InstanceType, r.Quantity))
	}
	sort.Strings(got)
	if want := "chart Pod/default/c g6.xlarge×1|live aws_instance.g g5.xlarge×1|overlays/prod Deployment/serving/chat g6e.2xlarge×5"; strings.Join(got, "|") != want || len(res.Errors) > 0 {
		t.Fatalf("resources %q, want %q; errors %+v", got, want, res.Errors)
	}
}

// OpenTofu's .tofu files are configuration, and a .tofu file replaces the .tf file of its name,
// as OpenTofu loads it: walked, named, and in a local module.
func TestOpenTofuFiles(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"stack/main.tf":         "provider \"aws\" { region = \"us-east-1\" }\nresource \"aws_instance\" \"a\" { instance_type = \"g5.xlarge\" }\n",
		"stack/main.tofu":       "provider \"aws\" { region = \"us-east-1\" }\nresource \"aws_instance\" \"a\" { instance_type = \"g6.xlarge\" }\nmodule \"m\" { source = \"../mod\" }\n",
		"stack/extra.tofu.json": `{"resource": {"aws_instance": {"b": {"instance_type": "g6e.xlarge"}}}}`,
		"mod/main.tf":           "resource \"aws_instance\" \"c\" { instance_type = \"p4d.24xlarge\" }\n",
		"mod/main.tofu":         "resource \"aws_instance\" \"c\" { instance_type = \"p5.48xlarge\" }\n",
	})
	t.Chdir(root)
	res := Scan([]string{"."}, Options{})
	var got []string
	for _, r := range res.Resources {
		got = append(got, r.Address+"="+r.InstanceType)
	}
	sort.Strings(got)
	if want := "aws_instance.a=g6.xlarge|aws_instance.b=g6e.xlarge|module.m.aws_instance.c=p5.48xlarge"; strings.Join(got, "|") != want || len(res.Errors) > 0 {
		t.Fatalf("resources %q, want %q; errors %+v", got, want, res.Errors)
	}
}

// A chart is rendered with the values files configured for its directory; a diff's base tree
// finds them through the directory the working tree has the chart in.
func TestHelmValuesByChartDirectory(t *testing.T) {
	root := t.TempDir()
	chart := map[string]string{
		"Chart.yaml":                "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"values.yaml":               "gpus: 1\n",
		"templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec:\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6e.12xlarge}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: {{ .Values.gpus }}}}}]\n",
	}
	files := map[string]string{"prod.yaml": "gpus: 4\n"}
	for k, v := range chart {
		files["work/charts/app/"+k] = v
		files["base/charts/app/"+k] = v
	}
	testutil.WriteFiles(t, root, files)
	t.Chdir(filepath.Join(root, "work"))
	abs, _ := filepath.Abs(filepath.Join("charts", "app"))
	values := map[string][]string{abs: {filepath.Join(root, "prod.yaml")}}
	gpus := func(res parser.Result) int64 {
		if len(res.Resources) != 1 || res.Resources[0].Pod == nil {
			t.Fatalf("resources %+v errors %+v warnings %+v", res.Resources, res.Errors, res.Warnings)
		}
		return res.Resources[0].Pod.Requested
	}
	if n := gpus(Scan([]string{"charts"}, Options{HelmValues: values, Terraform: terraform.Options{FileDirs: []string{root}}})); n != 4 {
		t.Errorf("working tree: %d GPUs, want 4", n)
	}
	base := filepath.Join(root, "base")
	home := func(dir string) string { rel, _ := filepath.Rel(base, dir); return rel }
	if n := gpus(Scan([]string{filepath.Join(base, "charts")}, Options{HelmValues: values, Terraform: terraform.Options{FileDirs: []string{root}, ModulesHome: home}})); n != 4 {
		t.Errorf("base tree: %d GPUs, want 4", n)
	}
}

// Crossplane managed resources are priced wherever Kubernetes objects are read: manifests, and
// Terraform's kubernetes_manifest.
func TestCrossplaneManagedResources(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"k8s/nodes.yaml": "apiVersion: eks.aws.upbound.io/v1beta1\nkind: NodeGroup\nmetadata: {name: gpu}\nspec:\n  forProvider:\n    region: us-east-1\n    instanceTypes: [g6.xlarge]\n    scalingConfig: [{desiredSize: 2, maxSize: 3, minSize: 1}]\n",
		"tf/main.tf": `resource "kubernetes_manifest" "ng" {
  manifest = {
    apiVersion = "eks.aws.upbound.io/v1beta1"
    kind       = "NodeGroup"
    metadata   = { name = "gpu-tf" }
    spec = { forProvider = { region = "us-east-1", instanceTypes = ["g5.xlarge"], scalingConfig = [{ desiredSize = 3 }] } }
  }
}
`,
	})
	res := Scan([]string{root}, Options{})
	var got []string
	for _, r := range res.Resources {
		got = append(got, fmt.Sprintf("%s %s×%d %s", r.Address, r.InstanceType, r.Quantity, r.Region))
	}
	sort.Strings(got)
	if strings.Join(got, ", ") != "NodeGroup/gpu g6.xlarge×2 us-east-1, kubernetes_manifest.ng g5.xlarge×3 us-east-1" || len(res.Errors) > 0 {
		t.Fatalf("resources %q, errors %+v", got, res.Errors)
	}
}

// Manifests read beside a Terraform configuration run on the node group they select by its
// labels, whichever root declares it; a pod that names no node is not put on the Terraform's
// only GPU node group (nothing says the manifests are applied to that cluster).
func TestManifestsSelectTerraformNodeGroups(t *testing.T) {
	root := t.TempDir()
	pod := func(name, selector string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ml}\nspec:\n  nodeSelector: {" + selector + "}\n  containers:\n    - name: c\n      resources: {limits: {nvidia.com/gpu: 1}}\n"
	}
	testutil.WriteFiles(t, root, map[string]string{
		"infra/eks/main.tf": `provider "aws" { region = "us-west-2" }
resource "aws_eks_node_group" "gpu" {
  cluster_name    = "ml"
  node_group_name = "gpu"
  instance_types  = ["g6.12xlarge"]
  capacity_type   = "SPOT"
  labels          = { workload = "inference" }
  scaling_config {
    desired_size = 1
    max_size     = 2
    min_size     = 1
  }
}
`,
		"k8s/by-name.yaml":  pod("by-name", "eks.amazonaws.com/nodegroup: gpu"),
		"k8s/by-label.yaml": pod("by-label", "workload: inference"),
		"k8s/none.yaml":     pod("none", ""),
	})
	res := Scan([]string{root}, Options{})
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = fmt.Sprintf("%s %s %s", r.InstanceType, r.PurchaseOption, r.Region)
		if r.Pod != nil {
			got[r.Address] += " from " + r.Pod.NodeSource
		}
	}
	want := map[string]string{
		"aws_eks_node_group.gpu": "g6.12xlarge spot us-west-2",
		"Pod/ml/by-name":         "g6.12xlarge spot us-west-2 from aws_eks_node_group.gpu in " + filepath.ToSlash(filepath.Join(root, "infra/eks")) + " (the pod selects eks.amazonaws.com/nodegroup=gpu)",
		"Pod/ml/by-label":        "g6.12xlarge spot us-west-2 from aws_eks_node_group.gpu in " + filepath.ToSlash(filepath.Join(root, "infra/eks")) + " (the pod selects workload=inference)",
		"Pod/ml/none":            " on_demand  from ",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q\nwant %q", k, got[k], w)
		}
	}
	if len(got) != len(want) || len(res.Errors) > 0 {
		t.Errorf("resources %q, errors %+v", got, res.Errors)
	}
}

// The NVIDIA device plugin a Terraform configuration deploys (here from its Helm chart's values)
// shares the GPUs of that configuration's node groups for the pods of manifests read beside it
// too: each by the config its nodes take (the group's label, else the default). A group of
// another configuration, which deploys no plugin config, keeps its GPUs whole.
func TestTerraformDevicePluginSharesManifestPods(t *testing.T) {
	root := t.TempDir()
	pod := func(name, group string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ml}\nspec:\n  nodeSelector: {eks.amazonaws.com/nodegroup: " + group + "}\n  containers:\n    - name: c\n      resources: {limits: {nvidia.com/gpu: 1}}\n"
	}
	group := func(name, labels string) string {
		return `resource "aws_eks_node_group" "` + name + `" {
  cluster_name    = "ml"
  node_group_name = "` + name + `"
  instance_types  = ["g5.2xlarge"]
  labels          = {` + labels + `}
  scaling_config {
    desired_size = 1
    max_size     = 1
    min_size     = 1
  }
}
`
	}
	testutil.WriteFiles(t, root, map[string]string{
		"infra/shared/main.tf": `provider "aws" { region = "us-east-1" }
` + group("quarters", "") + group("halves", `"nvidia.com/device-plugin.config" = "two"`) + `
resource "helm_release" "nvdp" {
  name       = "nvdp"
  repository = "https://nvidia.github.io/k8s-device-plugin"
  chart      = "nvidia-device-plugin"
  values = [<<-EOT
    config:
      map:
        default: |-
          version: v1
          sharing:
            timeSlicing:
              resources:
              - name: nvidia.com/gpu
                replicas: 4
        two: |-
          version: v1
          sharing:
            timeSlicing:
              resources:
              - name: nvidia.com/gpu
                replicas: 2
  EOT
  ]
}
`,
		"infra/whole/main.tf": `provider "aws" { region = "us-east-1" }
` + group("whole", ""),
		"k8s/quarter.yaml": pod("quarter", "quarters"),
		"k8s/half.yaml":    pod("half", "halves"),
		"k8s/whole.yaml":   pod("whole", "whole"),
	})
	res := Scan([]string{root}, Options{})
	if len(res.Errors) > 0 || len(res.Warnings) > 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	shared := filepath.ToSlash(filepath.Join(root, "infra/shared"))
	want := map[string]struct {
		replicas int
		note     string
	}{
		"Pod/ml/quarter": {4, "helm_release.nvdp's values (config.map, key default) in " + shared + ", the device plugin's default config, shares each GPU as 4 units of nvidia.com/gpu (time-slicing)"},
		"Pod/ml/half":    {2, "helm_release.nvdp's values (config.map, key two) in " + shared + ", which aws_eks_node_group.halves labels its nodes with (nvidia.com/device-plugin.config), shares each GPU as 2 units of nvidia.com/gpu (time-slicing)"},
		"Pod/ml/whole":   {0, ""},
	}
	seen := 0
	for _, r := range res.Resources {
		w, ok := want[r.Address]
		if !ok {
			continue
		}
		seen++
		if r.Pod.SharedReplicas != w.replicas || r.Pod.SharedReplicas > 0 && r.Pod.SharingStrategy != parser.SharingTimeSlicing {
			t.Errorf("%s: shared %d (%s), want %d", r.Address, r.Pod.SharedReplicas, r.Pod.SharingStrategy, w.replicas)
		}
		var notes []string
		for _, n := range r.Notes {
			if strings.Contains(n, "shares") || strings.Contains(n, "device plugin") {
				notes = append(notes, n)
			}
		}
		if w.note == "" && len(notes) > 0 || w.note != "" && !slices.Contains(notes, w.note) {
			t.Errorf("%s: notes %q\nwant %q", r.Address, notes, w.note)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d pods", seen, len(want))
	}
}

// A Flux HelmRelease of the device plugin whose values a kustomization's configMapGenerator holds
// (Flux's documented pattern) shares the GPUs of the pods the kustomization deploys.
func TestFluxValuesFromAGeneratedConfigMap(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"cluster/kustomization.yaml": "namespace: nvidia\nnamePrefix: prod-\nresources: [release.yaml, pod.yaml]\nconfigMapGenerator:\n- name: nvdp-values\n  files: [values.yaml=nvdp-values.yaml]\n",
		"cluster/release.yaml":       "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: nvdp}\nspec:\n  chart: {spec: {chart: nvidia-device-plugin}}\n  valuesFrom:\n  - {kind: ConfigMap, name: nvdp-values}\n",
		"cluster/nvdp-values.yaml":   "config:\n  map:\n    default: |\n      version: v1\n      sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 4}]}}\n",
		"cluster/pod.yaml":           "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n",
	})
	res := Scan([]string{root}, Options{})
	if len(res.Errors) > 0 || len(res.Warnings) > 0 || len(res.Resources) != 1 {
		t.Fatalf("errors %+v, warnings %+v, %d resources", res.Errors, res.Warnings, len(res.Resources))
	}
	r := res.Resources[0]
	if r.Pod.SharedReplicas != 4 || !slices.ContainsFunc(r.Notes, func(n string) bool {
		return strings.HasPrefix(n, "HelmRelease nvidia/prod-nvdp's values (config.map, key default)")
	}) {
		t.Errorf("shared by %d; notes %q", r.Pod.SharedReplicas, r.Notes)
	}
}

// A Terraform node group labelled with a custom MIG layout that only the manifests read beside
// it declare (a mig-parted ConfigMap, a Flux HelmRelease of the GPU Operator) is split as the
// layout says: its own row, not only the pods on it. Without the layout its GPUs stay whole, and
// a group that declares its own partition keeps it.
func TestTerraformGroupLayoutsBeside(t *testing.T) {
	const group = `provider "aws" { region = "us-east-1" }
resource "aws_eks_node_group" "a100" {
  cluster_name    = "ml"
  node_group_name = "a100"
  ami_type        = "AL2023_x86_64_NVIDIA"
  instance_types  = ["p4de.24xlarge"]
  labels          = { "nvidia.com/mig.config" = "vllm-3g" }
  scaling_config {
    desired_size = 1
    max_size     = 1
    min_size     = 1
  }
}
`
	const layout = "    version: v1\n    mig-configs:\n      vllm-3g:\n        - devices: all\n          mig-enabled: true\n          mig-devices: {\"3g.40gb\": 2}\n"
	configMap := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: custom-mig-config, namespace: gpu-operator}\ndata:\n  config.yaml: |\n" + layout
	helmRelease := "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: gpu-operator, namespace: gpu-operator}\nspec:\n  chart:\n    spec:\n      chart: gpu-operator\n      sourceRef: {kind: HelmRepository, name: nvidia}\n  values:\n    migManager:\n      config:\n        create: true\n        name: custom-mig-config\n        data: |\n" +
		indent("vllm-3g:\n  - devices: all\n    mig-enabled: true\n    mig-devices: {\"3g.40gb\": 2}\n", "          ")
	for _, tc := range []struct {
		name      string
		files     map[string]string
		partition string
		note      string
	}{
		{"a mig-parted ConfigMap beside", map[string]string{"infra/main.tf": group, "k8s/mig.yaml": configMap}, "3g.40gb",
			"GPUs are partitioned into MIG slices of 3g.40gb (label nvidia.com/mig.config=vllm-3g, which the GPU Operator's MIG manager applies, as the mig-parted config in ConfigMap gpu-operator/custom-mig-config (key config.yaml) declares it)"},
		{"a Flux HelmRelease of the GPU Operator beside", map[string]string{"infra/main.tf": group, "k8s/operator.yaml": helmRelease}, "3g.40gb",
			"as HelmRelease gpu-operator/gpu-operator's values (migManager.config.data, ConfigMap gpu-operator/custom-mig-config) declares it"},
		{"no layout beside", map[string]string{"infra/main.tf": group, "k8s/other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n"}, "",
			"label nvidia.com/mig.config=vllm-3g is not one of the GPU Operator's default layouts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			testutil.WriteFiles(t, root, tc.files)
			res := Scan([]string{root}, Options{})
			if len(res.Errors) > 0 || len(res.Resources) != 1 {
				t.Fatalf("resources %+v, errors %q", res.Resources, messageLines(res.Errors))
			}
			g := res.Resources[0]
			notes := strings.Join(g.Notes, "\n")
			if g.GPUPartition != tc.partition || !strings.Contains(notes, tc.note) {
				t.Errorf("partition %q, want %q; notes %q, want %q", g.GPUPartition, tc.partition, notes, tc.note)
			}
			if tc.partition != "" && strings.Contains(notes, "not one of the GPU Operator's default layouts") || slices.Contains(g.Notes, "") {
				t.Errorf("the note of the layout not found stays: %q", notes)
			}
		})
	}
}

// indent puts prefix before every line of text.
func indent(text, prefix string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

// A manifest's pod that selects a GKE accelerator no node group carries runs on the nodes the
// node auto-provisioning of a Terraform cluster read with it creates, as a kubernetes_manifest
// of that cluster's configuration does: it takes the cluster's region and shares its limit on
// the GPU type, and a floor the limit cannot hold is a warning. The cluster is the one declared
// nearest the manifest; when the nearest are several clusters', a note names them and nothing
// is taken. A GPU type no cluster auto-provisions is left as it was.
func TestManifestsRunOnTerraformAutoProvisionedNodes(t *testing.T) {
	root := t.TempDir()
	cluster := func(name, region, limits string) string {
		return `resource "google_container_cluster" "` + name + `" {
  name     = "` + name + `"
  location = "` + region + `"
  cluster_autoscaling {
    enabled = true
` + limits + `  }
}
`
	}
	limit := func(gpu string, max int) string {
		return fmt.Sprintf("    resource_limits {\n      resource_type = %q\n      maximum       = %d\n    }\n", gpu, max)
	}
	deploy := func(name string, replicas int, gpu string, per int) string {
		return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s, namespace: ml}\nspec:\n  replicas: %d\n  template:\n    spec:\n      nodeSelector: {cloud.google.com/gke-accelerator: %s}\n      containers:\n        - name: c\n          resources: {limits: {nvidia.com/gpu: %d}}\n", name, replicas, gpu, per)
	}
	// The pods of "serve" fill the L4 limit exactly (4 of 1 GPU): no warning. "regional" names
	// its region itself.
	regional := strings.Replace(deploy("regional", 1, "nvidia-l4", 1), "{cloud.google.com/gke-accelerator:", "{topology.kubernetes.io/region: us-central1, cloud.google.com/gke-accelerator:", 1)
	testutil.WriteFiles(t, root, map[string]string{
		"prod/infra/main.tf":     cluster("ml", "us-central1", limit("nvidia-h100-80gb", 8)+limit("nvidia-l4", 4)),
		"dev/infra/main.tf":      cluster("dev", "europe-west4", limit("nvidia-l4", 16)),
		"prod/k8s/finetune.yaml": deploy("finetune", 3, "nvidia-h100-80gb", 4),
		"prod/k8s/serve.yaml":    deploy("serve", 4, "nvidia-l4", 1),
		"prod/k8s/regional.yaml": regional,
		"prod/k8s/a100.yaml":     deploy("a100", 1, "nvidia-tesla-a100", 1),
		"shared/serve.yaml":      deploy("shared", 1, "nvidia-l4", 1),
	})
	res := Scan([]string{root}, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	pods := map[string]parser.Resource{}
	for _, r := range res.Resources {
		if r.Pod != nil {
			pods[strings.TrimSuffix(filepath.Base(r.Source.File), ".yaml")+" "+r.Address] = r
		}
	}
	prod := filepath.ToSlash(filepath.Join(root, "prod", "infra"))
	for key, want := range map[string]struct {
		region, limit, note string
	}{
		"finetune Deployment/ml/finetune": {"us-central1", "limit of 8 nvidia-h100-80gb GPUs", "runs on nodes that google_container_cluster.ml in " + prod + "'s node auto-provisioning creates, within the cluster's limit of 8 nvidia-h100-80gb GPUs"},
		"serve Deployment/ml/serve":       {"us-central1", "limit of 4 nvidia-l4 GPUs", "region us-central1 from google_container_cluster.ml in " + prod + ", whose node auto-provisioning creates the pod's nodes"},
		"a100 Deployment/ml/a100":         {},
		"regional Deployment/ml/regional": {"us-central1", "limit of 4 nvidia-l4 GPUs", "runs on nodes that google_container_cluster.ml in " + prod + "'s node auto-provisioning creates"},
		"serve Deployment/ml/shared":      {note: "the node auto-provisioning of several clusters read with it creates nvidia-l4 nodes (google_container_cluster."},
	} {
		r, ok := pods[key]
		if !ok {
			t.Errorf("%s: not found among %d resources", key, len(res.Resources))
			continue
		}
		what := ""
		if l := r.SharedLimit; l != nil {
			what = l.What
			if l.Root != prod || l.Owner != "google_container_cluster.ml" || l.PerInstance != float64(r.Pod.Requested) || l.PerGPU {
				t.Errorf("%s: limit %+v", key, l)
			}
		}
		notes := strings.Join(r.Notes, "\n")
		if key == "regional Deployment/ml/regional" && strings.Contains(notes, "region us-central1 from") {
			t.Errorf("%s: a region of its own was taken from the cluster: %q", key, notes)
		}
		if r.Region != want.region || what != want.limit || !strings.Contains(notes, want.note) || want.note == "" && strings.Contains(notes, "auto-provisioning") {
			t.Errorf("%s: region %q, limit %q, notes %q; want %+v", key, r.Region, what, notes, want)
		}
	}
	var warned []string
	for _, w := range res.Warnings {
		if strings.Contains(w.Message, "cluster_autoscaling allows") {
			warned = append(warned, w.Message)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "Deployment/ml/finetune runs 3 pods of 4 nvidia-h100-80gb GPUs each, but google_container_cluster.ml in "+prod+"'s cluster_autoscaling allows 8 in the cluster: GKE creates nodes for at most 2 of them") {
		t.Errorf("warnings %q", warned)
	}
}
