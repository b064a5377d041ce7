package terraform

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
)

// Modules downloaded by terraform init are followed by their key path, nested ones included;
// without a manifest, or with one that cannot be read, the call is a warning and nothing inside
// it is counted.
func TestDownloadedModules(t *testing.T) {
	files := map[string]string{
		"main.tf":                        "provider \"aws\" {\n  region = \"us-east-1\"\n}\nmodule \"a\" {\n  source = \"example/a/aws\"\n  gpus   = 2\n}\n",
		".terraform/modules/a/main.tf":   "variable \"gpus\" {}\nmodule \"b\" {\n  source = \"git::https://example.com/b.git\"\n  count  = var.gpus\n}\n",
		".terraform/modules/a.b/main.tf": "resource \"aws_instance\" \"x\" {\n  instance_type = \"g6.xlarge\"\n}\n",
	}
	manifest := `{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"a","Source":"registry.terraform.io/example/a/aws","Version":"1.0.0","Dir":".terraform/modules/a"},{"Key":"a.b","Source":"git::https://example.com/b.git","Dir":".terraform/modules/a.b"}]}`

	root := t.TempDir()
	testutil.WriteFiles(t, root, files)
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Resources) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "run terraform init to include it") {
		t.Fatalf("without a manifest: resources %d, warnings %+v", len(res.Resources), res.Warnings)
	}

	testutil.WriteFiles(t, root, map[string]string{ModulesManifest: manifest})
	res = ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	var got []string
	for _, r := range res.Resources {
		got = append(got, r.Address+" "+r.InstanceType+" "+filepath.Base(r.Source.File))
	}
	if strings.Join(got, ",") != "module.a.module.b[0].aws_instance.x g6.xlarge main.tf,module.a.module.b[1].aws_instance.x g6.xlarge main.tf" || len(res.Warnings) != 0 {
		t.Fatalf("with the manifest: %q, warnings %+v, errors %+v", got, res.Warnings, res.Errors)
	}
	if r := res.Resources[0]; r.Source.Line != 4 || len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "a.b/main.tf:1") {
		t.Fatalf("a downloaded module's resource is reported at the call (main.tf:4) with a note, got %+v %q", r.Source, r.Notes)
	}

	// What gpuguard cannot read inside a downloaded module is a warning, not the user's error.
	testutil.WriteFiles(t, root, map[string]string{".terraform/modules/a.b/broken.tf": "locals {\n  x = 1 +\n}\n"})
	res = ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Errors) != 0 || len(res.Resources) != 2 || len(res.Warnings) != 1 ||
		!strings.Contains(res.Warnings[0].Message, "in a module terraform init downloaded") || !strings.HasSuffix(res.Warnings[0].File, "broken.tf") {
		t.Fatalf("a broken downloaded file: resources %d, errors %+v, warnings %+v", len(res.Resources), res.Errors, res.Warnings)
	}

	testutil.WriteFiles(t, root, map[string]string{ModulesManifest: "{not json"})
	res = ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	var msgs []string
	for _, w := range res.Warnings {
		msgs = append(msgs, w.Message)
	}
	if len(res.Resources) != 0 || !strings.Contains(strings.Join(msgs, "\n"), "cannot read the downloaded modules' manifest") {
		t.Fatalf("a broken manifest: resources %d, warnings %q", len(res.Resources), msgs)
	}
}

// A downloaded module is followed only when the version terraform init recorded is one the
// call's version constraint admits (Terraform's constraint rules): a call whose constraint moved
// on since init (a pull request's version bump, whose base is read with the working tree's
// downloads) is not priced with the other version's code, and says why.
func TestDownloadedModuleVersion(t *testing.T) {
	manifest := `{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"a","Source":"registry.terraform.io/example/a/aws","Version":"20.8.4","Dir":".terraform/modules/a"}]}`
	for _, c := range []struct {
		constraint string
		followed   bool
	}{
		{"", true},
		{"20.8.4", true},
		{"~> 20.0", true},
		{">= 19, < 21", true},
		{"~> 20.8.0", true},
		{"~> 19.0", false},
		{"~> 20.9", false},
		{"21.0.0", false},
		{"!= 20.8.4", false},
		{"not a constraint", true}, // unreadable: trusted, as before constraints were read
	} {
		root := t.TempDir()
		version := ""
		if c.constraint != "" {
			version = fmt.Sprintf("  version = %q\n", c.constraint)
		}
		testutil.WriteFiles(t, root, map[string]string{
			"main.tf":                      "provider \"aws\" {\n  region = \"us-east-1\"\n}\nmodule \"a\" {\n  source  = \"example/a/aws\"\n" + version + "}\n",
			".terraform/modules/a/main.tf": "resource \"aws_instance\" \"x\" {\n  instance_type = \"g6.xlarge\"\n}\n",
			ModulesManifest:                manifest,
		})
		res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
		if c.followed {
			if len(res.Resources) != 1 || len(res.Warnings) != 0 {
				t.Errorf("%q: resources %d, warnings %+v; want the download followed", c.constraint, len(res.Resources), res.Warnings)
			}
			continue
		}
		want := fmt.Sprintf("holds version 20.8.4, which the call's version constraint %q does not admit: run terraform init again", c.constraint)
		if len(res.Resources) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, want) || res.Warnings[0].Line != 4 {
			t.Errorf("%q: resources %d, warnings %+v; want none and a warning at line 4 containing %q", c.constraint, len(res.Resources), res.Warnings, want)
		}
	}
}
