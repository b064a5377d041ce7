package terraform

import (
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// Vertex AI online prediction serves models on dedicated nodes: a machine type with attached
// GPUs (machine_spec), min_replica_count of them always on and up to max_replica_count when it
// autoscales. Vertex AI bills those node hours at its own prices, above Compute Engine's for
// the same machine and GPUs, and not in gpuguard's catalog: the nodes are priced at Compute
// Engine's prices, marked estimated, as a lower bound (parser.Resource.OwnPrice).
// https://cloud.google.com/vertex-ai/docs/predictions/configure-compute
// https://cloud.google.com/vertex-ai/pricing (prediction and explanation)
func init() {
	register("google_vertex_ai_deployment_resource_pool", mapVertexResourcePool)
	register("google_vertex_ai_endpoint_with_model_garden_deployment", mapVertexModelGarden)
}

// vertexResource starts the resource being mapped as a Vertex AI one: billed at Vertex AI's own
// price, above Compute Engine's, and without labels of its own (its node hours are billed to
// the project, whose labels allocate them).
func (c *mapContext) vertexResource() (*parser.Resource, *view) {
	r, w := c.resource(parser.GCP, c.inst.addr)
	r.OwnPrice = &parser.OwnPrice{By: "Vertex AI prediction", Higher: true}
	r.TagsUnsupported = true
	r.NoMIG = "Vertex AI prediction"
	r.Note("%s takes no labels: Vertex AI bills its nodes to the project, whose labels allocate the cost", r.Type)
	return r, w
}

// mapVertexResourcePool reads a deployment resource pool: dedicated nodes that models deployed
// to it share.
// https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/vertex_ai_deployment_resource_pool
func mapVertexResourcePool(c *mapContext) []*parser.Resource {
	r, w := c.vertexResource()
	vertexNodes(r, w, "dedicated_resources")
	c.gcpPlace(r, w, "region")
	return []*parser.Resource{r}
}

// mapVertexModelGarden reads an endpoint with a Model Garden (or Hugging Face) model deployed
// on it. Without deploy_config.dedicated_resources Model Garden picks the model's default
// machine, which the configuration does not name: the deployment is listed unpriced, with that
// reason, since the models deployed this way (Gemma, Llama, ...) run on GPUs.
// https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/vertex_ai_endpoint_with_model_garden_deployment
func mapVertexModelGarden(c *mapContext) []*parser.Resource {
	r, w := c.vertexResource()
	switch {
	case w.has("deploy_config", 0, "dedicated_resources"):
		vertexNodes(r, w, "deploy_config", 0, "dedicated_resources")
	case w.has("deploy_config") && w.blocks("deploy_config") == nil:
		// deploy_config is known only at apply: blocks recorded why.
	default:
		r.AddUnresolved("deploy_config.dedicated_resources", "not set: Model Garden deploys the model on its default machine, which the configuration does not name; set machine_spec to price it")
	}
	c.gcpPlace(r, w, "location")
	return []*parser.Resource{r}
}

// vertexNodes reads the dedicated_resources block at path: its machine, GPUs, replica counts
// and spot setting.
func vertexNodes(r *parser.Resource, w *view, path ...any) {
	blocks := w.blocks(path...)
	if len(blocks) == 0 {
		if !w.has(path...) {
			r.AddUnresolved(pathString("", path)+".machine_spec.machine_type", parser.ReasonNotSet)
		}
		return
	}
	d := blocks[0]
	spec := d
	if specs := d.blocks("machine_spec"); len(specs) > 0 {
		spec = specs[0]
	}
	mt, found := spec.str("machine_type")
	r.InstanceType = lastSegment(mt)
	requireInstanceType(r, "machine_type", found)
	// TPU_V5_LITEPOD and ACCELERATOR_TYPE_UNSPECIFIED are no GPUs.
	if t, ok := spec.quiet().str("accelerator_type"); !ok || strings.HasPrefix(strings.ToUpper(t), "NVIDIA_") {
		gcpAccelerators(r, []*view{spec}, "accelerator_type", "accelerator_count", "accelerator_type", acceleratorFromEnum)
	}
	if n, ok := d.num("min_replica_count"); ok {
		r.Quantity = n
		if n == 0 {
			r.Note("min_replica_count is 0: nodes run only while requests come in")
		}
	}
	if n, ok := d.quiet().num("max_replica_count"); ok && n > r.Quantity {
		r.SetScaleMax(n, "max_replica_count")
	} else if why := d.maxWhy("max_replica_count"); !ok && why != "" {
		unreadMax(r, "max_replica_count", why)
	}
	if s, ok := d.boolean("spot"); ok && s {
		r.PurchaseOption = parser.Spot
	}
}
