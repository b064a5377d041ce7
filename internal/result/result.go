package result

import (
	"encoding/json"
	"fmt"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// Version is the version of the JSON documents.
const Version = "1"

// Currency is the only currency gpuguard prices in.
const Currency = "USD"

// Severity of a finding: deny > warn > notice.
type Severity string

// Severities.
const (
	Deny   Severity = "deny"
	Warn   Severity = "warn"
	Notice Severity = "notice"
)

// Rank orders severities: deny 3, warn 2, notice 1, anything else 0.
func (s Severity) Rank() int {
	switch s {
	case Deny:
		return 3
	case Warn:
		return 2
	case Notice:
		return 1
	}
	return 0
}

// Finding is one policy result.
type Finding struct {
	Rule     string   `json:"rule"`
	Title    string   `json:"title,omitempty"`
	Severity Severity `json:"severity"`
	Address  string   `json:"address"`
	// Resource is the id of the resource the finding is about (root|address), when known.
	Resource          string `json:"resource,omitempty"`
	File              string `json:"file"`
	Line              int    `json:"line"`
	Message           string `json:"message"`
	Remediation       string `json:"remediation"`
	Suppressed        bool   `json:"suppressed,omitempty"`
	SuppressionReason string `json:"suppression_reason,omitempty"`
}

// CatalogInfo says which prices were used.
type CatalogInfo struct {
	Updated string `json:"updated"`
	// AgeDays is how many days before the run the newest price is dated (absent in documents
	// written before gpuguard reported it).
	AgeDays *int     `json:"age_days,omitempty"`
	Sources []string `json:"sources"`
	Overlay string   `json:"overlay,omitempty"`
}

// Check is the document `gpuguard check` outputs.
type Check struct {
	Version       string               `json:"version"`
	Currency      string               `json:"currency"`
	HoursPerMonth float64              `json:"hours_per_month"`
	Catalog       CatalogInfo          `json:"catalog"`
	Resources     []estimator.Estimate `json:"resources"`
	Findings      []Finding            `json:"findings"`
	Errors        []parser.Error       `json:"errors"`
	Warnings      []parser.Error       `json:"warnings"`
	Totals        estimator.Totals     `json:"totals"`
	// Moves are the Terraform refactorings the checked configuration declares (moved blocks,
	// plans' previous addresses): a diff against another check follows them. Not part of the
	// check document.
	Moves []parser.Move `json:"-"`
}

// NewCheck returns an empty check document with non-nil lists, so JSON shows [] rather than null.
func NewCheck(hours float64, cat CatalogInfo) *Check {
	return &Check{Version: Version, Currency: Currency, HoursPerMonth: hours, Catalog: cat,
		Resources: []estimator.Estimate{}, Findings: []Finding{}, Errors: []parser.Error{}, Warnings: []parser.Error{}}
}

// ActiveFindings are the findings that are not suppressed.
func (c *Check) ActiveFindings() []Finding {
	var out []Finding
	for _, f := range c.Findings {
		if !f.Suppressed {
			out = append(out, f)
		}
	}
	return out
}

// DiffSide is the totals of one side of a diff.
type DiffSide struct {
	MonthlyCost money.Amount `json:"monthly_cost"`
	Resources   int          `json:"resources"`
	Unpriced    int          `json:"unpriced"`
	// PriceBound is the side's totals' (estimator.Totals.PriceBound): lower or upper when its
	// total is a bound.
	PriceBound string `json:"price_bound,omitempty"`
	Ref        string `json:"ref,omitempty"`
	// HoursPerMonth is the month the side was priced for (its config's hours_per_month): the
	// two sides of a diff read their own config.
	HoursPerMonth float64 `json:"hours_per_month,omitempty"`
}

// Change is one resource's change between base and head.
type Change struct {
	Address string `json:"address"`
	// Root is the Terraform root module or manifest directory the resource belongs to; base and
	// head resources match by root and address.
	Root   string `json:"root,omitempty"`
	Change string `json:"change"` // added | removed | changed | unchanged
	// MovedFrom is the base's address of a resource the head moved (a moved block, a plan's
	// previous address, or Terraform's implicit move when count is added or removed).
	MovedFrom          string        `json:"moved_from,omitempty"`
	MonthlyCostBefore  *money.Amount `json:"monthly_cost_before"`
	MonthlyCostAfter   *money.Amount `json:"monthly_cost_after"`
	MonthlyDelta       *money.Amount `json:"monthly_delta"`
	InstanceTypeBefore string        `json:"instance_type_before"`
	InstanceTypeAfter  string        `json:"instance_type_after"`
	// MaxMonthlyCostBefore and After are the resource's cost at its autoscaler's declared
	// maximum on each side, where it has one.
	MaxMonthlyCostBefore *money.Amount `json:"max_monthly_cost_before,omitempty"`
	MaxMonthlyCostAfter  *money.Amount `json:"max_monthly_cost_after,omitempty"`
	// Detail for reports.
	Before *estimator.Estimate `json:"before,omitempty"`
	After  *estimator.Estimate `json:"after,omitempty"`
}

// DiffTotals sums a diff.
type DiffTotals struct {
	MonthlyCostBefore money.Amount `json:"monthly_cost_before"`
	MonthlyCostAfter  money.Amount `json:"monthly_cost_after"`
	MonthlyDelta      money.Amount `json:"monthly_delta"`
	// PercentChange is null when the base costs nothing.
	PercentChange *float64 `json:"percent_change"`
	// MaxMonthlyCostBefore and After are each side's total with every autoscaled resource at
	// its declared maximum; absent when neither side declares one.
	MaxMonthlyCostBefore *money.Amount `json:"max_monthly_cost_before,omitempty"`
	MaxMonthlyCostAfter  *money.Amount `json:"max_monthly_cost_after,omitempty"`
}

// Diff is the document `gpuguard diff` outputs.
type Diff struct {
	Version  string         `json:"version"`
	Currency string         `json:"currency"`
	Catalog  CatalogInfo    `json:"catalog"`
	Base     DiffSide       `json:"base"`
	Head     DiffSide       `json:"head"`
	Changes  []Change       `json:"changes"`
	Findings []Finding      `json:"findings"`
	Errors   []parser.Error `json:"errors"`
	// Warnings are inputs read only in part (a module source that is not followed, a skipped
	// file): the totals may leave something out.
	Warnings []parser.Error `json:"warnings"`
	Totals   DiffTotals     `json:"totals"`
}

// Document is either a check or a diff, as read back from JSON (gpuguard comment --input).
type Document struct {
	Check *Check
	Diff  *Diff
}

// ReadDocument decodes a check or diff JSON document, telling them apart by content.
func ReadDocument(data []byte) (Document, error) {
	var probe struct {
		Version   string          `json:"version"`
		Changes   json.RawMessage `json:"changes"`
		Resources json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return Document{}, fmt.Errorf("not a gpuguard JSON document: %w", err)
	}
	if probe.Version != Version {
		return Document{}, fmt.Errorf("unsupported document version %q (want %q)", probe.Version, Version)
	}
	switch {
	case probe.Changes != nil:
		var d Diff
		if err := json.Unmarshal(data, &d); err != nil {
			return Document{}, fmt.Errorf("invalid diff document: %w", err)
		}
		return Document{Diff: &d}, nil
	case probe.Resources != nil:
		var c Check
		if err := json.Unmarshal(data, &c); err != nil {
			return Document{}, fmt.Errorf("invalid check document: %w", err)
		}
		return Document{Check: &c}, nil
	}
	return Document{}, fmt.Errorf("neither a check nor a diff document")
}
