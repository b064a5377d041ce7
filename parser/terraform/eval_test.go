package terraform

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
)

func parseHCL(t *testing.T, src string, opts Options) parser.Result {
	t.Helper()
	return ParseSource("main.tf", []byte(src), opts)
}

func byAddress(t *testing.T, res parser.Result) map[string]parser.Resource {
	t.Helper()
	m := map[string]parser.Resource{}
	for _, r := range res.Resources {
		m[r.Address] = r
	}
	return m
}

func TestTerraformFunctions(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
locals {
  base    = { a = "g5.xlarge", b = "g6.xlarge" }
  merged  = merge(local.base, { c = "g6e.xlarge" })
  types   = concat(["p4d.24xlarge"], values(local.base))
  sized   = format("g5.%s", "2xlarge")
  picked  = coalesce("", "g6.2xlarge")
  safe    = try(local.base.missing, "g4dn.xlarge")
  second  = element(local.types, 1)
  n       = length(local.merged) + length("ab")
  tm      = tomap({ x = "g6.4xlarge" })
  ts      = toset(["p5.48xlarge", "p5.48xlarge"])
  upper   = upper("g5.XLARGE") == "G5.XLARGE" ? "g5.4xlarge" : "wrong"
  rep     = replace("g5-8xlarge", "/-/", ".")
  looked  = lookup(local.base, "zzz", "g5.12xlarge")
  looked2 = lookup(local.base, "b")
  looked3 = lookup(tomap(local.base), "a")
  pairs   = { gpu = ["g6", "xlarge"], cpu = ["m7i", "large"] }
  looked4 = lookup(local.pairs, "gpu", null)                                # a null default, as Terraform allows
  looked5 = coalesce(lookup(local.base, "zzz", null), "g6e.2xlarge")        # a miss gives the null default
  looked6 = lookup({ a = ["g5.2xlarge"] }, "zzz", ["g5.24xlarge"])          # a default of another type
  idx     = index(["a", "b", "c"], "c")
}
resource "aws_instance" "merged" { instance_type = local.merged["c"] }
resource "aws_instance" "concat" { instance_type = local.types[0] }
resource "aws_instance" "format" { instance_type = local.sized }
resource "aws_instance" "coalesce" { instance_type = local.picked }
resource "aws_instance" "try" { instance_type = local.safe }
resource "aws_instance" "element" { instance_type = local.second }
resource "aws_instance" "length" {
  count         = local.n
  instance_type = "g5.xlarge"
}
resource "aws_instance" "tomap" { instance_type = local.tm.x }
resource "aws_instance" "toset" {
  for_each      = local.ts
  instance_type = each.value
}
resource "aws_instance" "cond" { instance_type = local.upper }
resource "aws_instance" "replace" { instance_type = local.rep }
resource "aws_instance" "lookup" { instance_type = local.looked }
resource "aws_instance" "lookup2" { instance_type = local.looked2 }
resource "aws_instance" "lookup3" { instance_type = local.looked3 }
resource "aws_instance" "lookup4" { instance_type = join(".", local.looked4) }
resource "aws_instance" "lookup5" { instance_type = local.looked5 }
resource "aws_instance" "lookup6" { instance_type = local.looked6[0] }
resource "aws_instance" "index" {
  count         = local.idx
  instance_type = "g5.xlarge"
}
`, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	got := byAddress(t, res)
	want := map[string]string{
		"aws_instance.merged": "g6e.xlarge", "aws_instance.concat": "p4d.24xlarge", "aws_instance.format": "g5.2xlarge",
		"aws_instance.coalesce": "g6.2xlarge", "aws_instance.try": "g4dn.xlarge", "aws_instance.element": "g5.xlarge",
		"aws_instance.tomap": "g6.4xlarge", `aws_instance.toset["p5.48xlarge"]`: "p5.48xlarge", "aws_instance.cond": "g5.4xlarge",
		"aws_instance.replace": "g5.8xlarge", "aws_instance.lookup": "g5.12xlarge",
		"aws_instance.lookup2": "g6.xlarge", "aws_instance.lookup3": "g5.xlarge", // lookup without a default
		"aws_instance.lookup4": "g6.xlarge", "aws_instance.lookup5": "g6e.2xlarge", "aws_instance.lookup6": "g5.24xlarge",
	}
	for addr, typ := range want {
		if r, ok := got[addr]; !ok || r.InstanceType != typ {
			t.Errorf("%s = %+v, want %s", addr, r, typ)
		}
	}
	// length(merged) = 3, length("ab") = 2: five instances; index(...) = 2: two.
	for _, addr := range []string{"aws_instance.length[4]", "aws_instance.index[1]"} {
		if _, ok := got[addr]; !ok {
			t.Errorf("missing %s", addr)
		}
	}
	if _, ok := got["aws_instance.length[5]"]; ok {
		t.Error("length() counted too many")
	}
}

func TestUnknownsCarryTheirReason(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
variable "family" { type = string }
data "aws_ssm_parameter" "t" { name = "/gpu/type" }
locals { t = "${var.family}.xlarge" }
resource "aws_instance" "from_var" { instance_type = local.t }
resource "aws_instance" "from_data" { instance_type = data.aws_ssm_parameter.t.value }
resource "aws_instance" "from_other" { instance_type = aws_instance.from_data.private_ip }
`, Options{})
	got := byAddress(t, res)
	checks := map[string]string{
		"aws_instance.from_var":   "var.family has no value",
		"aws_instance.from_data":  "data.aws_ssm_parameter.t is read from the provider during plan",
		"aws_instance.from_other": "aws_instance.from_data.private_ip is known only after apply",
	}
	for addr, reason := range checks {
		r, ok := got[addr]
		if !ok || len(r.Unresolved) != 1 || r.Unresolved[0].Attribute != "instance_type" || !strings.Contains(r.Unresolved[0].Reason, reason) {
			t.Errorf("%s: unresolved = %+v, want reason containing %q", addr, r.Unresolved, reason)
		}
	}
}

