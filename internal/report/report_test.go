package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

func amt(s string) *money.Amount {
	m, err := money.Parse(s)
	if err != nil {
		panic(err)
	}
	a := money.Amount(m)
	return &a
}

// bigDiff has n added resources and a deny finding on each.
func bigDiff(n int) *result.Diff {
	d := &result.Diff{Version: "1", Currency: "USD", Catalog: result.CatalogInfo{Updated: "2026-09-16", Sources: []string{"s"}}}
	for i := 0; i < n; i++ {
		e := &estimator.Estimate{Address: fmt.Sprintf("aws_instance.fleet[%d]", i), InstanceType: "g5.xlarge", Quantity: 1,
			PurchaseOption: parser.OnDemand, MonthlyCost: amt("734.38"), GPU: &estimator.GPUInfo{Model: "NVIDIA A10G", Count: 1}}
		d.Changes = append(d.Changes, result.Change{Address: e.Address, Change: "added", MonthlyCostAfter: amt("734.38"), MonthlyDelta: amt("734.38"), After: e})
		d.Findings = append(d.Findings, result.Finding{Rule: "TEAM" + fmt.Sprint(i), Severity: result.Deny, Address: e.Address, File: "main.tf", Line: i + 1, Message: "over the team's budget"})
	}
	d.Totals.MonthlyCostAfter = money.Amount(money.Micros(*amt("734.38")) * money.Micros(n))
	d.Totals.MonthlyDelta = d.Totals.MonthlyCostAfter
	d.Head.Resources = n
	return d
}

func TestDiffCommentCollapsesDetailToFit(t *testing.T) {
	d := bigDiff(300)
	full := DiffComment(d, 1<<20, nil)
	if strings.Contains(full, "more changed resources") || strings.Count(full, "aws_instance.fleet[") < 600 {
		t.Fatalf("with room to spare every change and finding is listed")
	}
	for _, max := range []int{30000, 8000, 2000} {
		c := DiffComment(d, max, nil)
		if n := utf8.RuneCountInString(c); n > max {
			t.Errorf("max %d: %d characters", max, n)
		}
		if strings.Contains(c, "truncated") {
			t.Errorf("max %d: truncated where collapsing detail was enough", max)
		}
		for _, s := range []string{CommentMarker, "+$220,314.00", "❌ **300 guardrails failed**", "more changed resources", "more."} {
			if !strings.Contains(c, s) {
				t.Errorf("max %d: comment lacks %q", max, s)
			}
		}
	}
}

func TestDiffCommentTruncatesAsALastResort(t *testing.T) {
	d := bigDiff(1)
	d.Findings[0].Message = strings.Repeat("a user rule's very long message ", 5000)
	c := DiffComment(d, 0, nil)
	if n := utf8.RuneCountInString(c); n > MaxCommentChars {
		t.Fatalf("%d characters", n)
	}
	if !strings.HasSuffix(c, "the job log has the full report.\n") || !strings.HasPrefix(c, CommentMarker) {
		t.Errorf("truncated comment lacks its marker or note:\n%s … %s", c[:200], c[len(c)-200:])
	}
}

func TestCommentListsInputErrorsAndRoots(t *testing.T) {
	d := bigDiff(0)
	for _, root := range []string{"stacks/prod", "stacks/staging"} {
		e := &estimator.Estimate{Root: root, Address: "aws_instance.gpu", InstanceType: "g5.xlarge", Quantity: 1, MonthlyCost: amt("734.38")}
		d.Changes = append(d.Changes, result.Change{Root: root, Address: e.Address, Change: "added", MonthlyCostAfter: amt("734.38"), MonthlyDelta: amt("734.38"), After: e})
	}
	d.Errors = []parser.Error{{File: "stacks/dev/main.tf", Line: 7, Message: "Missing closing brace"}}
	c := DiffComment(d, 0, nil)
	for _, s := range []string{"`stacks/prod: aws_instance.gpu`", "`stacks/staging: aws_instance.gpu`", "**1 input error**", "stacks/dev/main.tf:7: Missing closing brace"} {
		if !strings.Contains(c, s) {
			t.Errorf("comment lacks %q:\n%s", s, c)
		}
	}
}

