package terragrunt

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/terraform"
)

// module declares one GPU instance from variables, tagging it with what it was given.
const module = `variable "instance_type" {}
variable "node_count" { default = 1 }
variable "tags" { default = {} }
provider "aws" { region = "us-east-1" }
resource "aws_instance" "gpu" {
  count         = var.node_count
  instance_type = var.instance_type
  tags          = var.tags
}
`

// unitIn writes files under a new directory, moves there and evaluates the unit at unit.
func unitIn(t *testing.T, files map[string]string, unit string) parser.Result {
	t.Helper()
	root := t.TempDir()
	testutil.WriteFiles(t, root, files)
	t.Chdir(root)
	return ParseUnit(filepath.Join(unit, FileName), terraform.Options{FileDirs: []string{"."}})
}

func TestIncludeExposeAndParentFunctions(t *testing.T) {
	res := unitIn(t, map[string]string{
		"terragrunt.hcl": `locals { team = "ml" }
inputs = {
  tags = { team = local.team, path = path_relative_to_include() }
  node_count = 5
}
terraform { source = "${get_parent_terragrunt_dir()}/modules//gpu" }
`,
		"modules/gpu/main.tf": module,
		"live/env.hcl":        `locals { env = "prod" }`,
		"live/prod/gpu/terragrunt.hcl": `include "root" {
  path   = find_in_parent_folders()
  expose = true
}
locals {
  env = read_terragrunt_config(find_in_parent_folders("env.hcl")).locals.env
}
inputs = {
  instance_type = "p4d.24xlarge"
  node_count    = 2
  tags          = merge(include.root.inputs.tags, { env = local.env, owner = include.root.locals.team })
}
`,
	}, "live/prod/gpu")
	if len(res.Errors) > 0 || len(res.Resources) != 2 {
		t.Fatalf("errors:\n%sresources %+v", lines(res.Errors), res.Resources)
	}
	r := res.Resources[0]
	want := map[string]string{"team": "ml", "path": "live/prod/gpu", "env": "prod", "owner": "ml"}
	for k, v := range want {
		if r.Tags[k] != v {
			t.Errorf("tag %s = %q, want %q (tags %v)", k, r.Tags[k], v, r.Tags)
		}
	}
	if r.InstanceType != "p4d.24xlarge" || r.Source.File != filepath.Join("modules", "gpu", "main.tf") {
		t.Errorf("resource %+v", r)
	}
	if !slices.Contains(res.Included, filepath.Join("modules", "gpu")) || !slices.Contains(res.Included, filepath.Join("live", "prod", "gpu")) {
		t.Errorf("included %v", res.Included)
	}
}

func TestMergeStrategies(t *testing.T) {
	parent := `inputs = {
  instance_type = "g5.xlarge"
  tags = { team = "ml", project = "llm" }
}
terraform { source = "../modules/gpu" }
`
	for _, tc := range []struct {
		strategy string
		tags     map[string]string
		typ      string
	}{
		{"shallow", map[string]string{"env": "dev"}, "g5.xlarge"},
		{"deep", map[string]string{"team": "ml", "project": "llm", "env": "dev"}, "g5.xlarge"},
		{"no_merge", map[string]string{"env": "dev"}, ""},
	} {
		t.Run(tc.strategy, func(t *testing.T) {
			res := unitIn(t, map[string]string{
				"root.hcl":            parent,
				"modules/gpu/main.tf": module,
				"dev/terragrunt.hcl": `include {
  path           = find_in_parent_folders("root.hcl")
  merge_strategy = "` + tc.strategy + `"
}
terraform { source = "../modules/gpu" }
inputs = { tags = { env = "dev" } }
`,
			}, "dev")
			if len(res.Errors) > 0 || len(res.Resources) != 1 {
				t.Fatalf("errors:\n%sresources %+v", lines(res.Errors), res.Resources)
			}
			r := res.Resources[0]
			if len(r.Tags) != len(tc.tags) || r.InstanceType != tc.typ {
				t.Fatalf("tags %v instance type %q, want %v %q", r.Tags, r.InstanceType, tc.tags, tc.typ)
			}
			for k, v := range tc.tags {
				if r.Tags[k] != v {
					t.Fatalf("tags %v, want %v", r.Tags, tc.tags)
				}
			}
		})
	}
}

