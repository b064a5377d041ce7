package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseFullConfig(t *testing.T) {
	src := `region: us-east-1
hours_per_month: 730
budgets:
  monthly_total: 50000
  monthly_increase: 5000
  per_resource_monthly: 20000
required_tags: [team, project, env]
profiles:
  "aws_eks_node_group.train": profiles/llama-7b-lora.yaml
usage:
  "Job/ml/*": {hours_per_month: 120}
policies: [policies/custom]
policy_data: {oversized_memory_fraction: 0.4, spot_saving_min_monthly: 100}
kubernetes:
  default_instance_type: g5.xlarge
catalog: prices/overlay.json
`
	var c Config
	if err := Parse([]byte(src), ".gpuguard.yaml", &c); err != nil {
		t.Fatal(err)
	}
	if c.Region != "us-east-1" || *c.Budgets.MonthlyTotal != 50000 || c.Usage["Job/ml/*"].HoursPerMonth != 120 ||
		c.Kubernetes.DefaultInstanceType != "g5.xlarge" || c.PolicyData["oversized_memory_fraction"] != 0.4 || len(c.RequiredTags) != 3 {
		t.Fatalf("config = %+v", c)
	}
}

func TestParseErrorsHaveLines(t *testing.T) {
	cases := map[string]struct {
		src  string
		line int
		msg  string
	}{
		"unknown key":  {"region: us-east-1\nregoin: eu-west-1\n", 2, "unknown field regoin"},
		"wrong type":   {"budgets:\n  monthly_total: lots\n", 2, "cannot unmarshal"},
		"bad yaml":     {"region: [\n", 1, "did not find expected node content"},
		"bad indent":   {"region: us-east-1\nbudgets:\n  monthly_total: 5\n monthly_increase: 3\n", 4, "did not find expected key (the enclosing block starts on line 3)"},
		"out of range": {"hours_per_month: 9000\n", 0, "between 0 and 744"},
	}
	for name, tc := range cases {
		var c Config
		err := Parse([]byte(tc.src), "cfg.yaml", &c)
		ce, ok := err.(*Error)
		if !ok || ce.Line != tc.line || !strings.Contains(ce.Msg, tc.msg) || ce.File != "cfg.yaml" {
			t.Errorf("%s: err = %#v", name, err)
		}
	}
}

func TestFindUpwardAndRoot(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "infra", "prod")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Find(deep); got != "" {
		t.Fatalf("found %q in an empty tree", got)
	}
	cfg := filepath.Join(root, ".gpuguard.yaml")
	if err := os.WriteFile(cfg, []byte("region: eu-west-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Find(deep); got != cfg {
		t.Fatalf("Find = %q, want %q", got, cfg)
	}
	c, err := Load(Find(deep), deep)
	if err != nil || c.Root != root || c.Region != "eu-west-1" || c.Resolve("profiles/a.yaml") != filepath.Join(root, "profiles/a.yaml") {
		t.Fatalf("Load = %+v, %v", c, err)
	}
	if got := c.RequiredTagsOrDefault(); strings.Join(got, ",") != "team,project,env" {
		t.Fatalf("default required tags = %v", got)
	}
}

func TestLineOfKeys(t *testing.T) {
	var c Config
	data := "region: us-east-1\nbudgets:\n  monthly_total: 50000\n  monthly_increase: 5000\nrequired_tags: [team]\n"
	if err := Parse([]byte(data), ".gpuguard.yaml", &c); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"budgets.monthly_increase": 4, "budgets.monthly_total": 3, "budgets": 2,
		"budgets.per_resource_monthly": 2, "required_tags": 5, "nothing": 0} {
		if got := c.Line(key); got != want {
			t.Errorf("Line(%q) = %d, want %d", key, got, want)
		}
	}
}

// Paths the config names (catalog, policies) stay inside its directory and git repository,
// symlinks followed: the config is a pull request's to change.
func TestResolveInsideRefusesPathsOut(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "ops", "prices"), filepath.Join(repo, "shared")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(base, "secret.csv"), filepath.Join(repo, "shared", "prices.csv")} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "secret.csv"), filepath.Join(repo, "ops", "link.csv")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	cfgPath := filepath.Join(repo, "ops", ".gpuguard.yaml")
	if err := os.WriteFile(cfgPath, []byte("catalog: ../../secret.csv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(cfgPath, filepath.Join(repo, "ops"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Repo != repo {
		t.Fatalf("repo = %q, want %q", c.Repo, repo)
	}
	for _, bad := range []string{"../../secret.csv", "link.csv", filepath.Join(base, "secret.csv")} {
		_, err := c.ResolveInside("catalog", bad)
		var ce *Error
		if !errors.As(err, &ce) || ce.Line != 1 || !strings.Contains(err.Error(), "outside the checked directories") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	// Inside the repository, even above the config's directory, is fine; so is a path that
	// does not exist yet (reading it fails later with its own error).
	for _, ok := range []string{"../shared/prices.csv", "prices/missing.csv"} {
		if p, err := c.ResolveInside("catalog", ok); err != nil || !filepath.IsAbs(p) {
			t.Errorf("%s: %q, %v", ok, p, err)
		}
	}
}

// docs/config.md documents every key of the config, and its example is a valid config.
func TestConfigDocIsComplete(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			key := prefix + name
			if f.Type.Kind() == reflect.Struct {
				walk(key+".", f.Type)
				continue
			}
			if !strings.Contains(doc, "| `"+key+"` |") {
				t.Errorf("docs/config.md has no row for %s", key)
			}
		}
	}
	walk("", reflect.TypeFor[Config]())
	start := strings.Index(doc, "```yaml\n")
	end := strings.Index(doc[start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatal("docs/config.md has no yaml example")
	}
	var c Config
	if err := Parse([]byte(doc[start+8:start+8+end]), "docs/config.md", &c); err != nil {
		t.Fatalf("the example in docs/config.md is not a valid config: %v", err)
	}
	if c.RegionFallback != "none" || c.Kubernetes.DaemonSetNodes["DaemonSet/monitoring/dcgm"] != 12 || len(c.Kubernetes.HelmValues) != 1 {
		t.Fatalf("the example did not read as written: %+v", c)
	}
}
