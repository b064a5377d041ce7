package report

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

// The concurrent writer must produce exactly the bytes of the plain encoder.
func TestWriteCheckJSONMatchesPlainEncoder(t *testing.T) {
	for _, n := range []int{0, 1, 300, 1001} {
		doc := result.NewCheck(730, result.CatalogInfo{Updated: "2026-07-30", Sources: []string{`a "quoted" <source> & "resources": [],`}})
		for i := 0; i < n; i++ {
			m := money.Amount(int64(i) * 1234567)
			reason := fmt.Sprintf(`reason <%d> "x"`, i)
			e := estimator.Estimate{Address: fmt.Sprintf(`aws_instance.x["%d"]`, i), Kind: parser.KindTerraform, Provider: "aws",
				Quantity: i, PurchaseOption: parser.OnDemand, Recommendations: []estimator.Recommendation{}, Tags: map[string]string{"a": "<b>"}}
			if i%3 == 0 {
				e.UnpricedReason = &reason
			} else {
				e.MonthlyCost = &m
			}
			doc.Resources = append(doc.Resources, e)
		}
		doc.Totals = estimator.Sum(doc.Resources)
		var plain, fast bytes.Buffer
		if err := WriteJSON(&plain, doc); err != nil {
			t.Fatal(err)
		}
		if err := WriteCheckJSON(&fast, doc); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(plain.Bytes(), fast.Bytes()) {
			t.Fatalf("n=%d: outputs differ (%d vs %d bytes)", n, plain.Len(), fast.Len())
		}
	}
}