// A unit without a source runs its own directory's configuration; the tfvars files there
// override the inputs, as Terraform ranks TF_VAR_ variables below them.
func TestUnitWithoutSourceAndTfvarsPrecedence(t *testing.T) {
	res := unitIn(t, map[string]string{
		"gpu/main.tf":          module,
		"gpu/terraform.tfvars": `node_count = 3`,
		"gpu/terragrunt.hcl":   `inputs = { instance_type = "g6.xlarge", node_count = 1, undeclared = "ignored" }`,
	}, "gpu")
	if len(res.Errors) > 0 || len(res.Resources) != 3 || res.Resources[0].InstanceType != "g6.xlarge" {
		t.Fatalf("errors:\n%sresources %+v", lines(res.Errors), res.Resources)
	}
}

// A root configuration that generates the provider (the usual way to set the region for every
// unit) and passes variable files to plan: the module is read with both, the files passed on the
// command line winning over the inputs, as in Terraform.
func TestGenerateAndExtraArguments(t *testing.T) {
	moduleWithoutProvider := strings.Replace(module, "provider \"aws\" { region = \"us-east-1\" }\n", "", 1)
	res := unitIn(t, map[string]string{
		"root.hcl": `locals { region = "eu-west-1" }
generate "provider" {
  path      = "provider.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
provider "aws" {
  region = "${local.region}"
}
EOF
}
generate "version" {
  path     = ".terraform-version"
  contents = "1.9.0"
}
generate "disabled" {
  path     = "broken.tf"
  contents = "this is not HCL {"
  disable  = true
}
terraform {
  extra_arguments "common" {
    commands           = get_terraform_commands_that_need_vars()
    required_var_files = ["${get_parent_terragrunt_dir()}/common.tfvars"]
    optional_var_files = ["${get_parent_terragrunt_dir()}/nosuch.tfvars"]
    arguments          = ["-var", "node_count=3"]
  }
  extra_arguments "apply only" {
    commands  = ["apply"]
    arguments = ["-var-file=/etc/hostname"]
  }
}
`,
		"common.tfvars":       `instance_type = "g6e.xlarge"`,
		"modules/gpu/main.tf": moduleWithoutProvider,
		"gpu/terragrunt.hcl": `include {
  path = find_in_parent_folders("root.hcl")
}
terraform { source = "../modules/gpu" }
inputs = { instance_type = "g5.xlarge", node_count = 1 }
`,
	}, "gpu")
	if len(res.Errors) > 0 || len(res.Resources) != 3 {
		t.Fatalf("errors:\n%sresources %+v", lines(res.Errors), res.Resources)
	}
	if r := res.Resources[0]; r.Region != "eu-west-1" || r.InstanceType != "g6e.xlarge" {
		t.Fatalf("resource %+v", r)
	}
}

// A variable file outside the checked directories is an error at its block, and is not read.
func TestExtraArgumentsStayInside(t *testing.T) {
	res := unitIn(t, map[string]string{
		"modules/gpu/main.tf": module,
		"gpu/terragrunt.hcl": `terraform {
  source = "../modules/gpu"
  extra_arguments "vars" {
    commands           = ["plan"]
    required_var_files = ["/etc/hostname"]
  }
}
inputs = { instance_type = "g5.xlarge" }
`,
	}, "gpu")
	if errs := lines(res.Errors); !strings.Contains(errs, "gpu/terragrunt.hcl:3: extra_arguments \"vars\": variable file") || !strings.Contains(errs, "outside the checked directories") || len(res.Resources) != 1 {
		t.Fatalf("errors:\n%sresources %+v", errs, res.Resources)
	}
}