func TestHostileConfigurationsDoNotHang(t *testing.T) {
	res := parseHCL(t, `
locals {
  a = local.b
  b = local.a
}
resource "aws_instance" "cycle" { instance_type = local.a }
resource "aws_instance" "huge" {
  count         = 1000000000
  instance_type = "g5.xlarge"
}
resource "aws_instance" "negative" {
  count         = -1
  instance_type = "g5.xlarge"
}
resource "aws_instance" "self" {
  instance_type = aws_instance.self.instance_type
}
`, Options{})
	got := byAddress(t, res)
	for addr, reason := range map[string]string{
		"aws_instance.cycle":    "refers to itself",
		"aws_instance.huge":     "over the 10000 gpuguard expands",
		"aws_instance.negative": "whole non-negative number",
		"aws_instance.self":     "refers to itself",
	} {
		r, ok := got[addr]
		if !ok || len(r.Unresolved) == 0 || !strings.Contains(r.Unresolved[0].Reason, reason) {
			t.Errorf("%s: %+v, want unresolved %q", addr, r.Unresolved, reason)
		}
	}
}

func TestProviderAliasesAndDefaultTags(t *testing.T) {
	res := parseHCL(t, `
provider "aws" {
  region = "us-east-1"
  default_tags { tags = { team = "ml", env = "prod" } }
}
provider "aws" {
  alias  = "west"
  region = "us-west-2"
}
resource "aws_instance" "east" {
  instance_type = "g5.xlarge"
  tags          = { env = "dev", gpuguard-profile = "profiles/train.yaml" }
}
resource "aws_instance" "west" {
  provider          = aws.west
  instance_type     = "g5.xlarge"
}
resource "aws_instance" "az" {
  instance_type     = "g5.xlarge"
  availability_zone = "eu-central-1b"
}
`, Options{})
	got := byAddress(t, res)
	east := got["aws_instance.east"]
	if east.Region != "us-east-1" || east.Tags["team"] != "ml" || east.Tags["env"] != "dev" || east.Profile != "profiles/train.yaml" {
		t.Errorf("east = %+v", east)
	}
	if got["aws_instance.west"].Region != "us-west-2" {
		t.Errorf("west region = %q", got["aws_instance.west"].Region)
	}
	if got["aws_instance.az"].Region != "eu-central-1" {
		t.Errorf("az region = %q", got["aws_instance.az"].Region)
	}
}

func TestSuppressionComments(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }

# A normal comment.
# gpuguard:ignore GPU003 reason="sized for the 70B run" expires=2027-01-31
// gpuguard:ignore GPU004,GPU009
resource "aws_instance" "x" { instance_type = "p5.48xlarge" }

# gpuguard:ignore GPU003 reason="not directly above"

resource "aws_instance" "y" { instance_type = "p5.48xlarge" }
`, Options{})
	got := byAddress(t, res)
	x := got["aws_instance.x"].Suppressions
	if len(x) != 3 || x[0].Rule != "GPU003" || x[0].Reason != "sized for the 70B run" || x[0].Expires != "2027-01-31" || x[0].Source.Line != 5 ||
		x[1].Rule != "GPU004" || x[1].Reason != "" || x[2].Rule != "GPU009" {
		t.Errorf("x suppressions = %+v", x)
	}
	if len(got["aws_instance.y"].Suppressions) != 0 {
		t.Errorf("a comment separated by a blank line applied: %+v", got["aws_instance.y"].Suppressions)
	}
}

func TestFileFunctionStaysInWorkingDirectory(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
resource "aws_instance" "x" { instance_type = file("/etc/hostname") }
resource "aws_instance" "y" { instance_type = file("../../../../../../etc/hostname") }
`, Options{})
	if len(res.Resources) != 2 {
		t.Fatalf("resources: %+v", res.Resources)
	}
	for _, r := range res.Resources {
		if len(r.Unresolved) == 0 || !strings.Contains(r.Unresolved[0].Reason, "not read") {
			t.Errorf("%s read a file outside the working directory: %+v", r.Address, r)
		}
	}
}

