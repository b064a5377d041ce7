package managed

import (
	"regexp"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// Azure Service Operator v2 (https://azure.github.io/azure-service-operator, groups *.azure.com)
// declares Azure resources as Kubernetes objects generated from the ARM API's schemas: a
// resource's spec holds ARM's properties flattened beside its location, tags and sku, with
// azureName its ARM name (metadata.name when unset) and owner naming its parent, a
// ResourceGroup or, for an agent pool, its ManagedCluster (read 2026-11-23, the samples under
// v2/samples/containerservice and v2/samples/compute). gpuguard hands each one to package
// terraform as the azapi_resource of the same ARM type, whose body is ARM's request, so the
// one ARM reader (azapi.go) prices both.

// asoKind is what gpuguard reads of an ASO kind: the ARM resource type it declares and the kind
// of its owner.
type asoKind struct {
	arm   string
	owner string
}

// asoKinds are the ASO kinds that run GPU machines, by API group and kind, and those they live
// in (a virtual machine without a location runs in its resource group's, a compute in its
// workspace's).
var asoKinds = map[string]asoKind{
	"containerservice.azure.com/ManagedCluster":           {"Microsoft.ContainerService/managedClusters", "ResourceGroup"},
	"containerservice.azure.com/ManagedClustersAgentPool": {"Microsoft.ContainerService/managedClusters/agentPools", "ManagedCluster"},
	"compute.azure.com/VirtualMachine":                    {"Microsoft.Compute/virtualMachines", "ResourceGroup"},
	"compute.azure.com/VirtualMachineScaleSet":            {"Microsoft.Compute/virtualMachineScaleSets", "ResourceGroup"},
	"machinelearningservices.azure.com/Workspace":         {"Microsoft.MachineLearningServices/workspaces", "ResourceGroup"},
	"machinelearningservices.azure.com/WorkspacesCompute": {"Microsoft.MachineLearningServices/workspaces/computes", "Workspace"},
	"resources.azure.com/ResourceGroup":                   {"Microsoft.Resources/resourceGroups", ""},
	// An autoscale setting runs no machines: it scales the scale set its
	// targetResourceUriReference names (v2/samples/insights/v1api/v1api20221001_autoscalesetting.yaml).
	"insights.azure.com/Autoscalesetting": {"Microsoft.Insights/autoscalesettings", "ResourceGroup"},
}

// armTopLevel are the fields an ARM request keeps beside properties; ASO flattens the rest of
// properties into spec.
var armTopLevel = map[string]bool{"sku": true, "identity": true, "zones": true, "plan": true, "extendedLocation": true, "kind": true}

// asoReferences are the reference fields of ASO's that gpuguard follows, and the ARM fields they
// set: ASO names an ARM ID field's reference fooReference (targetResourceUri's
// targetResourceUriReference, vnetSubnetID's vnetSubnetReference).
var asoReferences = map[string]string{"targetResourceUriReference": "targetResourceUri"}

// asoOnly are spec fields of ASO's own, not ARM's.
var asoOnly = map[string]bool{"owner": true, "azureName": true, "operatorSpec": true}

// isASO reports whether an API version is Azure Service Operator v2's.
func isASO(apiVersion string) bool {
	g, _, _ := strings.Cut(apiVersion, "/")
	return strings.HasSuffix(g, ".azure.com") && g != "karpenter.azure.com"
}

// asoVersion is the ARM API version an ASO version stands for: v1api20231001 and v20231001 are
// 2023-10-01, v1api20231102preview is 2023-11-02-preview.
var asoVersion = regexp.MustCompile(`^v(?:1api|1beta)?(\d{4})(\d{2})(\d{2})(preview)?$`)

// asoARMType is the azapi type of an ASO resource: its ARM type at the API version of its
// apiVersion, when that reads as one.
func asoARMType(apiVersion, arm string) string {
	_, v, _ := strings.Cut(apiVersion, "/")
	m := asoVersion.FindStringSubmatch(v)
	if m == nil {
		return arm
	}
	version := m[1] + "-" + m[2] + "-" + m[3]
	if m[4] != "" {
		version += "-preview"
	}
	return arm + "@" + version
}

// asoAttributes writes an ASO resource as the Terraform resource it is priced as: a
// ResourceGroup as an azurerm_resource_group, the others as the azapi_resource of their ARM
// type, spec's ARM properties its body, its owner its parent_id.
func asoAttributes(spec map[string]any, self member, members []member) map[string]any {
	kind := asoKinds[groupKind(self.mr.APIVersion, self.mr.Kind)]
	name := self.mr.Name
	if s, ok := spec["azureName"].(string); ok && s != "" {
		name = s
	}
	attrs := map[string]any{"name": literal(name)}
	body, props := map[string]any{}, map[string]any{}
	for k, v := range spec {
		switch {
		case asoOnly[k]:
		case asoReferences[k] != "":
			if ref, ok := asoReference(v, self, members); ok {
				props[asoReferences[k]] = ref
			}
		case k == "location" || k == "tags":
			attrs[k] = literalValue(v)
		case armTopLevel[k]:
			body[literal(k)] = literalValue(v)
		default:
			props[literal(k)] = literalValue(v)
		}
	}
	if self.typ == "azurerm_resource_group" {
		return attrs
	}
	body["properties"] = props
	if p, ok := props["properties"]; ok && len(props) == 1 {
		// A resource whose ARM properties are a union of shapes (a workspace compute's
		// AmlCompute, ComputeInstance, ...) keeps them in spec.properties, under the name of
		// the shape it takes: {amlCompute: {computeType: AmlCompute, properties: {...}}}.
		body["properties"] = asoUnion(p)
	}
	attrs["type"] = asoARMType(self.mr.APIVersion, kind.arm)
	attrs["body"] = body
	if owner := asoOwner(spec["owner"], kind.owner, self, members); owner != nil {
		attrs["parent_id"] = "${" + owner.typ + "." + owner.name + ".id}"
	}
	return attrs
}

// asoOwner finds the resource an owner reference names: the ASO resource of the owner's kind
// with that name in the same namespace. An owner given by ARM ID is not among the manifests.
func asoOwner(ref any, kind string, self member, members []member) *member {
	owner, _ := ref.(map[string]any)
	name, _ := owner["name"].(string)
	if name == "" {
		return nil
	}
	for i, m := range members {
		if isASO(m.mr.APIVersion) && m.mr.Kind == kind && m.mr.Name == name && m.mr.Namespace == self.mr.Namespace {
			return &members[i]
		}
	}
	return nil
}

// asoReference is the ARM ID a resource reference stands for (ASO's fooReference for ARM's foo):
// a reference to the id of the ASO resource of the kind (and group, when given) and name it
// names in the same namespace. A reference by armId, or to a resource not among the manifests,
// names nothing gpuguard prices, and is left out.
func asoReference(v any, self member, members []member) (string, bool) {
	ref, _ := v.(map[string]any)
	group, _ := ref["group"].(string)
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	for _, m := range members {
		g, _, _ := strings.Cut(m.mr.APIVersion, "/")
		if isASO(m.mr.APIVersion) && m.mr.Kind == kind && (group == "" || g == group) && m.mr.Name == name && m.mr.Namespace == self.mr.Namespace {
			return "${" + m.typ + "." + m.name + ".id}", true
		}
	}
	return "", false
}

// asoUnion is the one shape an ASO union value takes: the object under its only key.
func asoUnion(v any) any {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return v
	}
	for _, shape := range m {
		if inner, ok := shape.(map[string]any); ok {
			return inner
		}
	}
	return v
}

