package gpuguard.builtin.gpu005_test

import data.gpuguard.builtin.gpu005

test_missing_tags if {
	fs := gpu005.warn with input as {"config": {"required_tags": ["team", "env"]}, "resources": [{"address": "a", "id": "stack|a", "kind": "terraform", "type": "aws_instance", "provider": "aws", "tags": {"team": "ml", "env": ""}}]}
	count(fs) == 1
	some f in fs
	f.msg == "a has no tags env"
}

test_default_required_tags_and_labels if {
	fs := gpu005.warn with input as {"config": {}, "resources": [{"address": "Deployment/a/b", "id": "stack|Deployment/a/b", "kind": "kubernetes", "type": "Deployment", "provider": "aws"}]}
	some f in fs
	f.msg == "Deployment/a/b has no labels env, project, team"
}

test_cluster_api_machines_have_cloud_tags if {
	fs := gpu005.warn with input as {"config": {}, "resources": [
		{"address": "MachineDeployment/a/b", "id": "s|MachineDeployment/a/b", "kind": "kubernetes", "type": "MachineDeployment", "provider": "aws", "tags": {"team": "t", "project": "p"}},
		{"address": "MachinePool/a/c", "id": "s|MachinePool/a/c", "kind": "kubernetes", "type": "MachinePool", "provider": "gcp", "tags": {"team": "t", "project": "p"}},
	]}
	{f.msg | some f in fs} == {"MachineDeployment/a/b has no tags env", "MachinePool/a/c has no labels env"}
}

test_all_tags_present if {
	fs := gpu005.warn with input as {"config": {}, "resources": [{"address": "a", "id": "stack|a", "kind": "terraform", "type": "aws_instance", "provider": "aws", "tags": {"team": "t", "project": "p", "env": "e"}}]}
	count(fs) == 0
}

test_no_required_tags if {
	fs := gpu005.warn with input as {"config": {"required_tags": []}, "resources": [{"address": "a", "id": "stack|a", "kind": "terraform", "type": "aws_instance", "provider": "aws"}]}
	count(fs) == 0
}

test_type_without_tags if {
	fs := gpu005.warn with input as {"config": {}, "resources": [
		{"address": "a", "id": "s|a", "kind": "terraform", "type": "google_vertex_ai_deployment_resource_pool", "provider": "gcp", "tags_unsupported": true},
		{"address": "b", "id": "s|b", "kind": "terraform", "type": "google_compute_instance", "provider": "gcp", "tags_unsupported": false},
	]}
	{f.id | some f in fs} == {"s|b"}
}
