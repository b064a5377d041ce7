package terraform

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// moreFunctions are the rest of Terraform's built-in functions a configuration commonly uses
// (https://developer.hashicorp.com/terraform/language/functions): network prefixes, hashes,
// list helpers, time comparison. A call to a function gpuguard lacks leaves only the values
// that depend on it unresolved; these make them known.
func moreFunctions() map[string]function.Function {
	return map[string]function.Function{
		"cidrhost": cidrHostFunc, "cidrnetmask": cidrNetmaskFunc, "cidrsubnet": cidrSubnetFunc, "cidrsubnets": cidrSubnetsFunc,
		"matchkeys": matchKeysFunc, "transpose": transposeFunc,
		"urlencode":    stringMap(url.QueryEscape),
		"sha512":       stringMap(func(s string) string { h := sha512.Sum512([]byte(s)); return hex.EncodeToString(h[:]) }),
		"base64sha256": stringMap(func(s string) string { h := sha256.Sum256([]byte(s)); return base64.StdEncoding.EncodeToString(h[:]) }),
		"base64sha512": stringMap(func(s string) string { h := sha512.Sum512([]byte(s)); return base64.StdEncoding.EncodeToString(h[:]) }),
		"abspath": stringMap(func(s string) string {
			if abs, err := filepath.Abs(s); err == nil {
				return filepath.ToSlash(abs)
			}
			return s
		}),
		"base64gzip":       base64GzipFunc,
		"textencodebase64": textBase64Func(true),
		"textdecodebase64": textBase64Func(false),
		"ephemeralasnull":  identityFunc, // gpuguard's values are never ephemeral
		"pathexpand":       pathExpandFunc,
		// Random or secret-dependent: Terraform itself gives a new value each run or needs a key.
		"bcrypt":     opaqueFunc(cty.String, "bcrypt() salts at random: its value is known only when Terraform applies", 1, 2),
		"rsadecrypt": opaqueFunc(cty.String, "rsadecrypt() needs a private key gpuguard does not read", 2, 2),
		"timecmp":    timeCmpFunc, "plantimestamp": unknownFunc(cty.String), "uuidv5": uuidV5Func,
		"issensitive": function.New(&function.Spec{
			Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true}},
			Type:   function.StaticReturnType(cty.Bool),
			Impl:   func([]cty.Value, cty.Type) (cty.Value, error) { return cty.False, nil }, // gpuguard keeps no sensitivity marks
		}),
	}
}

// bigWhole reads a function argument that must be a whole number within ±2^200 (addresses
// have at most 128 bits; pow() can produce infinities).
func bigWhole(v cty.Value, what string) (*big.Int, error) {
	bf := v.AsBigFloat()
	if bf.IsInf() || !bf.IsInt() {
		return nil, fmt.Errorf("%s must be a whole number", what)
	}
	n, _ := bf.Int(nil)
	if n.BitLen() > 200 {
		return nil, fmt.Errorf("%s is out of range", what)
	}
	return n, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("invalid CIDR expression: %v", err)
	}
	return p, nil
}

// addToAddr adds n (which may be negative or larger than 64 bits) to an address.
func addToAddr(a netip.Addr, n *big.Int) (netip.Addr, bool) {
	b := a.AsSlice()
	v := new(big.Int).SetBytes(b)
	v.Add(v, n)
	if v.Sign() < 0 || v.BitLen() > len(b)*8 {
		return netip.Addr{}, false
	}
	out := make([]byte, len(b))
	v.FillBytes(out)
	addr, ok := netip.AddrFromSlice(out)
	return addr, ok
}

var cidrHostFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "prefix", Type: cty.String}, {Name: "hostnum", Type: cty.Number}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := parsePrefix(args[0].AsString())
		if err != nil {
			return cty.NilVal, err
		}
		n, err := bigWhole(args[1], "hostnum")
		if err != nil {
			return cty.NilVal, err
		}
		host := p.Addr().BitLen() - p.Bits()
		size := new(big.Int).Lsh(big.NewInt(1), uint(host))
		if n.Sign() < 0 {
			n.Add(n, size) // -1 is the last address
		}
		if n.Sign() < 0 || n.Cmp(size) >= 0 {
			return cty.NilVal, fmt.Errorf("prefix of %d does not accommodate a host numbered %s", p.Bits(), args[1].AsBigFloat().Text('f', 0))
		}
		addr, ok := addToAddr(p.Masked().Addr(), n)
		if !ok {
			return cty.NilVal, fmt.Errorf("host number out of range")
		}
		return cty.StringVal(addr.String()), nil
	},
})

var cidrNetmaskFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "prefix", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := parsePrefix(args[0].AsString())
		if err != nil {
			return cty.NilVal, err
		}
		if !p.Addr().Is4() {
			return cty.NilVal, fmt.Errorf("only IPv4 prefixes have a netmask")
		}
		var m [4]byte
		for i := 0; i < p.Bits(); i++ {
			m[i/8] |= 0x80 >> (i % 8)
		}
		return cty.StringVal(netip.AddrFrom4(m).String()), nil
	},
})

// subnet is prefix extended by newbits, numbered netnum.
func subnet(p netip.Prefix, newbits int, netnum *big.Int) (netip.Prefix, error) {
	bits := p.Bits() + newbits
	if newbits < 0 || bits > p.Addr().BitLen() {
		return netip.Prefix{}, fmt.Errorf("insufficient address space to extend prefix of %d by %d", p.Bits(), newbits)
	}
	if netnum.Sign() < 0 || netnum.BitLen() > newbits {
		return netip.Prefix{}, fmt.Errorf("prefix extension of %d does not accommodate a subnet numbered %s", newbits, netnum)
	}
	shift := uint(p.Addr().BitLen() - bits)
	addr, ok := addToAddr(p.Masked().Addr(), new(big.Int).Lsh(netnum, shift))
	if !ok {
		return netip.Prefix{}, fmt.Errorf("subnet out of range")
	}
	return netip.PrefixFrom(addr, bits), nil
}

var cidrSubnetFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "prefix", Type: cty.String}, {Name: "newbits", Type: cty.Number}, {Name: "netnum", Type: cty.Number}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := parsePrefix(args[0].AsString())
		if err != nil {
			return cty.NilVal, err
		}
		newbits, err := bigWhole(args[1], "newbits")
		if err != nil {
			return cty.NilVal, err
		}
		netnum, err := bigWhole(args[2], "netnum")
		if err != nil {
			return cty.NilVal, err
		}
		if newbits.BitLen() > 8 {
			return cty.NilVal, fmt.Errorf("insufficient address space to extend prefix of %d by %s", p.Bits(), newbits)
		}
		s, err := subnet(p, int(newbits.Int64()), netnum)
		if err != nil {
			return cty.NilVal, err
		}
		return cty.StringVal(s.String()), nil
	},
})

// cidrSubnetsFunc allocates consecutive subnets of the given sizes, each aligned to its size, as
// Terraform's cidrsubnets does.
var cidrSubnetsFunc = function.New(&function.Spec{
	Params:   []function.Parameter{{Name: "prefix", Type: cty.String}},
	VarParam: &function.Parameter{Name: "newbits", Type: cty.Number},
	Type:     function.StaticReturnType(cty.List(cty.String)),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := parsePrefix(args[0].AsString())
		if err != nil {
			return cty.NilVal, err
		}
		p = p.Masked()
		if len(args) == 1 {
			return cty.ListValEmpty(cty.String), nil
		}
		base := new(big.Int).SetBytes(p.Addr().AsSlice())
		next := new(big.Int).Set(base) // the first free address
		total := p.Addr().BitLen()
		end := new(big.Int).Add(base, new(big.Int).Lsh(big.NewInt(1), uint(total-p.Bits())))
		var out []cty.Value
		for i, a := range args[1:] {
			n, err := bigWhole(a, "newbits")
			if err != nil {
				return cty.NilVal, err
			}
			if n.BitLen() > 8 {
				return cty.NilVal, fmt.Errorf("newbits argument %d: %s is too many bits", i+1, n)
			}
			nb := n.Int64()
			bits := p.Bits() + int(nb)
			if nb < 1 || bits > total {
				return cty.NilVal, fmt.Errorf("newbits argument %d: would extend the prefix to %d bits", i+1, bits)
			}
			size := new(big.Int).Lsh(big.NewInt(1), uint(total-bits))
			// Align up to the subnet's own size.
			start := new(big.Int).Add(next, new(big.Int).Sub(size, big.NewInt(1)))
			start.Div(start, size).Mul(start, size)
			if new(big.Int).Add(start, size).Cmp(end) > 0 {
				return cty.NilVal, fmt.Errorf("not enough remaining address space for a subnet with a prefix of %d bits after %d subnets", bits, i)
			}
			b := make([]byte, len(p.Addr().AsSlice()))
			start.FillBytes(b)
			addr, _ := netip.AddrFromSlice(b)
			out = append(out, cty.StringVal(netip.PrefixFrom(addr, bits).String()))
			next.Add(start, size)
		}
		return cty.ListVal(out), nil
	},
})

var matchKeysFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "values", Type: cty.List(cty.DynamicPseudoType)},
		{Name: "keys", Type: cty.List(cty.DynamicPseudoType)},
		{Name: "searchset", Type: cty.List(cty.DynamicPseudoType)},
	},
	Type: func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
		values, keys, search := args[0].AsValueSlice(), args[1].AsValueSlice(), args[2].AsValueSlice()
		if len(values) != len(keys) {
			return cty.NilVal, fmt.Errorf("length of keys and values should be equal")
		}
		var out []cty.Value
		for i, k := range keys {
			for _, s := range search {
				if eq := k.Equals(s); eq.IsKnown() && eq.True() {
					out = append(out, values[i])
					break
				}
			}
		}
		if len(out) == 0 {
			return cty.ListValEmpty(ty.ElementType()), nil
		}
		return cty.ListVal(out), nil
	},
})

var transposeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "values", Type: cty.Map(cty.List(cty.String))}},
	Type:   function.StaticReturnType(cty.Map(cty.List(cty.String))),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		acc := map[string][]cty.Value{}
		for it := args[0].ElementIterator(); it.Next(); {
			k, list := it.Element()
			for lit := list.ElementIterator(); lit.Next(); {
				_, v := lit.Element()
				acc[v.AsString()] = append(acc[v.AsString()], k)
			}
		}
		if len(acc) == 0 {
			return cty.MapValEmpty(cty.List(cty.String)), nil
		}
		out := map[string]cty.Value{}
		for k, vs := range acc {
			out[k] = cty.ListVal(vs)
		}
		return cty.MapVal(out), nil
	},
})

var timeCmpFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "a", Type: cty.String}, {Name: "b", Type: cty.String}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		a, err := time.Parse(time.RFC3339, args[0].AsString())
		if err != nil {
			return cty.NilVal, fmt.Errorf("timecmp: %v", err)
		}
		b, err := time.Parse(time.RFC3339, args[1].AsString())
		if err != nil {
			return cty.NilVal, fmt.Errorf("timecmp: %v", err)
		}
		return cty.NumberIntVal(int64(a.Compare(b))), nil
	},
})

// uuidNamespaces are RFC 4122's name spaces, by Terraform's short names.
var uuidNamespaces = map[string]string{
	"dns": "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "url": "6ba7b811-9dad-11d1-80b4-00c04fd430c8",
	"oid": "6ba7b812-9dad-11d1-80b4-00c04fd430c8", "x500": "6ba7b814-9dad-11d1-80b4-00c04fd430c8",
}

// uuidV5Func is a name-based UUID (RFC 4122 section 4.3, SHA-1): deterministic, unlike uuid().
var uuidV5Func = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "namespace", Type: cty.String}, {Name: "name", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		ns := args[0].AsString()
		if full, ok := uuidNamespaces[ns]; ok {
			ns = full
		}
		raw, err := hex.DecodeString(strings.ReplaceAll(ns, "-", ""))
		if err != nil || len(raw) != 16 {
			return cty.NilVal, fmt.Errorf("uuidv5: namespace must be dns, url, oid, x500 or a UUID")
		}
		h := sha1.New()
		h.Write(raw)
		h.Write([]byte(args[1].AsString()))
		u := h.Sum(nil)[:16]
		u[6] = u[6]&0x0f | 0x50
		u[8] = u[8]&0x3f | 0x80
		x := hex.EncodeToString(u)
		return cty.StringVal(x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]), nil
	},
})