// groupKind is "group/Kind" of an API version and kind.
func groupKind(apiVersion, kind string) string {
	g, _, _ := strings.Cut(apiVersion, "/")
	return g + "/" + kind
}

// asoMessage turns what the ARM reader says of an azapi_resource's attributes into the fields
// of the ASO manifest: body.properties.vmSize is spec.vmSize, parent_id is spec.owner.
func asoMessage(s string) string {
	return strings.NewReplacer("body.properties.", "spec.", "body.", "spec.", "parent_id", "spec.owner",
		"is not in this configuration", "is not among the manifests").Replace(s)
}

// asoResource makes what the ARM reader found of an azapi_resource speak of the ASO manifest it
// came from: its note, and the spec fields an unknown value or region is in.
func asoResource(r *parser.Resource, mr kubernetes.ManagedResource) {
	notes := r.Notes[:0]
	for _, n := range r.Notes {
		if !strings.HasPrefix(n, "azapi_resource of ARM type ") {
			notes = append(notes, asoMessage(n))
		}
	}
	r.Notes = notes
	r.Note("an Azure Service Operator resource (%s %s), priced as the ARM resource %s it declares", mr.APIVersion, mr.Kind, asoKinds[groupKind(mr.APIVersion, mr.Kind)].arm)
	for i := range r.Unresolved {
		r.Unresolved[i].Attribute = asoMessage(r.Unresolved[i].Attribute)
		r.Unresolved[i].Reason = asoMessage(r.Unresolved[i].Reason)
	}
	r.RegionUnknown = asoMessage(r.RegionUnknown)
}
