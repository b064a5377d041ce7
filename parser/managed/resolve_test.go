package managed

import (
	"reflect"
	"testing"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// References and selectors resolve as Crossplane resolves them: a set value wins over a
// reference (unless its policy is to resolve Always), a reference over a selector; a selector
// takes the first by name of the kind its field names, among the resources of its namespace
// carrying all its labels (and composed for the same composite with matchControllerRef).
// Names are unique per kind only, so a reference picks the kind its field names too.
func TestReferencesResolveAsCrossplaneDoes(t *testing.T) {
	mk := func(typ, name, namespace, composedBy string, labels map[string]string) member {
		tfName := identifier.ReplaceAllString(name, "_")
		if namespace != "" && name == "t4" {
			tfName += "_" + namespace // Resources keeps the Terraform names of a type apart
		}
		return member{typ: typ, name: tfName, mr: kubernetes.ManagedResource{Name: name, Namespace: namespace, Labels: labels, ComposedBy: composedBy}}
	}
	train := map[string]string{"app": "train"}
	members := []member{
		mk("google_container_cluster", "ml", "", "", nil),
		mk("aws_launch_template", "ml", "", "", train),
		mk("aws_launch_template", "b-template", "", "", train),
		mk("aws_launch_template", "a-template", "", "", train),
		mk("aws_autoscaling_group", "train", "", "", train),
		mk("google_compute_instance_template", "t4", "team-a", "", map[string]string{"gpu": "t4"}),
		mk("google_compute_instance_template", "t4", "team-b", "", map[string]string{"gpu": "t4"}),
		mk("google_compute_instance_template", "t4", "team-c", "", map[string]string{"gpu": "t4"}),
		mk("google_compute_instance_template", "mine", "team-b", "XGPUPool/a", map[string]string{"x": "y"}),
		mk("google_compute_instance_template", "theirs", "team-b", "XGPUPool/b", map[string]string{"x": "y"}),
		// Selectors of two labels: the rarest label's resources are checked for the other.
		mk("aws_launch_template", "zone-a", "", "", map[string]string{"app": "train", "zone": "a"}),
		mk("aws_launch_template", "infer-a", "", "", map[string]string{"app": "infer", "zone": "a"}),
		mk("google_compute_instance_template", "a-lacks-empty", "", "", map[string]string{"team": "t"}),
		mk("google_compute_instance_template", "b-has-empty", "", "", map[string]string{"team": "t", "empty": ""}),
		mk("google_compute_instance_template", "c-empty", "", "", map[string]string{"empty": ""}),
		mk("google_compute_instance_template", "d-empty", "", "", map[string]string{"empty": ""}),
		mk("azurerm_linux_virtual_machine_scale_set", "dev", "", "", map[string]string{"example": "dev"}),
		mk("azurerm_kubernetes_cluster", "dev", "", "", map[string]string{"example": "dev"}),
	}
	idx := indexMembers(members)
	self := mk("aws_autoscaling_group", "self", "", "", nil)
	inB := mk("google_compute_instance_group_manager", "self", "team-b", "XGPUPool/b", nil)
	for _, tc := range []struct {
		name string
		self member
		args map[string]any
		attr string
		want any // nil: not set
	}{
		{"a set value wins over a reference", self,
			map[string]any{"launchTemplateName": "given", "launchTemplateNameRef": map[string]any{"name": "ml"}}, "launch_template_name", "given"},
		{"a reference resolved Always wins over a set value", self,
			map[string]any{"launchTemplateName": "given", "launchTemplateNameRef": map[string]any{"name": "ml", "policy": map[string]any{"resolve": "Always"}}}, "launch_template_name", "${aws_launch_template.ml.id}"},
		{"a reference wins over a selector", self,
			map[string]any{"launchTemplateNameRef": map[string]any{"name": "ml"}, "launchTemplateNameSelector": map[string]any{"matchLabels": map[string]any{"app": "train"}}}, "launch_template_name", "${aws_launch_template.ml.id}"},
		{"a selector takes the first by name of its field's kind", self,
			map[string]any{"launchTemplateNameSelector": map[string]any{"matchLabels": map[string]any{"app": "train"}}}, "launch_template_name", "${aws_launch_template.a-template.id}"},
		{"a reference takes the kind its field names among those of its name", self,
			map[string]any{"clusterRef": map[string]any{"name": "ml"}}, "cluster", "${google_container_cluster.ml.id}"},
		{"a reference to a name no resource of its field's kind has resolves to none", self,
			map[string]any{"clusterRef": map[string]any{"name": "b-template"}}, "cluster", nil},
		{"a bare id takes the kind of its block", self,
			map[string]any{"launchTemplate": []any{map[string]any{"idSelector": map[string]any{"matchLabels": map[string]any{"app": "train"}}}}}, "launch_template", []any{map[string]any{"id": "${aws_launch_template.a-template.id}"}}},
		{"a selector stays in its namespace", inB,
			map[string]any{"instanceTemplateSelector": map[string]any{"matchLabels": map[string]any{"gpu": "t4"}}}, "instance_template", "${google_compute_instance_template.t4_team-b.id}"},
		{"a reference stays in its namespace", inB,
			map[string]any{"instanceTemplateRef": map[string]any{"name": "t4"}}, "instance_template", "${google_compute_instance_template.t4_team-b.id}"},
		{"a reference may name another namespace", inB,
			map[string]any{"instanceTemplateRef": map[string]any{"name": "t4", "namespace": "team-c"}}, "instance_template", "${google_compute_instance_template.t4_team-c.id}"},
		{"matchControllerRef keeps to the same composite", inB,
			map[string]any{"instanceTemplateSelector": map[string]any{"matchControllerRef": true, "matchLabels": map[string]any{"x": "y"}}}, "instance_template", "${google_compute_instance_template.theirs.id}"},
		{"an autoscale setting's target is the scale set among the example's resources", self,
			map[string]any{"targetResourceIdSelector": map[string]any{"matchLabels": map[string]any{"example": "dev"}}}, "target_resource_id", "${azurerm_linux_virtual_machine_scale_set.dev.id}"},
		{"a selector matches all its labels", self,
			map[string]any{"launchTemplateNameSelector": map[string]any{"matchLabels": map[string]any{"app": "train", "zone": "a"}}}, "launch_template_name", "${aws_launch_template.zone-a.id}"},
		{"a label with an empty value is one the resource has", inB,
			map[string]any{"instanceTemplateSelector": map[string]any{"matchLabels": map[string]any{"team": "t", "empty": ""}}}, "instance_template", "${google_compute_instance_template.b-has-empty.id}"},
		{"a selector without labels matches nothing", self,
			map[string]any{"launchTemplateNameSelector": map[string]any{}}, "launch_template_name", nil},
		{"a selector whose labels no resource has matches nothing", self,
			map[string]any{"launchTemplateNameSelector": map[string]any{"matchLabels": map[string]any{"app": "serve"}}}, "launch_template_name", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := arguments(tc.args, idx, tc.self, "")
			got, set := out[tc.attr]
			if tc.want == nil {
				if set {
					t.Errorf("%s = %v, want it unset", tc.attr, got)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s = %v, want %v", tc.attr, got, tc.want)
			}
		})
	}
}