// The file functions read as Terraform does, relative to the root module's directory, with
// path.module relative to it, wherever gpuguard runs from; and only inside the checked
// directories: a symlink or a ../ path out of them is unresolved, its content never read.
func TestFileFunctionsResolveFromTheRootModule(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "secret.txt")
	repo := filepath.Join(base, "repo")
	testutil.WriteFiles(t, repo, map[string]string{
		"infra/main.tf": `provider "aws" { region = "us-east-1" }
locals {
  cfg = jsondecode(file("config/gpu.json"))
}
resource "aws_instance" "bare" { instance_type = local.cfg.instance_type }
resource "aws_instance" "module_path" { instance_type = trimspace(file("${path.module}/config/type.txt")) }
resource "aws_instance" "cwd_path" { instance_type = trimspace(file("${path.cwd}/config/type.txt")) }
resource "aws_instance" "template" { instance_type = trimspace(templatefile("config/type.tftpl", { size = "xlarge" })) }
resource "aws_instance" "b64" { instance_type = trimspace(base64decode(filebase64("config/type.txt"))) }
resource "aws_instance" "exists" { instance_type = fileexists("config/gpu.json") && !fileexists("config/none.json") ? "g6.xlarge" : "m5.large" }
resource "aws_instance" "symlink" {
  for_each      = toset([trimspace(file("config/link.txt"))])
  instance_type = "g5.xlarge"
}
resource "aws_instance" "dotdot" { instance_type = trimspace(file("../../secret.txt")) }
resource "aws_instance" "exists_outside" { instance_type = fileexists("config/link.txt") ? "g5.xlarge" : "g6.xlarge" }
module "gpu" {
  source = "../modules/gpu"
}
`,
		"infra/config/gpu.json":   `{"instance_type": "g5.xlarge"}`,
		"infra/config/type.txt":   "g6e.xlarge\n",
		"infra/config/type.tftpl": "g5.${size}\n",
		"modules/gpu/main.tf": `resource "aws_instance" "m" { instance_type = trimspace(file("${path.module}/type.txt")) }
output "where" { value = path.module }
`,
		"modules/gpu/type.txt": "g6.xlarge",
	})
	if err := os.WriteFile(secret, []byte("ghp_SECRETTOKEN"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(repo, "infra", "config", "link.txt")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	dir := filepath.Join(repo, "infra")
	res := ParseModule(dir, []string{filepath.Join(dir, "main.tf")}, Options{FileDirs: []string{repo}})
	got := byAddress(t, res)
	for addr, want := range map[string]string{
		"aws_instance.bare": "g5.xlarge", "aws_instance.module_path": "g6e.xlarge", "aws_instance.cwd_path": "g6e.xlarge",
		"aws_instance.template": "g5.xlarge", "aws_instance.exists": "g6.xlarge", "module.gpu.aws_instance.m": "g6.xlarge",
		"aws_instance.b64": "g6e.xlarge",
	} {
		if r := got[addr]; r.InstanceType != want {
			t.Errorf("%s: instance type %q, want %q (unresolved %+v)", addr, r.InstanceType, want, r.Unresolved)
		}
	}
	for _, addr := range []string{"aws_instance.dotdot", "aws_instance.exists_outside"} {
		r, ok := got[addr]
		if !ok || len(r.Unresolved) == 0 || !strings.Contains(r.Unresolved[0].Reason, "outside the checked directories") {
			t.Errorf("%s: %+v", addr, r)
		}
	}
	// The symlinked for_each key cannot be read: whatever is reported of it, the secret
	// appears nowhere.
	if dump := fmt.Sprintf("%+v", res); strings.Contains(dump, "ghp_") {
		t.Fatalf("the content of a file outside the checked directories was read: %s", dump)
	}
}

func TestReferencedParentsGiveLocation(t *testing.T) {
	res := parseHCL(t, `
resource "azurerm_kubernetes_cluster" "c" {
  name     = "c"
  location = "West Europe"
  default_node_pool {
    name    = "sys"
    vm_size = "Standard_D4s_v5"
  }
}
resource "azurerm_kubernetes_cluster_node_pool" "gpu" {
  kubernetes_cluster_id = azurerm_kubernetes_cluster.c.id
  vm_size               = "Standard_NC24ads_A100_v4"
  node_count            = 2
}
resource "azurerm_kubernetes_cluster_node_pool" "orphan" {
  kubernetes_cluster_id = "/subscriptions/x/resourceGroups/y/providers/Microsoft.ContainerService/managedClusters/z"
  vm_size               = "Standard_NC24ads_A100_v4"
}
`, Options{})
	got := byAddress(t, res)
	if _, ok := got["azurerm_kubernetes_cluster.c.default_node_pool"]; ok {
		t.Error("a CPU default node pool was kept")
	}
	if g := got["azurerm_kubernetes_cluster_node_pool.gpu"]; g.Region != "westeurope" || g.Quantity != 2 {
		t.Errorf("gpu pool = %+v", g)
	}
	// A cluster managed elsewhere leaves the pool's region to the default (config or --region):
	// the pool is not unresolved, and says why it has no region.
	if o := got["azurerm_kubernetes_cluster_node_pool.orphan"]; len(o.Unresolved) != 0 || o.Region != "" || !strings.Contains(o.RegionUnknown, "kubernetes_cluster_id") {
		t.Errorf("orphan pool = %+v", o)
	}
}

func TestVarFlagTypes(t *testing.T) {
	dir := t.TempDir()
	src := `
provider "aws" { region = "us-east-1" }
variable "n" { type = number }
variable "pools" { type = map(string) }
resource "aws_instance" "x" {
  count         = var.n
  instance_type = var.pools["a"]
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res := ParseModule(dir, []string{filepath.Join(dir, "main.tf")}, Options{Vars: []string{"n=2", `pools={ a = "g6.xlarge" }`}})
	if len(res.Resources) != 2 || res.Resources[1].InstanceType != "g6.xlarge" {
		t.Fatalf("resources = %+v, errors = %v", res.Resources, res.Errors)
	}
	res = ParseModule(dir, []string{filepath.Join(dir, "main.tf")}, Options{Vars: []string{"n=two", "pools={}", "broken"}})
	if len(res.Errors) < 2 {
		t.Fatalf("bad --var values not reported: %v", res.Errors)
	}
}

func TestPlanJSON(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terraform", "plan", "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !IsPlanJSON(data) {
		t.Fatal("plan not recognised by content")
	}
	res := ParsePlan("plan.json", data)
	got := byAddress(t, res)
	if asg := got["aws_autoscaling_group.serve"]; asg.InstanceType != "g6.xlarge" || asg.Quantity != 4 || asg.Region != "us-east-1" {
		t.Errorf("the ASG's unknown launch template id was not followed through the configuration: %+v", asg)
	}
	if later := got["aws_instance.later"]; len(later.Unresolved) != 1 || !strings.Contains(later.Unresolved[0].Reason, "known only after apply") {
		t.Errorf("unknown planned value not reported: %+v", later)
	}
	if pool := got["module.gpu.aws_eks_node_group.pool"]; pool.PurchaseOption != parser.Spot || pool.Quantity != 2 {
		t.Errorf("pool = %+v", pool)
	}
	bad := ParsePlan("bad.json", []byte("{\n\"format_version\": \"1.2\",\n\"planned_values\": {\n  \"root_module\": [}\n}"))
	if len(bad.Errors) != 1 || bad.Errors[0].Line != 4 {
		t.Errorf("malformed plan error = %+v", bad.Errors)
	}
}

// With the checked directories named, a local module source outside them is not read: an
// error at the module block, nothing from it counted.
func TestLocalModuleOutsideTheCheckedTree(t *testing.T) {
	base := t.TempDir()
	testutil.WriteFiles(t, base, map[string]string{
		"repo/infra/main.tf":       "provider \"aws\" { region = \"us-east-1\" }\nmodule \"in\" { source = \"../modules/gpu\" }\nmodule \"out\" { source = \"../../elsewhere\" }\n",
		"repo/modules/gpu/main.tf": "resource \"aws_instance\" \"in\" { instance_type = \"g5.xlarge\" }\n",
		"elsewhere/main.tf":        "resource \"aws_instance\" \"out\" { instance_type = \"p5.48xlarge\" }\n",
	})
	dir := filepath.Join(base, "repo", "infra")
	res := ParseModule(dir, []string{filepath.Join(dir, "main.tf")}, Options{FileDirs: []string{filepath.Join(base, "repo")}})
	got := byAddress(t, res)
	if _, ok := got["module.in.aws_instance.in"]; !ok || len(got) != 1 {
		t.Fatalf("resources %v", got)
	}
	if len(res.Errors) != 1 || res.Errors[0].Line != 3 || !strings.Contains(res.Errors[0].Message, `module "out"`) || !strings.Contains(res.Errors[0].Message, "outside the checked directories") {
		t.Fatalf("errors %+v", res.Errors)
	}
}

// The instances of an Auto Scaling group or EKS node group carry the tags their launch template
// gives instances (tag_specifications for "instance") and the group's tag blocks that propagate
// at launch; a template named by a string is found even though nothing refers to it; and a tag
// whose value is unknown is left out without unpricing the group.
func TestLaunchTemplatesTagTheirInstances(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
variable "owner" {}
resource "aws_autoscaling_group" "by_name" {
  min_size = 2
  max_size = 2
  launch_template { name = "gpu" }
  tag {
    key                 = "env"
    value               = "prod"
    propagate_at_launch = true
  }
  tag {
    key                 = "project"
    value               = "llm"
    propagate_at_launch = false
  }
  tag {
    key                 = "owner"
    value               = var.owner
    propagate_at_launch = true
  }
}
resource "aws_launch_template" "gpu" {
  name          = "gpu"
  instance_type = "g5.12xlarge"
  tags          = { template_only = "yes" }
  tag_specifications {
    resource_type = "volume"
    tags          = { volume_only = "yes" }
  }
  tag_specifications {
    resource_type = "instance"
    tags          = { team = "ml", project = "from-template" }
  }
}
resource "aws_eks_node_group" "lt" {
  cluster_name    = "c"
  node_group_name = "lt"
  node_role_arn   = "r"
  subnet_ids      = ["s"]
  launch_template {
    id      = aws_launch_template.gpu.id
    version = "$Latest"
  }
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 1
  }
}
resource "aws_instance" "own_type" {
  instance_type = "g6.xlarge"
  launch_template { name = "gpu" }
  tags = { team = "research" }
}
`, Options{})
	got := byAddress(t, res)
	for addr, want := range map[string]map[string]string{
		// project stays the template's: the group's project tag does not propagate.
		"aws_autoscaling_group.by_name": {"team": "ml", "project": "from-template", "env": "prod"},
		"aws_eks_node_group.lt":         {"team": "ml", "project": "from-template"},
		// The instance's own tags win over its template's.
		"aws_instance.own_type": {"team": "research", "project": "from-template"},
	} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s not found in %v", addr, res.Resources)
			continue
		}
		if !reflect.DeepEqual(r.Tags, want) {
			t.Errorf("%s: tags %v, want %v", addr, r.Tags, want)
		}
		if len(r.Unresolved) != 0 || len(r.Notes) > 1 {
			t.Errorf("%s: unresolved %v, notes %v", addr, r.Unresolved, r.Notes)
		}
	}
	// Nothing but a string refers to this template.
	res = parseHCL(t, `
resource "aws_autoscaling_group" "by_name" {
  desired_capacity = 2
  max_size         = 2
  min_size         = 2
  launch_template { name = "gpu" }
}
resource "aws_launch_template" "gpu" {
  name          = "gpu"
  instance_type = "g5.12xlarge"
}
`, Options{})
	if g := byAddress(t, res)["aws_autoscaling_group.by_name"]; g.InstanceType != "g5.12xlarge" || g.Quantity != 2 || len(g.Unresolved) != 0 {
		t.Errorf("the group's template, named by a string, was not read: %+v", g)
	}
}