func TestGitHubAnnotationsEscapeAndCap(t *testing.T) {
	var fs []result.Finding
	for i := 0; i < 12; i++ {
		fs = append(fs, result.Finding{Rule: "GPU003", Title: "Oversized GPU", Severity: result.Warn, File: "infra/a,b:c.tf", Line: i + 1, Message: fmt.Sprintf("100%% oversized\nline two %d", i)})
	}
	fs = append(fs, result.Finding{Rule: "GPU001", Severity: result.Deny, Message: "over budget"},
		result.Finding{Rule: "GPU005", Severity: result.Warn, File: "x.tf", Line: 1, Message: "waived", Suppressed: true})
	var b bytes.Buffer
	if err := WriteGitHubAnnotations(&b, fs, []parser.Error{{File: "bad.tf", Line: 3, Message: "Invalid expression"}}, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "::error file=bad.tf,line=3,title=gpuguard input could not read input::Invalid expression" {
		t.Errorf("input error: %s", lines[0])
	}
	if lines[1] != "::error title=gpuguard GPU001::over budget" {
		t.Errorf("finding without a file: %s", lines[1])
	}
	want := "::warning file=infra/a%2Cb%3Ac.tf,line=1,title=gpuguard GPU003 Oversized GPU::100%25 oversized%0Aline two 0"
	if lines[2] != want {
		t.Errorf("escaping:\n got %s\nwant %s", lines[2], want)
	}
	warnings := strings.Count(b.String(), "::warning ")
	if warnings != MaxAnnotationsPerLevel {
		t.Errorf("%d warnings, want the cap %d", warnings, MaxAnnotationsPerLevel)
	}
	last := lines[len(lines)-1]
	if last != "::notice title=gpuguard::2 more findings are not shown as annotations (GitHub shows 10 per level and step); the job log and the JSON report list them all." {
		t.Errorf("summary line: %s", last)
	}
	if strings.Contains(b.String(), "waived") {
		t.Error("a waived finding was annotated")
	}
}

func TestSARIFResults(t *testing.T) {
	fs := []result.Finding{
		{Rule: "GPU003", Severity: result.Warn, File: "main.tf", Line: 9, Message: "oversized", Remediation: "use g6.xlarge"},
		{Rule: "GPU005", Severity: result.Warn, File: "main.tf", Line: 20, Message: "no tags", Suppressed: true, SuppressionReason: "shared sandbox"},
		{Rule: "ACME1", Severity: result.Deny, File: "k8s/job.yaml", Line: 4, Message: "custom"},
	}
	rules := []RuleInfo{{ID: "GPU003", Title: "Oversized GPU", Description: "d3", Severity: result.Warn}, {ID: "GPU005", Title: "Missing tags", Description: "d5", Severity: result.Warn}}
	var b bytes.Buffer
	if err := WriteSARIF(&b, fs, rules, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Version string
					Rules   []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
						Default struct {
							Level string
						} `json:"defaultConfiguration"`
					}
				}
			}
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					Physical struct {
						Artifact struct{ URI string } `json:"artifactLocation"`
						Region   struct {
							StartLine int `json:"startLine"`
						}
					} `json:"physicalLocation"`
				}
				Suppressions []struct {
					Kind, Status, Justification string
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if log.Version != "2.1.0" || run.Tool.Driver.Version != "1.2.3" || len(run.Tool.Driver.Rules) != 3 {
		t.Fatalf("log: %s", b.String())
	}
	if r := run.Tool.Driver.Rules[run.Results[0].RuleIndex]; r.ID != "GPU003" || r.Default.Level != "warning" || !strings.HasSuffix(r.HelpURI, "docs/policies.md#gpu003") {
		t.Errorf("rule metadata %+v", r)
	}
	res := run.Results
	if res[0].Message.Text != "oversized use g6.xlarge" || res[0].Locations[0].Physical.Artifact.URI != "main.tf" || res[0].Locations[0].Physical.Region.StartLine != 9 {
		t.Errorf("result 0: %+v", res[0])
	}
	if len(res[1].Suppressions) != 1 || res[1].Suppressions[0].Kind != "inSource" || res[1].Suppressions[0].Justification != "shared sandbox" {
		t.Errorf("suppression: %+v", res[1].Suppressions)
	}
	if res[2].Level != "error" || run.Tool.Driver.Rules[res[2].RuleIndex].ID != "ACME1" {
		t.Errorf("custom rule: %+v", res[2])
	}
}

// Reports say how old the catalog's prices were at the run, and past catalog.StaleAfterDays
// that they may have changed; a document written without an age says only the date.
func TestCatalogAge(t *testing.T) {
	days := func(n int) *int { return &n }
	for _, tc := range []struct {
		age          *int
		want, absent string
	}{
		{nil, "updated 2026-09-16 (", "before this run"},
		{days(1), "updated 2026-09-16, 1 day before this run (", "may have changed"},
		{days(90), "updated 2026-09-16, 90 days before this run (", "may have changed"},
		{days(91), "updated 2026-09-16, 91 days before this run: prices may have changed since (gpuguard pricing update writes a fresher overlay)", ""},
	} {
		d := bigDiff(1)
		d.Catalog.AgeDays = tc.age
		var table bytes.Buffer
		if err := WriteDiffTable(&table, d); err != nil {
			t.Fatal(err)
		}
		comment := DiffComment(d, 0, nil)
		for name, out := range map[string]string{"table": table.String(), "comment": strings.ReplaceAll(comment, "`", "")} {
			if !strings.Contains(out, tc.want) || (tc.absent != "" && strings.Contains(out, tc.absent)) {
				t.Errorf("age %v, %s: want %q and not %q in\n%s", tc.age, name, tc.want, tc.absent, out)
			}
		}
	}
}

