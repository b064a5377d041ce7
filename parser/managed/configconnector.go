package managed

import (
	"strings"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// configConnector maps the Config Connector (cnrm.cloud.google.com) kinds that run GPU machines,
// by API group and kind, to the Terraform resource type each is generated from: Config
// Connector's resources are built from the Terraform google provider's schemas, so their spec
// holds its arguments in camelCase, nested blocks as objects, references as fooRef: {name}
// (https://cloud.google.com/config-connector/docs/reference/overview, read 2026-11-23), and the
// resource's metadata.labels are its GCP labels.
var configConnector = map[string]string{
	"container.cnrm.cloud.google.com/ContainerNodePool":         "google_container_node_pool",
	"container.cnrm.cloud.google.com/ContainerCluster":          "google_container_cluster",
	"compute.cnrm.cloud.google.com/ComputeInstance":             "google_compute_instance",
	"compute.cnrm.cloud.google.com/ComputeInstanceTemplate":     "google_compute_instance_template",
	"compute.cnrm.cloud.google.com/ComputeInstanceGroupManager": "google_compute_instance_group_manager",
}

// isConfigConnector reports whether an API version is Config Connector's.
func isConfigConnector(apiVersion string) bool {
	g, _, _ := strings.Cut(apiVersion, "/")
	return strings.HasSuffix(g, ".cnrm.cloud.google.com")
}

// configConnectorArguments is a Config Connector resource's spec itself, its resourceID being
// the name; a managed instance group's Compute API fields turned into the Terraform resource's,
// a template's metadata.labels its labels.
func configConnectorArguments(mr kubernetes.ManagedResource) (map[string]any, error) {
	spec, err := decodeSpec(mr)
	if err != nil {
		return nil, err
	}
	args := map[string]any{"name": mr.Name}
	for k, v := range spec {
		switch k {
		case "resourceID":
			args["name"] = v
		case "projectRef":
		default:
			args[k] = v
		}
	}
	switch mr.Kind {
	case "ComputeInstanceGroupManager":
		instanceGroupManager(args)
	case "ComputeInstanceTemplate":
		// A template's metadata.labels are its GCP labels, which its instances get.
		if _, set := args["labels"]; !set && len(mr.Labels) > 0 {
			labels := map[string]any{}
			for k, v := range mr.Labels {
				labels[k] = v
			}
			args["labels"] = labels
		}
	}
	return args, nil
}

// instanceGroupManager turns a Config Connector ComputeInstanceGroupManager's spec, which
// follows the Compute API rather than the Terraform resource (location for the zone or region,
// instanceTemplateRef beside versions; config/samples/resources/computeinstancegroupmanager, read
// 2026-11-23), into google_compute_instance_group_manager's arguments: a zone or a region, and
// the template as the version it runs.
func instanceGroupManager(args map[string]any) {
	if loc, ok := args["location"].(string); ok {
		delete(args, "location")
		if isZone(loc) {
			args["zone"] = loc
		} else {
			args["region"] = loc
		}
	}
	if versions, ok := args["versions"]; ok {
		args["version"] = versions
		delete(args, "versions")
	}
	if ref, ok := args["instanceTemplateRef"]; ok {
		delete(args, "instanceTemplateRef")
		if _, versioned := args["version"]; !versioned {
			args["version"] = []any{map[string]any{"instanceTemplateRef": ref}}
		}
	}
}

// isZone reports whether a GCP location is a zone (us-central1-a) rather than a region.
func isZone(loc string) bool {
	i := strings.LastIndexByte(loc, '-')
	return i > 0 && strings.Count(loc, "-") >= 2 && len(loc)-i == 2
}
