# METADATA
# title: Missing cost-allocation tags
# description: >-
#   A GPU resource lacks the tags or labels that allocate its cost (config required_tags; team,
#   project and env by default). Terraform tags include the AWS provider's default_tags;
#   Kubernetes workloads are checked on their labels.
# custom:
#   id: GPU005
#   severity: warn
package gpuguard.builtin.gpu005

required := {t | some t in object.get(input.config, "required_tags", ["team", "project", "env"])}

warn contains f if {
	count(required) > 0
	some r in input.resources
	missing := required - {k | some k, v in object.get(r, "tags", {}); v != ""}
	count(missing) > 0
	names := concat(", ", sort(missing))
	# Kubernetes objects and GCP resources have labels; AWS and Azure resources have tags.
	what := object.get({"kubernetes": "labels"}, r.kind, object.get({"gcp": "labels"}, r.provider, "tags"))
	f := {
		"msg": sprintf("%s has no %s %s", [r.address, what, names]),
		"address": r.address,
		"id": object.get(r, "id", r.address),
		"remediation": sprintf("Add the %s %s so its cost can be allocated.", [what, names]),
	}
}