// templateStringFunc is Terraform's templatestring: a template held in a string, rendered with
// the given variables and the same functions (but not itself).
func templateStringFunc(funcs map[string]function.Function) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "template", Type: cty.String}, {Name: "vars", Type: cty.DynamicPseudoType}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return renderTemplate(args[0].AsString(), "templatestring", args[1], funcs)
		},
	})
}

// renderTemplate renders template source src with vars, with funcs less the template functions.
func renderTemplate(src, name string, vars cty.Value, funcs map[string]function.Function) (cty.Value, error) {
	expr, diags := hclsyntax.ParseTemplate([]byte(src), name, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	scope := map[string]cty.Value{}
	if vars.CanIterateElements() {
		for it := vars.ElementIterator(); it.Next(); {
			k, e := it.Element()
			scope[k.AsString()] = e
		}
	}
	inner := make(map[string]function.Function, len(funcs))
	for k, f := range funcs {
		if k != "templatefile" && k != "templatestring" {
			inner[k] = f
		}
	}
	out, diags := expr.Value(&hcl.EvalContext{Variables: scope, Functions: inner})
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	return out, nil
}

// opaqueFunc takes min to max arguments of any type and returns an unknown of type ty that says
// why.
func opaqueFunc(ty cty.Type, why string, min, max int) function.Function {
	params := make([]function.Parameter, min)
	for i := range params {
		params[i] = function.Parameter{Name: fmt.Sprintf("arg%d", i), Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true}
	}
	var varParam *function.Parameter
	if max > min {
		varParam = &function.Parameter{Name: "more", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true}
	}
	return function.New(&function.Spec{
		Params:   params,
		VarParam: varParam,
		Type: func(args []cty.Value) (cty.Type, error) {
			if len(args) > max {
				return cty.NilType, fmt.Errorf("at most %d arguments, got %d", max, len(args))
			}
			return ty, nil
		},
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			return cty.UnknownVal(ty).Mark(unresolvedMark{why}), nil
		},
	})
}

// base64GzipFunc is base64gzip: the string gzip-compressed (default level, no header fields), in
// base64.
var base64GzipFunc = stringMap(func(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s)) // writes to memory: no error
	_ = w.Close()
	return base64.StdEncoding.EncodeToString(b.Bytes())
})

// pathExpandFunc is pathexpand for paths without a leading ~; a home directory is the runner's,
// not the configuration's, so a ~ path is left unknown.
var pathExpandFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "path", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p := args[0].AsString()
		if strings.HasPrefix(p, "~") {
			return cty.UnknownVal(cty.String).Mark(unresolvedMark{fmt.Sprintf("pathexpand(%q) depends on the home directory Terraform runs with", p)}), nil
		}
		return cty.StringVal(p), nil
	},
})

// textBase64Func is textencodebase64 (encode) or textdecodebase64 for UTF-8, the encoding
// configurations use with it for user data; other encodings are left unknown.
func textBase64Func(encode bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "string", Type: cty.String}, {Name: "encoding", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			s, enc := args[0].AsString(), args[1].AsString()
			if n := strings.ToUpper(strings.ReplaceAll(enc, "-", "")); n != "UTF8" {
				return cty.UnknownVal(cty.String).Mark(unresolvedMark{fmt.Sprintf("gpuguard does not convert text to or from %q", enc)}), nil
			}
			if encode {
				return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(s))), nil
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "invalid base64: %v", err)
			}
			if !utf8.Valid(b) {
				return cty.NilVal, function.NewArgErrorf(0, "the decoded text is not valid UTF-8")
			}
			return cty.StringVal(string(b)), nil
		},
	})
}
