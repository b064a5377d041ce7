package check

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/policies"
)

// The config's hours_per_month is the month every price is for. Hours a schedule gives (an
// Auto Scaling group's actions, a CronJob's runs) are a share of the calendar, replayed in a
// 730-hour month: in a 720-hour month they are 720/730 of those hours, and so is the
// schedule's maximum. Hours an annotation or the config's usage sets are hours and stay. The
// whole month is still the whole month: an always-on instance keeps its commitments, and an N1
// VM its full sustained-use discount.
func TestConfiguredMonthScalesCalendarHours(t *testing.T) {
	dir := t.TempDir()
	cron := func(name, extra, deadline string) string {
		return "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: " + name + "\n  namespace: ml\n" + extra +
			"spec:\n  schedule: '0 2 * * *'\n  concurrencyPolicy: Forbid\n  jobTemplate:\n    spec:\n" + deadline +
			"      template:\n        spec:\n          nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n" +
			"          containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n---\n"
	}
	const deadline = "      activeDeadlineSeconds: 7200\n"
	// A Deployment that a KEDA cron trigger runs at 2 replicas on weekdays, up to 6 all month;
	// over a floor of 2 (steady) the trigger changes nothing, and the config's usage sets its
	// hours.
	keda := func(name, extra, min string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\n  namespace: ml\n" + extra +
			"spec:\n  replicas: 0\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n" +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n---\n" +
			"apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: " + name + "\n  namespace: ml\n" +
			"spec:\n  scaleTargetRef: {name: " + name + "}\n  minReplicaCount: " + min + "\n  maxReplicaCount: 6\n" +
			"  triggers: [{type: cron, metadata: {timezone: UTC, start: 0 8 * * 1-5, end: 0 18 * * 1-5, desiredReplicas: '2'}}]\n---\n"
	}
	manifests := cron("nightly", "", deadline) + cron("annotated", "  annotations: {gpuguard.dev/hours-per-month: '50'}\n", deadline) +
		cron("from-usage", "", "") + keda("embeddings", "", "0") +
		keda("annotated-embeddings", "  annotations: {gpuguard.dev/hours-per-month: '50'}\n", "0") + keda("steady", "", "2")
	n1 := `resource "google_compute_instance" "n1" {
  name         = "n1"
  zone         = "us-central1-a"
  machine_type = "n1-standard-8"
  guest_accelerator {
    type  = "nvidia-tesla-t4"
    count = 1
  }
  scheduling { on_host_maintenance = "TERMINATE" }
}
`
	testutil.WriteFiles(t, dir, map[string]string{"jobs.yaml": manifests, "n1/main.tf": n1})
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	engine, err := policies.New(context.Background(), policies.Options{})
	if err != nil {
		t.Fatal(err)
	}
	commitments := map[float64][]string{} // the addresses GPU009 names, by month
	run := func(month float64) map[string]*estimator.Estimate {
		cfg := &config.Config{Region: "us-east-1", HoursPerMonth: month, Usage: map[string]config.Usage{
			"CronJob/ml/from-usage": {HoursPerMonth: 40}, "Deployment/ml/steady": {HoursPerMonth: 40}}}
		doc := Run([]string{dir, "../../testdata/terraform/aws_autoscaling_group"}, Options{Config: cfg, Catalog: cat})
		Guardrails(context.Background(), doc, nil, cfg, engine, time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
		if len(doc.Errors) > 0 {
			t.Fatalf("errors: %v", doc.Errors)
		}
		out := map[string]*estimator.Estimate{}
		for i := range doc.Resources {
			out[doc.Resources[i].Address] = &doc.Resources[i]
		}
		for _, f := range doc.Findings {
			if f.Rule == "GPU009" {
				commitments[month] = append(commitments[month], f.Address)
			}
		}
		slices.Sort(commitments[month])
		return out
	}
	month, calendar := run(720), run(0)
	// The built-in commitment rule (GPU009) names the same always-on resources in either month.
	if !slices.Contains(commitments[0], "google_compute_instance.n1") || !slices.Equal(commitments[720], commitments[0]) {
		t.Errorf("GPU009 in the 720-hour month: %q; in the 730-hour month: %q", commitments[720], commitments[0])
	}
	scaled := func(h float64) float64 { return math.Round(h*720/730*100) / 100 }
	cost := func(e *estimator.Estimate) float64 {
		if e.MonthlyCost == nil {
			t.Fatalf("%s is not priced: %v", e.Address, e.Unresolved)
		}
		return money.Micros(*e.MonthlyCost).Dollars()
	}
	for _, addr := range []string{"CronJob/ml/nightly", "aws_autoscaling_group.dev", "Deployment/ml/embeddings"} {
		m, c := month[addr], calendar[addr]
		if m == nil || c == nil {
			t.Fatalf("%s missing: %v / %v", addr, m, c)
		}
		if c.HoursPerMonth >= 730 || m.HoursPerMonth != scaled(c.HoursPerMonth) {
			t.Errorf("%s: %g hours in the 720-hour month, want %g (730/730: %g)", addr, m.HoursPerMonth, scaled(c.HoursPerMonth), c.HoursPerMonth)
		}
		note := fmt.Sprintf("%.2f hours of a 730-hour month (a twelfth of a year) are %.2f hours of the configured 720-hour month", c.HoursPerMonth, m.HoursPerMonth)
		if !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, note) }) {
			t.Errorf("%s: no note says the hours were scaled: %q", addr, m.Notes)
		}
		if slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "configured") }) {
			t.Errorf("%s: a scaling note in the default month: %q", addr, c.Notes)
		}
	}
	// The maximums run all month: 720 hours, not 730; also where an annotation sets the hours of
	// the scheduled pods, since the schedule still gives the maximum's.
	for _, addr := range []string{"aws_autoscaling_group.dev", "Deployment/ml/embeddings", "Deployment/ml/annotated-embeddings"} {
		m, c := month[addr].ScaleMax, calendar[addr].ScaleMax
		if m == nil || c == nil || math.Abs(money.Micros(m.MonthlyCost).Dollars()-money.Micros(c.MonthlyCost).Dollars()*720/730) > 0.01 {
			t.Errorf("%s's maximum in the 720-hour month: %+v, want 720/730 of %+v", addr, m, c)
		}
	}
	for _, addr := range []string{"CronJob/ml/annotated", "CronJob/ml/from-usage", "Deployment/ml/annotated-embeddings", "Deployment/ml/steady"} {
		if m, c := month[addr].HoursPerMonth, calendar[addr].HoursPerMonth; m != c || (m != 50 && m != 40) {
			t.Errorf("%s: %g hours in the 720-hour month, %g in the 730-hour one: the hours it was given", addr, m, c)
		}
	}
	for _, addr := range []string{"aws_autoscaling_group.inference", "google_compute_instance.n1"} {
		m, c := month[addr], calendar[addr]
		if m.HoursPerMonth != 720 || math.Abs(cost(m)-cost(c)*720/730) > 0.01 {
			t.Errorf("%s: %g hours, $%.2f; want 720 hours and 720/730 of $%.2f", addr, m.HoursPerMonth, cost(m), cost(c))
		}
		kinds := func(e *estimator.Estimate) (out []string) {
			for _, r := range e.Recommendations {
				out = append(out, r.Kind+" "+r.PurchaseOption)
			}
			return out
		}
		if k := kinds(m); !slices.Contains(k, "commitment reserved_1y") || !slices.Equal(k, kinds(c)) {
			t.Errorf("%s runs all of the 720-hour month: recommendations %q, want the 730-hour month's %q", addr, k, kinds(c))
		}
	}
}
