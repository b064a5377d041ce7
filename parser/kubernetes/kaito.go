package kubernetes

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// KAITO (the Kubernetes AI Toolchain Operator, kaito.sh) provisions its own GPU nodes: a
// Workspace names an instance type and a count of nodes, and KAITO adds nodes of that type to the
// cluster (through its gpu-provisioner or Karpenter) and runs the model's pods on them. The pods
// are not in the manifest; the nodes are what costs, so a Workspace is priced as count whole
// instances. A RAGEngine's spec.compute and an InferenceSet's template name nodes the same way.
// Fields and defaults from kaito-project/kaito api/v1beta1/workspace_types.go and
// api/v1alpha1/{inferenceset,ragengine}_types.go (read 2026-11-22).

const kaitoGroup = "kaito.sh"

// kaitoDefaultType is the instance type a kaito.sh/v1beta1 Workspace gets when it names none
// (the CRD's default). kaito.sh/v1alpha1's default changed between releases
// (Standard_NC12s_v3 at first), so a v1alpha1 Workspace without a type is left unpriced.
const kaitoDefaultType = "Standard_NC24ads_A100_v4"

// kaitoResource is KAITO's ResourceSpec.
type kaitoResource struct {
	Count          *int     `yaml:"count"`
	InstanceType   string   `yaml:"instanceType"`
	PreferredNodes []string `yaml:"preferredNodes"`
}

// buildKaito makes a resource of the nodes each KAITO Workspace, RAGEngine and InferenceSet asks
// for.
func buildKaito(objs []*object, res *parser.Result) {
	for _, o := range objs {
		if group(o.APIVersion) != kaitoGroup {
			continue
		}
		var r *parser.Resource
		var err error
		switch o.Kind {
		case "Workspace":
			r, err = kaitoWorkspace(o)
		case "RAGEngine":
			r, err = kaitoRAGEngine(o)
		case "InferenceSet":
			r, err = kaitoInferenceSet(o)
		default:
			continue
		}
		if err != nil {
			res.Errors = append(res.Errors, specError(o, err))
			continue
		}
		if r == nil {
			continue
		}
		var errs []parser.Error
		kaitoCommon(r, o, &errs)
		res.Errors = append(res.Errors, errs...)
		res.Resources = append(res.Resources, *r)
	}
}

// topLevel is the value of a key of the object's document beside metadata, or nil.
func (o *object) topLevel(key string) *yaml.Node {
	if o.doc == nil || o.doc.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(o.doc.Content); i += 2 {
		if o.doc.Content[i].Value == key {
			return o.doc.Content[i+1]
		}
	}
	return nil
}

func kaitoWorkspace(o *object) (*parser.Resource, error) {
	var rs kaitoResource
	if n := o.topLevel("resource"); n != nil {
		if err := n.Decode(&rs); err != nil {
			return nil, lineError{line: o.lineOf(n), err: fmt.Errorf("resource: %w", err)}
		}
	}
	r, err := kaitoNodes(o, rs, "resource.")
	if err == nil && r != nil {
		n := r.Quantity
		r.Note("%d GPU node%s KAITO provisions (resource.count)", n, parser.Plural(int64(n)))
	}
	if err != nil || r == nil {
		return r, err
	}
	if o.topLevel("tuning") != nil {
		r.RunsToCompletion = true
		r.Note("a KAITO tuning job: its nodes run while the job does")
	} else {
		r.Note("KAITO inference: the nodes run until the Workspace is deleted")
	}
	return r, nil
}