// A remote source is read where terragrunt init downloaded it (the unit's .terragrunt-cache),
// the newest download when there are several, and a diff's base reads the working tree's copy.
func TestRemoteSourceFromTheTerragruntCache(t *testing.T) {
	unit := "terraform {\n  source = \"git::https://github.com/acme/modules.git//gpu?ref=v2\"\n}\ninputs = { instance_type = \"g6e.xlarge\" }\n"
	res := unitIn(t, map[string]string{
		"live/terragrunt.hcl":                          unit,
		"live/.terragrunt-cache/aaa/bbb/gpu/main.tf":   module,
		"live/.terragrunt-cache/aaa/bbb/other/main.tf": "resource \"aws_instance\" \"x\" { instance_type = \"p5.48xlarge\" }\n",
		"registry/terragrunt.hcl":                      "terraform {\n  source = \"tfr:///acme/gpu/aws?version=1.0.0\"\n}\ninputs = { instance_type = \"g5.xlarge\" }\n",
		"registry/.terragrunt-cache/ccc/ddd/main.tf":   module,
		"nocache/terragrunt.hcl":                       unit,
	}, "live")
	if len(res.Errors) > 0 || len(res.Resources) != 1 || res.Resources[0].InstanceType != "g6e.xlarge" ||
		!strings.Contains(strings.Join(res.Resources[0].Notes, " "), "module read from live/.terragrunt-cache/aaa/bbb/gpu, where terragrunt init downloaded") {
		t.Fatalf("errors:\n%sresources %+v", lines(res.Errors), res.Resources)
	}
	// The cache is terragrunt's copy, not the user's file: the resource is reported at the
	// unit's source, with a note naming where the module declares it.
	if r := res.Resources[0]; r.Source != (parser.Location{File: filepath.Join("live", FileName), Line: 2}) ||
		!strings.Contains(strings.Join(r.Notes, " "), "declared at live/.terragrunt-cache/aaa/bbb/gpu/main.tf:") {
		t.Fatalf("reported at %s, notes %q", r.Source, r.Notes)
	}
	if res := ParseUnit(filepath.Join("registry", FileName), terraform.Options{FileDirs: []string{"."}}); len(res.Resources) != 1 || res.Resources[0].InstanceType != "g5.xlarge" {
		t.Fatalf("registry source: %+v %+v", res.Resources, res.Errors)
	}
	res = ParseUnit(filepath.Join("nocache", FileName), terraform.Options{FileDirs: []string{"."}})
	// The warning names the GPU type the unit's inputs ask for, at the input's line.
	if len(res.Resources) != 0 || !strings.Contains(lines(res.Warnings), "is remote and is not downloaded; resources inside it are not counted (run terragrunt init first") ||
		!strings.Contains(lines(res.Warnings), ". Its input instance_type (terragrunt.hcl:4) names GPU type g6e.xlarge: those GPUs are missing from the total") {
		t.Fatalf("without a cache: %+v\n%s", res.Resources, lines(res.Warnings))
	}
	// A base tree without the cache borrows the working tree's.
	res = ParseUnit(filepath.Join("nocache", FileName), terraform.Options{FileDirs: []string{"."}, ModulesHome: func(string) string { return "live" }})
	if len(res.Resources) != 1 || res.Resources[0].InstanceType != "g6e.xlarge" {
		t.Fatalf("borrowed cache: %+v\n%s", res.Resources, lines(res.Warnings))
	}
}