// An autoscaler's declared maximum is recorded wherever Terraform declares one, with the spot
// share it would have there; an unknown maximum is left out without withholding the price.
func TestAutoscalersDeclareTheirMaximum(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
variable "max" {}
resource "aws_autoscaling_group" "mixed" {
  desired_capacity = 4
  max_size         = 12
  mixed_instances_policy {
    launch_template {
      launch_template_specification { launch_template_id = "lt-1" }
      override { instance_type = "g5.xlarge" }
    }
    instances_distribution {
      on_demand_base_capacity                  = 2
      on_demand_percentage_above_base_capacity = 50
    }
  }
}
resource "aws_launch_template" "g5" { instance_type = "g5.xlarge" }
resource "aws_autoscaling_group" "unknown_max" {
  desired_capacity = 2
  max_size         = var.max
  launch_template { id = aws_launch_template.g5.id }
}
resource "aws_eks_node_group" "ng" {
  cluster_name    = "c"
  node_group_name = "ng"
  node_role_arn   = "r"
  subnet_ids      = ["s"]
  instance_types  = ["p4d.24xlarge"]
  scaling_config {
    desired_size = 1
    min_size     = 0
    max_size     = 6
  }
}
resource "aws_batch_compute_environment" "b" {
  compute_environment_name = "b"
  type                     = "MANAGED"
  compute_resources {
    type          = "EC2"
    instance_type = ["g5.2xlarge"]
    min_vcpus     = 0
    max_vcpus     = 64
  }
}
resource "google_container_node_pool" "regional" {
  cluster  = "c"
  location = "us-central1"
  autoscaling {
    min_node_count = 0
    max_node_count = 5
  }
  node_config { machine_type = "g2-standard-8" }
}
resource "google_container_node_pool" "total" {
  cluster  = "c"
  location = "us-central1-a"
  autoscaling {
    total_min_node_count = 1
    total_max_node_count = 7
  }
  node_config { machine_type = "g2-standard-8" }
}
resource "azurerm_kubernetes_cluster_node_pool" "aks" {
  name                  = "gpu"
  kubernetes_cluster_id = "/subscriptions/x/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c"
  vm_size               = "Standard_NC24ads_A100_v4"
  auto_scaling_enabled  = true
  min_count             = 0
  max_count             = 3
}
resource "azurerm_kubernetes_cluster_node_pool" "fixed" {
  name                  = "fixed"
  kubernetes_cluster_id = "/subscriptions/x/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c"
  vm_size               = "Standard_NC24ads_A100_v4"
  node_count            = 2
  max_count             = 9
}
resource "databricks_cluster" "auto" {
  cluster_name  = "auto"
  spark_version = "15.4.x-gpu-ml-scala2.12"
  node_type_id  = "g5.xlarge"
  autoscale {
    min_workers = 1
    max_workers = 5
  }
  aws_attributes {
    availability     = "SPOT_WITH_FALLBACK"
    first_on_demand  = 1
  }
}
`, Options{})
	got := byAddress(t, res)
	for addr, want := range map[string]*parser.ScaleMax{
		// 12 instances: 2 base on demand, then half of the other 10: 7 on demand, 5 spot.
		"aws_autoscaling_group.mixed":                {Quantity: 12, SpotQuantity: 5, From: "max_size"},
		"aws_autoscaling_group.unknown_max":          nil,
		"aws_eks_node_group.ng":                      {Quantity: 6, From: "scaling_config.max_size"},
		"aws_batch_compute_environment.b":            {VCPUs: 64, From: "compute_resources.max_vcpus"},
		"google_container_node_pool.regional":        {Quantity: 15, From: "autoscaling.max_node_count (5 per zone)"},
		"google_container_node_pool.total":           {Quantity: 7, From: "autoscaling.total_max_node_count"},
		"azurerm_kubernetes_cluster_node_pool.aks":   {Quantity: 3, From: "max_count"},
		"azurerm_kubernetes_cluster_node_pool.fixed": nil, // max_count without autoscaling does nothing
		"databricks_cluster.auto":                    {Quantity: 6, SpotQuantity: 5, From: "autoscale.max_workers"},
	} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: not found among %v", addr, res.Resources)
			continue
		}
		if !reflect.DeepEqual(r.ScaleMax, want) {
			t.Errorf("%s: scale max %+v, want %+v", addr, r.ScaleMax, want)
		}
		if addr == "aws_autoscaling_group.unknown_max" && len(r.Unresolved) > 0 {
			t.Errorf("%s: an unknown max_size withholds the price: %v", addr, r.Unresolved)
		}
	}
}

// An autoscaler declared as its own resource applies to the group it targets, and only to it:
// a GCP autoscaler's min_replicas is the group's floor and max_replicas its maximum; an Azure
// autoscale setting raises a scale set to its smallest minimum and scales it up to its largest
// maximum. One that is off leaves the group as declared.
func TestAutoscalerResourcesApplyToTheirTarget(t *testing.T) {
	res := parseHCL(t, `
provider "google" {
  project = "p"
  region  = "us-central1"
}
resource "google_compute_instance_template" "l4" {
  machine_type = "g2-standard-8"
  disk { source_image = "x" }
  network_interface { network = "default" }
}
resource "google_compute_region_instance_group_manager" "mig" {
  count              = 2
  name               = "mig${count.index}"
  region             = "us-central1"
  base_instance_name = "l4"
  version { instance_template = google_compute_instance_template.l4.self_link }
}
resource "google_compute_region_autoscaler" "mig" {
  count  = 2
  name   = "mig${count.index}"
  region = "us-central1"
  target = google_compute_region_instance_group_manager.mig[count.index].self_link
  autoscaling_policy {
    mode         = count.index == 0 ? "ON" : "OFF"
    min_replicas = 2
    max_replicas = 12
  }
}
resource "google_compute_instance_group_manager" "alone" {
  name               = "alone"
  zone               = "us-central1-a"
  base_instance_name = "l4"
  target_size        = 3
  version { instance_template = google_compute_instance_template.l4.id }
}
resource "azurerm_linux_virtual_machine_scale_set" "vmss" {
  for_each            = toset(["on", "off"])
  name                = each.key
  resource_group_name = "rg"
  location            = "eastus"
  sku                 = "Standard_NC24ads_A100_v4"
  instances           = 0
  admin_username      = "a"
}
resource "azurerm_monitor_autoscale_setting" "vmss" {
  for_each            = azurerm_linux_virtual_machine_scale_set.vmss
  name                = each.key
  resource_group_name = "rg"
  location            = "eastus"
  enabled             = each.key == "on"
  target_resource_id  = each.value.id
  profile {
    name = "weekday"
    capacity {
      default = 2
      minimum = 2
      maximum = 8
    }
  }
  profile {
    name = "nights"
    capacity {
      default = 1
      minimum = 1
      maximum = 3
    }
  }
}
`, Options{})
	expectScaling(t, res, map[string]scaled{
		"google_compute_region_instance_group_manager.mig[0]": {2, &parser.ScaleMax{Quantity: 12, From: "max_replicas of google_compute_region_autoscaler.mig[0]"}},
		"google_compute_region_instance_group_manager.mig[1]": {1, nil}, // mode OFF: target_size unset, 1
		"google_compute_instance_group_manager.alone":         {3, nil},
		`azurerm_linux_virtual_machine_scale_set.vmss["on"]`:  {1, &parser.ScaleMax{Quantity: 8, From: `capacity maximum of azurerm_monitor_autoscale_setting.vmss["on"]`}},
		`azurerm_linux_virtual_machine_scale_set.vmss["off"]`: {0, nil},
	})
}

// for_each over another resource's instances (Terraform's chaining: their ids are known only
// after apply, their keys now) expands to one instance per key; a set with an unknown element
// still cannot.
func TestForEachOverAnotherResource(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
resource "aws_launch_template" "lt" {
  for_each      = { small = "g6.xlarge", large = "g6.12xlarge" }
  instance_type = each.value
}
resource "aws_autoscaling_group" "asg" {
  for_each         = aws_launch_template.lt
  desired_capacity = 2
  launch_template { id = each.value.id }
}
resource "aws_instance" "by_id" {
  for_each      = toset([aws_launch_template.lt["small"].id])
  instance_type = "g6.xlarge"
}
`, Options{})
	got := byAddress(t, res)
	for addr, want := range map[string]string{`aws_autoscaling_group.asg["small"]`: "g6.xlarge", `aws_autoscaling_group.asg["large"]`: "g6.12xlarge"} {
		if r, ok := got[addr]; !ok || r.InstanceType != want || r.Quantity != 2 || len(r.Unresolved) > 0 {
			t.Errorf("%s: %+v, want %s × 2", addr, r, want)
		}
	}
	r, ok := got["aws_instance.by_id"]
	if !ok || len(r.Unresolved) == 0 || !strings.Contains(r.Unresolved[0].Reason, "known only after apply") {
		t.Errorf("a set of unknown ids: %+v", r)
	}
}

