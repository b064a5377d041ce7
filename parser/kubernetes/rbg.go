package kubernetes

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// A RoleBasedGroup (workloads.x-k8s.io, the RBG project's API for disaggregated LLM serving:
// SGLang's prefill, decode and router roles, NVIDIA Dynamo's) runs each of its roles as a
// workload of its own: replicas pods of the role's pod template, or replicas groups of size
// pods (a leader and its workers) for a leader-worker role. A RoleBasedGroupSet runs replicas
// such groups from its groupTemplate. gpuguard reads both API versions
// (sgl-project/rbg api/workloads/v1alpha1 and v1alpha2 rolebasedgroup_types.go, read
// 2026-11-28):
//
//   - v1alpha1: a role's template, or its templateRef to one of spec.roleTemplates with
//     templatePatch merged over it; leaderWorkerSet {size, patchLeaderTemplate,
//     patchWorkerTemplate} makes it a leader-worker role.
//   - v1alpha2: a role's standalonePattern or leaderWorkerPattern, each with a template or a
//     templateRef {name, patch}; leaderWorkerPattern has size, leaderTemplatePatch and
//     workerTemplatePatch.
//
// Patches are strategic merges: mergeSpec, containers by name. A role of custom components
// (v1alpha2's customComponentsPattern.components, v1alpha1's components) runs, for each
// replica, size pods (default 1) of each component's inline template: one resource a component.
//
// The rbg.workloads.x-k8s.io/group-exclusive-topology annotation (the older
// rolebasedgroup.workloads.x-k8s.io/exclusive-topology) on the group (or on the set, for its
// groups) places all pods of each group in one domain of that key with no other group's pods
// (doc/features/exclusive-topology.md): on kubernetes.io/hostname, one node. A role whose
// annotations set rbg.workloads.x-k8s.io/role-disable-exclusive: "true" is left out. gpuguard
// checks each role's pods of a group against the node (Together) and, when more than one
// group runs, makes each pod pay at least its share of a node that holds only its group.

func init() {
	register("RoleBasedGroup", "workloads.x-k8s.io", extractRoleBasedGroup)
	register("RoleBasedGroupSet", "workloads.x-k8s.io", extractRoleBasedGroupSet)
}

// rbgTemplateSource is where a role's pod template comes from: inline, or a RoleTemplate by
// name with a patch (v1alpha2's templateRef.patch).
type rbgTemplateSource struct {
	Template    yaml.Node `yaml:"template"`
	TemplateRef *struct {
		Name  string    `yaml:"name"`
		Patch yaml.Node `yaml:"patch"`
	} `yaml:"templateRef"`
}

type rbgLeaderWorker struct {
	Size              *int `yaml:"size"`
	rbgTemplateSource `yaml:",inline"`
	// v1alpha2's patches, and v1alpha1's (leaderWorkerSet).
	LeaderTemplatePatch yaml.Node `yaml:"leaderTemplatePatch"`
	WorkerTemplatePatch yaml.Node `yaml:"workerTemplatePatch"`
	PatchLeaderTemplate yaml.Node `yaml:"patchLeaderTemplate"`
	PatchWorkerTemplate yaml.Node `yaml:"patchWorkerTemplate"`
}

type rbgRole struct {
	Name              string `yaml:"name"`
	Replicas          *int   `yaml:"replicas"`
	rbgTemplateSource `yaml:",inline"`
	TemplatePatch     yaml.Node `yaml:"templatePatch"` // v1alpha1, with templateRef

	LeaderWorkerSet     *rbgLeaderWorker   `yaml:"leaderWorkerSet"` // v1alpha1
	StandalonePattern   *rbgTemplateSource `yaml:"standalonePattern"`
	LeaderWorkerPattern *rbgLeaderWorker   `yaml:"leaderWorkerPattern"`
	Custom              *struct {
		Components []rbgComponent `yaml:"components"`
	} `yaml:"customComponentsPattern"`
	Components  []rbgComponent    `yaml:"components"` // v1alpha1
	Annotations map[string]string `yaml:"annotations"`
}

type rbgComponent struct {
	Name     string    `yaml:"name"`
	Size     *int      `yaml:"size"`
	Template yaml.Node `yaml:"template"`
}

