package kubernetes

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/tree"
	"github.com/gpuguard/gpuguard/parser"
)

// Crossplane compositions: a platform team publishes a CompositeResourceDefinition (an API of its
// own, GPUCluster) and Compositions that say which managed resources one composite is made of;
// application teams write composites or claims. gpuguard renders each composite through its
// Composition — function-patch-and-transform's Resources input (Pipeline mode) or the legacy
// spec.resources — and hands the composed managed resources to Options.Managed like the ones
// written out. https://docs.crossplane.io/latest/concepts/compositions/

// xrd is a CompositeResourceDefinition: the composite's kind, its claim's kind (v1) and the
// Composition used when a composite names none.
type xrd struct {
	group, kind, claimKind, defaultComposition string
}

// composition is a Composition's templates for one composite type.
type composition struct {
	name        string
	labels      map[string]string
	typeGroup   string // of compositeTypeRef
	typeKind    string
	templates   []composedTemplate
	unsupported []string // pipeline steps of other functions, which gpuguard does not run
}

type composedTemplate struct {
	name    string
	base    map[string]any
	patches []cpPatch
}

type cpPatch struct {
	Type          string `yaml:"type"`
	FromFieldPath string `yaml:"fromFieldPath"`
	ToFieldPath   string `yaml:"toFieldPath"`
	PatchSetName  string `yaml:"patchSetName"`
	Combine       *struct {
		Variables []struct {
			FromFieldPath string `yaml:"fromFieldPath"`
		} `yaml:"variables"`
		Strategy string `yaml:"strategy"`
		String   struct {
			Fmt string `yaml:"fmt"`
		} `yaml:"string"`
	} `yaml:"combine"`
	Transforms []cpTransform `yaml:"transforms"`
	Policy     struct {
		FromFieldPath string `yaml:"fromFieldPath"`
	} `yaml:"policy"`
}

type cpTransform struct {
	Type string         `yaml:"type"`
	Map  map[string]any `yaml:"map"`
	Math *struct {
		Type     string   `yaml:"type"`
		Multiply *float64 `yaml:"multiply"`
		ClampMin *float64 `yaml:"clampMin"`
		ClampMax *float64 `yaml:"clampMax"`
	} `yaml:"math"`
	String *struct {
		Type    string `yaml:"type"`
		Fmt     string `yaml:"fmt"`
		Convert string `yaml:"convert"`
		Trim    string `yaml:"trim"`
		Regexp  *struct {
			Match string `yaml:"match"`
			Group *int   `yaml:"group"`
		} `yaml:"regexp"`
	} `yaml:"string"`
	Convert *struct {
		ToType string `yaml:"toType"`
	} `yaml:"convert"`
	Match *struct {
		Patterns []struct {
			Type    string `yaml:"type"`
			Literal string `yaml:"literal"`
			Regexp  string `yaml:"regexp"`
			Result  any    `yaml:"result"`
		} `yaml:"patterns"`
		FallbackValue any `yaml:"fallbackValue"`
	} `yaml:"match"`
}

// templateSpec is what a Composition's resources look like, in the legacy spec and in
// function-patch-and-transform's input alike.
type templateSpec struct {
	Resources []struct {
		Name    string         `yaml:"name"`
		Base    map[string]any `yaml:"base"`
		Patches []cpPatch      `yaml:"patches"`
	} `yaml:"resources"`
	PatchSets []struct {
		Name    string    `yaml:"name"`
		Patches []cpPatch `yaml:"patches"`
	} `yaml:"patchSets"`
}

func isCrossplaneAPI(o *object) bool {
	return group(o.APIVersion) == "apiextensions.crossplane.io"
}