// A unit that deploys a registry module known to declare no machines (an IAM role, a network)
// yields nothing and no warning; one whose inputs name a GPU type still warns.
func TestMachineFreeUnitIsQuiet(t *testing.T) {
	res := unitIn(t, map[string]string{
		"iam/terragrunt.hcl": "terraform {\n  source = \"tfr:///terraform-aws-modules/iam/aws//modules/iam-role-for-service-accounts-eks?version=5.30.0\"\n}\ninputs = { role_name = \"trainer\" }\n",
		"sg/terragrunt.hcl":  "terraform {\n  source = \"tfr:///terraform-aws-modules/security-group/aws?version=5.1.0\"\n}\ninputs = { instance_type = \"p5.48xlarge\" }\n",
	}, "iam")
	if len(res.Resources) != 0 || len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("iam unit: %+v\n%s%s", res.Resources, lines(res.Errors), lines(res.Warnings))
	}
	res = ParseUnit(filepath.Join("sg", FileName), terraform.Options{FileDirs: []string{"."}})
	if !strings.Contains(lines(res.Warnings), "resources inside it are not counted") || !strings.Contains(lines(res.Warnings), "names GPU type p5.48xlarge") {
		t.Fatalf("sg unit: %s", lines(res.Warnings))
	}
}

func TestDependencyOutputs(t *testing.T) {
	files := map[string]string{
		"modules/gpu/main.tf": module,
		"gpu/terragrunt.hcl": `terraform { source = "../modules/gpu" }
dependency "sizing" {
  config_path  = "../sizing"
  mock_outputs = { instance_type = "g6e.xlarge" }
}
dependency "count" { config_path = "../count" }
inputs = {
  instance_type = dependency.sizing.outputs.instance_type
  node_count    = dependency.count.outputs.nodes
}
`,
	}
	res := unitIn(t, files, "gpu")
	if len(res.Errors) > 0 || len(res.Resources) != 1 {
		t.Fatalf("errors:\n%sresources %+v", lines(res.Errors), res.Resources)
	}
	r := res.Resources[0]
	if r.InstanceType != "g6e.xlarge" || !strings.Contains(fmt.Sprint(r.Unresolved), "dependency.count") {
		t.Fatalf("resource %+v", r)
	}
}

// get_env never reads the environment (a pull request's terragrunt.hcl must not get the
// token into an output) and run_cmd runs nothing.
func TestNoEnvironmentNoCommands(t *testing.T) {
	t.Setenv("GPUGUARD_TEST_SECRET", "s3cr3t-token")
	res := unitIn(t, map[string]string{
		"modules/gpu/main.tf": module,
		"gpu/terragrunt.hcl": `terraform { source = "../modules/gpu" }
locals {
  ran = run_cmd("touch", "ran")
}
inputs = {
  instance_type = get_env("GPUGUARD_TEST_TYPE", "g5.xlarge")
  tags = {
    secret = get_env("GPUGUARD_TEST_SECRET")
    ran    = local.ran
  }
}
`,
	}, "gpu")
	if len(res.Errors) > 0 || len(res.Resources) != 1 || res.Resources[0].InstanceType != "g5.xlarge" {
		t.Fatalf("errors:\n%sresources %+v", lines(res.Errors), res.Resources)
	}
	if strings.Contains(fmt.Sprint(res.Resources[0]), "s3cr3t") {
		t.Fatalf("the environment was read: %+v", res.Resources[0])
	}
	if _, err := os.Stat(filepath.Join("gpu", "ran")); err == nil {
		t.Fatal("run_cmd ran a command")
	}
}

