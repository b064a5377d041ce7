package kubernetes

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Kueue counts the DRA devices of a pod's ResourceClaimTemplates against a ClusterQueue's quota
// where its configuration maps their DeviceClasses to logical resources
// (resources.deviceClassMappings; Kueue's DRA integration, alpha from 0.14 and beta from 0.18):
// each request of a mapped class counts its devices (count, 1 by default) as that resource. It
// refuses to count, and so never admits, a workload with a request it cannot: allocationMode
// All, a class no mapping names, a firstAvailable request (unless its prioritized-list gate is
// on, and then only when every alternative maps to one resource with one count). Admin-access
// requests count nothing, nor do shared ResourceClaims.
// https://kueue.sigs.k8s.io/docs/concepts/dynamic_resource_allocation/ and Kueue's pkg/dra
// (chargesForClaimSpec), read 2026-11.

// draCharges is what one pod of spec (in namespace ns) counts against a ClusterQueue's quota
// through its claim templates, by logical resource; why says why Kueue refuses the workload
// ("" when it does not). Without a mapping in cfg, nothing counts.
func (cfg *kueueConfig) draCharges(spec podSpec, ns string, claims *claimIndex) (charges map[string]float64, note, why string) {
	if cfg == nil || len(cfg.deviceClasses) == 0 || claims == nil {
		return nil, "", ""
	}
	charges = map[string]float64{}
	for _, pc := range spec.ResourceClaims {
		t, ok := claims.templates[ns+"/"+pc.ResourceClaimTemplateName]
		if !ok {
			continue // a shared claim (no template), or a template not read (podClaims says so)
		}
		for _, r := range t.reqs {
			logical, n, refused := cfg.draCharge(r)
			if refused != "" {
				return nil, "", fmt.Sprintf("%s's request %q %s, so Kueue cannot count it against the queue's quota (%s)", t.address, r.Name, refused, cfg.from)
			}
			if logical != "" {
				charges[logical] += float64(n)
			}
		}
	}
	if len(charges) == 0 {
		return nil, "", ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(charges)) {
		parts = append(parts, fmt.Sprintf("%g %s", charges[k], k))
	}
	return charges, fmt.Sprintf("Kueue counts each pod's DRA devices against the queue's quota as %s (resources.deviceClassMappings of %s)", strings.Join(parts, ", "), cfg.from), ""
}

// draCharge is the logical resource one device request counts as, and how many; refused says
// why Kueue cannot count it. An admin-access request counts nothing.
func (cfg *kueueConfig) draCharge(r deviceRequest) (logical string, n int64, refused string) {
	if len(r.FirstAvailable) > 0 {
		if !cfg.prioritizedList {
			return "", 0, "uses firstAvailable, which Kueue counts only with its KueueDRAIntegrationPrioritizedList gate on"
		}
		for i, a := range r.FirstAvailable {
			l, c, why := cfg.exactCharge(a)
			switch {
			case why != "":
				return "", 0, "has an alternative that " + why
			case i > 0 && (l != logical || c != n):
				return "", 0, "has alternatives of different resources or counts"
			}
			logical, n = l, c
		}
		return logical, n, ""
	}
	a := r.ask()
	if a.AdminAccess {
		return "", 0, ""
	}
	return cfg.exactCharge(a)
}

// exactCharge is the logical resource and count of one exact request (or alternative).
func (cfg *kueueConfig) exactCharge(a deviceAsk) (logical string, n int64, refused string) {
	switch a.AllocationMode {
	case "", "ExactCount":
	case "All":
		return "", 0, "asks for allocationMode All"
	default:
		return "", 0, fmt.Sprintf("asks for allocationMode %s", a.AllocationMode)
	}
	logical, ok := cfg.deviceClasses[a.DeviceClassName]
	if !ok {
		return "", 0, fmt.Sprintf("asks for device class %s, which no deviceClassMappings entry names", a.DeviceClassName)
	}
	n = 1
	if a.Count != nil {
		n = *a.Count
	}
	return logical, n, ""
}
