package kubernetes

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// Binary and decimal suffixes of a Kubernetes quantity (k8s.io/apimachinery resource.Quantity:
// "<number><suffix>", where the suffix is a binary SI suffix, a decimal SI suffix or a decimal
// exponent such as e3).
var quantitySuffixes = map[string]float64{
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
	"m": 1e-3, "": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
}

// podLimitShare is what one pod requests of cpu or memory in the units computeQuantity reads a
// limit on it in (cores, bytes): what the pod takes of a NodePool's or a quota's limit. 0 for
// another resource.
func podLimitShare(pod *parser.PodGPUs, resource string) float64 {
	switch resource {
	case "cpu":
		return pod.CPU
	case "memory":
		return pod.MemoryGiB * (1 << 30)
	}
	return 0
}

// amountOf writes an amount of resource k, in the units podLimitShare gives it, for messages:
// memory, ephemeral storage and resources named for memory (example.com/gpu-memory, which a
// Kueue transformation may count in bytes) in GiB ("12Gi"), else as it is, to a thousandth
// ("2.5").
func amountOf(n float64, k string) string {
	if k == "memory" || k == "ephemeral-storage" || strings.HasSuffix(k, "-memory") {
		return strconv.FormatFloat(math.Round(n/(1<<30)*1000)/1000, 'f', -1, 64) + "Gi"
	}
	return strconv.FormatFloat(math.Round(n*1000)/1000, 'f', -1, 64)
}

// computeQuantity parses a CPU or memory quantity ("500m", "2", "1.5", "16Gi", "129M", "1e9")
// into a plain number: cores for CPU, bytes for memory.
func computeQuantity(s string) (float64, error) {
	v := strings.TrimSpace(s)
	end := 0
	for end < len(v) && (v[end] >= '0' && v[end] <= '9' || v[end] == '.' || end == 0 && (v[end] == '+' || v[end] == '-')) {
		end++
	}
	number, suffix := v[:end], v[end:]
	if strings.Trim(number, "+-.") == "" {
		return 0, fmt.Errorf("quantity %q is not a number", v)
	}
	n, err := strconv.ParseFloat(number, 64)
	if err != nil {
		return 0, fmt.Errorf("quantity %q is not a number", v)
	}
	if n < 0 {
		return 0, fmt.Errorf("quantity %q is negative", v)
	}
	mult, ok := quantitySuffixes[suffix]
	if !ok && len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		if exp, err := strconv.Atoi(suffix[1:]); err == nil && exp >= -18 && exp <= 18 {
			mult, ok = math.Pow10(exp), true
		}
	}
	if !ok {
		return 0, fmt.Errorf("quantity %q has an unknown suffix %q", v, suffix)
	}
	if q := n * mult; q <= 1e24 {
		return q, nil
	}
	return 0, fmt.Errorf("quantity %q is larger than any node", v)
}

// podRequests is one pod's effective request (effectiveRequest) of each resource its containers
// name: a container's request, else its limit (the API defaults a missing request to the
// limit), plus the pod's overhead (its RuntimeClass's), as Kubernetes' PodRequests adds it. A
// quantity that does not parse counts as 0 here: podCompute and podGPUs report it.
func podRequests(spec podSpec) map[string]float64 {
	out := map[string]float64{}
	for _, cs := range [][]container{spec.Containers, spec.InitContainers} {
		for i := range cs {
			for _, m := range []map[string]yaml.Node{cs[i].Resources.Requests, cs[i].Resources.Limits} {
				for name := range m {
					if _, done := out[name]; done {
						continue
					}
					out[name] = effectiveRequest(spec, func(c *container) float64 {
						n, ok := c.Resources.Requests[name]
						if !ok {
							n, ok = c.Resources.Limits[name]
						}
						q, err := computeQuantity(n.Value)
						if !ok || err != nil {
							return 0
						}
						return q
					})
				}
			}
		}
	}
	byContainers := maps.Clone(out)
	keys := slices.Concat(slices.Collect(maps.Keys(byContainers)), slices.Collect(maps.Keys(spec.Resources.Requests)), slices.Collect(maps.Keys(spec.Overhead)))
	for _, k := range keys { // a key named twice gets the same value twice
		q, set := byContainers[k]
		if q, ok := spec.podRequest(k, q, set); ok {
			out[k] = q
		}
	}
	return out
}

// podCompute is one pod's effective CPU (cores) and memory (bytes) request (effectiveRequest),
// with the pod's overhead. A container's request is its requests entry, else its limit
// (Kubernetes defaults a missing request to the limit).
func podCompute(spec podSpec, o *object) (cpu, memory float64, errs []error) {
	read := func(c *container, name string) float64 {
		n, ok := c.Resources.Requests[name]
		if !ok {
			if n, ok = c.Resources.Limits[name]; !ok {
				return 0
			}
		}
		if n.Kind != yaml.ScalarNode {
			errs = append(errs, lineError{line: o.lineOf(&n), err: fmt.Errorf("container %q: %s: quantity must be a number", c.Name, name)})
			return 0
		}
		q, err := computeQuantity(n.Value)
		if err != nil {
			errs = append(errs, lineError{line: o.lineOf(&n), err: fmt.Errorf("container %q: %s: %w", c.Name, name, err)})
			return 0
		}
		return q
	}
	cpu = effectiveRequest(spec, func(c *container) float64 { return read(c, "cpu") })
	memory = effectiveRequest(spec, func(c *container) float64 { return read(c, "memory") })
	for _, m := range []map[string]yaml.Node{spec.Resources.Requests, spec.Resources.Limits} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			n := m[k]
			if _, err := computeQuantity(n.Value); n.Kind != yaml.ScalarNode || err != nil {
				if err == nil {
					err = fmt.Errorf("quantity must be a number")
				}
				errs = append(errs, lineError{line: o.lineOf(&n), err: fmt.Errorf("pod-level resources: %s: %w", k, err)})
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Overhead)) {
		n := spec.Overhead[k]
		if _, err := computeQuantity(n.Value); n.Kind != yaml.ScalarNode || err != nil {
			if err == nil {
				err = fmt.Errorf("quantity must be a number")
			}
			errs = append(errs, lineError{line: o.lineOf(&n), err: fmt.Errorf("overhead: %s: %w", k, err)})
		}
	}
	cpu, _ = spec.podRequest("cpu", cpu, true)
	memory, _ = spec.podRequest("memory", memory, true)
	return cpu, memory, errs
}
