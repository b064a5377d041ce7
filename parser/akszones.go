package parser

import (
	"slices"
	"strings"
)

// AKSZoneLabels names an AKS pool's availability zones ("1", "2") as AKS labels its nodes'
// topology.kubernetes.io/zone: REGION-N, eastus2-1
// (https://learn.microsoft.com/azure/aks/availability-zones), sorted, each once. region is the
// pool's region as NormalizeRegion spells it; nil when it or the zones are empty.
func AKSZoneLabels(region string, zones []string) []string {
	if region == "" || len(zones) == 0 {
		return nil
	}
	out := make([]string, len(zones))
	for i, z := range zones {
		out[i] = region + "-" + strings.TrimSpace(z)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
