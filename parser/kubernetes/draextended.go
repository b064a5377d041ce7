package kubernetes

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DRA extended resources (KEP-5004: alpha in Kubernetes 1.34, beta in 1.36): a container may ask
// for a DeviceClass's devices by an extended resource name, as it would a device plugin's, and
// the scheduler makes the pod a claim of its own for that many devices of the class (ExactCount).
// The name is deviceclass.resource.kubernetes.io/<class>, for any class, or the class's
// spec.extendedResourceName. Without reading them a pod asking for GPUs this way would look
// GPU-less and be left out in silence.
// https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/#extended-resource
// https://www.kubernetes.dev/resources/keps/5004/

// deviceClassResourcePrefix names a DeviceClass's devices as an extended resource.
const deviceClassResourcePrefix = "deviceclass.resource.kubernetes.io/"

// extendedClass is the DeviceClass an extended resource name asks for through DRA: the implicit
// name's, or the class among those read whose extendedResourceName it is. A name a device plugin
// serves in gpuguard's reading (nvidia.com/gpu, ...) stays the device plugin's, even where a
// class names it: it is counted once, as that resource.
func (idx *claimIndex) extendedClass(name string) (string, bool) {
	if class, ok := strings.CutPrefix(name, deviceClassResourcePrefix); ok && class != "" {
		return class, true
	}
	if IsGPUResource(name) || idx == nil {
		return "", false
	}
	class, ok := idx.byExtendedName[name]
	return class, ok
}

// draExtended reads the GPUs a pod asks for by DRA extended resource names, added to d (by
// resource, with a note each, as a claim of the pod's own). names are the extended resource
// names that brought GPUs.
func (idx *claimIndex) draExtended(spec podSpec, o *object, d *podDRA) (names map[string]bool, errs []error) {
	if idx == nil {
		idx = &claimIndex{} // no classes read: the implicit names' classes are known by their names
	}
	per := map[*container]map[string]int64{}
	line := map[string]int{}
	for _, cs := range [][]container{spec.Containers, spec.InitContainers} {
		for i := range cs {
			c := &cs[i]
			got := map[string]int64{}
			for _, m := range []map[string]yaml.Node{c.Resources.Limits, c.Resources.Requests} { // limits, else requests
				for _, name := range slices.Sorted(maps.Keys(m)) {
					if _, ok := idx.extendedClass(name); !ok {
						continue
					}
					if _, done := got[name]; done {
						continue
					}
					n := m[name]
					q, err := quantity(&n)
					if err != nil {
						errs = append(errs, lineError{line: o.lineOf(&n), err: fmt.Errorf("container %q: %s: %w", c.Name, name, err)})
						got[name] = 0
						continue
					}
					got[name] = q
					if line[name] == 0 {
						line[name] = o.lineOf(&n)
					}
				}
			}
			per[c] = got
		}
	}
	for _, name := range slices.Sorted(maps.Keys(line)) {
		count := effectiveRequest(spec, func(c *container) int64 { return per[c][name] })
		if count == 0 {
			continue
		}
		class, _ := idx.extendedClass(name)
		res, dc := idx.classResource(class)
		if res == "" {
			continue // another driver's devices: a NIC, a compute domain
		}
		sel := dc.selection
		sel.mig = sel.mig || strings.Contains(strings.ToLower(class), "mig")
		if res == ResourceNvidiaGPU && sel.migProfile != "" {
			res = ResourceNvidiaMIG + sel.migProfile
		}
		if names == nil {
			names = map[string]bool{}
		}
		names[name] = true
		d.sum[res] += count
		g := d.of[res]
		if g == nil {
			g = &claimedGPUs{names: map[string]bool{}}
			d.of[res] = g
		}
		g.selection = g.selection.and(sel)
		note := fmt.Sprintf("%s through DRA: extended resource %s of DeviceClass %s, a claim of the pod's own that the scheduler makes", devicesOf(count, res), name, class)
		if sel.mig && sel.migProfile == "" {
			note += wholeMIGNote
		}
		if s := requestSharing("", class, dc.config, nil); s != nil {
			s.Claim = "DeviceClass " + class
			note += "; " + sharingNote("the claim", s)
			if s.Tighter(g.sharing) {
				g.sharing = s
			}
		}
		d.notes = append(d.notes, note)
	}
	return names, errs
}

// implicitGPUClass reports whether an extended resource name is a DeviceClass's implicit one
// and the class's name says GPUs (gpuClassResource): deviceclass.resource.kubernetes.io/gpu.nvidia.com.
func implicitGPUClass(name string) bool {
	class, ok := strings.CutPrefix(name, deviceClassResourcePrefix)
	return ok && gpuClassResource(class) != ""
}

// requestsAny reports whether the container asks for one of the named extended resources.
func (c *container) requestsAny(names map[string]bool) bool {
	for _, m := range []map[string]yaml.Node{c.Resources.Limits, c.Resources.Requests} {
		for name := range m {
			if names[name] {
				return true
			}
		}
	}
	return false
}