// Two roots declaring one address (two Terragrunt units deploying one module) are told apart
// by their root in check's table and Markdown; an address only one root declares stays bare.
func TestCheckNamesAmbiguousAddressesByRoot(t *testing.T) {
	gpu := &estimator.GPUInfo{Model: "NVIDIA A10G", Count: 1}
	c := &result.Check{Version: "1", Currency: "USD", HoursPerMonth: 730, Catalog: result.CatalogInfo{Updated: "2026-09-16"}}
	for _, r := range []struct{ root, addr string }{{"live/prod/gpu", "aws_eks_node_group.gpu"}, {"live/dev/gpu", "aws_eks_node_group.gpu"}, {"live/prod/web", "aws_instance.web"}} {
		c.Resources = append(c.Resources, estimator.Estimate{Address: r.addr, Root: r.root, ID: r.root + "|" + r.addr, InstanceType: "g5.xlarge", Quantity: 1,
			PurchaseOption: parser.OnDemand, MonthlyCost: amt("734.38"), GPU: gpu})
		c.Findings = append(c.Findings, result.Finding{Rule: "GPU007", Severity: result.Notice, Address: r.addr, Resource: r.root + "|" + r.addr, Message: "no profile"})
	}
	for name, out := range checkReports(t, c) {
		for _, want := range []string{"live/prod/gpu: aws_eks_node_group.gpu", "live/dev/gpu: aws_eks_node_group.gpu"} {
			if strings.Count(out, want) != 2 { // the resource row and its finding
				t.Errorf("%s: %q appears %d times, want 2:\n%s", name, want, strings.Count(out, want), out)
			}
		}
		if strings.Contains(out, "live/prod/web:") || !strings.Contains(out, "aws_instance.web") {
			t.Errorf("%s: an unambiguous address is prefixed:\n%s", name, out)
		}
	}
}

// A recommended N1 VM is named with its attached GPUs in the table and the comment: the VM
// alone has none.
func TestRecommendationNamesAttachedGPUs(t *testing.T) {
	c := &result.Check{Version: "1", Currency: "USD", HoursPerMonth: 730, Catalog: result.CatalogInfo{Updated: "2026-09-16"}}
	c.Resources = []estimator.Estimate{{Address: "google_compute_instance.vision", InstanceType: "n1-standard-8", Quantity: 1, PurchaseOption: parser.OnDemand,
		MonthlyCost: amt("909.58"), PriceEstimated: true, GPU: &estimator.GPUInfo{Model: "NVIDIA T4", Count: 4},
		Recommendations: []estimator.Recommendation{{Kind: estimator.RecSmallerInstance, InstanceType: "n1-standard-8", PurchaseOption: "on_demand",
			Accelerators: []parser.Accelerator{{Type: "nvidia-tesla-t4", Count: 1}}, MonthlyCost: money.Amount(*amt("373.03")), MonthlySaving: money.Amount(*amt("536.55")), PriceEstimated: true}}}}
	for name, out := range checkReports(t, c) {
		if want := "n1-standard-8 with 1× nvidia-tesla-t4: $373.03*/month, saves $536.55*"; !strings.Contains(out, want) {
			t.Errorf("%s: no %q in\n%s", name, want, out)
		}
	}
}

// A resource on MIG slices shows its slice beside its GPUs, and a mig recommendation names the
// slice it proposes.
func TestReportsNameMIGSlices(t *testing.T) {
	c := &result.Check{Version: "1", Currency: "USD", HoursPerMonth: 730, Catalog: result.CatalogInfo{Updated: "2026-09-16"}}
	c.Resources = []estimator.Estimate{{Address: "google_container_node_pool.h100", InstanceType: "a3-highgpu-8g", Quantity: 2, PurchaseOption: parser.OnDemand,
		MonthlyCost: amt("129195.40"), GPU: &estimator.GPUInfo{Model: "NVIDIA H100 80GB", Count: 8, MIGProfile: "3g.40gb"},
		Recommendations: []estimator.Recommendation{{Kind: estimator.RecMIG, InstanceType: "a3-highgpu-8g", MIGProfile: "1g.10gb", PurchaseOption: "on_demand",
			MonthlyCost: money.Amount(*amt("64597.70")), MonthlySaving: money.Amount(*amt("64597.70"))}}}}
	for name, out := range checkReports(t, c) {
		for _, want := range []string{"8× NVIDIA H100 80GB (MIG 3g.40gb)", "a 1g.10gb MIG slice: $64,597.70/month, saves $64,597.70"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", name, want, out)
			}
		}
	}
}

// checkReports renders a check as the table and as the Markdown comment, by format name.
func checkReports(t *testing.T, c *result.Check) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, write := range map[string]func(*bytes.Buffer, *result.Check) error{
		"table":    func(b *bytes.Buffer, c *result.Check) error { return WriteCheckTable(b, c) },
		"markdown": func(b *bytes.Buffer, c *result.Check) error { return WriteCheckMarkdown(b, c, nil) },
	} {
		var b bytes.Buffer
		if err := write(&b, c); err != nil {
			t.Fatal(err)
		}
		out[name] = b.String()
	}
	return out
}

// splitRow splits a Markdown table row at its unescaped pipes, as GitHub does before it parses
// the cells: the cells between the row's outer pipes.
func splitRow(row string) []string {
	var cells []string
	start := 1
	for i := 1; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++ // an escaped character, a pipe included, stays in its cell
		case '|':
			cells = append(cells, row[start:i])
			start = i + 1
		}
	}
	return cells
}

// tableShapes checks that every row of every table in md has as many cells as the table's
// header, and returns the rows.
func tableShapes(t *testing.T, name, md string) []string {
	t.Helper()
	var rows []string
	width := 0
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			width = 0
			continue
		}
		n := len(splitRow(line))
		if width == 0 {
			width = n
			continue
		}
		if n != width {
			t.Errorf("%s: row has %d cells, its table %d:\n%s", name, n, width, line)
		}
		rows = append(rows, line)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no table rows in\n%s", name, md)
	}
	return rows
}