// In plan JSON, an autoscale setting that targets a scale set created in the same plan (its id
// unknown, the configuration's reference known) applies to it, and a launch template named by
// a string is found, as in HCL.
func TestPlanJSONAutoscalersAndNamedTemplates(t *testing.T) {
	res := ParsePlan("plan.json", []byte(`{"format_version": "1.2", "terraform_version": "1.9.0", "planned_values": {"root_module": {"resources": [{"address": "azurerm_linux_virtual_machine_scale_set.vmss", "mode": "managed", "type": "azurerm_linux_virtual_machine_scale_set", "name": "vmss", "provider_name": "registry.terraform.io/hashicorp/azurerm", "schema_version": 0, "values": {"sku": "Standard_NC24ads_A100_v4", "instances": 1, "location": "eastus", "name": "vmss"}}, {"address": "azurerm_monitor_autoscale_setting.vmss", "mode": "managed", "type": "azurerm_monitor_autoscale_setting", "name": "vmss", "provider_name": "registry.terraform.io/hashicorp/azurerm", "schema_version": 0, "values": {"name": "as", "location": "eastus", "enabled": true, "profile": [{"name": "p", "capacity": [{"default": 2, "minimum": 2, "maximum": 8}]}]}}, {"address": "aws_launch_template.gpu", "mode": "managed", "type": "aws_launch_template", "name": "gpu", "provider_name": "registry.terraform.io/hashicorp/aws", "schema_version": 0, "values": {"name": "gpu", "instance_type": "g5.xlarge"}}, {"address": "aws_autoscaling_group.a", "mode": "managed", "type": "aws_autoscaling_group", "name": "a", "provider_name": "registry.terraform.io/hashicorp/aws", "schema_version": 0, "values": {"desired_capacity": 1, "max_size": 3, "launch_template": [{"name": "gpu", "version": "$Latest"}]}}]}}, "resource_changes": [{"address": "azurerm_linux_virtual_machine_scale_set.vmss", "mode": "managed", "type": "azurerm_linux_virtual_machine_scale_set", "name": "vmss", "change": {"actions": ["create"], "before": null, "after": {"sku": "Standard_NC24ads_A100_v4", "instances": 1, "location": "eastus", "name": "vmss"}, "after_unknown": {"id": true}}}, {"address": "azurerm_monitor_autoscale_setting.vmss", "mode": "managed", "type": "azurerm_monitor_autoscale_setting", "name": "vmss", "change": {"actions": ["create"], "before": null, "after": {"name": "as", "location": "eastus", "enabled": true, "profile": [{"name": "p", "capacity": [{"default": 2, "minimum": 2, "maximum": 8}]}]}, "after_unknown": {"id": true, "target_resource_id": true}}}], "configuration": {"provider_config": {"aws": {"name": "aws", "expressions": {"region": {"constant_value": "us-east-1"}}}}, "root_module": {"resources": [{"address": "azurerm_monitor_autoscale_setting.vmss", "mode": "managed", "type": "azurerm_monitor_autoscale_setting", "name": "vmss", "provider_config_key": "azurerm", "expressions": {"target_resource_id": {"references": ["azurerm_linux_virtual_machine_scale_set.vmss.id", "azurerm_linux_virtual_machine_scale_set.vmss"]}}, "schema_version": 0}]}}}`))
	got := byAddress(t, res)
	vmss := got["azurerm_linux_virtual_machine_scale_set.vmss"]
	want := &parser.ScaleMax{Quantity: 8, From: "capacity maximum of azurerm_monitor_autoscale_setting.vmss"}
	if vmss.Quantity != 2 || !reflect.DeepEqual(vmss.ScaleMax, want) {
		t.Errorf("scale set: quantity %d, scale max %+v", vmss.Quantity, vmss.ScaleMax)
	}
	if asg := got["aws_autoscaling_group.a"]; asg.InstanceType != "g5.xlarge" || asg.ScaleMax == nil || asg.ScaleMax.Quantity != 3 {
		t.Errorf("group: %+v", asg)
	}
}