func decodeXRD(o *object) (xrd, error) {
	var spec struct {
		Group string `yaml:"group"`
		Names struct {
			Kind string `yaml:"kind"`
		} `yaml:"names"`
		ClaimNames struct {
			Kind string `yaml:"kind"`
		} `yaml:"claimNames"`
		DefaultCompositionRef struct {
			Name string `yaml:"name"`
		} `yaml:"defaultCompositionRef"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return xrd{}, err
	}
	return xrd{group: spec.Group, kind: spec.Names.Kind, claimKind: spec.ClaimNames.Kind, defaultComposition: spec.DefaultCompositionRef.Name}, nil
}

func decodeComposition(o *object) (*composition, error) {
	var spec struct {
		CompositeTypeRef struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
		} `yaml:"compositeTypeRef"`
		templateSpec `yaml:",inline"`
		Pipeline     []struct {
			Step        string `yaml:"step"`
			FunctionRef struct {
				Name string `yaml:"name"`
			} `yaml:"functionRef"`
			Input yaml.Node `yaml:"input"`
		} `yaml:"pipeline"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	c := &composition{name: o.Metadata.Name, labels: o.Metadata.Labels,
		typeGroup: group(spec.CompositeTypeRef.APIVersion), typeKind: spec.CompositeTypeRef.Kind}
	if err := c.add(spec.templateSpec); err != nil {
		return nil, err
	}
	for _, step := range spec.Pipeline {
		var head struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
		}
		if step.Input.Kind != 0 {
			if err := step.Input.Decode(&head); err != nil {
				return nil, lineError{line: o.lineOf(&step.Input), err: err}
			}
		}
		if head.Kind != "Resources" || group(head.APIVersion) != "pt.fn.crossplane.io" {
			c.unsupported = append(c.unsupported, fmt.Sprintf("step %s (%s)", step.Step, step.FunctionRef.Name))
			continue
		}
		var in templateSpec
		if err := step.Input.Decode(&in); err != nil {
			return nil, lineError{line: o.lineOf(&step.Input), err: err}
		}
		if err := c.add(in); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// add takes the templates of a legacy spec or a patch-and-transform input, patch sets resolved.
func (c *composition) add(in templateSpec) error {
	sets := map[string][]cpPatch{}
	for _, s := range in.PatchSets {
		sets[s.Name] = s.Patches
	}
	for i, r := range in.Resources {
		t := composedTemplate{name: orIndex(r.Name, "resource", i), base: r.Base}
		for _, p := range r.Patches {
			if p.Type == "PatchSet" {
				set, ok := sets[p.PatchSetName]
				if !ok {
					return fmt.Errorf("resource %s: patch set %q is not defined", t.name, p.PatchSetName)
				}
				t.patches = append(t.patches, set...)
				continue
			}
			t.patches = append(t.patches, p)
		}
		c.templates = append(c.templates, t)
	}
	return nil
}

// composites indexes the Crossplane API objects of a scan.
type composites struct {
	kinds        map[string]xrd            // group/kind of a composite or claim → its XRD
	compositions map[string][]*composition // group/kind of the composite → its compositions
	byName       map[string]*composition
}

func newComposites() *composites {
	return &composites{kinds: map[string]xrd{}, compositions: map[string][]*composition{}, byName: map[string]*composition{}}
}

func (cs *composites) addXRD(x xrd) {
	cs.kinds[x.group+"/"+x.kind] = x
	if x.claimKind != "" {
		cs.kinds[x.group+"/"+x.claimKind] = x
	}
}

func (cs *composites) addComposition(c *composition) {
	k := c.typeGroup + "/" + c.typeKind
	cs.compositions[k] = append(cs.compositions[k], c)
	cs.byName[c.name] = c
}

// isComposite reports whether an object is a composite or claim of a type the scan defines.
func (cs *composites) isComposite(o *object) bool {
	if len(cs.kinds) == 0 && len(cs.compositions) == 0 {
		return false
	}
	k := group(o.APIVersion) + "/" + o.Kind
	if _, ok := cs.kinds[k]; ok {
		return true
	}
	return len(cs.compositions[k]) > 0
}

// render composes the managed resources of a composite or claim, with warnings for what it
// could not follow.
func (cs *composites) render(o *object) ([]ManagedResource, []parser.Error, error) {
	var spec map[string]any
	if err := decodeSpec(o, &spec); err != nil {
		return nil, nil, err
	}
	k := group(o.APIVersion) + "/" + o.Kind
	x, hasXRD := cs.kinds[k]
	typeKey := k
	if hasXRD {
		typeKey = x.group + "/" + x.kind
	}
	comp, why := cs.choose(o, spec, typeKey, x)
	if comp == nil {
		return nil, []parser.Error{{File: o.file, Line: o.line, Message: fmt.Sprintf("%s: %s: the managed resources it composes are not counted", o.address(), why)}}, nil
	}
	var warns []parser.Error
	if len(comp.unsupported) > 0 {
		warns = append(warns, parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s: Composition %s runs functions gpuguard does not (%s): resources they compose are not counted",
			o.address(), comp.name, strings.Join(comp.unsupported, ", "))})
	}
	labels := map[string]any{}
	for k, v := range o.Metadata.Labels {
		labels[k] = v
	}
	if hasXRD && o.Kind == x.claimKind && x.claimKind != x.kind {
		labels["crossplane.io/claim-name"] = o.Metadata.Name
		labels["crossplane.io/claim-namespace"] = o.namespace()
	}
	annotations := map[string]any{}
	for k, v := range o.Metadata.Annotations {
		annotations[k] = v
	}
	xr := map[string]any{"apiVersion": o.APIVersion, "kind": o.Kind, "spec": spec,
		"metadata": map[string]any{"name": o.Metadata.Name, "namespace": o.Metadata.Namespace, "labels": labels, "annotations": annotations}}
	var out []ManagedResource
	var specs []map[string]any
	for _, t := range comp.templates {
		mr, _ := tree.Copy(t.base).(map[string]any)
		if mr == nil {
			mr = map[string]any{}
		}
		for _, p := range t.patches {
			if err := applyPatch(xr, mr, p); err != nil {
				warns = append(warns, parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s: Composition %s, resource %s: %v", o.address(), comp.name, t.name, err)})
			}
		}
		apiVersion, _ := mr["apiVersion"].(string)
		kind, _ := mr["kind"].(string)
		if _, nested := cs.kinds[group(apiVersion)+"/"+kind]; nested {
			warns = append(warns, parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s: Composition %s, resource %s is itself a composite (%s): gpuguard does not render composites it composes, so their resources are not counted",
				o.address(), comp.name, t.name, kind)})
			continue
		}
		// The composite's gpuguard annotations (profile, ignore) apply to what it composes.
		notes := map[string]string{}
		if meta, ok := mr["metadata"].(map[string]any); ok {
			if a, ok := meta["annotations"].(map[string]any); ok {
				for k, v := range a {
					notes[k] = fmt.Sprint(v)
				}
			}
		}
		for k, v := range o.Metadata.Annotations {
			notes[k] = v
		}
		ns := ""
		if strings.HasSuffix(group(apiVersion), ".m.upbound.io") { // Crossplane v2's namespaced managed resources
			ns = o.namespace()
		}
		spec, _ := mr["spec"].(map[string]any)
		specs = append(specs, spec)
		out = append(out, ManagedResource{APIVersion: apiVersion, Kind: kind, Name: o.Metadata.Name + "-" + t.name, Namespace: ns,
			Annotations: notes, File: o.file, Line: o.line, Root: o.rootName(), Offset: o.line - 1,
			ComposedBy: fmt.Sprintf("%s through Composition %s (resource %s)", o.address(), comp.name, t.name)})
	}
	for i := range out {
		linkControllerRefs(specs[i], out, i)
		node := &yaml.Node{}
		b, err := yaml.Marshal(specs[i])
		if err != nil {
			return nil, warns, err
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err == nil && len(doc.Content) > 0 {
			node = doc.Content[0]
		}
		out[i].Spec = node
	}
	return out, warns, nil
}

