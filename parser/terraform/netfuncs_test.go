package terraform

import (
	"strings"
	"testing"
)

// The expected values are the examples of Terraform's function documentation
// (https://developer.hashicorp.com/terraform/language/functions/<name>).
func TestMoreTerraformFunctions(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
locals {
  checks = {
    cidrhost      = cidrhost("10.12.112.0/20", 16)
    cidrhost_last = cidrhost("10.12.112.0/20", -1)
    cidrhost_v6   = cidrhost("fd00:fd12:3456:7890:00a2::/72", 34)
    netmask       = cidrnetmask("172.16.0.0/12")
    subnet        = cidrsubnet("172.16.0.0/12", 4, 2)
    subnet_v6     = cidrsubnet("fd00:fd12:3456:7890::/56", 16, 162)
    subnets       = join(" ", cidrsubnets("10.1.0.0/16", 4, 4, 8, 4))
    subnets_v6    = join(" ", cidrsubnets("fd00:fd12:3456:7890::/56", 16, 16, 16, 32))
    matchkeys     = join(" ", matchkeys(["i-123", "i-abc", "i-def"], ["us-west", "us-east", "us-east"], ["us-east"]))
    transpose     = jsonencode(transpose({ a = ["1", "2"], b = ["2", "3"] }))
    urlencode     = urlencode("Hello World!")
    base64sha256  = base64sha256("hello world")
    sha512        = substr(sha512("hello world"), 0, 16)
    uuidv5        = uuidv5("dns", "www.terraform.io")
    timecmp       = timecmp("2017-11-22T00:00:00Z", "2017-11-22T01:00:00Z")
    template      = templatestring("Hello, $${name}!", { name = "Jodie" })
  }
}
resource "aws_instance" "x" {
  for_each      = local.checks
  instance_type = "g5.xlarge"
  tags          = { value = each.value }
}
`, Options{})
	got := map[string]string{}
	for _, r := range res.Resources {
		key := strings.TrimSuffix(strings.TrimPrefix(r.Address, `aws_instance.x["`), `"]`)
		if len(r.Unresolved) > 0 {
			got[key] = "unresolved: " + r.Unresolved[0].Reason
			continue
		}
		got[key] = r.Tags["value"]
	}
	for key, want := range map[string]string{
		"cidrhost":      "10.12.112.16",
		"cidrhost_last": "10.12.127.255",
		"cidrhost_v6":   "fd00:fd12:3456:7890::22",
		"netmask":       "255.240.0.0",
		"subnet":        "172.18.0.0/16",
		"subnet_v6":     "fd00:fd12:3456:7800:a200::/72",
		"subnets":       "10.1.0.0/20 10.1.16.0/20 10.1.32.0/24 10.1.48.0/20",
		"subnets_v6":    "fd00:fd12:3456:7800::/72 fd00:fd12:3456:7800:100::/72 fd00:fd12:3456:7800:200::/72 fd00:fd12:3456:7800:300::/88",
		"matchkeys":     "i-abc i-def",
		"transpose":     `{"1":["a"],"2":["a","b"],"3":["b"]}`,
		"urlencode":     "Hello+World%21",
		"base64sha256":  "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=",
		"sha512":        "309ecc489c12d6eb",
		"uuidv5":        "a5008fae-b28c-5ba5-96cd-82b4c53552d6",
		"timecmp":       "-1",
		"template":      "Hello, Jodie!",
	} {
		if got[key] != want {
			t.Errorf("%s = %q, want %q", key, got[key], want)
		}
	}
	if len(res.Errors) > 0 {
		t.Errorf("errors: %+v", res.Errors)
	}
}

// Out-of-range and non-whole arguments are errors, never a huge shift or a panic: pow() makes
// infinities.
func TestNetworkFunctionsRefuseBadNumbers(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
locals {
  bad = {
    host_inf    = cidrhost("10.0.0.0/8", pow(2, 5000))
    host_frac   = cidrhost("10.0.0.0/8", 1.5)
    host_big    = cidrhost("10.0.0.0/8", 16777216)
    subnet_inf  = cidrsubnet("10.0.0.0/8", pow(2, 5000), 1)
    subnet_big  = cidrsubnet("10.0.0.0/8", 9223372036854775807, 1)
    subnet_num  = cidrsubnet("10.0.0.0/8", 8, 256)
    subnets_big = join(",", cidrsubnets("10.0.0.0/8", 300))
    subnets_out = join(",", cidrsubnets("10.0.0.0/24", 1, 1, 1))
    bad_prefix  = cidrhost("10.0.0.0", 1)
  }
}
resource "aws_instance" "x" {
  for_each      = local.bad
  instance_type = "g5.xlarge"
  tags          = { value = each.value }
}
`, Options{})
	if len(res.Resources) != 1 || len(res.Resources[0].Unresolved) == 0 {
		t.Fatalf("want one unresolved resource (the for_each fails as a whole), got %+v", res.Resources)
	}
	for name, expr := range map[string]string{
		"host_inf": `cidrhost("10.0.0.0/8", pow(2, 5000))`, "host_frac": `cidrhost("10.0.0.0/8", 1.5)`,
		"host_big": `cidrhost("10.0.0.0/8", 16777216)`, "subnet_inf": `cidrsubnet("10.0.0.0/8", pow(2, 5000), 1)`,
		"subnet_big": `cidrsubnet("10.0.0.0/8", 9223372036854775807, 1)`, "subnet_num": `cidrsubnet("10.0.0.0/8", 8, 256)`,
		"subnets_big": `cidrsubnets("10.0.0.0/8", 300)`, "subnets_out": `cidrsubnets("10.0.0.0/24", 1, 1, 1)`,
		"bad_prefix": `cidrhost("10.0.0.0", 1)`,
	} {
		r := parseHCL(t, "provider \"aws\" { region = \"us-east-1\" }\nresource \"aws_instance\" \"x\" {\n  instance_type = \"g5.xlarge\"\n  tags = { v = "+expr+" }\n  count = length("+expr+") > 0 ? 1 : 1\n}\n", Options{})
		if len(r.Resources) != 1 || len(r.Resources[0].Unresolved) == 0 {
			t.Errorf("%s: %+v", name, r.Resources)
		}
	}
}

