package kubernetes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// Some placements give each pod, or each group of pods, a topology domain of its own:
//   - a required pod anti-affinity whose selector matches the workload's own pods keeps them one
//     to a domain of its topology key
//     (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity);
//   - an exclusive placement (exclusive.go) gives each JobSet Job or LeaderWorkerSet group a
//     domain no other Job's or group's pods share.
//
// On kubernetes.io/hostname the domain is a node, which the estimator prices (MaxPerNode,
// Together). On another key (a zone, a node pool) gpuguard counts the domains the pods may use,
// where what places them names them: their node selection, the Kueue flavors they land on
// (whose node labels Kueue adds to their node selector), the Karpenter NodePool that launches
// their nodes. Pods (or groups) past those domains stay pending: a warning, and an autoscaler's
// maximum past them is capped there. They are priced as declared.

// zoneKeys are the node labels that name a node's zone, the current one first.
var zoneKeys = []string{labelZone, "failure-domain.beta.kubernetes.io/zone"}

// domainNames names the domains of well-known topology keys in messages ("zone", "node pool");
// a key not among them is "domain of KEY".
var domainNames = map[string]string{
	labelZone:                                "zone",
	"failure-domain.beta.kubernetes.io/zone": "zone",
	labelRegion:                              "region",
	"cloud.google.com/gke-nodepool":          "node pool",
	"eks.amazonaws.com/nodegroup":            "node group",
	"kubernetes.azure.com/agentpool":         "node pool",
	"karpenter.sh/nodepool":                  "Karpenter NodePool",
}

// domainName is what one domain of topology key is called in a message.
func domainName(key string) string {
	if n, ok := domainNames[key]; ok {
		return n
	}
	return "domain of " + key
}

// sameKeys is the node labels that mean what key means: both zone labels for either, else key.
func sameKeys(key string) []string {
	if slices.Contains(zoneKeys, key) {
		return zoneKeys
	}
	return []string{key}
}

// domains is the domains of a topology key a workload's nodes may be in, sorted, and what says
// so (from, joined with "and" in a message); none when nothing names them.
type domains struct {
	key    string
	values []string
	from   []string
	plural bool // what says so is more than one thing
}

// allowedDomains is the domains of key a workload's pods (tpl, placed at) may use: those its
// pod template's node selection allows, narrowed by the labels of the Kueue flavors they land
// on, a Karpenter NodePool's requirements (which hold its template's labels), and the zones
// and labels of the node groups whose nodes run them (groupDomains).
func allowedDomains(tpl *podTemplate, at placement, key string) domains {
	keys := sameKeys(key)
	d := domains{key: key}
	narrow := func(v []string, what string) {
		if d.from == nil {
			d.values = slices.Clone(v)
		} else {
			d.values = intersect(d.values, v)
		}
		d.from = append(d.from, what)
	}
	if v, ok := podSelector(tpl.Spec).values(keys...); ok && v != nil {
		narrow(v, "its node selection")
	}
	if v, flavors := flavorDomains(at.flavors, keys); v != nil {
		what := "Kueue ResourceFlavor " + flavors[0]
		if len(flavors) > 1 {
			what, d.plural = "Kueue ResourceFlavors "+strings.Join(flavors, ", "), true
		}
		narrow(v, what)
	}
	if np := at.pool; np != nil {
		if v, ok := np.requirements.values(keys...); ok && v != nil { // its template's labels among them
			narrow(v, "Karpenter NodePool "+np.name)
		}
	}
	if v, ok := groupDomains(at.groups, keys); ok {
		d.plural = d.plural || len(at.groups) > 1
		narrow(v, nodeGroups(at.groups))
	}
	slices.Sort(d.values)
	d.values = slices.Compact(d.values)
	d.plural = d.plural || len(d.from) > 1
	return d
}

// groupDomains is the domains (the values of one of keys) the nodes of the node groups that
// run a workload's pods are in: the zones each group names (parser.NodeLabels.Zones), its
// region, or the value of a label every one of its nodes carries (its name, a label it
// declares). ok is false when some group does not say: its zones are not known, its labels
// only in part.
func groupDomains(groups []*NodeGroup, keys []string) (values []string, ok bool) {
	if len(groups) == 0 {
		return nil, false
	}
	for _, g := range groups {
		switch {
		case slices.Equal(keys, zoneKeys):
			if g.Zones == nil {
				return nil, false
			}
			values = append(values, g.Zones...)
		case keys[0] == labelRegion && g.Region != "":
			values = append(values, g.Region)
		default:
			i := slices.IndexFunc(keys, func(key string) bool { _, ok := g.Labels[key]; return ok })
			if i < 0 {
				return nil, false
			}
			values = append(values, g.Labels[keys[i]])
		}
	}
	return values, true
}

