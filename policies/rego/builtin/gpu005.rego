# METADATA
# title: Missing cost-allocation tags
# description: >-
#   A GPU resource lacks the tags or labels that allocate its cost (config required_tags; team,
#   project and env by default). Terraform tags include the AWS provider's default_tags, the
#   instance tags of a launch template (tag_specifications for "instance") on the instances,
#   groups and node groups it launches, an Auto Scaling group's tags that propagate at launch,
#   and an EMR cluster's tags on the instance groups and fleets added to it; GKE node pools are
#   checked on resource_labels, Kubernetes workloads on their labels, Cluster API machine sets on
#   their cloud's tags (AWS, Azure) or labels (GCP). A resource whose type carries no tags or
#   labels (tags_unsupported: a Vertex AI deployment resource pool or Model Garden deployment)
#   is not asked for them.
# custom:
#   id: GPU005
#   severity: warn
package gpuguard.builtin.gpu005

required := {t | some t in object.get(input.config, "required_tags", ["team", "project", "env"])}

# Cluster API kinds whose resources are cloud machines, tagged through the provider's
# additionalTags (additionalLabels on GCP).
machine_sets := {"MachineDeployment": "cloud", "MachineSet": "cloud", "MachinePool": "cloud", "Machine": "cloud"}

warn contains f if {
	count(required) > 0
	some r in input.resources
	tags := object.get(r, "tags", {})
	missing := {t | some t in required; object.get(tags, t, "") == ""}
	count(missing) > 0
	not r.tags_unsupported # a type without tags or labels (checked only where tags are missing)
	names := concat(", ", missing) # a set joins in sorted order
	# Kubernetes objects and GCP resources have labels; AWS and Azure resources have tags. Cluster
	# API machine sets are cloud machines declared in Kubernetes: their cloud decides.
	what := object.get({"kubernetes": "labels"}, object.get(machine_sets, r.type, r.kind), object.get({"gcp": "labels"}, r.provider, "tags"))
	f := {
		"msg": sprintf("%s has no %s %s", [r.address, what, names]),
		"id": r.id,
		"remediation": sprintf("Add the %s %s so its cost can be allocated.", [what, names]),
	}
}
