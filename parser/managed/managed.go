package managed

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
	"github.com/gpuguard/gpuguard/parser/terraform"
)

// freeForm are the arguments whose keys are the user's (tags, labels), not the schema's: their
// keys keep their spelling.
var freeForm = map[string]bool{"tags": true, "labels": true, "node_labels": true, "resource_labels": true, "metadata": true, "annotations": true}

// typeOf answers the Terraform type of a managed resource, if gpuguard prices its kind.
func typeOf(apiVersion, kind string) (string, bool) {
	group, _, _ := strings.Cut(apiVersion, "/")
	if isASO(apiVersion) {
		k, ok := asoKinds[group+"/"+kind]
		if k.owner == "" {
			return "azurerm_resource_group", ok
		}
		return "azapi_resource", ok
	}
	if isACK(apiVersion) {
		t, ok := ackKinds[group+"/"+kind]
		return t, ok
	}
	if isConfigConnector(apiVersion) {
		t, ok := configConnector[group+"/"+kind]
		return t, ok
	}
	group = strings.Replace(group, ".m.upbound.io", ".upbound.io", 1)
	t, ok := kinds[group+"/"+kind]
	return t, ok
}

// specArguments is what a managed resource's spec says of its Terraform resource's arguments,
// by the operator that reads it.
func specArguments(mr kubernetes.ManagedResource, typ string) (map[string]any, error) {
	switch {
	case isACK(mr.APIVersion):
		return ackArguments(mr, typ)
	case isASO(mr.APIVersion):
		return decodeSpec(mr)
	case isConfigConnector(mr.APIVersion):
		return configConnectorArguments(mr)
	}
	return crossplaneArguments(mr, typ)
}

