package policies

import (
	"cmp"
	"fmt"
	"reflect"
	"runtime"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// Input is the document policies see (DESIGN.md, "Rego input"): input.resources as in the check
// JSON, input.totals, input.diff (null outside diff) and input.config.
type Input struct {
	Resources []estimator.Estimate `json:"resources"`
	Totals    any                  `json:"totals"`
	Diff      any                  `json:"diff"`
	Config    ConfigInput          `json:"config"`

	sources    map[string]parser.Location // by address, for user findings that give no id
	byID       map[string]*estimator.Estimate
	severities map[string]string
}

// ConfigInput is the part of the config policies see, with defaults filled in.
type ConfigInput struct {
	// HoursPerMonth is the month every price is for: the config's hours_per_month, else 730.
	// A resource that runs all month runs these hours.
	HoursPerMonth float64        `json:"hours_per_month"`
	Budgets       Budgets        `json:"budgets"`
	RequiredTags  []string       `json:"required_tags"`
	PolicyData    map[string]any `json:"policy_data"`
}

// Budgets are the config's budgets as amounts: like every amount in the input they carry
// their cents, so Rego formats them as decimals.
type Budgets struct {
	MonthlyTotal       *money.Amount `json:"monthly_total"`
	MonthlyIncrease    *money.Amount `json:"monthly_increase"`
	PerResourceMonthly *money.Amount `json:"per_resource_monthly"`
	// The same lines with every autoscaled resource at its declared maximum.
	MonthlyTotalAtMax       *money.Amount `json:"monthly_total_at_max"`
	PerResourceMonthlyAtMax *money.Amount `json:"per_resource_monthly_at_max"`
}

func amount(f *float64) *money.Amount {
	if f == nil {
		return nil
	}
	a := money.Amount(money.FromDollars(*f))
	return &a
}

// DefaultPolicyData are the thresholds the built-in rules use when the config sets none.
var DefaultPolicyData = map[string]any{
	"oversized_memory_fraction":     0.40,
	"oversized_utilization_percent": 25.0,
	"spot_saving_min_monthly":       100.0,
}

// NewInput builds the policy input. diff is nil for check.
func NewInput(resources []estimator.Estimate, totals any, diff any, cfg *config.Config) *Input {
	in := &Input{Resources: resources, Totals: totals, Diff: diff, sources: map[string]parser.Location{}, byID: map[string]*estimator.Estimate{}, severities: map[string]string{}}
	if cfg == nil {
		cfg = &config.Config{}
	}
	in.Config = ConfigInput{Budgets: Budgets{
		MonthlyTotal:            amount(cfg.Budgets.MonthlyTotal),
		MonthlyIncrease:         amount(cfg.Budgets.MonthlyIncrease),
		PerResourceMonthly:      amount(cfg.Budgets.PerResourceMonthly),
		MonthlyTotalAtMax:       amount(cfg.Budgets.MonthlyTotalAtMax),
		PerResourceMonthlyAtMax: amount(cfg.Budgets.PerResourceMonthlyAtMax),
	}, RequiredTags: cfg.RequiredTagsOrDefault(), PolicyData: map[string]any{}, HoursPerMonth: cmp.Or(cfg.HoursPerMonth, estimator.DefaultHoursPerMonth)}
	for k, v := range DefaultPolicyData {
		in.Config.PolicyData[k] = v
	}
	for k, v := range cfg.PolicyData {
		in.Config.PolicyData[k] = v
	}
	if sev, ok := cfg.PolicyData["severities"].(map[string]any); ok {
		for rule, v := range sev {
			if s, ok := v.(string); ok {
				in.severities[rule] = s
			}
		}
	}
	for i := range resources {
		r := &resources[i]
		if _, seen := in.sources[r.Address]; !seen {
			in.sources[r.Address] = r.Source
		}
		in.byID[r.ID] = r
	}
	return in
}

// ValidateSeverities checks policy_data.severities: each value deny, warn, notice or off.
func ValidateSeverities(cfg *config.Config) error {
	sev, ok := cfg.PolicyData["severities"]
	if !ok {
		return nil
	}
	m, ok := sev.(map[string]any)
	if !ok {
		return fmt.Errorf("policy_data.severities must map rule ids to deny, warn, notice or off")
	}
	for rule, v := range m {
		switch v {
		case "deny", "warn", "notice", "off":
		default:
			return fmt.Errorf("policy_data.severities.%s must be deny, warn, notice or off, got %v", rule, v)
		}
	}
	return nil
}

func (in *Input) severityOverride(rule string) (string, bool) {
	s, ok := in.severities[rule]
	return s, ok
}

// policySkip are the fields of the check JSON policies do not get: the memory breakdown and
// the price sources are long and for people; rules judge the figures they explain.
var policySkip = map[string]bool{"breakdown": true, "price_sources": true}

// value converts the input to an OPA value once per evaluation. Resources are converted
// concurrently in chunks (they are independent); the rest of the document is small.
func (in *Input) value() (ast.Value, error) {
	workers := runtime.GOMAXPROCS(0)
	if len(in.Resources) < 256 {
		workers = 1
	}
	terms := make([]*ast.Term, len(in.Resources))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	chunk := (len(in.Resources) + workers - 1) / max(workers, 1)
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, len(in.Resources))
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func(w, lo, hi int) {
			defer wg.Done()
			c := newConverter(policySkip)
			for i := lo; i < hi; i++ {
				t, err := c.term(reflect.ValueOf(&in.Resources[i]).Elem())
				if err != nil {
					errs[w] = err
					return
				}
				terms[i] = t
			}
		}(w, lo, hi)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("policy input: %w", err)
		}
	}
	c := newConverter(policySkip)
	doc := ast.NewObjectWithCapacity(4)
	doc.Insert(ast.StringTerm("resources"), ast.ArrayTerm(terms...))
	for name, v := range map[string]any{"totals": in.Totals, "diff": in.Diff, "config": in.Config} {
		t, err := c.term(reflect.ValueOf(&v).Elem())
		if err != nil {
			return nil, fmt.Errorf("policy input: %w", err)
		}
		doc.Insert(ast.StringTerm(name), t)
	}
	return doc, nil
}
