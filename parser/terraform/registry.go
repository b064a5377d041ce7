package terraform

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/parser"
)

// A mapper turns one evaluated resource instance into the GPU resources it runs (none for
// CPU-only ones, several for a cluster with several GPU node pools).
type mapper func(c *mapContext) []*parser.Resource

var mappers = map[string]mapper{}

// register adds a mapper for a resource type. Adding a resource type is one file (or function)
// plus one register line; a second registration of a type is a programming error.
func register(resourceType string, m mapper) {
	if _, dup := mappers[resourceType]; dup {
		panic("terraform: mapper registered twice for " + resourceType)
	}
	mappers[resourceType] = m
}

// mapAll runs the mappers over every instance, in order, and returns the GPU resources they
// find, once reservations are settled against the resources that take them.
func (ev *evaluation) mapAll() []parser.Resource {
	var kept []*parser.Resource
	for _, inst := range ev.order {
		m, ok := mappers[inst.decl.typ]
		if !ok {
			continue
		}
		for _, r := range m(&mapContext{inst: inst, ev: ev}) {
			if keep(r) {
				kept = append(kept, r)
			}
		}
	}
	// MIG layouts are read once every mapper has run: the configuration's own ConfigMaps and
	// GPU Operator releases may declare the custom layouts its node groups' labels name.
	layouts := ev.migLayouts(kept)
	for _, r := range kept {
		layouts.Partition(r)
	}
	ev.reservations.settle()
	out := make([]parser.Resource, len(kept))
	for i, r := range kept {
		out[i] = *r
	}
	return out
}

// mapContext is what a mapper sees: the instance and ways to follow its references.
type mapContext struct {
	inst *instance
	ev   *evaluation
}

// resource starts a resource for this instance with the given provider and address.
func (c *mapContext) resource(provider, address string) (*parser.Resource, *view) {
	d := c.inst.decl
	r := &parser.Resource{
		Address:        address,
		Source:         parser.Location{File: d.rng.Filename, Line: d.rng.Start.Line},
		Kind:           parser.KindTerraform,
		Type:           d.typ,
		Provider:       provider,
		Quantity:       1,
		PurchaseOption: parser.OnDemand,
		Suppressions:   d.suppressions,
	}
	if call := c.inst.mod.downloaded; call != nil {
		// The module's files are terraform init's copy: point at the call the user wrote.
		r.Source, r.Suppressions = c.callSite(call)
		r.Note("declared at %s:%d, in module %q (%s) as terraform init downloaded it", d.rng.Filename, d.rng.Start.Line, call.name, call.source)
	}
	if call := c.inst.mod.standIn; call != nil {
		// The stand-in's files are gpuguard's: point at the call the user wrote, unless that
		// call is itself inside a downloaded module, whose outermost call is the user's.
		if c.inst.mod.downloaded == nil {
			r.Source, r.Suppressions = c.callSite(call)
		}
		if why := c.inst.mod.standInWhy; strings.Contains(why, ModulesManifest) {
			// Downloaded, but for another source or version: say which.
			r.Note("read through gpuguard's stand-in for module %q (%s): %s", call.name, call.source, why)
		} else {
			r.Note("read through gpuguard's stand-in for module %q (%s), which was not downloaded: run terraform init to read the module itself", call.name, call.source)
		}
	}
	if c.inst.expansion != "" {
		r.AddUnresolved(expansionAttr(d), c.inst.expansion)
	}
	if c.inst.mod.expansion != "" {
		r.AddUnresolved("module", c.inst.mod.expansion)
	}
	return r, &view{obj: c.inst.value, res: r}
}

func expansionAttr(d *resourceDecl) string {
	if d.forEach != nil {
		return "for_each"
	}
	return "count"
}

// providerConfig returns the evaluated provider block this instance uses.
func (c *mapContext) providerConfig(localName string) *view {
	key := c.inst.decl.provider
	if key == "" {
		key = localName
	}
	v, ok := c.inst.mod.provider(key)
	if !ok || v == cty.NilVal {
		return nil
	}
	return &view{obj: v}
}

// referenced follows a reference held in an attribute (launch_template.id, cluster id) to the
// resource instance it points at; want filters by resource type.
func (c *mapContext) referenced(w *view, want string, path ...any) *instance {
	for _, addr := range w.refs(path...) {
		if inst, ok := c.ev.instances[addr]; ok && inst.decl.typ == want {
			return inst
		}
		// A reference through an index expression (x[count.index].id) names the resource, not
		// the instance: take the instance with the same key as this one, else the first.
		var first *instance
		for _, inst := range c.ev.byResource[addr] {
			if inst.decl.typ != want || inst.addr == addr {
				continue
			}
			if first == nil {
				first = inst
			}
			if c.inst.key != cty.NilVal && inst.key != cty.NilVal && inst.key.RawEquals(c.inst.key) {
				return inst
			}
		}
		if first != nil {
			return first
		}
	}
	return nil
}

// byAttribute finds an instance of a type in the same module whose attribute equals value (a
// launch template referenced by name, a cluster by name): the first in evaluation order.
func (c *mapContext) byAttribute(typ, attr, value string) *instance {
	if all := c.withAttribute(typ, attr, value); len(all) > 0 {
		return all[0]
	}
	return nil
}