// decodeSpec is a resource's spec as a map (nil when it has none).
func decodeSpec(mr kubernetes.ManagedResource) (map[string]any, error) {
	var spec map[string]any
	if mr.Spec != nil && mr.Spec.Kind != 0 {
		if err := mr.Spec.Decode(&spec); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

// member is one managed resource in the Terraform configuration made of them.
type member struct {
	mr      kubernetes.ManagedResource
	typ     string
	name    string // its Terraform name
	address string // Kind/name, Kind/namespace/name when namespaced
}

var identifier = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// Resources prices the managed resources of one scan. Those of one root (a file, a kustomization
// build) make one Terraform configuration, where a reference by name (clusterRef,
// kubernetesClusterIdRef) becomes a reference to the resource of that name, so a node pool finds
// its cluster. Each resource is reported at its manifest, with a note naming the Terraform type
// it was priced as.
func Resources(mrs []kubernetes.ManagedResource) ([]parser.Resource, []parser.Error, []parser.Error) {
	byRoot := map[string][]member{}
	var roots []string
	var unread, jobErrs []parser.Error
	var jobs []parser.Resource
	for _, mr := range mrs {
		if rs, es, ok := sageMakerJob(mr); ok {
			jobs, jobErrs = append(jobs, rs...), append(jobErrs, es...)
			continue
		}
		typ, ok := typeOf(mr.APIVersion, mr.Kind)
		if !ok {
			// A kind gpuguard does not price may still run GPU machines: say so, never $0 in
			// silence.
			if t, field := kubernetes.GPUTypeIn(mr.Spec); t != "" {
				unread = append(unread, parser.Error{File: mr.File, Line: mr.Line, Message: fmt.Sprintf("%s (%s): %s is GPU type %s, but gpuguard does not price %s managed resources: their GPUs are not counted",
					addressOf(mr), mr.APIVersion, field, t, mr.Kind)})
			}
			continue
		}
		if mr.Name == "" {
			continue
		}
		if _, seen := byRoot[mr.Root]; !seen {
			roots = append(roots, mr.Root)
		}
		address := addressOf(mr)
		name := identifier.ReplaceAllString(mr.Name, "_")
		if name == "" || !unicode.IsLetter(rune(name[0])) && name[0] != '_' {
			name = "r_" + name
		}
		// Two names that read the same once made identifiers ("a.b", "a_b") stay apart.
		for base, n := name, 2; taken(byRoot[mr.Root], typ, name); n++ {
			name = fmt.Sprintf("%s_%d", base, n)
		}
		byRoot[mr.Root] = append(byRoot[mr.Root], member{mr: mr, typ: typ, name: name, address: address})
	}
	sort.Strings(roots)
	out, errs, warns := jobs, jobErrs, unread
	for _, root := range roots {
		rs, e, w := priceRoot(byRoot[root])
		out, errs, warns = append(out, rs...), append(errs, e...), append(warns, w...)
	}
	return out, errs, warns
}

// addressOf is a managed resource's address: Kind/name, Kind/namespace/name when namespaced.
func addressOf(mr kubernetes.ManagedResource) string {
	if mr.Namespace != "" {
		return mr.Kind + "/" + mr.Namespace + "/" + mr.Name
	}
	return mr.Kind + "/" + mr.Name
}

func taken(members []member, typ, name string) bool {
	for _, m := range members {
		if m.typ == typ && m.name == name {
			return true
		}
	}
	return false
}

// priceRoot evaluates one root's managed resources as a Terraform JSON configuration.
func priceRoot(members []member) ([]parser.Resource, []parser.Error, []parser.Error) {
	var errs []parser.Error
	idx := indexMembers(members)
	resources := map[string]map[string]any{}
	regions := map[string]map[string]any{} // AWS provider configurations by region
	for _, m := range members {
		args, err := specArguments(m.mr, m.typ)
		if err != nil {
			errs = append(errs, parser.Error{File: m.mr.File, Line: m.mr.Line, Message: fmt.Sprintf("%s: spec: %v", m.address, err)})
			continue
		}
		var attrs map[string]any
		if isASO(m.mr.APIVersion) {
			attrs = asoAttributes(args, m, members)
		} else {
			attrs = arguments(args, idx, m, "")
		}
		if region, ok := args["region"].(string); ok && strings.HasPrefix(m.typ, "aws_") {
			// The AWS provider takes the region, not the resource: one provider configuration
			// per region, each resource using its own (resources of one root may run in
			// several regions).
			p, seen := regions[region]
			if !seen {
				p = map[string]any{"alias": fmt.Sprintf("region%d", len(regions)), "region": literal(region)}
				regions[region] = p
			}
			attrs["provider"] = "aws." + p["alias"].(string)
			delete(attrs, "region")
		}
		if resources[m.typ] == nil {
			resources[m.typ] = map[string]any{}
		}
		resources[m.typ][m.name] = attrs
	}
	doc := map[string]any{"resource": resources}
	if len(regions) > 0 {
		var aws []any
		for _, region := range slices.Sorted(maps.Keys(regions)) {
			aws = append(aws, regions[region])
		}
		doc["provider"] = map[string]any{"aws": aws}
	}
	src, err := json.Marshal(doc)
	if err != nil {
		return nil, append(errs, parser.Error{File: members[0].mr.File, Message: fmt.Sprintf("managed resources: %v", err)}), nil
	}
	res := terraform.ParseSource("manifests.tf.json", src, terraform.Options{})
	byAddress := map[string]member{}
	for _, m := range members {
		byAddress[m.typ+"."+m.name] = m
	}
	manifestTerms := manifestAddresses(byAddress)
	var out []parser.Resource
	for _, r := range res.Resources {
		m, rest, ok := owner(r.Address, byAddress)
		if !ok {
			continue
		}
		// What the Terraform reader says of the other members (a scalable target that scales
		// this one) names their manifests.
		for i, n := range r.Notes {
			r.Notes[i] = manifestTerms.Replace(n)
		}
		if r.ScaleMax != nil {
			r.ScaleMax.From = manifestTerms.Replace(r.ScaleMax.From)
		}
		r.Address = m.address + rest
		r.Root = m.mr.Root
		r.Source = parser.Location{File: m.mr.File, Line: m.mr.Line}
		switch {
		case isASO(m.mr.APIVersion):
			asoResource(&r, m.mr)
		case isACK(m.mr.APIVersion):
			ackResource(&r, m.mr, m.typ)
		case isConfigConnector(m.mr.APIVersion):
			r.Note("a Config Connector resource (%s %s), priced as the Terraform resource %s it is generated from", m.mr.APIVersion, m.mr.Kind, m.typ)
			// Config Connector makes the resource's labels its GCP labels; the resource's own
			// (a node pool's resource labels) win.
			if len(m.mr.Labels) > 0 {
				tags := maps.Clone(m.mr.Labels)
				maps.Copy(tags, r.Tags)
				r.Tags = tags
			}
		default:
			r.Note("a Crossplane managed resource (%s %s), priced as the Terraform resource %s it is generated from", m.mr.APIVersion, m.mr.Kind, m.typ)
		}
		if m.mr.ComposedBy != "" {
			r.Note("composed for %s", m.mr.ComposedBy)
		}
		if p := m.mr.Annotations[kubernetes.AnnotationProfile]; p != "" {
			r.Profile = p
		}
		if v, ok := m.mr.Annotations[kubernetes.AnnotationIgnore]; ok {
			r.Suppressions = parser.ParseSuppressionAnnotation(v, r.Source)
		}
		out = append(out, r)
	}
	// What the evaluation could not read is a gap in gpuguard's reading of manifests the
	// provider accepts: a warning on the root's first managed resource, not an input error.
	var warns []parser.Error
	for _, e := range append(res.Errors, res.Warnings...) {
		warns = append(warns, parser.Error{File: members[0].mr.File, Line: members[0].mr.Line, Message: "managed resources read as Terraform: " + e.Message})
	}
	return out, errs, warns
}

// manifestAddresses replaces the Terraform addresses of a root's members (aws_appautoscaling_target.chat)
// with their manifests' (ScalableTarget/ml/chat), longest first so that no address is taken for
// the start of a longer one.
func manifestAddresses(byAddress map[string]member) *strings.Replacer {
	addrs := slices.SortedFunc(maps.Keys(byAddress), func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, a := range addrs {
		pairs = append(pairs, a, byAddress[a].address)
	}
	return strings.NewReplacer(pairs...)
}

// owner finds the managed resource an address belongs to ("aws_eks_node_group.gpu" or
// "azurerm_kubernetes_cluster.main.default_node_pool") and the rest of the address. Names are
// identifiers, so the name ends at the first "." or "[" after the type.
func owner(address string, byAddress map[string]member) (member, string, bool) {
	typ, rest, _ := strings.Cut(address, ".")
	name, tail := rest, ""
	if i := strings.IndexAny(rest, ".["); i >= 0 {
		name, tail = rest[:i], rest[i:]
	}
	m, ok := byAddress[typ+"."+name]
	return m, tail, ok
}

// arguments turns forProvider into Terraform arguments: keys in snake_case, and a reference
// (fooRef, fooIdRef: by name) or a selector (fooSelector: by labels) into a reference to the
// managed resource it resolves to. As Crossplane resolves them (crossplane-runtime's
// reference.ResolutionRequest), a value that is set wins over a reference unless the
// reference's policy is to resolve Always, and a reference wins over a selector. parent is
// the block the arguments are in ("launch_template"), which names the target of its "id".
func arguments(args map[string]any, idx *rootIndex, self member, parent string) map[string]any {
	out := map[string]any{}
	var refs, selectors []string
	for k, v := range args {
		switch {
		case strings.HasSuffix(k, "Selector"):
			selectors = append(selectors, k)
			continue
		case strings.HasSuffix(k, "Ref") || strings.HasSuffix(k, "Refs"):
			refs = append(refs, k)
			continue
		}
		key := snake(k)
		if freeForm[key] {
			out[literal(key)] = literalValue(v)
			continue
		}
		out[literal(key)] = convert(v, idx, self, key)
	}
	for _, k := range refs {
		attr := snake(strings.TrimSuffix(strings.TrimSuffix(k, "s"), "Ref"))
		if _, set := out[attr]; set && !resolveAlways(args[k]) {
			continue
		}
		if target := refTarget(args[k], idx, self, targetStem(attr, parent)); target != "" {
			out[attr] = "${" + target + ".id}"
		}
	}
	for _, k := range selectors {
		attr := snake(strings.TrimSuffix(k, "Selector"))
		if _, set := out[attr]; set {
			continue
		}
		if target := selectorTarget(args[k], idx, self, targetStem(attr, parent)); target != "" {
			out[attr] = "${" + target + ".id}"
		}
	}
	return out
}

func convert(v any, idx *rootIndex, self member, key string) any {
	switch x := v.(type) {
	case map[string]any:
		return arguments(x, idx, self, key)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = convert(e, idx, self, key)
		}
		return out
	}
	return literalValue(v)
}

// literal escapes the template sequences of Terraform's JSON syntax in a string from a manifest:
// Kubernetes does not interpolate "${...}", so neither may the configuration made of it (it
// would otherwise call Terraform's functions, file() among them, on a manifest's text).
func literal(s string) string {
	return strings.NewReplacer("${", "$${", "%{", "%%{").Replace(s)
}

// literalValue escapes every string in a value, keys included.
func literalValue(v any) any {
	switch x := v.(type) {
	case string:
		return literal(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[literal(k)] = literalValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = literalValue(e)
		}
		return out
	}
	return v
}

// refTarget is the Terraform address a reference by name points at: the other managed
// resource of that name in the reference's namespace (its own unless it names one), of the
// type stem names when resources of several kinds share the name.
func refTarget(v any, idx *rootIndex, self member, stem string) string {
	ref, _ := v.(map[string]any)
	if list, ok := v.([]any); ok && len(list) > 0 {
		ref, _ = list[0].(map[string]any)
	}
	if from, ok := ref["from"].(map[string]any); ok { // ACK: fooRef: {from: {name}}
		ref = from
	}
	name, _ := ref["name"].(string)
	namespace, _ := ref["namespace"].(string)
	var found []member
	for _, m := range idx.byName[name] {
		if !m.is(self) && inNamespace(m, namespace, self) {
			found = append(found, m)
		}
	}
	return pick(found, stem)
}

// selectorTarget is the Terraform address a selector resolves to: among the other managed
// resources of its namespace that carry all its matchLabels (and, with matchControllerRef,
// were composed for the same composite), the first by name of the type stem names, as
// Crossplane takes the first of the kind it lists.
func selectorTarget(v any, idx *rootIndex, self member, stem string) string {
	sel, _ := v.(map[string]any)
	matchLabels, _ := sel["matchLabels"].(map[string]any)
	sameController, _ := sel["matchControllerRef"].(bool)
	if len(matchLabels) == 0 && !sameController {
		return "" // not a selector of managed resources (or one that would match any)
	}
	// The resources carrying the selector's rarest label, else all of them.
	labels := make(map[string]string, len(matchLabels))
	cands := idx.all
	for k, v := range matchLabels {
		s, ok := v.(string)
		if !ok {
			return "" // a label's value is a string: no resource carries this one
		}
		labels[k] = s
		if with := idx.byLabel[labelKey(k, s)]; len(with) < len(cands) {
			cands = with
		}
	}
	var found []member
	for _, m := range cands {
		if m.is(self) || !inNamespace(m, "", self) || sameController && m.mr.ComposedBy != self.mr.ComposedBy {
			continue
		}
		if hasLabels(m.mr.Labels, labels) {
			found = append(found, m)
		}
	}
	return pick(found, stem)
}

// rootIndex is a root's managed resources by name and by label, for references and selectors
// to find their targets without a pass over the root each.
type rootIndex struct {
	all     []member
	byName  map[string][]member
	byLabel map[string][]member // by labelKey
}

func indexMembers(members []member) *rootIndex {
	idx := &rootIndex{all: members, byName: map[string][]member{}, byLabel: map[string][]member{}}
	for _, m := range members {
		idx.byName[m.mr.Name] = append(idx.byName[m.mr.Name], m)
		for k, v := range m.mr.Labels {
			idx.byLabel[labelKey(k, v)] = append(idx.byLabel[labelKey(k, v)], m)
		}
	}
	return idx
}

// labelKey is a label as one string; label keys cannot hold a NUL.
func labelKey(k, v string) string { return k + "\x00" + v }

func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if l, ok := have[k]; !ok || l != v {
			return false
		}
	}
	return true
}