// Odd arguments to the functions added here — empty, null, unknown, the wrong type — are
// errors or unknowns, never a panic (the evaluator turns one into an "internal error").
func TestNewFunctionsNeverPanic(t *testing.T) {
	calls := []string{
		`matchkeys([], [], [])`, `matchkeys(["a"], ["k"], [])`, `matchkeys(["a"], [], ["k"])`, `matchkeys(var.unknown, ["k"], ["k"])`,
		`transpose({})`, `transpose({ a = [] })`, `transpose(var.unknown)`,
		`cidrsubnets("10.0.0.0/8")`, `cidrsubnets("::/0", 128)`, `cidrhost("::/0", -1)`, `cidrnetmask("::/64")`, `cidrsubnet("10.0.0.0/8", 0, 0)`,
		`uuidv5("nope", "x")`, `timecmp("x", "y")`, `templatestring("$${", {})`, `templatestring("$${templatestring(\"a\", {})}", {})`,
		`yamldecode("")`, `yamldecode("*x")`, `yamlencode(null)`, `yamlencode(var.unknown)`, `yamlencode({ a = [1, { b = null }] })`,
		`fileset(".", "[")`, `fileset(var.unknown, "*")`, `filebase64("missing")`, `issensitive(var.unknown)`, `plantimestamp()`,
	}
	for _, call := range calls {
		src := "variable \"unknown\" {}\nprovider \"aws\" { region = \"us-east-1\" }\nlocals { v = " + call + " }\nresource \"aws_instance\" \"x\" {\n  instance_type = \"g5.xlarge\"\n  tags = { v = jsonencode(local.v) }\n}\n"
		res := parseHCL(t, src, Options{})
		for _, e := range res.Errors {
			if strings.Contains(e.Message, "internal error") {
				t.Errorf("%s: %s", call, e.Message)
			}
		}
		if len(res.Resources) != 1 {
			t.Errorf("%s: %d resources, errors %+v", call, len(res.Resources), res.Errors)
		}
	}
}