// Bad input gets an error with file and line and never stops the rest: one bad input keeps
// the others, a missing include or a source outside the checked directories is an error, a
// remote source a warning.
func TestProblemsHaveFileAndLine(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		err, warn    string
		resources    int
	}{
		{name: "syntax", config: "inputs = {\n  instance_type = \n", err: "gpu/terragrunt.hcl:"},
		{name: "bad input kept apart", config: "terraform { source = \"../modules/gpu\" }\ninputs = {\n  instance_type = \"g5.xlarge\"\n  node_count = nosuch.value\n}\n", err: "gpu/terragrunt.hcl:4", resources: 1},
		{name: "missing include", config: "include {\n  path = find_in_parent_folders(\"nosuch.hcl\")\n}\n", err: "gpu/terragrunt.hcl:2"},
		{name: "local cycle", config: "locals {\n  a = local.b\n  b = local.a\n}\ninputs = { instance_type = local.a }\nterraform { source = \"../modules/gpu\" }\n", err: "refers to itself", resources: 1},
		{name: "outside", config: "terraform {\n  source = \"/\"\n}\n", err: "gpu/terragrunt.hcl:2"},
		{name: "remote", config: "terraform {\n  source = \"git::https://example.com/modules.git//gpu?ref=v1\"\n}\n", warn: "gpu/terragrunt.hcl:2"},
		{name: "read itself", config: "locals {\n  me = read_terragrunt_config(\"terragrunt.hcl\")\n}\n", err: "reads itself"},
		// Without a cache, ten reads at each of eight levels would be 10^8 evaluations.
		{name: "read itself many times", config: "locals {\n" + manyReads(10) + "}\n", err: "reads itself"},
		{name: "read chain", config: "locals {\n  a = read_terragrunt_config(\"../chain0.hcl\").locals\n}\n", err: "nested more than"},
		{name: "file outside", config: "terraform { source = \"../modules/gpu\" }\ninputs = {\n  instance_type = \"g5.xlarge\"\n  tags = { env = file(\"/proc/self/environ\") }\n}\n", err: "outside the checked directories", resources: 1},
		{name: "config outside", config: "locals {\n  x = read_terragrunt_config(\"/etc/hostname\")\n}\n", err: "gpu/terragrunt.hcl:2"},
		{name: "unknown source", config: "terraform {\n  source = get_env(\"MODULES\")\n}\n", warn: "gpu/terragrunt.hcl:2: terraform source is not known here (get_env(\"MODULES\"): gpuguard does not read the environment)"},
		{name: "bad merge strategy", config: "include {\n  path = \"../root.hcl\"\n  merge_strategy = \"sideways\"\n}\n", err: "gpu/terragrunt.hcl:3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"modules/gpu/main.tf": module, "root.hcl": "inputs = {}\n", "gpu/terragrunt.hcl": tc.config}
			// A chain of files, each reading the next five times: without the cache of
			// files read, 5^8 evaluations.
			for i := range maxReadDepth + 2 {
				var b strings.Builder
				for j := range 5 {
					fmt.Fprintf(&b, "  next%d = read_terragrunt_config(\"../chain%d.hcl\", {})\n", j, i+1)
				}
				files[fmt.Sprintf("chain%d.hcl", i)] = "locals {\n" + b.String() + "}\n"
			}
			res := unitIn(t, files, "gpu")
			errs, warns := lines(res.Errors), lines(res.Warnings)
			if tc.err != "" && !strings.Contains(errs, tc.err) || tc.err == "" && errs != "" {
				t.Errorf("errors:\n%s\nwant %q", errs, tc.err)
			}
			if tc.warn != "" && !strings.Contains(warns, tc.warn) {
				t.Errorf("warnings:\n%s\nwant %q", warns, tc.warn)
			}
			if len(res.Resources) != tc.resources {
				t.Errorf("resources %+v, want %d", res.Resources, tc.resources)
			}
		})
	}
}

// manyReads declares n locals that each read the unit's own configuration.
func manyReads(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  r%d = read_terragrunt_config(\"terragrunt.hcl\")\n", i)
	}
	return b.String()
}

func lines(errs []parser.Error) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString(filepath.ToSlash(e.File) + ":" + strconv.Itoa(e.Line) + ": " + e.Message + "\n")
	}
	return b.String()
}

