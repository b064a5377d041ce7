package kubernetes

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// NVIDIA's DRA driver publishes a GPU's CUDA compute capability as a version attribute,
// cudaComputeCapability ("9.0.0" for an H100; cmd/gpu-kubelet-plugin deviceinfo.go in
// github.com/NVIDIA/k8s-dra-driver-gpu), which a selector compares with Kubernetes' CEL semver
// library: isGreaterThan, isLessThan, compareTo (-1, 0 or 1), ==, and major()
// (https://kubernetes.io/docs/reference/using-api/cel/#kubernetes-semver-library). CEL has no
// "at least" for versions: !v.isLessThan(semver("8.0.0")) is how one is written.

const celCompute = `device\.attributes\["gpu\.nvidia\.com"\]\.cudaComputeCapability`

// celVersion is semver("8.0.0"), or semver("8.0", true), which normalizes a short version.
const celVersion = `semver\(\s*"([^"]*)"\s*(?:,\s*true\s*)?\)`

// maxMajor is more than any compute capability's major will be (12 is the highest in 2026): a
// larger number compared with major() is read as a mistake, not a bound.
const maxMajor = 1000

var (
	celComputeIs      = regexp.MustCompile(`(!\s*)?` + celCompute + `\.(isGreaterThan|isLessThan)\(\s*` + celVersion + `\s*\)`)
	celComputeIsOf    = regexp.MustCompile(`(!\s*)?` + celVersion + `\.(isGreaterThan|isLessThan)\(\s*` + celCompute + `\s*\)`)
	celComputeCompare = regexp.MustCompile(celCompute + `\.compareTo\(\s*` + celVersion + `\s*\)\s*(>=|<=|==|>|<)\s*(-1|0|1)\b`)
	celComputeEqual   = regexp.MustCompile(celCompute + `\s*==\s*` + celVersion)
	celComputeMajor   = regexp.MustCompile(celCompute + `\.major\(\)\s*(>=|<=|==|>|<)\s*(\d+)\b`)
	celAnyCompute     = regexp.MustCompile(`\.cudaComputeCapability\b`)
)

// readCompute reads the cudaComputeCapability terms of a selector expression: rest is the
// expression with them taken out (for the checks on what else it says), why names a term that
// is not read (of another shape, or a version that is not one).
func readCompute(expr string) (rest string, r *parser.ComputeRange, why string) {
	if !celAnyCompute.MatchString(expr) {
		return expr, nil, ""
	}
	add := func(op, version string) {
		b, ok := versionBound(op, version)
		if !ok {
			why = "cudaComputeCapability compared with " + strconv.Quote(version) + ", not a version"
			return
		}
		r = andCompute(r, &b)
	}
	// each replaces the matches of re in s by true, having read their submatches with read.
	each := func(re *regexp.Regexp, s string, read func(g []string)) string {
		return re.ReplaceAllStringFunc(s, func(m string) string {
			read(re.FindStringSubmatch(m))
			return "true"
		})
	}
	// is reads a.isGreaterThan(b) or a.isLessThan(b), or its negation, as an operator of the
	// attribute against the version: turned around where the version is a.
	is := func(negated, method string, versionFirst bool) string {
		op := map[string]string{"isGreaterThan": ">", "isLessThan": "<"}[method]
		if versionFirst {
			op = map[string]string{">": "<", "<": ">"}[op]
		}
		if negated != "" {
			op = map[string]string{">": "<=", "<": ">="}[op]
		}
		return op
	}
	rest = each(celComputeIs, expr, func(g []string) { add(is(g[1], g[2], false), g[3]) })
	rest = each(celComputeIsOf, rest, func(g []string) { add(is(g[1], g[3], true), g[2]) })
	rest = each(celComputeCompare, rest, func(g []string) {
		n, _ := strconv.Atoi(g[3])
		if op, ok := compareOp(g[2], n); ok {
			add(op, g[1])
		} else {
			why = "a cudaComputeCapability comparison that is always or never true"
		}
	})
	rest = each(celComputeEqual, rest, func(g []string) { add("==", g[1]) })
	rest = each(celComputeMajor, rest, func(g []string) {
		n, err := strconv.Atoi(g[2])
		if err != nil || n > maxMajor {
			why = "cudaComputeCapability's major compared with " + g[2] + ", not a compute capability"
			return
		}
		b := majorBound(g[1], n)
		r = andCompute(r, &b)
	})
	if celAnyCompute.MatchString(rest) && why == "" {
		why = "a cudaComputeCapability term of another shape"
	}
	return rest, r, why
}

// compareOp is what v.compareTo(w) op n says of v against w: compareTo is -1, 0 or 1, so the
// values of it op n allows are one side of w, w itself, or both. ok is false when they are
// neither end of a range (!= 0, or none).
func compareOp(op string, n int) (string, bool) {
	var allowed [3]bool // compareTo of -1, 0, 1
	for i, c := range []int{-1, 0, 1} {
		switch op {
		case ">=":
			allowed[i] = c >= n
		case "<=":
			allowed[i] = c <= n
		case ">":
			allowed[i] = c > n
		case "<":
			allowed[i] = c < n
		default:
			allowed[i] = c == n
		}
	}
	switch allowed {
	case [3]bool{false, false, true}:
		return ">", true
	case [3]bool{false, true, true}:
		return ">=", true
	case [3]bool{false, true, false}:
		return "==", true
	case [3]bool{true, true, false}:
		return "<=", true
	case [3]bool{true, false, false}:
		return "<", true
	}
	return "", false
}

