package terraform

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
)

// One element that fails to evaluate leaves only itself unknown: the other node groups of the
// same map, passed through a module input, a local, a for expression or merge(), are read and
// priced. The failing element's own error is its reason, with file and line.
func TestFailingElementLeavesTheRestReadable(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"main.tf": `provider "aws" { region = "us-east-1" }
locals {
  groups = {
    train = {
      instance_type = "p5.48xlarge"
      size          = 2
      user_data     = templatefile("${path.module}/missing.sh", {})
    }
    serve = {
      instance_type = "g6.xlarge"
      size          = 3
    }
    broken = {
      instance_type = lookup({}, "nope")
      size          = 1
    }
  }
  # a for expression whose body fails for one element
  sized = { for k, g in local.groups : k => {
    instance_type = g.instance_type
    disk          = k == "serve" ? file("missing.txt") : "100"
  } }
  # merge() with one argument that fails in part
  merged = merge({ a = "g5.xlarge" }, { b = "g6e.xlarge", c = file("missing.txt") })
  listed = [for t in ["g5.xlarge", "g6.xlarge"] : { type = t, note = t == "g6.xlarge" ? file("missing.txt") : "" }]
}
module "gpu" {
  source = "./mod"
  groups = local.groups
}
resource "aws_instance" "sized" {
  for_each      = local.sized
  instance_type = each.value.instance_type
}
resource "aws_instance" "merged" {
  for_each      = local.merged
  instance_type = each.value
}
resource "aws_instance" "listed" {
  count         = length(local.listed)
  instance_type = local.listed[count.index].type
}
`,
		"mod/main.tf": `variable "groups" { type = any }
resource "aws_instance" "g" {
  for_each      = var.groups
  instance_type = each.value.instance_type
  user_data     = try(each.value.user_data, null)
}
`,
	})
	res := ParseModuleDir(dir, Options{FileDirs: []string{dir}})
	got := byAddress(t, res)
	for addr, want := range map[string]string{
		`module.gpu.aws_instance.g["train"]`: "p5.48xlarge",
		`module.gpu.aws_instance.g["serve"]`: "g6.xlarge",
		`aws_instance.sized["train"]`:        "p5.48xlarge",
		`aws_instance.sized["serve"]`:        "g6.xlarge",
		`aws_instance.merged["a"]`:           "g5.xlarge",
		`aws_instance.merged["b"]`:           "g6e.xlarge",
		`aws_instance.listed[0]`:             "g5.xlarge",
		`aws_instance.listed[1]`:             "g6.xlarge",
	} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: not found in %v", addr, addresses(res))
			continue
		}
		if r.InstanceType != want || len(r.Unresolved) != 0 {
			t.Errorf("%s: instance type %q unresolved %+v, want %s and nothing unresolved", addr, r.InstanceType, r.Unresolved, want)
		}
	}
	// The element whose instance type fails is unresolved with its own error and position.
	for _, addr := range []string{`module.gpu.aws_instance.g["broken"]`, `aws_instance.sized["broken"]`} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: not found in %v", addr, addresses(res))
			continue
		}
		if len(r.Unresolved) != 1 || r.Unresolved[0].Attribute != "instance_type" ||
			!strings.Contains(r.Unresolved[0].Reason, `"nope"`) || !strings.Contains(r.Unresolved[0].Reason, filepath.Join(dir, "main.tf")+":14") {
			t.Errorf("%s: unresolved %+v, want instance_type with lookup's error at main.tf:14", addr, r.Unresolved)
		}
	}
	// merge()'s failing element is unknown: for_each over it has no instance "c" to invent.
	if r, ok := got[`aws_instance.merged["c"]`]; ok && r.InstanceType != "" {
		t.Errorf(`aws_instance.merged["c"] has instance type %q from a failed call`, r.InstanceType)
	}
}

// Where the failing part decides the value's shape (a key, a for expression's condition or
// collection), the whole value stays unknown, with the error as the reason; and try() still
// catches errors itself.
func TestShapeDecidingFailuresStayWhole(t *testing.T) {
	res := parseHCL(t, `provider "aws" { region = "us-east-1" }
locals {
  bad_key  = { (file("missing.txt")) = "g5.xlarge", ok = "g6.xlarge" }
  bad_cond = { for k, v in { a = "g5.xlarge" } : k => v if file("missing.txt") == "" }
  bad_coll = { for k, v in jsondecode(file("missing.txt")) : k => v }
  caught   = try(file("missing.txt"), "g6e.xlarge")
}
resource "aws_instance" "key" {
  for_each      = local.bad_key
  instance_type = each.value
}
resource "aws_instance" "cond" {
  for_each      = local.bad_cond
  instance_type = each.value
}
resource "aws_instance" "coll" {
  for_each      = local.bad_coll
  instance_type = each.value
}
resource "aws_instance" "caught" { instance_type = local.caught }
`, Options{})
	got := byAddress(t, res)
	for _, addr := range []string{"aws_instance.key", "aws_instance.cond", "aws_instance.coll"} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: want one unresolved resource, got %v", addr, addresses(res))
			continue
		}
		if len(r.Unresolved) == 0 || !strings.Contains(r.Unresolved[0].Reason, "missing.txt") {
			t.Errorf("%s: unresolved %+v, want the file error as the reason", addr, r.Unresolved)
		}
	}
	if r := got["aws_instance.caught"]; r.InstanceType != "g6e.xlarge" {
		t.Errorf("try() fallback: instance type %q, want g6e.xlarge", r.InstanceType)
	}
}

// A deeply nested literal whose innermost element fails is salvaged down to a bounded depth, and
// evaluates in time (no depth² blow-up without a bound).
func TestSalvageDepthIsBounded(t *testing.T) {
	inner := `file("missing.txt")`
	for i := 0; i < 200; i++ {
		inner = "{ x = " + inner + ", t = \"g5.xlarge\" }"
	}
	res := parseHCL(t, `provider "aws" { region = "us-east-1" }
locals { deep = `+inner+` }
resource "aws_instance" "deep" { instance_type = local.deep.t }
`, Options{})
	got := byAddress(t, res)
	if r := got["aws_instance.deep"]; r.InstanceType != "g5.xlarge" {
		t.Errorf("outer element of a deep literal: instance type %q unresolved %+v, want g5.xlarge", r.InstanceType, r.Unresolved)
	}
}

func addresses(res parser.Result) []string {
	var out []string
	for _, r := range res.Resources {
		out = append(out, r.Address)
	}
	return out
}