// A file read many times is parsed once: a chain of files each reading the next five times
// would otherwise parse 5^8 files.
func TestReadConfigIsParsedOnce(t *testing.T) {
	files := map[string]string{"gpu/terragrunt.hcl": "locals {\n  a = read_terragrunt_config(\"../chain0.hcl\").locals\n}\ninputs = {}\n"}
	for i := range maxReadDepth - 1 {
		var b strings.Builder
		for j := range 5 {
			fmt.Fprintf(&b, "  next%d = read_terragrunt_config(\"../chain%d.hcl\", {})\n", j, i+1)
		}
		files[fmt.Sprintf("chain%d.hcl", i)] = "locals {\n" + b.String() + "}\n"
	}
	root := t.TempDir()
	testutil.WriteFiles(t, root, files)
	t.Chdir(root)
	res, parsed := parseUnit(filepath.Join("gpu", FileName), terraform.Options{FileDirs: []string{"."}})
	if len(res.Errors) > 0 || parsed > maxReadDepth+1 {
		t.Fatalf("%d files parsed; errors:\n%s", parsed, lines(res.Errors))
	}
}

// The configurations units include are not units: a root terragrunt.hcl included by the
// others is listed by Included.
func TestIncludedConfigsAreNotUnits(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"terragrunt.hcl":       "inputs = {}\n",
		"a/terragrunt.hcl":     "include {\n  path = find_in_parent_folders()\n}\n",
		"b/terragrunt.hcl":     "include \"root\" {\n  path = \"../terragrunt.hcl\"\n}\n",
		"c/terragrunt.hcl":     "inputs = {}\n",
		"d/bad/terragrunt.hcl": "include {\n",
	})
	t.Chdir(root)
	units := []string{"terragrunt.hcl", "a/terragrunt.hcl", "b/terragrunt.hcl", "c/terragrunt.hcl", "d/bad/terragrunt.hcl"}
	got := Included(units, terraform.Options{FileDirs: []string{"."}})
	real, _ := filepath.EvalSymlinks(filepath.Join(root, "terragrunt.hcl"))
	if len(got) != 1 || !got[real] {
		t.Fatalf("included %v", got)
	}
}

// A unit deploying Azure Verified Modules' AKS module at one of its AzureRM releases gives that
// release's inputs, and is read through that release's stand-in.
func TestRegistrySourceThroughStandInOfOlderRelease(t *testing.T) {
	unit := `terraform {
  source = "tfr:///Azure/avm-res-containerservice-managedcluster/azurerm?version=0.1.7"
}

inputs = {
  name                = "ml"
  location            = "eastus"
  resource_group_name = "ml"
  default_node_pool   = { name = "system", vm_size = "Standard_D4s_v5", node_count = 2 }
  node_pools          = { t4 = { name = "t4", vm_size = "Standard_NC4as_T4_v3", node_count = 2 } }
}
`
	res := unitIn(t, map[string]string{"aks/terragrunt.hcl": unit}, "aks")
	var gpu []string
	for _, r := range res.Resources {
		if parser.IsGPUInstanceType(parser.Azure, r.InstanceType) {
			gpu = append(gpu, fmt.Sprintf("%s %s ×%d in %s", r.Address, r.InstanceType, r.Quantity, r.Region))
		}
	}
	want := `module.nodepools["t4"].azurerm_kubernetes_cluster_node_pool.this[0] Standard_NC4as_T4_v3 ×2 in eastus`
	if len(res.Errors) > 0 || len(res.Warnings) > 0 || len(gpu) != 1 || gpu[0] != want {
		t.Fatalf("errors:\n%swarnings:\n%sGPU resources %q", lines(res.Errors), lines(res.Warnings), gpu)
	}
}