func kaitoRAGEngine(o *object) (*parser.Resource, error) {
	var spec struct {
		Compute *kaitoResource `yaml:"compute"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	if spec.Compute == nil {
		return nil, nil // embeddings from a remote service: no GPU nodes of its own
	}
	r, err := kaitoNodes(o, *spec.Compute, "spec.compute.")
	if err == nil && r != nil {
		r.Note("%d GPU node%s KAITO provisions for the embedding model (spec.compute.count)", r.Quantity, parser.Plural(int64(r.Quantity)))
	}
	return r, err
}

func kaitoInferenceSet(o *object) (*parser.Resource, error) {
	var spec struct {
		Replicas       *int `yaml:"replicas"`
		NodeCountLimit int  `yaml:"nodeCountLimit"`
		Template       struct {
			Resource kaitoResource `yaml:"resource"`
		} `yaml:"template"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	rs := spec.Template.Resource
	n := intOr(spec.Replicas, 1)
	rs.Count = &n
	r, err := kaitoNodes(o, rs, "spec.template.resource.")
	if err != nil || r == nil {
		return r, err
	}
	r.Note("%d Workspace%s (spec.replicas), priced at one GPU node each: a model larger than one node's GPUs takes more", n, parser.Plural(int64(n)))
	if spec.NodeCountLimit > 0 {
		if spec.NodeCountLimit > maxPods {
			return nil, fmt.Errorf("nodeCountLimit %d is not a number of nodes", spec.NodeCountLimit)
		}
		r.Note("at most %d nodes (nodeCountLimit)", spec.NodeCountLimit)
	}
	return r, nil
}

// kaitoNodes is the resource of count nodes of a KAITO ResourceSpec, or nil when its type is not
// a GPU type (a RAGEngine's embedding model may run on CPU nodes).
func kaitoNodes(o *object, rs kaitoResource, from string) (*parser.Resource, error) {
	n := intOr(rs.Count, 1)
	if n < 0 || n > maxPods {
		return nil, fmt.Errorf("%scount %d is not a number of nodes", from, n)
	}
	r := &parser.Resource{Address: o.address(), Root: o.rootName(), Source: parser.Location{File: o.file, Line: o.line},
		Kind: parser.KindKubernetes, Type: o.Kind, Provider: parser.Unknown, InstanceType: rs.InstanceType, Quantity: n, PurchaseOption: parser.OnDemand}
	switch {
	case rs.InstanceType != "":
		r.Provider = parser.ProviderOfInstanceType(rs.InstanceType)
		if !parser.IsGPUInstanceType(r.Provider, rs.InstanceType) {
			return nil, nil
		}
	case o.Kind == "Workspace" && o.APIVersion == kaitoGroup+"/v1beta1":
		r.InstanceType, r.Provider = kaitoDefaultType, parser.Azure
		r.Note("%sinstanceType not set: %s, the default of %s", from, kaitoDefaultType, o.APIVersion)
	default:
		r.AddUnresolved(from+"instanceType", fmt.Sprintf("not set: KAITO's default for %s differs between releases (Standard_NC12s_v3 in the first, Standard_NC24ads_A100_v4 in kaito.sh/v1beta1)", o.APIVersion))
	}
	if len(rs.PreferredNodes) > 0 {
		r.Note("%spreferredNodes names %d existing node%s: KAITO uses those that carry the selector's labels and provisions only the rest, so this may count nodes that already run", from, len(rs.PreferredNodes), parser.Plural(int64(len(rs.PreferredNodes))))
	}
	return r, nil
}

// kaitoCommon sets what every KAITO resource takes from its object: labels as tags, the profile
// and suppression annotations, hours, and the cluster's region (KAITO adds nodes to the cluster
// it runs in, which the manifest does not name).
func kaitoCommon(r *parser.Resource, o *object, errs *[]parser.Error) {
	if o.note != "" {
		r.Note("%s", o.note)
	}
	if len(o.Metadata.Labels) > 0 {
		r.Tags = o.Metadata.Labels
	}
	if p := o.Metadata.Annotations[AnnotationProfile]; p != "" {
		r.Profile = p
	}
	if v, ok := o.Metadata.Annotations[AnnotationIgnore]; ok {
		r.Suppressions = parser.ParseSuppressionAnnotation(v, r.Source)
	}
	hoursFromManifest(r, role{}, o.Metadata.Annotations, o, errs)
	r.RegionUnknown = "KAITO adds the nodes to the cluster it runs in, whose region the manifest does not name"
}
