package terraform

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/internal/testutil"
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
    textencode    = textencodebase64("Hello World", "UTF-8")
    textdecode    = textdecodebase64("SGVsbG8gV29ybGQ=", "utf-8")
    pathexpand    = pathexpand("/etc/hosts")
    ephemeral     = ephemeralasnull("kept")
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
		"textencode":    "SGVsbG8gV29ybGQ=",
		"textdecode":    "Hello World",
		"pathexpand":    "/etc/hosts",
		"ephemeral":     "kept",
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
	// Each failing call leaves only its own element unknown (see salvage): nine instances, none
	// with a value from a bad call.
	if len(res.Resources) != 9 {
		t.Fatalf("want the nine instances of the map, got %+v", res.Resources)
	}
	for _, r := range res.Resources {
		if v, ok := r.Tags["value"]; ok {
			t.Errorf("%s: a bad call produced the value %q", r.Address, v)
		}
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

// The file hash functions digest the file's bytes (expected values: the digests of "hello world"
// from the documentation's examples for the string functions); functions whose value Terraform
// itself cannot know before apply, or that depend on the runner, are unknown with a reason.
func TestFileHashAndOpaqueFunctions(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"hello.txt": "hello world",
		"main.tf": `provider "aws" { region = "us-east-1" }
locals {
  checks = {
    md5       = filemd5("hello.txt")
    sha1      = filesha1("hello.txt")
    sha256    = filesha256("hello.txt")
    sha512    = substr(filesha512("hello.txt"), 0, 16)
    b64sha256 = filebase64sha256("hello.txt")
    b64sha512 = filebase64sha512("hello.txt") == base64sha512("hello world") ? "same" : "differs"
  }
}
resource "aws_instance" "x" {
  for_each      = local.checks
  instance_type = "g5.xlarge"
  tags          = { value = each.value }
}
resource "aws_instance" "bcrypt" { instance_type = bcrypt("secret") }
resource "aws_instance" "home" { instance_type = pathexpand("~/type.txt") }
resource "aws_instance" "utf16" { instance_type = textencodebase64("g5.xlarge", "UTF-16LE") }
`,
	})
	res := ParseModuleDir(dir, Options{FileDirs: []string{dir}})
	got := byAddress(t, res)
	for key, want := range map[string]string{
		"md5":       "5eb63bbbe01eeed093cb22bb8f5acdc3",
		"sha1":      "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed",
		"sha256":    "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9",
		"sha512":    "309ecc489c12d6eb",
		"b64sha256": "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=",
		"b64sha512": "same",
	} {
		if v := got[`aws_instance.x["`+key+`"]`].Tags["value"]; v != want {
			t.Errorf("%s = %q, want %q", key, v, want)
		}
	}
	for addr, reason := range map[string]string{
		"aws_instance.bcrypt": "salts at random",
		"aws_instance.home":   "home directory",
		"aws_instance.utf16":  `"UTF-16LE"`,
	} {
		r := got[addr]
		if len(r.Unresolved) != 1 || !strings.Contains(r.Unresolved[0].Reason, reason) {
			t.Errorf("%s: unresolved %+v, want a reason containing %s", addr, r.Unresolved, reason)
		}
	}
}

// base64gzip's output decodes and decompresses to its input.
func TestBase64Gzip(t *testing.T) {
	v, err := base64GzipFunc.Call([]cty.Value{cty.StringVal("#!/bin/bash\necho hello\n")})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(v.AsString())
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil || string(out) != "#!/bin/bash\necho hello\n" {
		t.Errorf("round trip = %q, %v", out, err)
	}
}
