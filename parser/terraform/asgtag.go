package terraform

import (
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/zclconf/go-cty/cty"
)

// asgTag is one tag of an Auto Scaling group: a tag block of its own, or the one an
// aws_autoscaling_group_tag adds to it.
type asgTag struct {
	key, value string
	known      bool   // the value is known
	propagate  bool   // the group tags the instances it launches with it
	from       string // the aws_autoscaling_group_tag's address; "" for the group's own tag
}

// asgTagType adds one tag to an Auto Scaling group that Terraform does not manage itself: the
// groups EKS creates for a managed node group (whose own tags reach neither the group nor its
// instances), or a module's group tagged from outside the module. Cluster autoscaler
// node-template tags and cost-allocation tags are added this way.
// https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/autoscaling_group_tag
const asgTagType = "aws_autoscaling_group_tag"

// lookedUpEverywhere are the types that are not mapped themselves but change a mapped resource
// they name from any module (asgReferrers): they are evaluated with the mapped types, up front,
// since instancesOf finds a type's instances in one module only.
var lookedUpEverywhere = map[string]bool{asgTagType: true, asgScheduleType: true}

// autoScalingGroupTags returns the tags of the Auto Scaling group being mapped (own, the group's
// tag blocks; nil for an EKS managed node group, whose groups EKS creates) followed by those the
// aws_autoscaling_group_tag resources of the configuration add to it: those whose
// autoscaling_group_name refers to it, or names it (name, when known). A tag resource sets the
// tag after the group's own, so its value wins; a different one gets a note, for Terraform then
// rewrites the tag on every apply.
func (c *mapContext) autoScalingGroupTags(r *parser.Resource, own *view, name string) []asgTag {
	var tags []asgTag
	if own != nil {
		for _, t := range own.quiet().blocks("tag") { // read quietly: a tag never unprices
			if tag, ok := readASGTag(t, ""); ok {
				tags = append(tags, tag)
			}
		}
	}
	for _, inst := range c.asgReferrers(asgTagType, name) {
		for _, t := range (&view{obj: inst.value}).blocks("tag") {
			tag, ok := readASGTag(t, inst.addr)
			if !ok {
				continue
			}
			if i := slices.IndexFunc(tags, func(o asgTag) bool { return o.key == tag.key && o.from == "" }); i >= 0 {
				if o := tags[i]; o.known && tag.known && o.value != tag.value {
					r.Note("%s sets the group's tag %s to %q, over %q where the group sets it: Terraform rewrites it on every apply", inst.addr, tag.key, tag.value, o.value)
				}
			}
			tags = append(tags, tag) // after the group's own: its value wins where tags are read into a map
		}
	}
	return tags
}

func readASGTag(t *view, from string) (asgTag, bool) {
	k, ok := t.str("key")
	if !ok {
		return asgTag{}, false
	}
	v, known := t.str("value")
	p, set := t.boolean("propagate_at_launch")
	// An ASG's tag block requires propagate_at_launch, and so does the tag resource's: unset
	// (or unknown), it is taken as propagated, the instances' cost tags then not missed.
	return asgTag{key: k, value: v, known: known, propagate: p || !set, from: from}, true
}

// instanceTags returns the tags that reach the instances the group launches: those propagated
// at launch. A tag that does not propagate tags the group alone, which no cost report allocates
// instance spend by.
func instanceTags(tags []asgTag) map[string]string {
	out := map[string]string{}
	for _, t := range tags {
		if t.propagate && t.known {
			out[t.key] = t.value
		}
	}
	return out
}

// asgReferrers finds the instances of a type (aws_autoscaling_group_tag,
// aws_autoscaling_schedule), in any module, whose autoscaling_group_name refers to the instance
// being mapped, or equals name. A reference through an index (aws_autoscaling_group.x[0].name)
// names the resource: it counts when the resource has one instance, or when the referrer's
// instance has the same key.
func (c *mapContext) asgReferrers(typ, name string) []*instance {
	ev := c.ev
	idx, ok := ev.asgRefs[typ]
	if !ok {
		idx = map[string][]*instance{}
		for _, inst := range ev.order {
			if inst.decl.typ != typ {
				continue
			}
			w := &view{obj: inst.value}
			for _, addr := range w.refs("autoscaling_group_name") {
				idx[addr] = append(idx[addr], inst)
			}
			if n, ok := w.str("autoscaling_group_name"); ok {
				idx["name:"+n] = append(idx["name:"+n], inst)
			}
		}
		if ev.asgRefs == nil {
			ev.asgRefs = map[string]map[string][]*instance{}
		}
		ev.asgRefs[typ] = idx
	}
	out := slices.Clone(idx[c.inst.addr])
	if base := c.inst.mod.prefix + c.inst.decl.addr(); base != c.inst.addr {
		single := len(ev.byResource[base]) == 1
		for _, t := range idx[base] {
			if single || t.key != cty.NilVal && t.key.RawEquals(c.inst.key) {
				out = append(out, t)
			}
		}
	}
	if name != "" {
		out = append(out, idx["name:"+name]...)
	}
	slices.SortStableFunc(out, func(a, b *instance) int { return a.seq - b.seq })
	return slices.CompactFunc(out, func(a, b *instance) bool { return a == b })
}

// clusterTags splits an Auto Scaling group's tags into what says its instances are a Kubernetes
// cluster's nodes (tagged), a kops instance group's (kops), and the labels and taints its cluster
// autoscaler node-template tags give them.
func clusterTags(r *parser.Resource, tags []asgTag) (tagged, kops bool, caLabels map[string]string, caTaints []parser.Taint) {
	caLabels = map[string]string{}
	for _, t := range tags {
		k, v := t.key, t.value
		tagged = tagged || clusterTag(k)
		kops = kops || k == kopsInstanceGroup || k == clusterAutoscalerLabel+kopsInstanceGroup
		switch {
		case !t.known:
		case strings.HasPrefix(k, clusterAutoscalerLabel):
			caLabels[strings.TrimPrefix(k, clusterAutoscalerLabel)] = v
		case strings.HasPrefix(k, clusterAutoscalerTaint):
			key := strings.TrimPrefix(k, clusterAutoscalerTaint)
			if taint, err := parser.ParseTaint(key + "=" + v); err == nil {
				caTaints = append(caTaints, taint)
			} else {
				r.Note("the cluster autoscaler tag %s is not value:Effect: %v", k, err)
			}
		}
	}
	return tagged, kops, caLabels, caTaints
}

// noteTagResources says which aws_autoscaling_group_tag resources tag the group, and with what.
func noteTagResources(r *parser.Resource, tags []asgTag) {
	var order []string
	keys := map[string][]string{}
	for _, t := range tags {
		if t.from == "" {
			continue
		}
		if _, ok := keys[t.from]; !ok {
			order = append(order, t.from)
		}
		k := t.key
		if t.propagate {
			k += " (and its instances)"
		}
		keys[t.from] = append(keys[t.from], k)
	}
	for _, from := range order {
		r.Note("%s tags its Auto Scaling group with %s", from, strings.Join(keys[from], ", "))
	}
}
