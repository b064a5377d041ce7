package managed

import (
	"fmt"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// The SageMaker jobs ACK's sagemaker controller starts (TrainingJob, HyperParameterTuningJob,
// ProcessingJob, TransformJob) have no Terraform resource to be priced as: each is read here, as
// the instances it runs for one run. Their specs are the SageMaker API's create requests in
// camelCase (CreateTrainingJob's resourceConfig, stoppingCondition, enableManagedSpotTraining),
// read 2026-11-27 from aws-controllers-k8s/sagemaker-controller apis/v1alpha1.
//
// A run is bounded by its stopping condition: MaxRuntimeInSeconds caps a training job, its
// retries included, and defaults to one day (at most 28 days); billed time excludes a managed
// spot job's wait, which MaxWaitTimeInSeconds bounds. A warm pool (KeepAlivePeriodInSeconds)
// keeps the instances, billed, after the job ends.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_StoppingCondition.html
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ResourceConfig.html
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ResourceLimits.html
// https://docs.aws.amazon.com/sagemaker/latest/dg/train-warm-pools.html
var ackJobKinds = map[string]string{
	"sagemaker.services.k8s.aws/TrainingJob":             "a SageMaker training job",
	"sagemaker.services.k8s.aws/HyperParameterTuningJob": "a SageMaker hyperparameter tuning job",
	"sagemaker.services.k8s.aws/ProcessingJob":           "a SageMaker processing job",
	"sagemaker.services.k8s.aws/TransformJob":            "a SageMaker batch transform job",
}

// defaultTrainingRuntime is MaxRuntimeInSeconds when a training job's stopping condition does
// not set it: one day.
const defaultTrainingRuntime = 86400

type sageMakerCount struct {
	InstanceType  string `yaml:"instanceType"`
	InstanceCount *int64 `yaml:"instanceCount"`
}

type sageMakerTraining struct {
	ResourceConfig struct {
		sageMakerCount           `yaml:",inline"`
		KeepAlivePeriodInSeconds *int64 `yaml:"keepAlivePeriodInSeconds"`
		InstanceGroups           []struct {
			sageMakerCount    `yaml:",inline"`
			InstanceGroupName string `yaml:"instanceGroupName"`
		} `yaml:"instanceGroups"`
	} `yaml:"resourceConfig"`
	StoppingCondition struct {
		MaxRuntimeInSeconds *int64 `yaml:"maxRuntimeInSeconds"`
	} `yaml:"stoppingCondition"`
	EnableManagedSpotTraining bool `yaml:"enableManagedSpotTraining"`
}

type sageMakerJobSpec struct {
	sageMakerTraining             `yaml:",inline"`
	TrainingJobDefinition         *sageMakerTraining  `yaml:"trainingJobDefinition"`
	TrainingJobDefinitions        []sageMakerTraining `yaml:"trainingJobDefinitions"`
	HyperParameterTuningJobConfig struct {
		ResourceLimits struct {
			MaxNumberOfTrainingJobs *int64 `yaml:"maxNumberOfTrainingJobs"`
			MaxParallelTrainingJobs *int64 `yaml:"maxParallelTrainingJobs"`
			MaxRuntimeInSeconds     *int64 `yaml:"maxRuntimeInSeconds"`
		} `yaml:"resourceLimits"`
	} `yaml:"hyperParameterTuningJobConfig"`
	// A processing job's stoppingCondition is the inline training's.
	ProcessingResources struct {
		ClusterConfig sageMakerCount `yaml:"clusterConfig"`
	} `yaml:"processingResources"`
	TransformResources sageMakerCount `yaml:"transformResources"`
	Tags               []struct {
		Key   string `yaml:"key"`
		Value string `yaml:"value"`
	} `yaml:"tags"`
}

// sageMakerGroup is one set of instances a job runs: its field path in the spec, type, count.
type sageMakerGroup struct {
	field, name, instanceType string
	count                     int64
}

// sageMakerJob prices a SageMaker job declared with ACK: one resource per kind of instance it
// runs, for one run. ok is false for other kinds.
func sageMakerJob(mr kubernetes.ManagedResource) (out []parser.Resource, errs []parser.Error, ok bool) {
	group, _, _ := strings.Cut(mr.APIVersion, "/")
	what, ok := ackJobKinds[group+"/"+mr.Kind]
	if !ok {
		return nil, nil, false
	}
	address := addressOf(mr)
	fail := func(format string, args ...any) ([]parser.Resource, []parser.Error, bool) {
		return nil, []parser.Error{{File: mr.File, Line: mr.Line, Message: address + ": " + fmt.Sprintf(format, args...)}}, true
	}
	var spec sageMakerJobSpec
	if mr.Spec != nil && mr.Spec.Kind != 0 {
		if err := mr.Spec.Decode(&spec); err != nil {
			return fail("spec: %v", err)
		}
	}
	var groups []sageMakerGroup
	var notes []string
	hours, parallel := 0.0, int64(1)
	spot, noSpot := false, false
	switch mr.Kind {
	case "TrainingJob", "HyperParameterTuningJob":
		t, field := &spec.sageMakerTraining, "spec.resourceConfig"
		if mr.Kind == "HyperParameterTuningJob" {
			switch {
			case spec.TrainingJobDefinition != nil:
				t, field = spec.TrainingJobDefinition, "spec.trainingJobDefinition.resourceConfig"
			case len(spec.TrainingJobDefinitions) > 0:
				t, field = &spec.TrainingJobDefinitions[0], "spec.trainingJobDefinitions[0].resourceConfig"
				if len(spec.TrainingJobDefinitions) > 1 {
					notes = append(notes, fmt.Sprintf("the tuning job has %d training job definitions: priced by the first", len(spec.TrainingJobDefinitions)))
				}
			default:
				t = nil
			}
		}
		if t == nil {
			groups = append(groups, sageMakerGroup{field: "spec.trainingJobDefinition.resourceConfig"})
			break
		}
		rc := t.ResourceConfig
		if len(rc.InstanceGroups) > 0 {
			// A heterogeneous cluster: the groups replace the instance type and count.
			for i, g := range rc.InstanceGroups {
				groups = append(groups, sageMakerGroup{field: fmt.Sprintf("%s.instanceGroups[%d]", field, i), name: g.InstanceGroupName, instanceType: g.InstanceType, count: countOr1(g.InstanceCount)})
			}
		} else {
			groups = append(groups, sageMakerGroup{field: field, instanceType: rc.InstanceType, count: countOr1(rc.InstanceCount)})
		}
		runtime, from := int64(defaultTrainingRuntime), "the default maxRuntimeInSeconds (1 day)"
		if s := t.StoppingCondition.MaxRuntimeInSeconds; s != nil && *s > 0 {
			runtime, from = *s, fmt.Sprintf("stoppingCondition.maxRuntimeInSeconds %d", *s)
		}
		hours = float64(runtime) / 3600
		notes = append(notes, fmt.Sprintf("%s bounds a training job (retries included) to %.2f hours", from, hours))
		if mr.Kind == "HyperParameterTuningJob" {
			var why string
			hours, parallel, why = tuningRun(spec, hours)
			notes = append(notes, why)
		}
		if k := rc.KeepAlivePeriodInSeconds; k != nil && *k > 0 && mr.Kind == "TrainingJob" {
			hours += float64(*k) / 3600
			notes = append(notes, fmt.Sprintf("its warm pool keeps the instances %d seconds after the job (resourceConfig.keepAlivePeriodInSeconds): %.2f hours in all", *k, hours))
		}
		spot = t.EnableManagedSpotTraining
	case "ProcessingJob":
		c := spec.ProcessingResources.ClusterConfig
		groups = append(groups, sageMakerGroup{field: "spec.processingResources.clusterConfig", instanceType: c.InstanceType, count: countOr1(c.InstanceCount)})
		if s := spec.StoppingCondition.MaxRuntimeInSeconds; s != nil && *s > 0 {
			hours = float64(*s) / 3600
			notes = append(notes, fmt.Sprintf("stoppingCondition.maxRuntimeInSeconds %d bounds the job to %.2f hours", *s, hours))
		}
		noSpot = true
	case "TransformJob":
		c := spec.TransformResources
		groups = append(groups, sageMakerGroup{field: "spec.transformResources", instanceType: c.InstanceType, count: countOr1(c.InstanceCount)})
		noSpot = true
	}
	tags := map[string]string{}
	for _, t := range spec.Tags {
		tags[t.Key] = t.Value
	}
	region := ackRegionOf(mr)
	for _, g := range groups {
		if g.instanceType != "" && !parser.IsGPUInstanceType(parser.AWS, g.instanceType) {
			continue // CPU instances
		}
		r := parser.Resource{
			Address: address, Root: mr.Root, Source: parser.Location{File: mr.File, Line: mr.Line}, Kind: parser.KindKubernetes, Type: mr.Kind,
			Provider: parser.AWS, Region: region, InstanceType: g.instanceType, Quantity: int(g.count * parallel), PurchaseOption: parser.OnDemand,
			RunsToCompletion: true, RunHours: hours, NoSpot: noSpot, NoMIG: what, Tags: tags,
		}
		if g.name != "" {
			r.Address += fmt.Sprintf("[%q]", g.name)
		}
		if spot {
			r.PurchaseOption = parser.Spot
			r.Note("managed spot training (enableManagedSpotTraining): priced at the spot rate")
		}
		if g.instanceType == "" {
			r.AddUnresolved(g.field+".instanceType", parser.ReasonNotSet)
		}
		r.Note("%s started by AWS Controllers for Kubernetes (%s %s): its instances run for one run of the job", what, mr.APIVersion, mr.Kind)
		for _, n := range notes {
			r.Note("%s", n)
		}
		if region == "" {
			r.RegionUnknown = "ACK creates it in the region of its " + ackRegion + " annotation, else its namespace's " + ackDefaultRegion + ", else the controller's --aws-region, and the manifests name none"
		}
		if v, ok := mr.Annotations[kubernetes.AnnotationHours]; ok {
			h, err := kubernetes.HoursAnnotation(v)
			if err != nil {
				return fail("%v", err)
			}
			r.HoursPerMonth = h
			r.Note("%g hours a month from annotation %s", h, kubernetes.AnnotationHours)
		}
		if r.HoursPerMonth == 0 && hours == 0 {
			r.Note("nothing in its spec bounds how long it runs: priced at the full month; set the %s annotation or usage in the config", kubernetes.AnnotationHours)
		}
		if p := mr.Annotations[kubernetes.AnnotationProfile]; p != "" {
			r.Profile = p
		}
		if v, ok := mr.Annotations[kubernetes.AnnotationIgnore]; ok {
			r.Suppressions = parser.ParseSuppressionAnnotation(v, r.Source)
		}
		out = append(out, r)
	}
	return out, nil, true
}

// tuningRun is how long a hyperparameter tuning job runs its instances and how many training
// jobs it runs at once: ceil(MaxNumberOfTrainingJobs / MaxParallelTrainingJobs) rounds of jobs
// of at most perJob hours each, within the tuning job's own MaxRuntimeInSeconds; with neither
// limit it is unbounded (0 hours: priced all month).
func tuningRun(spec sageMakerJobSpec, perJob float64) (hours float64, parallel int64, why string) {
	l := spec.HyperParameterTuningJobConfig.ResourceLimits
	parallel = countOr1(l.MaxParallelTrainingJobs)
	total := int64(0)
	if n := l.MaxNumberOfTrainingJobs; n != nil && *n > 0 {
		total = *n
		parallel = min(parallel, total)
	}
	why = fmt.Sprintf("it runs up to %d training job%s at once (resourceLimits.maxParallelTrainingJobs)", parallel, parser.Plural(parallel))
	if total > 0 {
		rounds := (total + parallel - 1) / parallel
		hours = float64(rounds) * perJob
		why += fmt.Sprintf(", %d in all (maxNumberOfTrainingJobs): %d round%s of at most %.2f hours", total, rounds, parser.Plural(rounds), perJob)
	}
	if s := l.MaxRuntimeInSeconds; s != nil && *s > 0 && (hours == 0 || float64(*s)/3600 < hours) {
		hours = float64(*s) / 3600
		why += fmt.Sprintf(", within the tuning job's resourceLimits.maxRuntimeInSeconds %d", *s)
	}
	if hours == 0 {
		why += "; nothing bounds how many it runs"
	} else {
		why += fmt.Sprintf(": %.2f hours", hours)
	}
	return hours, parallel, why
}

// countOr1 is an instance count, 1 when not set; a count beyond any SageMaker quota is held at
// a million (still absurd in the report, but no overflow).
func countOr1(n *int64) int64 {
	if n == nil || *n < 1 {
		return 1
	}
	return min(*n, 1_000_000)
}