// withAttribute finds every instance of a type in the same module whose attribute equals value,
// in evaluation order.
func (c *mapContext) withAttribute(typ, attr, value string) []*instance {
	if value == "" {
		return nil
	}
	k := lookupKey{c.inst.mod, typ, attr}
	idx, ok := c.ev.byAttr[k]
	if !ok {
		idx = map[string][]*instance{}
		for _, inst := range c.instancesOf(typ) {
			if s, ok := (&view{obj: inst.value}).str(attr); ok {
				idx[s] = append(idx[s], inst)
			}
		}
		if c.ev.byAttr == nil {
			c.ev.byAttr = map[lookupKey]map[string][]*instance{}
		}
		c.ev.byAttr[k] = idx
	}
	return idx[value]
}

// lookupKey names an index over the instances of one type in one module: by an attribute's
// value (byAttribute) or by what an attribute refers to (referrers). An index is built on the
// first lookup, after instancesOf has evaluated every instance of the type in the module, so
// it is complete; each mapped resource then costs a map access instead of a pass over its
// module (a module with thousands of instance groups and their autoscalers was quadratic).
type lookupKey struct {
	mod       *moduleInstance
	typ, path string
}

// instancesOf returns the instances of a type in this module, in evaluation order. Only the
// types gpuguard maps, and what they refer to, are evaluated up front: a template or an account
// named by a string, an autoscaler that names its target, is evaluated here, once, when first
// looked up.
func (c *mapContext) instancesOf(typ string) []*instance {
	return c.instancesIn(c.inst.mod, typ)
}

// instancesIn returns the instances of a type in module instance mi, in evaluation order.
func (c *mapContext) instancesIn(mi *moduleInstance, typ string) []*instance {
	k := typeInModule{mi, typ}
	if !c.ev.expanded[k] {
		for _, d := range mi.cfg.resources {
			if d.typ == typ {
				mi.expandResource(mi.resources[d.addr()])
			}
		}
		if c.ev.expanded == nil {
			c.ev.expanded = map[typeInModule]bool{}
		}
		c.ev.expanded[k] = true // after the pass: a lookup made while expanding expands again
	}
	return c.ev.byType[k]
}

// referrers finds the instances of a type in the same module whose attribute at path refers
// to the instance being mapped (the autoscalers whose target it is).
func (c *mapContext) referrers(typ string, path ...any) []*instance {
	return c.referrersOf(c.inst.addr, typ, path...)
}

// referrersOf finds the instances of a type in the same module whose attribute at path refers
// to the instance at addr, in evaluation order.
func (c *mapContext) referrersOf(addr, typ string, path ...any) []*instance {
	k := lookupKey{c.inst.mod, typ, fmt.Sprintf("%q", path)}
	idx, ok := c.ev.byRef[k]
	if !ok {
		idx = map[string][]*instance{}
		for _, inst := range c.instancesOf(typ) {
			seen := map[string]bool{}
			for _, addr := range (&view{obj: inst.value}).refs(path...) {
				if !seen[addr] {
					seen[addr] = true
					idx[addr] = append(idx[addr], inst)
				}
			}
		}
		if c.ev.byRef == nil {
			c.ev.byRef = map[lookupKey]map[string][]*instance{}
		}
		c.ev.byRef[k] = idx
	}
	return idx[addr]
}

// keep decides whether a resource belongs in the GPU inventory: a GPU instance type, attached
// GPUs, GPUs an autoscaler provisions, or an instance type that could not be resolved (it might
// be a GPU).
func keep(r *parser.Resource) bool {
	if len(r.Accelerators) > 0 || r.Requirements != nil || r.AutoProvision != nil { // requirements are kept only when they ask for GPUs
		return true
	}
	if r.InstanceType == "" {
		return len(r.Unresolved) > 0
	}
	return parser.IsGPUInstanceType(r.Provider, r.InstanceType)
}

// requireInstanceType records an unresolved instance type when the mapper found none.
func requireInstanceType(r *parser.Resource, attr string, found bool) {
	if found && strings.TrimSpace(r.InstanceType) == "" {
		r.AddUnresolved(attr, parser.ReasonEmpty)
		return
	}
	if !found && r.InstanceType == "" {
		for _, u := range r.Unresolved {
			if u.Attribute == attr || strings.HasSuffix(u.Attribute, "."+attr) {
				return
			}
		}
		r.AddUnresolved(attr, parser.ReasonNotSet)
	}
}

// ProfileTag is the tag or label that attaches a workload profile to a resource.
const ProfileTag = "gpuguard-profile"

// applyTags stores tags and reads the profile tag from them.
func applyTags(r *parser.Resource, tags map[string]string) {
	if len(tags) == 0 {
		return
	}
	if r.Tags == nil {
		r.Tags = map[string]string{}
	}
	for k, v := range tags {
		r.Tags[k] = v
	}
	if p, ok := r.Tags[ProfileTag]; ok && p != "" {
		r.Profile = p
	}
}

var zoneSuffix = regexp.MustCompile(`^([a-z]+-[a-z]+\d+)-[a-z]$`)

// gcpRegionOf turns a zone (us-central1-a) into its region; a region is returned as is.
func gcpRegionOf(location string) (region string, isZone bool) {
	if m := zoneSuffix.FindStringSubmatch(location); m != nil {
		return m[1], true
	}
	return location, false
}

// sortedSet is the strings sorted, each once (a copy): a group's zones.
func sortedSet(v []string) []string {
	out := slices.Clone(v)
	slices.Sort(out)
	return slices.Compact(out)
}

var awsAZ = regexp.MustCompile(`^([a-z]{2}(-gov)?-[a-z]+-\d)[a-z]$`)

// awsRegionOfAZ turns us-east-1a into us-east-1.
func awsRegionOfAZ(az string) string {
	if m := awsAZ.FindStringSubmatch(az); m != nil {
		return m[1]
	}
	return ""
}

func indexedAddress(base string, key string) string {
	return fmt.Sprintf("%s[%q]", base, key)
}
