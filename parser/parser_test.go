package parser

import "testing"

func TestSuppressionComment(t *testing.T) {
	loc := Location{File: "main.tf", Line: 3}
	cases := []struct {
		line  string
		ok    bool
		rules []string
		want  Suppression
	}{
		{`# gpuguard:ignore GPU003 reason="sized for peak" expires=2027-01-31`, true, []string{"GPU003"}, Suppression{Reason: "sized for peak", Expires: "2027-01-31"}},
		{`// gpuguard:ignore gpu004,GPU009 reason=batch`, true, []string{"GPU004", "GPU009"}, Suppression{Reason: "batch"}},
		{`/* gpuguard:ignore GPU001 */`, true, []string{"GPU001"}, Suppression{}},
		{`# gpuguard:ignore`, true, []string{""}, Suppression{}},
		{`# gpuguard ignore GPU003`, false, nil, Suppression{}},
		{`# just a comment`, false, nil, Suppression{}},
		{`# gpuguard:ignore GPU003 reason="a \"quoted\" reason"`, true, []string{"GPU003"}, Suppression{Reason: `a "quoted" reason`}},
		{"#\tgpuguard:ignore\tGPU003\treason=\"tabs\"", true, []string{"GPU003"}, Suppression{Reason: "tabs"}},
		{`# gpuguard:ignored GPU003`, false, nil, Suppression{}},
	}
	for _, tc := range cases {
		sups, ok := ParseSuppressionComment(tc.line, loc)
		if ok != tc.ok || len(sups) != len(tc.rules) {
			t.Errorf("%q: ok=%v sups=%+v", tc.line, ok, sups)
			continue
		}
		for i, s := range sups {
			if s.Rule != tc.rules[i] || s.Reason != tc.want.Reason || s.Expires != tc.want.Expires || s.Source != loc {
				t.Errorf("%q: got %+v", tc.line, s)
			}
		}
	}
}

func TestSuppressionAnnotation(t *testing.T) {
	sups := ParseSuppressionAnnotation("GPU003=batch job sized for peak, gpu007@2027-01-31=no profile yet;GPU004", Location{File: "k.yaml", Line: 7})
	if len(sups) != 3 || sups[0].Rule != "GPU003" || sups[0].Reason != "batch job sized for peak" ||
		sups[1].Rule != "GPU007" || sups[1].Expires != "2027-01-31" || sups[1].Reason != "no profile yet" ||
		sups[2].Rule != "GPU004" || sups[2].Reason != "" {
		t.Fatalf("%+v", sups)
	}
}

func TestGPUFamilies(t *testing.T) {
	gpu := map[string][]string{
		AWS:   {"p4d.24xlarge", "p5.48xlarge", "g5.xlarge", "g6e.2xlarge", "gr6.4xlarge", "inf2.xlarge", "trn1.32xlarge", "ml.g5.2xlarge", "dl1.24xlarge", "p6-b200.48xlarge"},
		GCP:   {"a2-highgpu-1g", "a3-megagpu-8g", "g2-standard-8", "g4-standard-48", "a4x-highgpu-4g", "a5-highgpu-8g", "z9-ultragpu-8g"},
		Azure: {"Standard_NC24ads_A100_v4", "standard_nd96isr_h100_v5", "Standard_NV36ads_A10_v5"},
	}
	cpu := map[string][]string{
		AWS:   {"m5.large", "c7g.xlarge", "t3.micro", "r6i.2xlarge", "ml.m5.xlarge"},
		GCP:   {"n1-standard-8", "e2-medium", "n2-standard-4", "c3-standard-8", "g1-small"},
		Azure: {"Standard_D4s_v5", "Standard_E8s_v5", "Standard_B2s"},
	}
	for p, types := range gpu {
		for _, ty := range types {
			if !IsGPUInstanceType(p, ty) {
				t.Errorf("%s %s should be a GPU type", p, ty)
			}
		}
	}
	for p, types := range cpu {
		for _, ty := range types {
			if IsGPUInstanceType(p, ty) {
				t.Errorf("%s %s should not be a GPU type", p, ty)
			}
		}
	}
	for ty, want := range map[string]string{"g5.xlarge": AWS, "a2-highgpu-1g": GCP, "n1-standard-8": GCP, "Standard_NC6s_v3": Azure, "weird": Unknown} {
		if got := ProviderOfInstanceType(ty); got != want {
			t.Errorf("ProviderOfInstanceType(%s) = %s, want %s", ty, got, want)
		}
	}
}

func TestCheckText(t *testing.T) {
	if e := CheckText("a.tf", []byte("x = 1\n"), "a Terraform file"); e != nil {
		t.Errorf("text refused: %v", e)
	}
	if e := CheckText("a.tf", []byte("x = 1\ny\x00z\n"), "a Terraform file"); e == nil || e.Line != 2 || e.Message != "binary or non-UTF-8 content: not a Terraform file" {
		t.Errorf("NUL on line 2: %+v", e)
	}
	if e := CheckText("a.yaml", []byte("a: \xff\n"), "a Kubernetes manifest"); e == nil || e.Line != 1 {
		t.Errorf("invalid UTF-8: %+v", e)
	}
}
