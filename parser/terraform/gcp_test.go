package terraform

import (
	"strings"
	"testing"
)

// A GCP VM with GPUs set to live-migrate for host maintenance is refused by Compute Engine: a
// warning at the resource's line says so; TERMINATE, and a VM without GPUs, are quiet.
func TestGPUVMsCannotMigrate(t *testing.T) {
	const t4 = `
  guest_accelerator {
    type  = "nvidia-tesla-t4"
    count = 1
  }`
	cases := []struct {
		name, body string
		warn       bool
	}{
		{"accelerator-optimized machine", `machine_type = "g2-standard-8"` + "\n  scheduling { on_host_maintenance = \"MIGRATE\" }", true},
		{"N1 with an attached GPU", `machine_type = "n1-standard-8"` + t4 + "\n  scheduling { on_host_maintenance = \"migrate\" }", true},
		{"N1 with an attached GPU, terminated", `machine_type = "n1-standard-8"` + t4 + "\n  scheduling { on_host_maintenance = \"TERMINATE\" }", false},
		{"no GPUs", `machine_type = "n2-standard-8"` + "\n  scheduling { on_host_maintenance = \"MIGRATE\" }", false},
	}
	for _, tc := range cases {
		// (An instance template is read through the instances and groups made from it, which
		// warn at their own address.)
		for _, typ := range []string{"google_compute_instance"} {
			src := "provider \"google\" { region = \"us-central1\" }\n\nresource \"" + typ + "\" \"vm\" {\n  " + tc.body + "\n}\n"
			res := ParseSource("main.tf", []byte(src), Options{})
			var got []string
			for _, w := range res.Warnings {
				if strings.Contains(w.Message, "on_host_maintenance") {
					got = append(got, w.Message)
					if w.File != "main.tf" || w.Line != 3 || !strings.HasPrefix(w.Message, typ+".vm: ") || !strings.Contains(w.Message, "terraform apply would fail") {
						t.Errorf("%s, %s: warning %+v", tc.name, typ, w)
					}
				}
			}
			if (len(got) == 1) != tc.warn || len(got) > 1 || len(res.Errors) > 0 {
				t.Errorf("%s, %s: warnings %q, errors %+v", tc.name, typ, got, res.Errors)
			}
		}
	}
}