// Application Auto Scaling of a SageMaker endpoint's variant: the target names the endpoint and
// the variant in its resource_id; the endpoint names the configuration. Only that variant of
// that configuration scales.
func TestSageMakerVariantAutoscaling(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
resource "aws_sagemaker_endpoint_configuration" "llm" {
  name = "llm-config"
  production_variants {
    variant_name           = "primary"
    model_name             = "m"
    instance_type          = "ml.g5.2xlarge"
    initial_instance_count = 1
  }
  production_variants {
    variant_name           = "canary"
    model_name             = "m"
    instance_type          = "ml.g5.2xlarge"
    initial_instance_count = 1
  }
}
resource "aws_sagemaker_endpoint" "llm" {
  name                 = "llm"
  endpoint_config_name = aws_sagemaker_endpoint_configuration.llm.name
}
resource "aws_appautoscaling_target" "primary" {
  service_namespace  = "sagemaker"
  resource_id        = "endpoint/${aws_sagemaker_endpoint.llm.name}/variant/primary"
  scalable_dimension = "sagemaker:variant:DesiredInstanceCount"
  min_capacity       = 2
  max_capacity       = 6
}
resource "aws_sagemaker_endpoint_configuration" "other" {
  production_variants {
    variant_name           = "primary"
    model_name             = "m"
    instance_type          = "ml.g5.2xlarge"
    initial_instance_count = 1
  }
}
resource "aws_sagemaker_endpoint" "other" {
  endpoint_config_name = aws_sagemaker_endpoint_configuration.other.name
}
resource "aws_appautoscaling_target" "other" {
  service_namespace  = "sagemaker"
  resource_id        = "endpoint/${aws_sagemaker_endpoint.other.name}/variant/primary"
  scalable_dimension = "sagemaker:variant:DesiredInstanceCount"
  min_capacity       = 1
  max_capacity       = 3
}
`, Options{})
	expectScaling(t, res, map[string]scaled{
		`aws_sagemaker_endpoint_configuration.llm.production_variants["primary"]`: {2, &parser.ScaleMax{Quantity: 6, From: "max_capacity of aws_appautoscaling_target.primary"}},
		`aws_sagemaker_endpoint_configuration.llm.production_variants["canary"]`:  {1, nil},
		// The endpoint's name is known only after apply: its single variant matches through
		// the reference.
		`aws_sagemaker_endpoint_configuration.other.production_variants["primary"]`: {1, &parser.ScaleMax{Quantity: 3, From: "max_capacity of aws_appautoscaling_target.other"}},
	})
}

// scaled is what a test expects of an autoscaled resource: its priced quantity and maximum.
type scaled struct {
	quantity int
	max      *parser.ScaleMax
}

// expectScaling checks the quantity and the maximum of resources by address.
func expectScaling(t *testing.T, res parser.Result, want map[string]scaled) {
	t.Helper()
	got := byAddress(t, res)
	for addr, w := range want {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: not found among %v", addr, res.Resources)
			continue
		}
		if r.Quantity != w.quantity || !reflect.DeepEqual(r.ScaleMax, w.max) {
			t.Errorf("%s: quantity %d, scale max %+v; want %d, %+v (notes %q)", addr, r.Quantity, r.ScaleMax, w.quantity, w.max, r.Notes)
		}
	}
}

// Which SageMaker services offer spot capacity: a real-time endpoint's variants and a notebook
// instance run on demand only (NoSpot); a HyperPod instance group runs on spot when its
// capacity_requirements name spot (an object, or the JSON string the Cloud Control provider
// takes) and not on_demand.
func TestSageMakerSpotCapacity(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
provider "awscc" { region = "us-west-2" }
resource "aws_sagemaker_endpoint_configuration" "llm" {
  production_variants {
    variant_name           = "primary"
    model_name             = "m"
    instance_type          = "ml.g5.2xlarge"
    initial_instance_count = 1
  }
}
resource "aws_sagemaker_notebook_instance" "nb" {
  name          = "nb"
  role_arn      = "arn:aws:iam::123456789012:role/sm"
  instance_type = "ml.g4dn.xlarge"
}
resource "awscc_sagemaker_cluster" "hp" {
  cluster_name = "hp"
  instance_groups = [
    { instance_group_name = "od", instance_type = "ml.g5.12xlarge", instance_count = 1 },
    { instance_group_name = "spot", instance_type = "ml.g5.12xlarge", instance_count = 2, capacity_requirements = { spot = jsonencode({}) } },
    { instance_group_name = "spot-object", instance_type = "ml.g5.12xlarge", instance_count = 2, capacity_requirements = { spot = {} } },
    { instance_group_name = "explicit-od", instance_type = "ml.g5.12xlarge", instance_count = 1, capacity_requirements = { on_demand = {} } },
  ]
}
`, Options{})
	got := byAddress(t, res)
	want := map[string]struct {
		opt    parser.PurchaseOption
		noSpot bool
	}{
		`aws_sagemaker_endpoint_configuration.llm.production_variants["primary"]`: {parser.OnDemand, true},
		`aws_sagemaker_notebook_instance.nb`:                                      {parser.OnDemand, true},
		`awscc_sagemaker_cluster.hp.instance_groups["od"]`:                        {parser.OnDemand, false},
		`awscc_sagemaker_cluster.hp.instance_groups["spot"]`:                      {parser.Spot, false},
		`awscc_sagemaker_cluster.hp.instance_groups["spot-object"]`:               {parser.Spot, false},
		`awscc_sagemaker_cluster.hp.instance_groups["explicit-od"]`:               {parser.OnDemand, false},
	}
	for addr, w := range want {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: not found among %d resources", addr, len(got))
			continue
		}
		if r.PurchaseOption != w.opt || r.NoSpot != w.noSpot {
			t.Errorf("%s: purchase %s, no spot %v; want %s, %v", addr, r.PurchaseOption, r.NoSpot, w.opt, w.noSpot)
		}
		// Only the real-time endpoint cannot partition its GPUs with MIG.
		if wantNoMIG := strings.Contains(addr, "endpoint"); (r.NoMIG != "") != wantNoMIG {
			t.Errorf("%s: no MIG %q, want set: %v", addr, r.NoMIG, wantNoMIG)
		}
	}
}