// linkControllerRefs turns a composed resource's selectors that match its controller
// (clusterNameSelector: {matchControllerRef: true}) into references by name to the resource of
// that kind the same composite composes (clusterNameRef: {name: ...}), so a node pool finds its
// cluster. The kind is the longest one among the composed resources' the field names
// (clusterName → Cluster, kubernetesClusterId → KubernetesCluster); none or several: left alone.
func linkControllerRefs(spec map[string]any, mrs []ManagedResource, self int) {
	for _, block := range []string{"forProvider", "initProvider"} {
		args, ok := spec[block].(map[string]any)
		if !ok {
			continue
		}
		for key, v := range args {
			sel, ok := v.(map[string]any)
			stem, isSelector := strings.CutSuffix(key, "Selector")
			if !ok || !isSelector || sel["matchControllerRef"] != true {
				continue
			}
			best, target := 0, -1
			for j, m := range mrs {
				k := strings.ToLower(m.Kind)
				if j == self || k == "" || !strings.Contains(strings.ToLower(stem), k) {
					continue
				}
				switch {
				case len(k) > best:
					best, target = len(k), j
				case len(k) == best:
					target = -1 // two of the kind: which one is not said
				}
			}
			if target >= 0 {
				delete(args, key)
				args[stem+"Ref"] = map[string]any{"name": mrs[target].Name}
			}
		}
	}
}

