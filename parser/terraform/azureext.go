package terraform

import (
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/parser/userdata"
)

// Azure's Custom Script extension for Linux runs a script on a VM (or each VM of a scale set)
// once it is provisioned, a common way of installing k3s or RKE2 on Azure. Its settings and
// protected settings hold commandToExecute, a command line /bin/sh runs, or script, a base64
// script (gzip'ed or not) /bin/sh runs, and fileUris, files it downloads first, which the
// command may run. Publisher Microsoft.Azure.Extensions, type CustomScript (version 2); the
// retired Microsoft.OSTCExtensions CustomScriptForLinux (version 1) reads the same
// commandToExecute and fileUris. (https://github.com/Azure/custom-script-extension-linux,
// "Extension Configuration"; https://learn.microsoft.com/azure/virtual-machines/extensions/custom-script-linux.)
// gpuguard reads the extensions after the custom data cloud-init reads, in the order they are
// declared.
var customScriptExtensions = [][2]string{
	{"microsoft.azure.extensions", "customscript"},
	{"microsoft.ostcextensions", "customscriptforlinux"},
}

// extensionFields names an extension's fields as a resource type holds them: azurerm's settings
// and protected_settings are JSON strings, an ARM body's settings and protectedSettings objects.
type extensionFields struct {
	publisher, typ, settings, protected []any
}

var (
	azurermExtension = extensionFields{[]any{"publisher"}, []any{"type"}, []any{"settings"}, []any{"protected_settings"}}
	armExtension     = extensionFields{[]any{"properties", "publisher"}, []any{"properties", "type"}, []any{"properties", "settings"}, []any{"properties", "protectedSettings"}}
)

// scriptExtension reads the texts a Custom Script extension runs: e, declared at addr, what
// names it in notes ("custom script", "extension k3s"), and prefix names its fields in errors.
// Another extension runs nothing gpuguard reads.
func scriptExtension(e *view, f extensionFields, addr, what, prefix string) bootTexts {
	b := bootTexts{addr: addr, what: what}
	q := e.quiet()
	publisher, _ := q.str(f.publisher...)
	typ, _ := q.str(f.typ...)
	if !slices.ContainsFunc(customScriptExtensions, func(x [2]string) bool {
		return strings.EqualFold(publisher, x[0]) && strings.EqualFold(typ, x[1])
	}) {
		return b
	}
	set := false
	for _, field := range [][]any{f.settings, f.protected} {
		name := prefix + pathString("", field)
		if s, ok := q.str(field...); !q.has(field...) || ok && s == "" { // "" is unset to the provider
			continue
		}
		set = true
		v, ok := jsonObject(q, field...)
		if !ok {
			b.unknown = append(b.unknown, name+" of "+addr)
			continue
		}
		s := &view{obj: v}
		for _, key := range []string{"commandToExecute", "script"} {
			if !s.has(key) {
				continue
			}
			if text, ok := s.str(key); ok {
				b.sources = append(b.sources, userdata.Source{Name: name + "." + key, Text: text, Script: true})
				b.origins = append(b.origins, addr)
			} else {
				b.unknown = append(b.unknown, name+"."+key+" of "+addr)
			}
		}
		if s.has("fileUris") {
			b.unknown = append(b.unknown, name+".fileUris of "+addr)
		}
	}
	if set {
		b.from = []string{addr + "'s " + what}
	}
	return b
}

// jsonObject returns the object at path: an object (whose attributes may be unknown), or a JSON
// string holding one. ok is false when it is not known or not JSON.
func jsonObject(w *view, path ...any) (cty.Value, bool) {
	v, ok := at(w.obj, path...)
	if !ok || !v.IsKnown() {
		return cty.NilVal, false
	}
	v, _ = v.Unmark()
	switch {
	case v.IsNull():
		return cty.NilVal, false
	case v.Type() == cty.String:
		obj, err := parseJSON(v.AsString())
		if err != nil || !obj.Type().IsObjectType() {
			return cty.NilVal, false
		}
		return obj, true
	case v.Type().IsObjectType() || v.Type().IsMapType():
		return v, true
	}
	return cty.NilVal, false
}

// azureScriptExtensions reads the Custom Script extensions of the Azure VM or scale set at
// c.inst.addr (w its view): its own extension blocks (azurerm's scale sets), then the extension
// resources that name it (extensionResources).
func (c *mapContext) azureScriptExtensions(w *view, group bool) []bootTexts {
	var out []bootTexts
	for _, e := range w.quiet().blocks("extension") {
		name, _ := e.quiet().str("name")
		out = append(out, scriptExtension(e, azurermExtension, c.inst.addr, "extension "+name, "extension."+name+"."))
	}
	return append(out, c.extensionResources(group)...)
}

// extensionResources reads the Custom Script extensions declared as resources of their own on
// the VM or scale set at c.inst.addr (an azurerm or an azapi one): azurerm's, whose
// virtual_machine_id or virtual_machine_scale_set_id names it, then azapi's, whose parent_id
// does.
func (c *mapContext) extensionResources(group bool) []bootTexts {
	typ, idAttr := "azurerm_virtual_machine_extension", "virtual_machine_id"
	want := "microsoft.compute/virtualmachines/extensions"
	if group {
		typ, idAttr = "azurerm_virtual_machine_scale_set_extension", "virtual_machine_scale_set_id"
		want = "microsoft.compute/virtualmachinescalesets/extensions"
	}
	var out []bootTexts
	for _, inst := range c.referrers(typ, idAttr) {
		out = append(out, scriptExtension(&view{obj: inst.value}, azurermExtension, inst.addr, "custom script", ""))
	}
	for _, inst := range c.referrers("azapi_resource", "parent_id") {
		t, _ := (&view{obj: inst.value}).quiet().str("type")
		if typ, _ := armType(t); typ == want {
			out = append(out, scriptExtension(&view{obj: azapiRequest(inst.value)}, armExtension, inst.addr, "custom script", "body."))
		}
	}
	return out
}

// azapiRequest returns the request body an azapi_resource sends: its body, with its
// sensitive_body (azapi 2.x, where write-only values such as customData and an extension's
// protectedSettings go) merged in as a JSON merge patch (RFC 7386), as azapi does
// (registry.terraform.io/providers/Azure/azapi, azapi_resource "sensitive_body").
func azapiRequest(v cty.Value) cty.Value {
	body := azapiBody(v)
	patch, ok := at(v, "sensitive_body")
	if !ok || patch.IsNull() {
		return body
	}
	if body == cty.NilVal || body.IsNull() {
		return patch
	}
	return mergePatch(body, patch)
}

// mergePatch applies a JSON merge patch: an object patches an object key by key (a null
// removes the key); anything else replaces the target.
func mergePatch(target, patch cty.Value) cty.Value {
	if !target.IsKnown() || !patch.IsKnown() {
		return patch
	}
	t, tm := target.Unmark()
	p, pm := patch.Unmark()
	isObject := func(v cty.Value) bool {
		return !v.IsNull() && (v.Type().IsObjectType() || v.Type().IsMapType())
	}
	if !isObject(t) || !isObject(p) {
		return patch
	}
	attrs := t.AsValueMap()
	if attrs == nil {
		attrs = map[string]cty.Value{}
	}
	for k, pv := range p.AsValueMap() {
		switch tv, had := attrs[k]; {
		case pv.IsKnown() && pv.IsNull():
			delete(attrs, k)
		case had:
			attrs[k] = mergePatch(tv, pv)
		default:
			attrs[k] = pv
		}
	}
	return cty.ObjectVal(attrs).WithMarks(tm, pm)
}