// A resource name with a pipe (a for_each key), backticks or a line break keeps its table cell
// whole in every Markdown report, and shows as written: the pipe escaped inside the table (GitHub
// unescapes it even within code), as is in a list, the backticks fenced by a longer run.
func TestTableCellsKeepTheirColumns(t *testing.T) {
	gpu := &estimator.GPUInfo{Model: "NVIDIA A10G", Count: 1}
	fits := &estimator.Fit{Verdict: estimator.VerdictOversized, Source: "declared"}
	addrs := []string{`aws_instance.gpu["a|b"]`, "aws_instance.gpu[\"`x`\"]", "aws_instance.gpu[\"two\nlines\"]"}
	unpriced := "not in the catalog"
	c := &result.Check{Version: "1", Currency: "USD", HoursPerMonth: 730, Catalog: result.CatalogInfo{Updated: "2026-09-16"}}
	d := &result.Diff{Version: "1", Currency: "USD", Catalog: c.Catalog}
	for i, a := range addrs {
		e := estimator.Estimate{Address: a, ID: "infra|" + a, Root: "infra", InstanceType: "g5.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand,
			MonthlyCost: amt("734.38"), GPU: gpu, Fit: fits, Source: parser.Location{File: "infra/main.tf", Line: i + 1},
			Recommendations: []estimator.Recommendation{{Kind: estimator.RecSmallerInstance, InstanceType: "g6.xlarge", PurchaseOption: "on_demand",
				MonthlyCost: money.Amount(*amt("587.50")), MonthlySaving: money.Amount(*amt("146.88")), Reason: "fits | cheaper"}}}
		if i == 2 {
			e.MonthlyCost, e.UnpricedReason = nil, &unpriced
		}
		c.Resources = append(c.Resources, e)
		f := result.Finding{Rule: "TEAM|1", Severity: result.Warn, Address: a, Resource: e.ID, File: e.Source.File, Line: e.Source.Line, Message: "a | b"}
		c.Findings = append(c.Findings, f)
		d.Findings = append(d.Findings, f)
		d.Changes = append(d.Changes, result.Change{Address: a, Root: "infra", Change: "added", After: &c.Resources[i], MonthlyCostAfter: e.MonthlyCost, MonthlyDelta: e.MonthlyCost})
	}
	l := NewSourceLinks("https://github.com", "acme/infra", headSHA, baseSHA, "/repo", "/repo")
	outs := map[string]string{"comment": CheckComment(c, 0, l), "diff comment": DiffComment(d, 0, l), "diff comment without links": DiffComment(d, 0, nil)}
	for name, links := range map[string]*SourceLinks{"markdown": l, "markdown without links": nil} {
		var b bytes.Buffer
		if err := WriteCheckMarkdown(&b, c, links); err != nil {
			t.Fatal(err)
		}
		outs[name] = b.String()
	}
	for name, out := range outs {
		rows := strings.Join(tableShapes(t, name, out), "\n")
		for _, want := range []string{"`aws_instance.gpu[\"a\\|b\"]`", "``aws_instance.gpu[\"`x`\"]``", "`aws_instance.gpu[\"two lines\"]`", "TEAM\\|1"} {
			if !strings.Contains(rows, want) {
				t.Errorf("%s: no %s in its table rows:\n%s", name, want, out)
			}
		}
	}
	// A user's rule id is text too in the collapsed list of notices.
	d.Findings = append(d.Findings, result.Finding{Rule: "<b>ACME1", Severity: result.Notice, Message: "no owner"})
	if want := "- &lt;b>ACME1 no owner"; !strings.Contains(DiffComment(d, 0, nil), want) {
		t.Errorf("no notice %q in\n%s", want, DiffComment(d, 0, nil))
	}
	if want := "- `aws_instance.gpu[\"two lines\"]`"; !strings.Contains(DiffComment(d, 0, nil)+outs["markdown without links"], want) {
		t.Errorf("no unpriced list item %s", want)
	}
}

// A code span shows its text as written whatever backticks and spaces it holds (CommonMark 6.1).
func TestCodeSpans(t *testing.T) {
	for in, want := range map[string]string{
		"aws_instance.a":    "`aws_instance.a`",
		"a`b":               "``a`b``",
		"a``b`c":            "```a``b`c```",
		"`lead":             "`` `lead ``",
		"trail`":            "`` trail` ``",
		" both ":            "`  both  `",
		"  ":                "`  `",
		"one\ntwo\r\nthree": "`one two three`",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %s, want %s", in, got, want)
		}
	}
}

