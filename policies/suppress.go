package policies

import (
	"strings"
	"time"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

// Suppression statuses.
const (
	SuppressionActive      = "active"
	SuppressionNoReason    = "no_reason"
	SuppressionNoRule      = "no_rule"
	SuppressionInvalidDate = "invalid_date"
	SuppressionExpired     = "expired"
)

// MarkSuppressions sets the status of every suppression: only one with a rule, a reason and no
// past expiry is active. GPU010 reports the others. A suppression expires at the end of its day.
func MarkSuppressions(es []estimator.Estimate, today time.Time) {
	day := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)
	for i := range es {
		sups := make([]parser.Suppression, len(es[i].Suppressions))
		copy(sups, es[i].Suppressions)
		for j := range sups {
			sups[j].Status = status(sups[j], day)
		}
		es[i].Suppressions = sups
	}
}

func status(s parser.Suppression, day time.Time) string {
	switch {
	case s.Rule == "":
		return SuppressionNoRule
	case strings.TrimSpace(s.Reason) == "":
		return SuppressionNoReason
	case s.Expires == "":
		return SuppressionActive
	}
	exp, err := time.Parse("2006-01-02", s.Expires)
	if err != nil {
		return SuppressionInvalidDate
	}
	if exp.Before(day) {
		return SuppressionExpired
	}
	return SuppressionActive
}

// ApplySuppressions marks the findings an active suppression on their resource waives. They
// stay in the output, marked, and do not count toward the exit code.
func ApplySuppressions(findings []result.Finding, es []estimator.Estimate) {
	active := map[string]map[string]string{} // resource id (or address) -> rule -> reason
	for _, e := range es {
		for _, s := range e.Suppressions {
			if s.Status != SuppressionActive {
				continue
			}
			for _, key := range []string{e.ID, "address:" + e.Address} {
				if active[key] == nil {
					active[key] = map[string]string{}
				}
				active[key][s.Rule] = s.Reason
			}
		}
	}
	for i := range findings {
		f := &findings[i]
		key := f.Resource
		if key == "" {
			key = "address:" + f.Address
		}
		if reason, ok := active[key][f.Rule]; ok {
			f.Suppressed, f.SuppressionReason = true, reason
		}
	}
}