// offZones says when the zones a workload's pods may use (tpl, placed at: their node selection,
// the Kueue flavors they land on, a Karpenter NodePool's requirements) are none of those the node
// groups that run them (at.groups, their zones known) have nodes in: no node there carries the
// zone, and the scheduler leaves the pods pending. "" otherwise.
func offZones(tpl *podTemplate, at placement) string {
	d := allowedDomains(tpl, placement{pool: at.pool, flavors: at.flavors}, labelZone)
	if len(d.values) == 0 { // none named, or none allowed (said elsewhere)
		return ""
	}
	have, ok := groupDomains(at.groups, zoneKeys)
	if !ok || len(intersect(d.values, have)) > 0 {
		return ""
	}
	slices.Sort(have)
	have = slices.Compact(have)
	return fmt.Sprintf("%s, but the nodes of %s are in %s (%s): the scheduler leaves them pending (priced as declared)",
		d.allow(), nodeGroups(at.groups), countDomains(len(have), labelZone), strings.Join(have, ", "))
}

// nodeGroups names groups in a message: "node group a", "node groups a, b".
func nodeGroups(groups []*NodeGroup) string {
	if len(groups) == 1 {
		return "node group " + groups[0].name()
	}
	return "node groups " + addresses(groups)
}

// flavorDomains is the domains (the values of one of keys) the Kueue flavors a pod set lands on
// (sets: one list for each resource group) keep its nodes in, and the flavors that name them: a
// group whose flavors do not all carry one of the keys narrows nothing; nil when none narrows.
func flavorDomains(sets [][]kueueFlavor, keys []string) (values, flavors []string) {
	for _, set := range sets {
		var own, names []string
		for _, f := range set {
			i := slices.IndexFunc(keys, func(key string) bool { _, ok := f.labels[key]; return ok })
			if i < 0 {
				own = nil
				break
			}
			own, names = append(own, f.labels[keys[i]]), append(names, f.name)
		}
		if own == nil {
			continue
		}
		if flavors == nil {
			values = own
		} else {
			values = intersect(values, own)
		}
		flavors = append(flavors, names...)
	}
	slices.Sort(flavors)
	return values, slices.Compact(flavors)
}

// allow says what the domains are and what allows them: "its node selection allows its nodes 1
// zone (us-east-1a)".
func (d domains) allow() string {
	verb := "allows"
	if d.plural {
		verb = "allow"
	}
	return fmt.Sprintf("%s %s its nodes %s (%s)", strings.Join(d.from, " and "), verb, countDomains(len(d.values), d.key), strings.Join(d.values, ", "))
}

// countDomains is n domains of topology key, in words: "1 zone", "2 domains of KEY".
func countDomains(n int, key string) string {
	if n == 1 {
		return "1 " + domainName(key)
	}
	return fmt.Sprintf("%d %s", n, domainsName(key))
}

// domainsName is what several domains of topology key are called: "zones", "domains of KEY".
func domainsName(key string) string {
	name := domainName(key)
	if rest, ok := strings.CutPrefix(name, "domain of "); ok {
		return "domains of " + rest
	}
	return name + "s"
}

