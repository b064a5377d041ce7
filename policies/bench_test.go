package policies

import (
	"context"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// benchResources builds n resources shaped like real check output: priced, with fit,
// recommendations and suppressions. Shares are chosen so each built-in rule fires on a part of
// them, as in a large real repository: a quarter without a profile, a tenth oversized, one in
// twenty not fitting, a third without full tags, a fifth interruptible on demand, one in twenty
// unpriced, a third always-on with a commitment to suggest, one in fifty a node group with pods
// on it (half of them too many), one in a hundred a node group without the GPU driver.
func benchResources(n int) []estimator.Estimate {
	out := make([]estimator.Estimate, n)
	four := 4
	for i := range out {
		e := estimateFor(fmt.Sprintf("aws_instance.gpu[%d]", i), float64(500+i%5000))
		e.Root = fmt.Sprintf("stacks/team-%d", i/40)
		e.ID = e.Root + "|" + e.Address
		req, avail, util := 30.0, 80.0, 0.375
		verdict := estimator.VerdictFits
		switch {
		case i%20 == 1:
			verdict = estimator.VerdictDoesNotFit
		case i%10 == 2:
			verdict = estimator.VerdictOversized
		}
		e.Fit = &estimator.Fit{Verdict: verdict, RequiredGiBPerGPU: &req, AvailableGiBPerGPU: &avail, MemoryUtilization: &util, Reason: "r"}
		if i%3 != 0 {
			e.Tags = map[string]string{"team": "ml", "project": "p", "env": "prod", "Name": fmt.Sprintf("gpu-%d", i)}
		}
		if i%4 != 3 {
			p := "profiles/x.yaml"
			e.Profile = &p
			e.Workload = &estimator.WorkloadInfo{Type: "inference"}
			if i%5 == 0 {
				e.Workload = &estimator.WorkloadInfo{Type: "training", Interruptible: true}
			}
		} else {
			e.Fit = &estimator.Fit{Verdict: estimator.VerdictUnknown, Reason: "no workload profile attached"}
		}
		if i%20 == 7 {
			reason := "p9.96xlarge is not in the AWS price catalog"
			e.MonthlyCost, e.UnpricedReason = nil, &reason
		}
		if i%3 == 1 {
			e.HoursPerMonth = 120
		}
		// Amounts differ from resource to resource, as they do in a real repository: OPA caches
		// function results by argument, so equal amounts would format money only once.
		cents := money.Amount(int64(i) * 10000)
		e.Recommendations = []estimator.Recommendation{
			{Kind: estimator.RecSmallerInstance, InstanceType: "g6.xlarge", MonthlyCost: money.Amount(587504000) + cents, MonthlySaving: money.Amount(1000000000) + cents, Reason: "fits"},
			{Kind: estimator.RecSpot, InstanceType: "p4d.24xlarge", MonthlyCost: money.Amount(200000000) + cents, MonthlySaving: money.Amount(300000000) + cents},
			{Kind: estimator.RecCommitment, PurchaseOption: "reserved_3y", MonthlyCost: money.Amount(250000000) + cents, MonthlySaving: money.Amount(250000000) + cents},
			{Kind: estimator.RecCommitment, PurchaseOption: "reserved_1y", MonthlyCost: money.Amount(350000000) + cents, MonthlySaving: money.Amount(150000000) + cents},
		}
		if i%50 == 11 {
			e.PodsOnGroup = &estimator.GroupPods{Workloads: []string{fmt.Sprintf("Deployment/ml/chat-%d", i)}, NodesNeeded: 2 + i%4, NodesNeededAtMax: 3 + i%4, MaxNodes: &four}
		}
		if i%100 == 13 {
			e.NoGPUDriver = `ami_type = "AL2023_x86_64_STANDARD", an EKS AMI type without the NVIDIA driver`
		}
		if i%10 == 0 {
			e.Suppressions = []parser.Suppression{{Rule: "GPU003", Reason: "ok", Status: "active"}}
		}
		out[i] = e
	}
	return out
}

// BenchmarkEvaluate4000 evaluates every built-in rule over 4,000 resources, input conversion
// included; the engine is compiled once, outside the loop, as check does.
func BenchmarkEvaluate4000(b *testing.B) {
	e, err := New(context.Background(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	es := benchResources(4000)
	cfg := &config.Config{}
	total := 1e6
	cfg.Budgets.PerResourceMonthly = &total
	in := NewInput(es, estimator.Sum(es), nil, cfg)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fs, err := e.Evaluate(context.Background(), in)
		if err != nil || len(fs) < 1000 {
			b.Fatalf("%v, %d findings", err, len(fs))
		}
	}
}

// BenchmarkInput4000 measures converting the input of BenchmarkEvaluate4000 to OPA terms, the
// part of an evaluation that runs on every core.
func BenchmarkInput4000(b *testing.B) {
	es := benchResources(4000)
	in := NewInput(es, estimator.Sum(es), nil, &config.Config{})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := in.value(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRule4000 evaluates one built-in rule at a time over the converted input of
// BenchmarkEvaluate4000, to see where evaluation time goes.
func BenchmarkRule4000(b *testing.B) {
	es := benchResources(4000)
	cfg := &config.Config{}
	total := 1e6
	cfg.Budgets.PerResourceMonthly = &total
	v, err := NewInput(es, estimator.Sum(es), nil, cfg).value()
	if err != nil {
		b.Fatal(err)
	}
	c, rules, err := compile(builtinSources(false))
	if err != nil {
		b.Fatal(err)
	}
	raw := func(t *ast.Term, _ *rego.EvalContext) (any, error) { return t, nil }
	for _, r := range (&Engine{rules: rules}).Rules() {
		if !r.Builtin || r.ID == "" {
			continue
		}
		pq, err := rego.New(rego.Compiler(c), rego.Query("x := data."+r.Package), withDollars()).PrepareForEval(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(r.ID, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := pq.Eval(context.Background(), rego.EvalParsedInput(v), rego.EvalGenerateJSON(raw)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompile measures compiling the built-in rules, paid once per run.
func BenchmarkCompile(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := New(context.Background(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
