package managed

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// describe is what the tests of this package assert of a priced resource, in one line: its
// machines, count and maximum, purchase, region, manifest line, and whether anything is unresolved.
func describe(r parser.Resource) string {
	max := 0
	if r.ScaleMax != nil {
		max = r.ScaleMax.Quantity
	}
	return fmt.Sprintf("%s ×%d (max %d) %s in %q at line %d, %d unresolved", r.InstanceType, r.Quantity, max, r.PurchaseOption, r.Region, r.Source.Line, len(r.Unresolved))
}

// checkResources compares the resources of a result, by address, with the descriptions wanted,
// and that each comes from file; it returns them by address for further checks.
func checkResources(t *testing.T, res parser.Result, file string, want map[string]string) map[string]parser.Resource {
	t.Helper()
	byAddress := map[string]parser.Resource{}
	got := map[string]string{}
	for _, r := range res.Resources {
		byAddress[r.Address], got[r.Address] = r, describe(r)
		if r.Source.File != file {
			t.Errorf("%s: from %s, want %s", r.Address, r.Source.File, file)
		}
	}
	for _, addr := range slices.Sorted(maps.Keys(want)) {
		if got[addr] != want[addr] {
			t.Errorf("%s:\n got  %s\n want %s", addr, got[addr], want[addr])
		}
	}
	for addr := range got {
		if _, ok := want[addr]; !ok {
			t.Errorf("unexpected %s: %s", addr, got[addr])
		}
	}
	return byAddress
}