// versionBound is the range of capabilities v op version allows. The driver writes a compute
// capability as major.minor.0, so a version with a patch lies between two capabilities: at
// least 8.0.1 is more than 8.0, at most 8.0.1 is at most 8.0, and equal to it is none.
func versionBound(op, version string) (parser.ComputeRange, bool) {
	parts := strings.Split(strings.TrimSpace(version), ".")
	if len(parts) > 3 {
		return parser.ComputeRange{}, false
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || p != strconv.Itoa(v) {
			return parser.ComputeRange{}, false
		}
		n[i] = v
	}
	c := parser.Capability{Major: n[0], Minor: n[1]}
	patch := n[2] > 0
	at := func(strict bool) *parser.ComputeBound { return &parser.ComputeBound{Capability: c, Strict: strict} }
	switch op {
	case ">":
		return parser.ComputeRange{Min: at(true)}, true
	case ">=":
		return parser.ComputeRange{Min: at(patch)}, true
	case "<":
		return parser.ComputeRange{Max: at(!patch)}, true
	case "<=":
		return parser.ComputeRange{Max: at(false)}, true
	}
	if patch { // no capability is equal to it
		return parser.ComputeRange{Min: at(true), Max: at(true)}, true
	}
	return parser.ComputeRange{Min: at(false), Max: at(false)}, true
}

// majorBound is the range of capabilities whose major op n: major() >= 8 is 8.0 and up,
// major() <= 8 is below 9.0.
func majorBound(op string, n int) parser.ComputeRange {
	at := func(major int, strict bool) *parser.ComputeBound {
		return &parser.ComputeBound{Capability: parser.Capability{Major: major}, Strict: strict}
	}
	switch op {
	case ">=":
		return parser.ComputeRange{Min: at(n, false)}
	case ">":
		return parser.ComputeRange{Min: at(n+1, false)}
	case "<":
		return parser.ComputeRange{Max: at(n, true)}
	case "<=":
		return parser.ComputeRange{Max: at(n+1, true)}
	}
	return parser.ComputeRange{Min: at(n, false), Max: at(n+1, true)}
}

// andCompute is the range both a and b allow; nil when neither bounds it.
func andCompute(a, b *parser.ComputeRange) *parser.ComputeRange {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	r := a.And(*b)
	return &r
}

// computeFloor is the least compute capability a pod's claims and labels require of its GPU:
// the lower end of its claims' cudaComputeCapability range, GPU feature discovery's
// gpu.compute.major on its labels (Gt 7 or In [8, 9] is 8.0), or the least of the
// architectures its labels' gpu.family or its claims' architecture allow (familyFloor), the
// highest of them; nil when none has one.
func computeFloor(claims deviceSelection, sel selector) *parser.ComputeBound {
	var floor *parser.ComputeBound
	if claims.compute != nil {
		floor = claims.compute.Min
	}
	families, _ := sel.values(labelGFDFamily)
	for _, f := range [][]string{families, claims.architectures} {
		if b := familyFloor(f); b != nil && (floor == nil || b.Compare(floor.Capability) > 0) {
			floor = b
		}
	}
	c, ok := sel.countRange(labelGFDComputeMajor)
	major := c.Min
	if in := slices.DeleteFunc(slices.Clone(c.In), func(v int) bool { return !c.Allows(float64(v)) }); len(in) > 0 {
		major = new(slices.Min(in)) // the least value the bounds leave
	}
	if !ok || major == nil || *major < 1 {
		return floor
	}
	label := &parser.ComputeBound{Capability: parser.Capability{Major: *major}}
	if floor == nil || label.Compare(floor.Capability) > 0 {
		return label
	}
	return floor
}

// familyFirst is the least compute capability of each architecture GPU feature discovery names
// in gpu.family, as its getArchFamily derives the name from the compute capability
// (github.com/NVIDIA/k8s-device-plugin, internal/lm/resource.go; estimator/catalog's
// GPU.Family): volta from 7.0, turing 7.5, ampere 8.0, ada-lovelace 8.9, hopper 9.0, blackwell
// 10.0 (B200; the RTX PRO 6000 is 12.0).
var familyFirst = map[string]parser.Capability{
	"pascal": {Major: 6}, "volta": {Major: 7}, "turing": {Major: 7, Minor: 5}, "ampere": {Major: 8},
	"ada-lovelace": {Major: 8, Minor: 9}, "hopper": {Major: 9}, "blackwell": {Major: 10},
}

// familyFloor is the least compute capability of the architectures a pod allows (gpu.family
// In [hopper, blackwell] is 9.0); nil when it names none, or one gpuguard does not know, whose
// capability could be lower.
func familyFloor(families []string) *parser.ComputeBound {
	var floor *parser.ComputeBound
	for _, f := range families {
		c, ok := familyFirst[strings.ToLower(strings.TrimSpace(f))]
		if !ok {
			return nil
		}
		if floor == nil || c.Compare(floor.Capability) < 0 {
			floor = &parser.ComputeBound{Capability: c}
		}
	}
	return floor
}
