package managed

import (
	"fmt"
	"maps"
	"strings"
	"unicode"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// AWS Controllers for Kubernetes (https://aws-controllers-k8s.github.io/community, groups
// *.services.k8s.aws) declares AWS resources as Kubernetes objects generated from the AWS APIs: a
// resource's spec is the API's create request in camelCase (an EKS node group's is
// CreateNodegroup's: instanceTypes, capacityType, scalingConfig, labels, taints), references to
// other ACK resources are fooRef: {from: {name}}, and the region is not in the spec: the
// services.k8s.aws/region annotation names it, else the namespace's
// services.k8s.aws/default-region, else the controller's --aws-region (read 2026-11-23,
// aws-controllers-k8s/eks-controller apis/v1alpha1/nodegroup.go and the runtime's annotations).
// The EKS API's names are the Terraform aws provider's once in snake_case, but for those in
// ackRenames, so a node group is priced as the aws_eks_node_group it corresponds to.

// ackKinds are the ACK kinds gpuguard prices, by API group and kind, with the Terraform resource
// type each corresponds to. Those without GPUs of their own are read for what the others refer
// to: a launch template for the instances and fleets it launches, an endpoint and a scalable
// target for the instances of an endpoint configuration.
var ackKinds = map[string]string{
	"eks.services.k8s.aws/Nodegroup":                         "aws_eks_node_group",
	"eks.services.k8s.aws/Cluster":                           "aws_eks_cluster",
	"ec2.services.k8s.aws/Instance":                          "aws_instance",
	"ec2.services.k8s.aws/LaunchTemplate":                    "aws_launch_template",
	"ec2.services.k8s.aws/Fleet":                             "aws_ec2_fleet",
	"ec2.services.k8s.aws/CapacityReservation":               "aws_ec2_capacity_reservation",
	"sagemaker.services.k8s.aws/EndpointConfig":              "aws_sagemaker_endpoint_configuration",
	"sagemaker.services.k8s.aws/Endpoint":                    "aws_sagemaker_endpoint",
	"sagemaker.services.k8s.aws/NotebookInstance":            "aws_sagemaker_notebook_instance",
	"applicationautoscaling.services.k8s.aws/ScalableTarget": "aws_appautoscaling_target",
}

// ackRenames are the fields whose Terraform argument is not their name in snake_case, by the
// field's path in snake_case (list indexes left out).
var ackRenames = map[string]map[string]string{
	"aws_eks_node_group": {"name": "node_group_name", "taints": "taint"},
	// RunInstances' ImageId; its LaunchTemplateSpecification's LaunchTemplateId and
	// LaunchTemplateName.
	"aws_instance": {"image_id": "ami", "launch_template.launch_template_id": "id", "launch_template.launch_template_name": "name"},
	// CreateFleet's LaunchTemplateConfigs and their Overrides are blocks of one each in Terraform.
	"aws_ec2_fleet":                        {"launch_template_configs": "launch_template_config", "launch_template_configs.overrides": "override"},
	"aws_sagemaker_endpoint_configuration": {"endpoint_config_name": "name"},
	"aws_sagemaker_endpoint":               {"endpoint_name": "name"},
	"aws_sagemaker_notebook_instance":      {"notebook_instance_name": "name"},
}

// ACK's region annotations: on the resource, and the default on its namespace.
const (
	ackRegion        = "services.k8s.aws/region"
	ackDefaultRegion = "services.k8s.aws/default-region"
)

// isACK reports whether an API version is an ACK controller's.
func isACK(apiVersion string) bool {
	g, _, _ := strings.Cut(apiVersion, "/")
	return strings.HasSuffix(g, ".services.k8s.aws")
}

// ackArguments is an ACK resource's spec as its Terraform resource's arguments, the region from
// its annotations.
func ackArguments(mr kubernetes.ManagedResource, typ string) (map[string]any, error) {
	spec, err := decodeSpec(mr)
	if err != nil {
		return nil, err
	}
	args, _ := ackKeys(spec, typ, "").(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	switch typ {
	case "aws_instance":
		// RunInstances' Placement carries the zone and tenancy, which Terraform's aws_instance
		// takes as arguments of its own.
		if p, ok := args["placement"].(map[string]any); ok {
			for _, k := range []string{"availability_zone", "tenancy"} {
				if v, ok := p[k]; ok {
					args[k] = v
				}
			}
			delete(args, "placement")
		}
	case "aws_launch_template":
		// CreateLaunchTemplate's LaunchTemplateData is Terraform's aws_launch_template itself
		// (its tag_specifications tag the instances; the request's own, which tag the
		// template, give way to them).
		data, _ := args["launch_template_data"].(map[string]any)
		delete(args, "launch_template_data")
		maps.Copy(args, data)
	}
	if region := ackRegionOf(mr); region != "" {
		args["region"] = region
	}
	return args, nil
}

// ackKeys turns an ACK spec's field names into Terraform's: snake_case, ackRenames applied by
// path, tags given as a list of key and value made a map. References (fooRef) keep their name
// for arguments() to resolve, and the keys of labels and tags are the user's.
func ackKeys(v any, typ, path string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if strings.HasSuffix(k, "Ref") || strings.HasSuffix(k, "Refs") || strings.HasSuffix(k, "Selector") {
				out[k] = e
				continue
			}
			key := ackSnake(k)
			p := key
			if path != "" {
				p = path + "." + key
			}
			if to, ok := ackRenames[typ][p]; ok {
				key = to
			}
			switch {
			case key == "tags":
				out[key] = ackTags(e)
			case freeForm[key]:
				out[key] = e
			default:
				out[key] = ackKeys(e, typ, p)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ackKeys(e, typ, path)
		}
		return out
	}
	return v
}

// ackTags makes the EC2 and SageMaker APIs' tags, a list of {key, value}, the map Terraform
// takes; EKS's are a map already.
func ackTags(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	tags := map[string]any{}
	for _, e := range list {
		if t, ok := e.(map[string]any); ok {
			if k, ok := t["key"].(string); ok {
				tags[k] = t["value"]
			}
		}
	}
	return tags
}

// ackSnake is an AWS API field name in snake_case as Terraform's aws provider spells it: a run
// of capitals is one word (subnetID, roleARN, HTTPTokens, EBSOptimized), and the words the
// provider writes whole stay whole (vCPU as vcpu, MiB as mib, IPv6 as ipv6).
func ackSnake(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (!unicode.IsUpper(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return ackWords.Replace(b.String())
}

var ackWords = strings.NewReplacer("v_cpu", "vcpu", "_mi_b", "_mib", "i_pv6", "ipv6", "i_pv4", "ipv4")

// ackRegionOf is the region an ACK resource is created in, when the manifests name it.
func ackRegionOf(mr kubernetes.ManagedResource) string {
	if r := mr.Annotations[ackRegion]; r != "" {
		return r
	}
	return mr.NamespaceAnnotations[ackDefaultRegion]
}

// ackResource notes on a resource priced from an ACK manifest where it came from, and why its
// region is unknown when no annotation names it; what the Terraform reader said of its
// arguments speaks of the manifest's fields.
func ackResource(r *parser.Resource, mr kubernetes.ManagedResource, typ string) {
	for i, n := range r.Notes {
		r.Notes[i] = strings.ReplaceAll(n, "is not in this configuration", "is not among the manifests")
	}
	for i, u := range r.Unresolved {
		r.Unresolved[i].Attribute = ackField(u.Attribute, typ)
	}
	r.Note("an AWS Controllers for Kubernetes resource (%s %s), priced as the Terraform resource %s it corresponds to", mr.APIVersion, mr.Kind, typ)
	// The controller launches one instance per Instance: it sends RunInstances MinCount and
	// MaxCount 1 whatever the spec says (aws-controllers-k8s/ec2-controller
	// pkg/resource/instance/sdk.go, read 2026-11-23).
	if typ == "aws_instance" {
		var spec struct {
			MaxCount any `yaml:"maxCount"`
		}
		if mr.Spec != nil && mr.Spec.Kind != 0 && mr.Spec.Decode(&spec) == nil && spec.MaxCount != nil && fmt.Sprint(spec.MaxCount) != "1" {
			r.Note("spec.maxCount %v is not used: the ACK controller launches one instance per Instance (RunInstances with MinCount and MaxCount 1)", spec.MaxCount)
		}
	}
	if r.Region == "" && ackRegionOf(mr) == "" {
		r.RegionUnknown = "ACK creates it in the region of its " + ackRegion + " annotation, else its namespace's " + ackDefaultRegion + ", else the controller's --aws-region, and the manifests name none"
	}
}

// ackField is the spec field a Terraform argument of typ came from (instance_type is
// spec.instanceType, ami spec.imageID): ackRenames undone, then camelCase with the API's
// acronyms in capitals. An index ([0], ["main"]) stays as it is.
func ackField(attr, typ string) string {
	from := map[string]string{}
	for path, to := range ackRenames[typ] {
		from[to] = path[strings.LastIndex(path, ".")+1:]
	}
	parts := strings.Split(attr, ".")
	for i, p := range parts {
		name, index := p, ""
		if j := strings.IndexByte(p, '['); j >= 0 {
			name, index = p[:j], p[j:]
		}
		if f, ok := from[name]; ok {
			name = f
		}
		words := strings.Split(name, "_")
		for j, w := range words {
			switch {
			case w == "id" || w == "arn":
				words[j] = strings.ToUpper(w)
			case j > 0 && w != "":
				words[j] = strings.ToUpper(w[:1]) + w[1:]
			}
		}
		parts[i] = strings.Join(words, "") + index
	}
	return "spec." + strings.Join(parts, ".")
}
