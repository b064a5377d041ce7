package kubernetes

import (
	"fmt"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// Controllers that stand in for the built-in ones, and serving frameworks that write
// Deployments from a few fields of their own: OpenShift's DeploymentConfig, OpenKruise's
// CloneSet and its Advanced StatefulSet and DaemonSet, and Seldon Core's SeldonDeployment.
func init() {
	register("ReplicationController", "", extractReplicated)
	register("DeploymentConfig", "apps.openshift.io", extractDeploymentConfig)
	// OpenKruise (apps.kruise.io) defaults a CloneSet's and an Advanced StatefulSet's replicas
	// to 1 as the built-in kinds do (apis/apps/defaults in openkruise/kruise).
	register("CloneSet", "apps.kruise.io", extractReplicated)
	register("StatefulSet", "apps.kruise.io", extractReplicated)
	register("DaemonSet", "apps.kruise.io", extractDaemonSet)
	register("SeldonDeployment", "machinelearning.seldon.io", extractSeldonDeployment)
}

// extractDeploymentConfig reads an OpenShift DeploymentConfig (apps.openshift.io/v1). Unlike a
// Deployment's, its replicas field has no default (openshift/api apps/v1 declares it a plain
// int32 and the API server's defaulting leaves it alone): one that sets none runs no pod. A test
// DeploymentConfig (test: true) runs its pods only while a deployment is in progress.
func extractDeploymentConfig(o *object) ([]role, error) {
	var spec struct {
		Replicas *int        `yaml:"replicas"`
		Test     bool        `yaml:"test"`
		Template podTemplate `yaml:"template"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	r := role{replicas: intOr(spec.Replicas, 0), template: spec.Template, scalable: true}
	switch {
	case spec.Test:
		r.replicas, r.scalable = 0, false
		r.note = "0 pods: a test DeploymentConfig (test: true) runs its pods only while a deployment is in progress"
	case spec.Replicas == nil:
		r.unscaledNote = "0 pods: a DeploymentConfig's replicas has no default and this one sets none; set spec.replicas to the pods it should run"
	}
	return []role{r}, nil
}

// seldonComponent is one componentSpec of a Seldon Core v1 predictor: a pod template that
// Seldon builds into a Deployment of its own, with its own replicas or autoscaler.
type seldonComponent struct {
	podTemplate `yaml:",inline"`
	Replicas    *int `yaml:"replicas"`
	HPASpec     *struct {
		MinReplicas *int `yaml:"minReplicas"`
		MaxReplicas *int `yaml:"maxReplicas"`
	} `yaml:"hpaSpec"`
	KedaSpec *struct {
		MinReplicaCount *int          `yaml:"minReplicaCount"`
		MaxReplicaCount *int          `yaml:"maxReplicaCount"`
		Triggers        []kedaTrigger `yaml:"triggers"`
	} `yaml:"kedaSpec"`
}

// extractSeldonDeployment reads a Seldon Core v1 SeldonDeployment (machinelearning.seldon.io):
// each predictor's componentSpecs become one Deployment each. Replicas come from the most
// specific level that sets them: the component, its predictor, the SeldonDeployment, else 1
// (https://docs.seldon.ai/seldon-core-1/configuration/deployments/scaling). A component with an
// hpaSpec runs its minReplicas (the HPA's default 1) and at most maxReplicas; with a kedaSpec,
// minReplicaCount (KEDA's default 0) and maxReplicaCount (default 100), and its cron triggers
// are replayed as a ScaledObject's are. Either replaces the replicas it would otherwise run.
func extractSeldonDeployment(o *object) ([]role, error) {
	var spec struct {
		Replicas   *int `yaml:"replicas"`
		Predictors []struct {
			Name           string            `yaml:"name"`
			Replicas       *int              `yaml:"replicas"`
			ComponentSpecs []seldonComponent `yaml:"componentSpecs"`
		} `yaml:"predictors"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return nil, err
	}
	var out []role
	for pi, p := range spec.Predictors {
		pname := orIndex(p.Name, "predictor", pi)
		seen := map[string]bool{}
		for ci, c := range p.ComponentSpecs {
			name := pname + "/" + componentName(c, ci)
			if seen[name] {
				name = fmt.Sprintf("%s/component-%d", pname, ci) // its containers' names are taken
			}
			seen[name] = true
			r := role{name: name, template: c.podTemplate}
			switch {
			case c.HPASpec != nil:
				max := 0 // an hpaSpec without maxReplicas declares no ceiling
				if c.HPASpec.MaxReplicas != nil {
					max = *c.HPASpec.MaxReplicas
				}
				r.autoscaled(intOr(c.HPASpec.MinReplicas, 1), max, "minReplicas", "maxReplicas", "hpaSpec")
			case c.KedaSpec != nil:
				r.autoscaled(intOr(c.KedaSpec.MinReplicaCount, 0), intOr(c.KedaSpec.MaxReplicaCount, 100), "minReplicaCount", "maxReplicaCount", "kedaSpec")
				s := scaler{minReplicas: r.replicas, maxReplicas: r.maxPods, source: "the kedaSpec of " + o.address() + " " + name}
				s.readCronTriggers(c.KedaSpec.Triggers)
				if len(s.crons) > 0 || s.cronProblem != "" {
					r.ownScaler = &s
				}
			default:
				r.replicas = intOr(c.Replicas, intOr(p.Replicas, intOr(spec.Replicas, 1)))
			}
			if r.maxPods < 0 {
				return nil, fmt.Errorf("%s: %d is not a number of pods", r.maxFrom, r.maxPods)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// autoscaled gives a Seldon component the floor and ceiling of its own autoscaler (spec is
// hpaSpec or kedaSpec, minField and maxField its fields); a ceiling of 0 is none.
func (r *role) autoscaled(min, max int, minField, maxField, spec string) {
	r.replicas = min
	r.note = fmt.Sprintf("%d pod%s: the %s of the component's %s, the floor it always runs", min, parser.Plural(int64(min)), minField, spec)
	if max != 0 {
		r.maxPods, r.maxFrom = max, fmt.Sprintf("the %s of the component's %s", maxField, spec)
	}
}

// componentName names a Seldon component by its containers, as Seldon names the Deployment it
// builds, or by its place when it names none.
func componentName(c seldonComponent, i int) string {
	var names []string
	for _, ct := range c.Spec.Containers {
		if ct.Name != "" {
			names = append(names, ct.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("component-%d", i)
	}
	return strings.Join(names, "-")
}