// An autoscaled resource shows its range of nodes and what it costs at the maximum, in the
// table and in Markdown, and the total says what everything costs at the maximums.
func TestScaleMaxIsShown(t *testing.T) {
	c := &result.Check{Version: "1", Currency: "USD", HoursPerMonth: 730, Catalog: result.CatalogInfo{Updated: "2026-09-16"}}
	c.Resources = []estimator.Estimate{
		{Address: "azurerm_kubernetes_cluster_node_pool.a100", InstanceType: "Standard_NC24ads_A100_v4", Quantity: 0, PurchaseOption: parser.Spot,
			MonthlyCost: amt("0"), ScaleMax: &estimator.ScaleMaxCost{Quantity: 4, MonthlyCost: *amt("1297.74"), PriceEstimated: true, From: "max_count"}},
		{Address: "aws_instance.fixed", InstanceType: "g5.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, MonthlyCost: amt("734.38")},
	}
	c.Totals = estimator.Sum(c.Resources)
	for name, out := range checkReports(t, c) {
		for _, want := range []string{"0–4", "$0.00 (up to $1,297.74*)", "Up to $2,032.12*/month with 1 autoscaled resource at its declared maximum."} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", name, want, out)
			}
		}
	}
	// Resources counted within a limit they share: the sentence says which limit, so the total
	// is not read as the sum of the maximums. A limit with one resource in it caps nothing its own
	// maximum does not, and is not named.
	limit := &parser.SharedLimit{Owner: "NodePool/gpu", What: "limit of 2 nvidia.com/gpu", Limit: 2, Unit: "nvidia.com/gpu", PerInstance: 1}
	c.Resources[0].SharedLimit = limit
	for name, out := range checkReports(t, c) {
		if strings.Contains(out, "counted within") {
			t.Errorf("%s: a limit with one member named:\n%s", name, out)
		}
	}
	c.Resources[1].SharedLimit = limit
	for name, out := range checkReports(t, c) {
		if want := "at its declared maximum, counted within NodePool/gpu's limit of 2 nvidia.com/gpu."; !strings.Contains(out, want) {
			t.Errorf("%s: no %q in\n%s", name, want, out)
		}
	}
	c.Resources[0].SharedLimit, c.Resources[1].SharedLimit = nil, nil
	c.Resources[0].ScaleMax = nil
	c.Totals = estimator.Sum(c.Resources)
	for name, out := range checkReports(t, c) {
		if strings.Contains(out, "up to") || strings.Contains(out, "Up to") {
			t.Errorf("%s: a maximum without an autoscaled resource:\n%s", name, out)
		}
	}
}