// A unit deploying a registry module gpuguard has a stand-in for is read without terragrunt
// init: the module's node groups from the unit's inputs, each reported at its entry in them
// (else at the source line), where a gpuguard:ignore comment waives rules on it alone; one above
// the terraform block waives them on every resource of the unit. The unit's own files (the
// provider Terragrunt generates) join the stand-in, as Terragrunt copies them.
func TestRegistrySourceThroughStandIn(t *testing.T) {
	unit := `# gpuguard:ignore GPU009 reason="bought through a savings plan"
terraform {
  source = "tfr:///terraform-aws-modules/eks/aws?version=20.8.5"
}

generate "provider" {
  path      = "provider.tf"
  if_exists = "overwrite"
  contents  = "provider \"aws\" {\n  region = \"eu-west-1\"\n}\n"
}

inputs = {
  cluster_name = "ml"
  eks_managed_node_groups = {
    # gpuguard:ignore GPU005 reason="tagged by the cluster's default_tags"
    gpu = { instance_types = ["g6.xlarge"], desired_size = 3, capacity_type = "SPOT" }
  }
  self_managed_node_groups = merge({}, {
    "serve" = { instance_type = "g6e.xlarge" }
  })
}
`
	res := unitIn(t, map[string]string{"eks/terragrunt.hcl": unit}, "eks")
	if len(res.Errors) > 0 || len(res.Warnings) > 0 || len(res.Resources) != 2 {
		t.Fatalf("errors:\n%swarnings:\n%sresources %+v", lines(res.Errors), lines(res.Warnings), res.Resources)
	}
	sort.Slice(res.Resources, func(i, j int) bool { return res.Resources[i].Address < res.Resources[j].Address })
	r, serve := res.Resources[0], res.Resources[1]
	if r.Address != `module.eks_managed_node_group["gpu"].aws_eks_node_group.this[0]` || r.InstanceType != "g6.xlarge" || r.Quantity != 3 ||
		r.PurchaseOption != parser.Spot || r.Region != "eu-west-1" {
		t.Fatalf("resource %+v", r)
	}
	if r.Source != (parser.Location{File: filepath.Join("eks", FileName), Line: 16}) || !strings.Contains(strings.Join(r.Notes, " "), "read through gpuguard's stand-in for tfr:///terraform-aws-modules/eks/aws") {
		t.Fatalf("reported at %s with notes %q", r.Source, r.Notes)
	}
	if serve.Address != `module.self_managed_node_group["serve"].aws_autoscaling_group.this[0]` || serve.Source.Line != 19 {
		t.Fatalf("second group %s reported at %s", serve.Address, serve.Source)
	}
	if rules := suppressedRules(r); rules != "GPU009 GPU005" {
		t.Errorf("the gpu group's suppressions: %s", rules)
	}
	if rules := suppressedRules(serve); rules != "GPU009" {
		t.Errorf("the serve group's suppressions: %s", rules)
	}
	for _, d := range res.Included {
		if terraform.IsStandIn(d) {
			t.Fatalf("the stand-in's directory is listed as included: %q", res.Included)
		}
	}
	// v20 leaves the AMI to EKS; v21 defaults ami_type to AL2023_x86_64_STANDARD, without the
	// NVIDIA driver: the stand-in follows the version the source pins.
	if r.NoGPUDriver != "" {
		t.Fatalf("v20 group judged without a driver: %q", r.NoGPUDriver)
	}
	v21 := unitIn(t, map[string]string{"eks/terragrunt.hcl": strings.Replace(unit, "version=20.8.5", "version=21.3.1", 1)}, "eks")
	sort.Slice(v21.Resources, func(i, j int) bool { return v21.Resources[i].Address < v21.Resources[j].Address })
	if len(v21.Resources) != 2 || !strings.Contains(v21.Resources[0].NoGPUDriver, `the module's default since v21, "AL2023_x86_64_STANDARD"`) {
		t.Fatalf("v21 group: %+v", v21.Resources)
	}
}

// suppressedRules lists the rules a resource's suppressions waive, in order.
func suppressedRules(r parser.Resource) string {
	var rules []string
	for _, s := range r.Suppressions {
		rules = append(rules, s.Rule)
	}
	return strings.Join(rules, " ")
}