// Annotations of RBG's exclusive placement: the group's, its older spelling, and a role's
// opt-out.
const (
	rbgExclusiveKey     = "rbg.workloads.x-k8s.io/group-exclusive-topology"
	rbgOldExclusiveKey  = "rolebasedgroup.workloads.x-k8s.io/exclusive-topology"
	rbgDisableExclusive = "rbg.workloads.x-k8s.io/role-disable-exclusive"
)

type rbgSpec struct {
	Roles         []rbgRole `yaml:"roles"`
	RoleTemplates []struct {
		Name     string    `yaml:"name"`
		Template yaml.Node `yaml:"template"`
	} `yaml:"roleTemplates"`
}

func extractRoleBasedGroup(o *object) ([]role, error) {
	var spec rbgSpec
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	return rbgRoles(spec, 1, o.Metadata.Annotations)
}

// extractRoleBasedGroupSet reads a RoleBasedGroupSet: replicas groups (default 1) of its
// groupTemplate's spec.
func extractRoleBasedGroupSet(o *object) ([]role, error) {
	var spec struct {
		Replicas      *int `yaml:"replicas"`
		GroupTemplate struct {
			Annotations map[string]string `yaml:"annotations"`
			Spec        rbgSpec           `yaml:"spec"`
		} `yaml:"groupTemplate"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	groups := intOr(spec.Replicas, 1)
	if groups < 0 || groups > maxPods {
		return nil, fmt.Errorf("replicas: %d is not a number of groups", groups)
	}
	ann := spec.GroupTemplate.Annotations
	if _, ok := ann[rbgExclusiveKey]; !ok {
		if _, ok := ann[rbgOldExclusiveKey]; !ok {
			ann = o.Metadata.Annotations
		}
	}
	return rbgRoles(spec.GroupTemplate.Spec, groups, ann)
}

// rbgRoles is the pods of groups RoleBasedGroups of spec, role by role; ann are the group's
// annotations.
func rbgRoles(spec rbgSpec, groups int, ann map[string]string) ([]role, error) {
	out, off, err := rbgRolePods(spec, groups)
	key, ok := ann[rbgExclusiveKey]
	name := rbgExclusiveKey
	if !ok {
		key, ok = ann[rbgOldExclusiveKey]
		name = rbgOldExclusiveKey
	}
	if !ok {
		return out, err
	}
	groupPods := 0
	for i, r := range out {
		if !off[i] {
			groupPods += r.replicas / max(groups, 1)
		}
	}
	for i := range out {
		if off[i] {
			continue
		}
		pods := out[i].replicas / max(groups, 1)
		out[i].exclusive = &exclusiveGroup{topologyKey: key, pods: pods, inFirst: pods, groupPods: groupPods, groups: groups, what: "RoleBasedGroup",
			source:   fmt.Sprintf("the %s annotation (%s)", name, key),
			together: fmt.Sprintf("all %d pods of each RoleBasedGroup, %d of them this role's, on one node", groupPods, pods)}
	}
	return out, err
}

// rbgRolePods is the pods of groups RoleBasedGroups of spec, role by role, and for each role
// whether it opts out of the group's exclusive placement.
func rbgRolePods(spec rbgSpec, groups int) ([]role, []bool, error) {
	templates := map[string]*yaml.Node{}
	for i := range spec.RoleTemplates {
		templates[spec.RoleTemplates[i].Name] = &spec.RoleTemplates[i].Template
	}
	var out []role
	var off []bool
	var errs partsError
	for i, r := range spec.Roles {
		n := len(out)
		func() {
			name := orIndex(r.Name, "role", i)
			replicas := intOr(r.Replicas, 1)
			if replicas < 0 || replicas > maxPods {
				errs = append(errs, fmt.Errorf("role %s: replicas %d is not a number of pods", name, replicas))
				return
			}
			replicas *= groups
			src, lw := &r.rbgTemplateSource, r.LeaderWorkerSet
			patch := &r.TemplatePatch
			switch {
			case r.StandalonePattern != nil:
				src = r.StandalonePattern
			case r.LeaderWorkerPattern != nil:
				lw, src = r.LeaderWorkerPattern, &r.LeaderWorkerPattern.rbgTemplateSource
			case r.Custom != nil || len(r.Components) > 0:
				components := r.Components
				if r.Custom != nil {
					components = r.Custom.Components
				}
				for j, c := range components {
					size := intOr(c.Size, 1)
					tpl, err := decodeTemplate(&c.Template)
					switch {
					case size < 0 || size > maxPods || replicas*size > maxPods:
						err = fmt.Errorf("size %d is not a number of pods", size)
					case c.Template.Kind == 0 && err == nil:
						err = fmt.Errorf("no template")
					}
					cname := name + "-" + orIndex(c.Name, "component", j)
					if err != nil {
						errs = append(errs, fmt.Errorf("role %s: %w", cname, err))
						continue
					}
					out = append(out, role{named: true, name: cname, replicas: replicas * size, template: tpl, note: fmt.Sprintf("%d × %d pods of component %s", replicas, size, cname)})
				}
				return
			}
			base, err := rbgTemplate(src, patch, templates)
			if err != nil {
				errs = append(errs, fmt.Errorf("role %s: %w", name, err))
				return
			}
			if lw == nil {
				tpl, err := decodeTemplate(base)
				if err != nil {
					errs = append(errs, fmt.Errorf("role %s: %w", name, err))
					return
				}
				out = append(out, role{named: true, name: name, replicas: replicas, template: tpl})
				return
			}
			size := intOr(lw.Size, 1)
			if size < 1 || size > maxPods || replicas*size > maxPods {
				errs = append(errs, fmt.Errorf("role %s: size %d is not a number of pods", name, size))
				return
			}
			leaderPatch, workerPatch := orNode(&lw.LeaderTemplatePatch, &lw.PatchLeaderTemplate), orNode(&lw.WorkerTemplatePatch, &lw.PatchWorkerTemplate)
			note := fmt.Sprintf("%d group%s × %d pods (leader and workers)", replicas, parser.Plural(int64(replicas)), size)
			if leaderPatch.Kind == 0 && workerPatch.Kind == 0 || size == 1 {
				tpl, err := decodeTemplate(mergeSpec(base, leaderPatch))
				if err != nil {
					errs = append(errs, fmt.Errorf("role %s: %w", name, err))
					return
				}
				out = append(out, role{named: true, name: name, replicas: replicas * size, perReplica: size, template: tpl, note: note})
				return
			}
			leader, err := decodeTemplate(mergeSpec(base, leaderPatch))
			if err == nil {
				var worker podTemplate
				if worker, err = decodeTemplate(mergeSpec(base, workerPatch)); err == nil {
					out = append(out,
						role{named: true, name: name + "-leader", replicas: replicas, template: leader, note: note},
						role{named: true, name: name + "-worker", replicas: replicas * (size - 1), perReplica: size - 1, template: worker, note: note})
					return
				}
			}
			errs = append(errs, fmt.Errorf("role %s: %w", name, err))
		}()
		off = rbgOff(off, len(out)-n, r.Annotations)
	}
	if len(errs) > 0 {
		return out, off, errs
	}
	return out, off, nil
}

// rbgOff appends to off, for n roles of a role whose annotations are ann, whether the role
// opts out of its group's exclusive placement.
func rbgOff(off []bool, n int, ann map[string]string) []bool {
	for range n {
		off = append(off, ann[rbgDisableExclusive] == "true")
	}
	return off
}

// rbgTemplate is a role's pod template as a node: its own, or the RoleTemplate it names with
// its patch (templateRef.patch in v1alpha2, the role's templatePatch in v1alpha1) merged over.
func rbgTemplate(src *rbgTemplateSource, rolePatch *yaml.Node, templates map[string]*yaml.Node) (*yaml.Node, error) {
	if src.TemplateRef == nil {
		if src.Template.Kind == 0 {
			return nil, fmt.Errorf("no template or templateRef")
		}
		return &src.Template, nil
	}
	base, ok := templates[src.TemplateRef.Name]
	if !ok {
		return nil, fmt.Errorf("templateRef %q names none of spec.roleTemplates", src.TemplateRef.Name)
	}
	return mergeSpec(base, orNode(&src.TemplateRef.Patch, rolePatch)), nil
}

// decodeTemplate reads a pod template node.
func decodeTemplate(n *yaml.Node) (podTemplate, error) {
	var tpl podTemplate
	if n == nil || n.Kind == 0 {
		return tpl, nil
	}
	err := n.Decode(&tpl)
	return tpl, err
}

// orNode is a when it is set, else b.
func orNode(a, b *yaml.Node) *yaml.Node {
	if a.Kind != 0 {
		return a
	}
	return b
}