// A pull request that raises only an autoscaler's maximum leaves the totals as they were; the
// comment's headline and its changes table still say what the maximum now costs.
func TestCommentShowsARaisedMaximum(t *testing.T) {
	before := estimator.Estimate{Address: "aws_eks_node_group.gpu", ID: "aws_eks_node_group.gpu", InstanceType: "p5.48xlarge", PurchaseOption: parser.OnDemand,
		MonthlyCost: amt("0"), ScaleMax: &estimator.ScaleMaxCost{Quantity: 2, MonthlyCost: *amt("80358.40"), From: "scaling_config.max_size"}}
	after := before
	after.ScaleMax = &estimator.ScaleMaxCost{Quantity: 16, MonthlyCost: *amt("642867.20"), From: "scaling_config.max_size"}
	d := &result.Diff{Version: "1", Currency: "USD", Catalog: result.CatalogInfo{Updated: "2026-09-16"},
		Changes: []result.Change{{Address: before.Address, Change: "changed", Before: &before, After: &after, MonthlyCostBefore: amt("0"), MonthlyCostAfter: amt("0"), MonthlyDelta: amt("0"),
			MaxMonthlyCostBefore: &before.ScaleMax.MonthlyCost, MaxMonthlyCostAfter: &after.ScaleMax.MonthlyCost}},
		Totals: result.DiffTotals{MaxMonthlyCostBefore: amt("80358.40"), MaxMonthlyCostAfter: amt("642867.20")}}
	out := DiffComment(d, 0, nil)
	for _, want := range []string{
		"### ➖ gpuguard: GPU spend $0.00 → $0.00 a month ($0.00, no change) — up to $642,867.20 at full scale-out (+$562,508.80)",
		"At the autoscalers' declared maximums: $80,358.40 → $642,867.20 a month (+$562,508.80).",
		"0–2× p5.48xlarge, on-demand → 0–16× p5.48xlarge, on-demand | $0.00 (up to $80,358.40) → $0.00 (up to $642,867.20)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	d.Totals.MaxMonthlyCostBefore = d.Totals.MaxMonthlyCostAfter
	if out := DiffComment(d, 0, nil); strings.Contains(strings.SplitN(out, "\n", 3)[1], "scale-out") {
		t.Errorf("the headline speaks of an unchanged maximum: %s", strings.SplitN(out, "\n", 3)[1])
	}
}

// With nothing priced, the table says "no GPU resources" outright only when nothing was left
// unread; a warning (a module not followed) may hide GPUs, and the first line points at it.
func TestCheckTableWithoutResources(t *testing.T) {
	c := result.NewCheck(730, result.CatalogInfo{Updated: "2026-09-16", Sources: []string{"s"}})
	var b bytes.Buffer
	if err := WriteCheckTable(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "No GPU resources found.\n") {
		t.Errorf("nothing unread:\n%s", b.String())
	}
	c.Warnings = append(c.Warnings, parser.Error{File: "main.tf", Line: 3, Message: `module "gpu": source "acme/gpu/aws" is not followed`})
	b.Reset()
	if err := WriteCheckTable(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "No GPU resources found in what could be read: see the warnings below for what was not.\n") ||
		!strings.Contains(b.String(), `main.tf:3: module "gpu"`) {
		t.Errorf("a warning:\n%s", b.String())
	}
}

// Resources with the same best recommendation (the instances of a count, the stacks of a scan)
// share a row of the comment's cheaper fits, whose saving adds up as shown; rows are ordered by
// what they save together, and the row limit counts the resources it leaves out.
// The findings of one block's instances (one file and line) come in address order, numbers by
// value, after the rule: x[2] before x[10], as the table and the comment list them.
func TestFindingsOfInstancesInAddressOrder(t *testing.T) {
	var fs []result.Finding
	for _, i := range []int{10, 2, 1} {
		for _, rule := range []string{"GPU009", "GPU007"} {
			fs = append(fs, result.Finding{Rule: rule, Severity: result.Notice, File: "main.tf", Line: 4, Address: fmt.Sprintf("aws_instance.x[%d]", i)})
		}
	}
	var got []string
	for _, f := range sortedFindings(fs) {
		got = append(got, f.Rule+" "+f.Address)
	}
	want := "GPU007 aws_instance.x[1], GPU007 aws_instance.x[2], GPU007 aws_instance.x[10], GPU009 aws_instance.x[1], GPU009 aws_instance.x[2], GPU009 aws_instance.x[10]"
	if strings.Join(got, ", ") != want {
		t.Errorf("order %s", strings.Join(got, ", "))
	}
}

func TestCommentGroupsTheSameSaving(t *testing.T) {
	d := &result.Diff{Version: "1", Currency: "USD", Catalog: result.CatalogInfo{Updated: "2026-09-16", Sources: []string{"s"}}}
	add := func(addr, cost, saving, to string) {
		e := &estimator.Estimate{Address: addr, InstanceType: "g5.2xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, MonthlyCost: amt(cost),
			Recommendations: []estimator.Recommendation{{Kind: estimator.RecSmallerInstance, InstanceType: to, PurchaseOption: "on_demand",
				MonthlyCost: money.Amount(money.Micros(*amt(cost)) - money.Micros(*amt(saving))), MonthlySaving: *amt(saving), Reason: "holds it"}}}
		d.Changes = append(d.Changes, result.Change{Address: addr, Change: "added", MonthlyCostAfter: amt(cost), MonthlyDelta: amt(cost), After: e})
	}
	// The changes come largest first, so the instances in no useful order; the row names them
	// as a reader counts (chat[2] before chat[10]).
	for _, i := range []int{11, 3, 10, 0, 7, 2, 9, 5, 1, 8, 4, 6} {
		add(fmt.Sprintf("aws_instance.chat[%d]", i), "1000.00", "100.005", "g6.xlarge") // shown as $100.01
	}
	add("aws_instance.big", "3000.00", "400.00", "g6e.xlarge")
	add("aws_instance.other", "1000.00", "100.005", "g5.xlarge")

	c := DiffComment(d, 1<<20, nil)
	var rows []string
	for _, r := range tableShapes(t, "comment", c[strings.Index(c, "#### Cheaper fits"):]) {
		if !strings.HasPrefix(r, "|---") {
			rows = append(rows, r)
		}
	}
	want := []string{
		"| **12 resources**: `aws_instance.chat[0]`, `aws_instance.chat[1]`, `aws_instance.chat[2]` and 9 more | g6.xlarge — holds it | $1,200.12 ($100.01 each) |",
		"| `aws_instance.big` | g6e.xlarge — holds it | $400.00 |",
		"| `aws_instance.other` | g5.xlarge — holds it | $100.01 |",
	}
	if len(rows) < len(want) || strings.Join(rows[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Errorf("cheaper fits:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	var b strings.Builder
	es := make([]*estimator.Estimate, len(d.Changes))
	for i, ch := range d.Changes {
		es[i] = ch.After
	}
	writeCommentSavings(&b, es, 1, refs{links: nil})
	if !strings.Contains(b.String(), "… and 2 more.") {
		t.Errorf("one row shown of three, the other two resources not counted:\n%s", b.String())
	}
}

// The check reports list cheaper fits the biggest saving first, and resources with the same
// recommendation share an entry naming them all in reading order, as the PR comment does.
func TestCheckReportsGroupCheaperFits(t *testing.T) {
	c := &result.Check{Version: "1", Currency: "USD", HoursPerMonth: 730, Catalog: result.CatalogInfo{Updated: "2026-09-16"}}
	add := func(addr, cost, saving, to string) {
		c.Resources = append(c.Resources, estimator.Estimate{Address: addr, InstanceType: "g5.2xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, MonthlyCost: amt(cost),
			Source: parser.Location{File: "main.tf", Line: len(c.Resources) + 1},
			Recommendations: []estimator.Recommendation{{Kind: estimator.RecSmallerInstance, InstanceType: to, PurchaseOption: "on_demand",
				MonthlyCost: money.Amount(money.Micros(*amt(cost)) - money.Micros(*amt(saving))), MonthlySaving: *amt(saving), Reason: "holds it"}}})
	}
	add("aws_instance.a", "1000.00", "50.00", "g5.xlarge")
	for _, i := range []int{10, 2} {
		add(fmt.Sprintf("aws_instance.chat[%d]", i), "1000.00", "100.00", "g6.xlarge")
	}
	add("aws_instance.z", "3000.00", "400.00", "g6e.xlarge")
	add("aws_instance.mid", "1000.00", "150.00", "g6.xlarge")

	var table strings.Builder
	if err := WriteCheckTable(&table, c); err != nil {
		t.Fatal(err)
	}
	text := table.String()
	fits := text[strings.Index(text, "Cheaper fits"):]
	wantText := []string{
		"  aws_instance.z\n      g6e.xlarge: $2,600.00/month, saves $400.00\n",
		"  aws_instance.chat[2], aws_instance.chat[10]\n      g6.xlarge: $900.00/month each, saves $200.00 ($100.00 each)\n",
		"  aws_instance.mid\n      g6.xlarge: $850.00/month, saves $150.00\n",
		"  aws_instance.a\n      g5.xlarge: $950.00/month, saves $50.00\n",
	}
	at := 0
	for _, w := range wantText {
		i := strings.Index(fits[at:], w)
		if i < 0 {
			t.Fatalf("table: want, after offset %d,\n%s\nin\n%s", at, w, fits)
		}
		at += i + len(w)
	}
	if !strings.Contains(fits, "up to $800.00/month in all") {
		t.Errorf("table: the total saving is $800.00:\n%s", fits)
	}

	var md strings.Builder
	if err := WriteCheckMarkdown(&md, c, NewSourceLinks("https://github.com", "acme/infra", "0123456789abcdef0123456789abcdef01234567", "", "/repo", "/repo")); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range tableShapes(t, "markdown", md.String()[strings.Index(md.String(), "**Cheaper fits**"):]) {
		if !strings.HasPrefix(r, "|---") && !strings.HasPrefix(r, "| Resource") {
			rows = append(rows, r)
		}
	}
	want := []string{
		"| [`aws_instance.z`](https://github.com/acme/infra/blob/0123456789abcdef0123456789abcdef01234567/main.tf#L4) | g6e.xlarge: $2,600.00/month, saves $400.00 | holds it |",
		"| [`aws_instance.chat[2]`](https://github.com/acme/infra/blob/0123456789abcdef0123456789abcdef01234567/main.tf#L3), [`aws_instance.chat[10]`](https://github.com/acme/infra/blob/0123456789abcdef0123456789abcdef01234567/main.tf#L2) | g6.xlarge: $900.00/month each, saves $200.00 ($100.00 each) | holds it |",
		"| [`aws_instance.mid`](https://github.com/acme/infra/blob/0123456789abcdef0123456789abcdef01234567/main.tf#L5) | g6.xlarge: $850.00/month, saves $150.00 | holds it |",
		"| [`aws_instance.a`](https://github.com/acme/infra/blob/0123456789abcdef0123456789abcdef01234567/main.tf#L1) | g5.xlarge: $950.00/month, saves $50.00 | holds it |",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("markdown cheaper fits:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// An hourly rate reads to the micro-dollar gpuguard computes in, cents at least, thousands grouped.
func TestRateText(t *testing.T) {
	for m, want := range map[money.Micros]string{
		0: "$0.00", 804_800: "$0.8048", 110_080_000: "$110.08", 5_489_410: "$5.48941", 1_234_567_891_000: "$1,234,567.891", -1_500_000: "-$1.50",
	} {
		if got := rateText(m); got != want {
			t.Errorf("rateText(%d) = %s, want %s", m, got, want)
		}
	}
}

// A price that is a bound (a service billing above the catalog's price of the machine, or
// capacity billing below its on-demand price) is marked ≥ or ≤ in every human-readable report
// and the pull-request comment, and the mark is explained; a plain estimate gets no mark.
func TestPriceBoundsAreMarked(t *testing.T) {
	c := &result.Check{Version: "1", Currency: "USD", HoursPerMonth: 730, Catalog: result.CatalogInfo{Updated: "2026-09-16"}}
	c.Resources = []estimator.Estimate{
		{Address: "aws_sagemaker_notebook_instance.nb", InstanceType: "ml.g4dn.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, MonthlyCost: amt("383.98"), PriceEstimated: true, PriceBound: estimator.BoundLower},
		{Address: "google_container_node_pool.flex", InstanceType: "g2-standard-12", Quantity: 1, PurchaseOption: parser.OnDemand, MonthlyCost: amt("730.30"), PriceEstimated: true, PriceBound: estimator.BoundUpper},
		{Address: "aws_instance.plain", InstanceType: "g5.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, MonthlyCost: amt("734.38"), PriceEstimated: true},
	}
	c.Totals = estimator.Sum(c.Resources)
	for name, out := range checkReports(t, c) {
		if name == "json" {
			continue
		}
		for _, want := range []string{"≥ $383.98*", "≤ $730.30*", "≥ marks a lower bound", "≤ an upper bound"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", name, want, out)
			}
		}
		if strings.Contains(out, "≥ $734.38") || strings.Contains(out, "≤ $734.38") {
			t.Errorf("%s: a plain estimate marked as a bound:\n%s", name, out)
		}
	}
	// Without bounds, no explanation.
	for i := range c.Resources {
		c.Resources[i].PriceBound = ""
	}
	for name, out := range checkReports(t, c) {
		if strings.Contains(out, "bound") {
			t.Errorf("%s: bounds explained with none:\n%s", name, out)
		}
	}

	before := estimator.Estimate{Address: "aws_sagemaker_notebook_instance.nb", ID: "nb", InstanceType: "ml.g4dn.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, MonthlyCost: amt("383.98"), PriceEstimated: true, PriceBound: estimator.BoundLower}
	after := before
	after.InstanceType, after.MonthlyCost = "ml.g5.xlarge", amt("734.38")
	d := &result.Diff{Version: "1", Currency: "USD", Catalog: result.CatalogInfo{Updated: "2026-09-16"},
		Changes: []result.Change{{Address: before.Address, Change: "changed", Before: &before, After: &after, MonthlyCostBefore: before.MonthlyCost, MonthlyCostAfter: after.MonthlyCost, MonthlyDelta: amt("350.40")}},
		Totals:  result.DiffTotals{MonthlyCostBefore: *before.MonthlyCost, MonthlyCostAfter: *after.MonthlyCost, MonthlyDelta: *amt("350.40")}}
	out := DiffComment(d, 0, nil)
	for _, want := range []string{"| ≥ $383.98 → ≥ $734.38 |", "≥ marks a lower bound"} {
		if !strings.Contains(out, want) {
			t.Errorf("comment: no %q in\n%s", want, out)
		}
	}
	var table strings.Builder
	if err := WriteDiffTable(&table, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"≥ $383.98 → ≥ $734.38", "≥ marks a lower bound"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("diff table: no %q in\n%s", want, table.String())
		}
	}
}

// A total whose prices bound it one way is marked so in every headline (check table and
// Markdown, each side of a diff); at full scale-out a lower bound reads "At least". Prices that
// bound both ways leave the total unmarked, and the table counts each kind.
func TestTotalsThatAreBoundsSayTheyAre(t *testing.T) {
	c := &result.Check{Version: "1", Currency: "USD", HoursPerMonth: 730, Catalog: result.CatalogInfo{Updated: "2026-09-16"}}
	c.Resources = []estimator.Estimate{
		{Address: "aws_sagemaker_endpoint_configuration.x", InstanceType: "ml.g5.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, MonthlyCost: amt("734.38"), PriceEstimated: true, PriceBound: estimator.BoundLower,
			ScaleMax: &estimator.ScaleMaxCost{Quantity: 2, MonthlyCost: *amt("1468.76")}},
		{Address: "aws_instance.plain", InstanceType: "g5.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, MonthlyCost: amt("734.38")},
	}
	c.Totals = estimator.Sum(c.Resources)
	out := checkReports(t, c)
	for name, want := range map[string][]string{
		"table":    {"Total: ≥ $1,468.76/month", "1 priced at a lower bound (≥)", "At least $2,203.14*/month with 1 autoscaled resource"},
		"markdown": {"### gpuguard: ≥ $1,468.76/month", "At least $2,203.14*/month"},
	} {
		for _, w := range want {
			if !strings.Contains(out[name], w) {
				t.Errorf("%s: no %q in\n%s", name, w, out[name])
			}
		}
	}

	c.Resources = append(c.Resources, estimator.Estimate{Address: "google_container_node_pool.flex", InstanceType: "g2-standard-12", Quantity: 1, PurchaseOption: parser.OnDemand, MonthlyCost: amt("730.30"), PriceEstimated: true, PriceBound: estimator.BoundUpper})
	c.Totals = estimator.Sum(c.Resources)
	out = checkReports(t, c)
	for _, w := range []string{"Total: $2,199.06/month", "1 priced at a lower bound (≥); 1 priced at an upper bound (≤)", "Up to $2,933.44*/month"} {
		if !strings.Contains(out["table"], w) {
			t.Errorf("mixed bounds, table: no %q in\n%s", w, out["table"])
		}
	}
	if !strings.Contains(out["markdown"], "### gpuguard: $2,199.06/month") {
		t.Errorf("mixed bounds, markdown: the total is marked:\n%s", out["markdown"])
	}

	d := &result.Diff{Version: "1", Currency: "USD", Catalog: result.CatalogInfo{Updated: "2026-09-16"},
		Base:   result.DiffSide{MonthlyCost: *amt("734.38"), Resources: 1, PriceBound: estimator.BoundLower},
		Head:   result.DiffSide{MonthlyCost: *amt("734.38"), Resources: 1},
		Totals: result.DiffTotals{MonthlyCostBefore: *amt("734.38"), MonthlyCostAfter: *amt("734.38")}}
	if got := DiffComment(d, 0, nil); !strings.Contains(got, "GPU spend ≥ $734.38 → $734.38 a month") {
		t.Errorf("comment headline:\n%s", got)
	}
	var table strings.Builder
	if err := WriteDiffTable(&table, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "GPU spend: ≥ $734.38 → $734.38 a month") {
		t.Errorf("diff table:\n%s", table.String())
	}
}

// The comment's footer names the month the head was priced for, and the base's when its config
// set another; a document without the sides' months (written before they were recorded) was
// priced for the default month.
func TestDiffCommentNamesEachSidesMonth(t *testing.T) {
	cases := []struct {
		base, head float64
		want       string
	}{
		{0, 0, "Prices in USD for 730 hours a month from"},
		{720, 720, "Prices in USD for 720 hours a month from"},
		{730, 720, "Prices in USD for 720 hours a month (the base's config: 730) from"},
		{0, 744, "Prices in USD for 744 hours a month (the base's config: 730) from"},
	}
	for _, tc := range cases {
		d := bigDiff(1)
		d.Base.HoursPerMonth, d.Head.HoursPerMonth = tc.base, tc.head
		if got := DiffComment(d, 65536, nil); !strings.Contains(got, tc.want) {
			t.Errorf("base %g, head %g: footer lacks %q:\n%s", tc.base, tc.head, tc.want, got)
		}
	}
}