// inNamespace reports whether m is in the namespace a reference of self names (self's own
// when it names none). A manifest without a namespace is applied into whichever one kubectl
// is given, so it matches any.
func inNamespace(m member, namespace string, self member) bool {
	if namespace == "" {
		namespace = self.mr.Namespace
	}
	return m.mr.Namespace == "" || namespace == "" || m.mr.Namespace == namespace
}

// resolveAlways reports whether a reference's policy has it resolved even when its field is
// set (policy: {resolve: Always}).
func resolveAlways(v any) bool {
	ref, _ := v.(map[string]any)
	policy, _ := ref["policy"].(map[string]any)
	return policy["resolve"] == "Always"
}

// is reports whether m and o are the same member.
func (m member) is(o member) bool { return m.typ == o.typ && m.name == o.name }

// mappedStem reports whether stem ends a Terraform type some managed kind maps to.
func mappedStem(stem string) bool { return mappedStems()[stem] }

// mappedStems are the ends of the Terraform types the managed kinds map to, at each "_"
// ("google_compute_instance_template": "compute_instance_template", "instance_template",
// "template"), gathered once.
var mappedStems = sync.OnceValue(func() map[string]bool {
	stems := map[string]bool{}
	for _, types := range []map[string]string{kinds, ackKinds, configConnector} {
		for _, t := range types {
			for i := strings.IndexByte(t, '_'); i >= 0; {
				stems[t[i+1:]] = true
				j := strings.IndexByte(t[i+1:], '_')
				if j < 0 {
					break
				}
				i += 1 + j
			}
		}
	}
	return stems
})