// capByDomains warns when a required pod anti-affinity on a topology key other than the
// hostname that selects the workload's own pods (tpl, a pod template of o) keeps them one to a
// domain, and the domains their nodes may use (allowedDomains, at) are fewer than the pods:
// those past one a domain stay pending. The pods are priced as declared; an autoscaler's maximum
// past the domains is capped there, with a note. ok is false when nothing is said.
func capByDomains(o *object, tpl *podTemplate, at placement, rs *parser.Resource) (warn parser.Error, ok bool) {
	if mostPods(rs) <= 1 {
		return parser.Error{}, false
	}
	line, key, ok := ownPodTerm(o, tpl, podAntiAffinityField, func(key string) bool { return key != hostnameKey && key != "" })
	if !ok {
		return parser.Error{}, false
	}
	d := allowedDomains(tpl, at, key)
	if len(d.values) == 0 { // none named, or none allowed: nothing runs, which is said elsewhere
		return parser.Error{}, false
	}
	n, one := len(d.values), "one pod a "+domainName(key)
	why := fmt.Sprintf("its required podAntiAffinity (topologyKey %s%s) selects its own pods, and %s", key, line, d.allow())
	if m := capPods(rs, n, one); m != nil {
		rs.Note("at most %d pod%s at full scale-out, not the %d of the %s: %s", n, parser.Plural(int64(n)), m.Quantity, m.From, why)
	}
	if rs.Quantity <= n {
		return parser.Error{}, false
	}
	return parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s runs %d pods, but %s: %s, so %s (priced as declared)",
		rs.Address, rs.Quantity, why, one, pendingRest(rs.Quantity-n, ""))}, true
}

// capBySpread warns when a topology spread constraint on a key but the hostname that counts the
// workload's own pods (tpl, a pod template of o) asks for more domains (minDomains) than their
// nodes may use (allowedDomains, at): with fewer eligible domains than minDomains the scheduler
// takes the global minimum as 0, so no domain holds more than maxSkew of the pods
// (https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/#spread-constraint-definition),
// and the pods past maxSkew × domains stay pending. minDomains goes with DoNotSchedule only; a
// constraint the API server refuses (maxSkew or minDomains not a positive integer) is passed
// over. The pods are priced as declared; an autoscaler's maximum past the cap is capped there,
// with a note. The smallest cap of the template's constraints is the one said.
func capBySpread(o *object, tpl *podTemplate, at placement, rs *parser.Resource) (warn parser.Error, ok bool) {
	if mostPods(rs) <= 1 {
		return parser.Error{}, false
	}
	best, key, why := 0, "", ""
	for _, n := range listItems(&tpl.Spec.TopologySpreadConstraints) {
		var c topologySpread
		if n.Decode(&c) != nil || c.TopologyKey == hostnameKey || c.TopologyKey == "" || c.WhenUnsatisfiable != "DoNotSchedule" {
			continue
		}
		skew, least, ok := c.skewAndMinDomains()
		if !ok {
			continue
		}
		if !selectsOwn(&c.LabelSelector, tpl) {
			continue
		}
		d := allowedDomains(tpl, at, c.TopologyKey)
		if len(d.values) == 0 || len(d.values) >= least {
			continue
		}
		if most := skew * len(d.values); best == 0 || most < best {
			best, key = most, c.TopologyKey
			why = fmt.Sprintf("its topologySpreadConstraints on %s (maxSkew %d, minDomains %d%s) count its own pods, and %s: with fewer %s than minDomains the scheduler takes the fewest pods in one as 0, so each holds at most %d of them",
				c.TopologyKey, skew, least, o.atLine(n), d.allow(), domainsName(c.TopologyKey), skew)
		}
	}
	if best == 0 {
		return parser.Error{}, false
	}
	return podsPast(o, rs, best, fmt.Sprintf("minDomains past the %s its pods may use", domainsName(key)), why)
}

// podsPast holds a workload's pods to n, which what is said in why leaves room for: an
// autoscaler's maximum past n is capped there (by names the limit in scale_max.from), with a
// note, and pods declared past n stay pending, a warning. They are priced as declared.
func podsPast(o *object, rs *parser.Resource, n int, by, why string) (parser.Error, bool) {
	if m := capPods(rs, n, by); m != nil {
		rs.Note("at most %d pod%s at full scale-out, not the %d of the %s: %s", n, parser.Plural(int64(n)), m.Quantity, m.From, why)
	}
	if rs.Quantity <= n {
		return parser.Error{}, false
	}
	return parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s runs %d pods, but %s: %s (priced as declared)",
		rs.Address, rs.Quantity, why, pendingRest(rs.Quantity-n, ""))}, true
}