// choose finds the Composition of a composite: the one it names, the one its selector's labels
// pick, the XRD's default, or the only one for its type.
func (cs *composites) choose(o *object, spec map[string]any, typeKey string, x xrd) (*composition, string) {
	// Crossplane v1 puts the choice at spec.compositionRef; v2 under spec.crossplane.
	where := spec
	if cp, ok := spec["crossplane"].(map[string]any); ok {
		where = cp
	}
	if ref, ok := where["compositionRef"].(map[string]any); ok {
		name, _ := ref["name"].(string)
		if c := cs.byName[name]; c != nil {
			return c, ""
		}
		return nil, fmt.Sprintf("its Composition %q is not among the files read", name)
	}
	cands := cs.compositions[typeKey]
	if sel, ok := where["compositionSelector"].(map[string]any); ok {
		want, _ := sel["matchLabels"].(map[string]any)
		var picked []*composition
		for _, c := range cands {
			match := true
			for k, v := range want {
				if s, _ := v.(string); c.labels[k] != s {
					match = false
				}
			}
			if match {
				picked = append(picked, c)
			}
		}
		if len(picked) == 0 {
			return nil, "no Composition among the files read matches its compositionSelector"
		}
		sort.Slice(picked, func(i, j int) bool { return picked[i].name < picked[j].name })
		return picked[0], "" // Crossplane picks one of the matches; gpuguard the first by name
	}
	if x.defaultComposition != "" {
		if c := cs.byName[x.defaultComposition]; c != nil {
			return c, ""
		}
	}
	switch len(cands) {
	case 0:
		return nil, "no Composition for its type is among the files read"
	case 1:
		return cands[0], ""
	}
	return nil, fmt.Sprintf("%d Compositions fit its type and it names none", len(cands))
}

// applyPatch applies one patch from the composite to a composed resource. Patches that write to
// the composite, or read the environment, change nothing gpuguard prices and are skipped.
func applyPatch(xr, mr map[string]any, p cpPatch) error {
	var v any
	switch p.Type {
	case "", "FromCompositeFieldPath":
		var ok bool
		if v, ok = getPath(xr, p.FromFieldPath); !ok {
			if p.Policy.FromFieldPath == "Required" {
				return fmt.Errorf("required field %s is not set", p.FromFieldPath)
			}
			return nil
		}
	case "CombineFromComposite":
		if p.Combine == nil || p.Combine.Strategy != "string" {
			return fmt.Errorf("combine strategy is not string: not applied")
		}
		var args []any
		for _, in := range p.Combine.Variables {
			a, ok := getPath(xr, in.FromFieldPath)
			if !ok {
				return nil // Crossplane skips a combine with a missing variable
			}
			args = append(args, a)
		}
		v = fmt.Sprintf(p.Combine.String.Fmt, args...)
	case "ToCompositeFieldPath", "CombineToComposite", "FromEnvironmentFieldPath", "ToEnvironmentFieldPath", "CombineFromEnvironment", "CombineToEnvironment":
		return nil
	default:
		return fmt.Errorf("patch type %s is not applied", p.Type)
	}
	for _, t := range p.Transforms {
		var err error
		if v, err = transform(t, v); err != nil {
			return fmt.Errorf("%s → %s: %w: not applied", p.FromFieldPath, p.ToFieldPath, err)
		}
	}
	to := p.ToFieldPath
	if to == "" {
		to = p.FromFieldPath
	}
	return setPath(mr, to, v)
}