// try over an unknown keeps what the unknown says: the resource it refers to (a module's
// try(aws_launch_template.this[0].id, null) still names the template), or why it is unknown (a
// variable without a value), where hcl's tryfunc returns a bare unknown.
func TestTryKeepsWhatAnUnknownSays(t *testing.T) {
	res := parseHCL(t, `provider "aws" { region = "us-east-1" }
variable "kind" { type = string }
resource "aws_launch_template" "gpu" {
  count         = 1
  instance_type = "g5.xlarge"
}
resource "aws_autoscaling_group" "gpu" {
  desired_capacity = 1
  min_size         = 1
  max_size         = 1
  launch_template {
    id      = try(aws_launch_template.gpu[0].id, null)
    version = "$Latest"
  }
}
resource "aws_instance" "gpu" {
  instance_type = try(var.kind, "g6.xlarge")
}
`, Options{})
	got := byAddress(t, res)
	if g := got["aws_autoscaling_group.gpu"]; g.InstanceType != "g5.xlarge" {
		t.Errorf("the group's instance type %q, unresolved %+v", g.InstanceType, g.Unresolved)
	}
	inst := got["aws_instance.gpu"]
	if len(inst.Unresolved) != 1 || !strings.Contains(inst.Unresolved[0].Reason, "var.kind") {
		t.Errorf("unresolved %+v, want the reason to name var.kind", inst.Unresolved)
	}
	// A try whose first argument fails still takes the next.
	if fallback := parseHCL(t, `resource "aws_instance" "x" { instance_type = try(local.none.type, "g6.xlarge") }
locals { none = {} }`, Options{}); len(fallback.Resources) != 1 || fallback.Resources[0].InstanceType != "g6.xlarge" {
		t.Errorf("fallback %+v", fallback.Resources)
	}
}