// targetAliases are the stems of arguments that do not end their target's Terraform type:
// a GCP autoscaler's target is an instance group manager, an Azure autoscale setting's
// target_resource_id a scale set, a SageMaker endpoint's endpoint_config_name an endpoint
// configuration.
var targetAliases = map[string]string{
	"target":          "instance_group_manager",
	"target_resource": "scale_set",
	"endpoint_config": "endpoint_configuration",
}

// targetStem is what the type of an argument's target ends with: the argument without its
// _id, _name or _arn ("cluster_name" → "cluster"), or the block it is in for a bare id or
// name (launch_template { id }).
func targetStem(attr, parent string) string {
	if attr == "id" || attr == "name" {
		attr = parent
	}
	for _, suffix := range []string{"_id", "_name", "_arn"} {
		attr = strings.TrimSuffix(attr, suffix)
	}
	if alias, ok := targetAliases[attr]; ok {
		return alias
	}
	return attr
}

// pick chooses a reference's target among the resources it matches: those whose Terraform
// type ends with stem, the first by name. Where stem ends no type gpuguard maps (ACK and
// Config Connector name some fields their own way), resources of a single type do.
func pick(found []member, stem string) string {
	var typed []member
	for _, m := range found {
		if strings.HasSuffix(m.typ, "_"+stem) {
			typed = append(typed, m)
		}
	}
	if len(typed) == 0 && !mappedStem(stem) {
		for _, m := range found {
			if m.typ != found[0].typ {
				return ""
			}
		}
		typed = found
	}
	if len(typed) == 0 {
		return ""
	}
	first := slices.MinFunc(typed, func(a, b member) int {
		return cmp.Or(cmp.Compare(a.mr.Namespace, b.mr.Namespace), cmp.Compare(a.mr.Name, b.mr.Name))
	})
	return first.typ + "." + first.name
}