func transform(t cpTransform, v any) (any, error) {
	switch t.Type {
	case "map":
		out, ok := t.Map[fmt.Sprint(v)]
		if !ok {
			return nil, fmt.Errorf("map has no key %v", v)
		}
		return out, nil
	case "math":
		f, ok := number(v)
		if !ok || t.Math == nil {
			return nil, fmt.Errorf("math on %v", v)
		}
		switch {
		case t.Math.Multiply != nil && (t.Math.Type == "" || t.Math.Type == "Multiply"):
			f *= *t.Math.Multiply
		case t.Math.Type == "ClampMin" && t.Math.ClampMin != nil:
			f = math.Max(f, *t.Math.ClampMin)
		case t.Math.Type == "ClampMax" && t.Math.ClampMax != nil:
			f = math.Min(f, *t.Math.ClampMax)
		default:
			return nil, fmt.Errorf("math %s", t.Math.Type)
		}
		if _, isInt := v.(int); isInt && f == math.Trunc(f) {
			return int(f), nil
		}
		return f, nil
	case "string":
		if t.String == nil {
			return nil, fmt.Errorf("string transform without settings")
		}
		s := fmt.Sprint(v)
		switch t.String.Type {
		case "", "Format":
			return fmt.Sprintf(t.String.Fmt, v), nil
		case "Convert":
			switch t.String.Convert {
			case "ToUpper":
				return strings.ToUpper(s), nil
			case "ToLower":
				return strings.ToLower(s), nil
			}
			return nil, fmt.Errorf("string convert %s", t.String.Convert)
		case "TrimPrefix":
			return strings.TrimPrefix(s, t.String.Trim), nil
		case "TrimSuffix":
			return strings.TrimSuffix(s, t.String.Trim), nil
		case "Regexp":
			if t.String.Regexp == nil {
				return nil, fmt.Errorf("regexp transform without a match")
			}
			re, err := regexp.Compile(t.String.Regexp.Match)
			if err != nil {
				return nil, err
			}
			m := re.FindStringSubmatch(s)
			g := 0
			if t.String.Regexp.Group != nil {
				g = *t.String.Regexp.Group
			}
			if m == nil || g < 0 || g >= len(m) {
				return nil, fmt.Errorf("%q does not match %s", s, t.String.Regexp.Match)
			}
			return m[g], nil
		}
		return nil, fmt.Errorf("string %s", t.String.Type)
	case "convert":
		if t.Convert == nil {
			return nil, fmt.Errorf("convert without a type")
		}
		s := fmt.Sprint(v)
		switch t.Convert.ToType {
		case "string":
			return s, nil
		case "int", "int64":
			f, ok := number(v)
			if !ok {
				return nil, fmt.Errorf("%q is not a number", s)
			}
			return int(f), nil
		case "float64":
			f, ok := number(v)
			if !ok {
				return nil, fmt.Errorf("%q is not a number", s)
			}
			return f, nil
		case "bool":
			return strconv.ParseBool(s)
		}
		return nil, fmt.Errorf("convert to %s", t.Convert.ToType)
	case "match":
		if t.Match == nil {
			return nil, fmt.Errorf("match without patterns")
		}
		s := fmt.Sprint(v)
		for _, p := range t.Match.Patterns {
			switch p.Type {
			case "", "literal":
				if s == p.Literal {
					return p.Result, nil
				}
			case "regexp":
				if re, err := regexp.Compile(p.Regexp); err == nil && re.MatchString(s) {
					return p.Result, nil
				}
			}
		}
		if t.Match.FallbackValue != nil {
			return t.Match.FallbackValue, nil
		}
		return nil, fmt.Errorf("no pattern matches %q", s)
	}
	return nil, fmt.Errorf("transform %s", t.Type)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// fieldPath splits a Crossplane field path: spec.forProvider.scalingConfig[0].desiredSize,
// metadata.labels[team.acme.io/owner], metadata.annotations['a.b'].
func fieldPath(p string) ([]any, error) {
	var out []any
	for p != "" {
		switch {
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [ in field path")
			}
			in := p[1:end]
			if n, err := strconv.Atoi(in); err == nil {
				if n < 0 || n > 1000 {
					return nil, fmt.Errorf("index %d out of range", n)
				}
				out = append(out, n)
			} else {
				out = append(out, strings.Trim(in, `'"`))
			}
			p = strings.TrimPrefix(p[end+1:], ".")
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, p[:end])
			p = strings.TrimPrefix(p[end:], ".")
		}
	}
	return out, nil
}

func getPath(root map[string]any, path string) (any, bool) {
	segs, err := fieldPath(path)
	if err != nil || len(segs) == 0 {
		return nil, false
	}
	var cur any = root
	for _, s := range segs {
		switch k := s.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				return nil, false
			}
			cur = l[k]
		}
	}
	return cur, cur != nil
}

func setPath(root map[string]any, path string, v any) error {
	segs, err := fieldPath(path)
	if err != nil {
		return err
	}
	if len(segs) == 0 {
		return fmt.Errorf("empty field path")
	}
	if _, isIndex := segs[0].(int); isIndex {
		return fmt.Errorf("field path %s starts with an index", path)
	}
	var cur any = root
	var set func(any)
	for i, s := range segs {
		last := i == len(segs)-1
		var next any
		if !last {
			if _, isIndex := segs[i+1].(int); isIndex {
				next = []any{}
			} else {
				next = map[string]any{}
			}
		}
		switch k := s.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				m = map[string]any{}
				set(m)
			}
			if last {
				m[k] = v
				return nil
			}
			if _, ok := m[k]; !ok {
				m[k] = next
			}
			cur = m[k]
			set = func(x any) { m[k] = x }
		case int:
			l, ok := cur.([]any)
			if !ok {
				l = nil
			}
			for len(l) <= k {
				l = append(l, nil)
			}
			set(l)
			if last {
				l[k] = v
				return nil
			}
			if l[k] == nil {
				l[k] = next
			}
			cur = l[k]
			set = func(x any) { l[k] = x }
		}
	}
	return nil
}