// capExclusive warns when an exclusive placement on a topology key other than the hostname
// gives each Job of a JobSet, or each group of a LeaderWorkerSet or RoleBasedGroupSet, a domain
// no other's pods share, and the domains the pods may use (allowedDomains) are fewer than the
// Jobs or groups: those past them stay pending. roles are o's, places where each role's pods
// land, at where each role's resource is in resources (-1 when not built).
//
//   - A LeaderWorkerSet's roles (a leader and its workers), and a RoleBasedGroup's, share its
//     groups: only the first role placed so whose domains are named warns, on its pods'
//     domains (each group's pods of every role are in one domain).
//   - A JobSet's replicated jobs each run their own Jobs, and all its Jobs placed alone need a
//     domain each: where every such replicated job names its domains on the same key, their
//     Jobs together are counted against the domains any of them may use (one warning, on the
//     JobSet); else each replicated job's against its own.
//
// The pods are priced as declared; an autoscaler's maximum past the domains is capped there,
// with a note. Subgroups are not counted: a group's subgroups share its count.
func capExclusive(o *object, roles []role, places []placement, at []int, resources []parser.Resource) []parser.Error {
	type counted struct {
		rs     *parser.Resource
		g      *exclusiveGroup
		groups int
		d      domains
		one    string // "one Job a zone": what the placement allows
		why    string
	}
	var list []counted
	shared := false // a role of shared groups is in list
	for i := range roles {
		r, g := &roles[i], roles[i].exclusive
		if at[i] < 0 || g == nil || g.topologyKey == hostnameKey || g.pods <= 0 || g.what == "subgroup" || resources[at[i]].Pod == nil {
			continue
		}
		c := counted{rs: &resources[at[i]], g: g, groups: g.groups} // a LeaderWorkerSet's groups
		if g.what == "Job" {
			c.groups = r.replicas / g.pods // this replicated job's Jobs
		}
		c.d = allowedDomains(&r.template, places[i], g.topologyKey)
		if len(c.d.values) == 0 {
			continue
		}
		n, name := len(c.d.values), domainName(g.topologyKey)
		c.one = fmt.Sprintf("one %s a %s", g.what, name)
		c.why = fmt.Sprintf("%s gives each %s a %s no other %s's pods share, and %s", g.source, g.what, name, g.what, c.d.allow())
		if m := capPods(c.rs, n*g.pods, c.one); m != nil {
			c.rs.Note("at most %d pod%s at full scale-out (%d %s%s), not the %d of the %s: %s", n*g.pods, parser.Plural(int64(n*g.pods)), n, g.what, parser.Plural(int64(n)), m.Quantity, m.From, c.why)
		}
		if g.what != "Job" {
			if shared {
				continue // the first role warns for the groups
			}
			shared = true
		}
		list = append(list, c)
	}
	// warn says that of groups Jobs or groups (what, one of them a domain: one) those past n
	// domains stay pending, and why.
	warn := func(address string, groups int, what, one, why string, n int) parser.Error {
		return parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s runs %d %ss, but %s: %s, so %s (priced as declared)",
			address, groups, what, why, one, pendingRest(groups-n, what+"s"))}
	}
	if len(list) > 1 && !slices.ContainsFunc(list, func(c counted) bool { return c.g.topologyKey != list[0].g.topologyKey }) {
		total, names, sources := 0, []string{}, []string{}
		var union []string
		for _, c := range list {
			total += c.groups
			union = append(union, c.d.values...)
			names = append(names, c.rs.Address)
			if !slices.Contains(sources, c.g.source) {
				sources = append(sources, c.g.source)
			}
		}
		slices.Sort(union)
		union = slices.Compact(union)
		if n := len(union); total > n {
			one, verb := domainName(list[0].g.topologyKey), "gives"
			if len(sources) > 1 {
				verb = "give"
			}
			why := fmt.Sprintf("%s %s each Job a %s no other Job's pods share, and the pods of %s may use %s between them (%s)",
				strings.Join(sources, " and "), verb, one, strings.Join(names, " and "), countDomains(n, list[0].g.topologyKey), strings.Join(union, ", "))
			return []parser.Error{warn(o.address(), total, "Job", list[0].one, why, n)}
		}
	}
	var out []parser.Error
	for _, c := range list {
		if n := len(c.d.values); c.groups > n {
			out = append(out, warn(c.rs.Address, c.groups, c.g.what, c.one, c.why, n))
		}
	}
	return out
}

// pendingRest says that the last k of a workload's pods (or its Jobs, its groups: what, when
// not "") stay pending.
func pendingRest(k int, what string) string {
	if k == 1 {
		return "the last one stays pending"
	}
	if what == "" {
		return fmt.Sprintf("the other %d stay pending", k)
	}
	return fmt.Sprintf("the other %d %s stay pending", k, what)
}
