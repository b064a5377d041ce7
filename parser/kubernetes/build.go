package kubernetes

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/schedule"
)

// Annotations gpuguard reads on workloads (or their pod templates).
const (
	AnnotationProfile = "gpuguard.dev/profile"
	AnnotationIgnore  = "gpuguard.dev/ignore"
	AnnotationHours   = "gpuguard.dev/hours-per-month"
)

// Options configure how manifests become resources.
type Options struct {
	// DefaultInstanceType is the node for pods whose manifests name none (config
	// kubernetes.default_instance_type).
	DefaultInstanceType string
	// DaemonSetNodes is how many nodes each DaemonSet runs on, by address or name.
	DaemonSetNodes map[string]int
	// Managed, when set, prices cloud resources declared as Kubernetes objects (Crossplane
	// managed resources); without it they are not read.
	Managed func([]ManagedResource) (resources []parser.Resource, errs, warns []parser.Error)
	// NodeGroups are GPU node groups declared outside the manifests (the EKS node groups, GKE
	// node pools and AKS agent pools of the Terraform read with them). A GPU pod that selects
	// one by its labels (the cloud's group-name label, or labels the group declares) runs on it.
	NodeGroups []NodeGroup
	// AnyNodeGroup lets a GPU pod that names no node, and that no NodePool places, run on
	// NodeGroups when they all run one kind of node: the manifests are a Terraform
	// configuration's own Kubernetes objects, applied to its cluster, and NodeGroups are the
	// configuration's.
	AnyNodeGroup bool
	// ChartReleases are Helm releases declared outside the manifests whose charts are not
	// rendered (a Terraform helm_release of a chart in a repository): the device plugin's
	// sharing configs in their values apply as the manifests' own do.
	ChartReleases []ChartRelease
	// Repository is the repository the manifests are read from: the value files an Argo CD
	// Application of NVIDIA's charts takes from it ($ref/path) are read there. Nil when there
	// is none (manifests from stdin): such value files are a warning.
	Repository Repository
	// GPUs tells the GPUs of the NodeGroups' nodes. With it, a pod that selects GPU feature
	// discovery's labels (nvidia.com/gpu.product, gpu.count, gpu.memory) runs on the groups
	// whose GPUs they describe: GFD labels every GPU node, and a pod that selects its labels
	// runs only where it does. Nil leaves those labels to the pod's own pricing.
	GPUs GPUCatalog
}

// GPUCatalog tells what GPU feature discovery labels a node group's nodes with
// (Options.GPUs): the estimator's catalog.
type GPUCatalog interface {
	// NodeGPUs returns the GPUs of a node of an instance type, or of the GPUs attached to it
	// (GCP's N1); ok is false when the type is not known ("", known only at apply, or not in
	// the catalog).
	NodeGPUs(provider, instanceType string, attached []parser.Accelerator) (g parser.NodeGPUs, ok bool)
	// Names reports whether one of names (values of nvidia.com/gpu.product: NVIDIA-L4) names
	// the GPU of the catalog key.
	Names(key string, names []string) bool
	// Narrow returns what names and others both name, as names of the catalog's GPUs: of each
	// pair that names a GPU in common, the narrower ("a100" and "NVIDIA A100-SXM4-80GB": the
	// latter); none when they have none in common.
	Narrow(names, others []string) []string
	// Offers reports whether some catalog type of a cloud can be the node of a pod with this
	// selection (the types, families and GPUs it allows, what it rules out) and holds its
	// request: a NodePool with none takes no pod.
	Offers(provider string, pod *parser.PodGPUs) bool
}

// Parse decodes and builds one stream on its own (for a single file or stdin).
func Parse(name string, data []byte, opts Options) parser.Result {
	return Build([]*File{Decode(name, data)}, opts)
}

// Build turns decoded files into GPU resources, applying the HorizontalPodAutoscalers and
// Karpenter NodePools found in any of them.
func Build(files []*File, opts Options) parser.Result {
	var res parser.Result
	var objs []*object
	for _, f := range files {
		res.Errors = append(res.Errors, f.Errors...)
		res.Warnings = append(res.Warnings, f.Warnings...)
		objs = append(objs, f.objects...)
	}
	var pools []*nodePool
	classes := map[string][]rooted[*computeClass]{} // by name: several of one name are several clusters'.
	sharing := newPluginSharing()
	sharing.repo = opts.Repository
	layouts := MIGLayouts{}
	ec2Classes := map[string][]rooted[ec2Class]{} // by EC2NodeClass name
	crossplane := newComposites()
	kueue := newKueueIndex()
	groups := newGroupIndex(opts.NodeGroups, opts.GPUs)
	scalers := map[string]scaler{}
	cms := configMaps{}
	var quotas []resourceQuota
	limits := limitRanges{}
	runtimes := runtimeClasses{gkeSandbox: groups.gkeSandboxPools()}
	defaultPriority := map[string]string{} // the global default PriorityClass's name, by build (root)
	claims := &claimIndex{templates: map[string]deviceClaim{}, claims: map[string]deviceClaim{}, classes: map[string]deviceClass{}, byExtendedName: map[string]string{}}
	kueue.claims = claims
	for _, o := range objs {
		// DeviceClasses first: a claim's requests name them, in whatever order the files come.
		if o.Kind == "DeviceClass" && group(o.APIVersion) == "resource.k8s.io" {
			c, err := decodeDeviceClass(o)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
				continue
			}
			for _, err := range c.problems {
				res.Errors = append(res.Errors, specError(o, err))
			}
			claims.classes[o.Metadata.Name] = c
			if n := c.extendedName; n != "" {
				if had, ok := claims.byExtendedName[n]; !ok || o.Metadata.Name < had {
					claims.byExtendedName[n] = o.Metadata.Name
				}
			}
		}
	}
	// Objects another workload takes its pods from, by root and Kind/namespace/name: Argo
	// workflow templates, Deployments an Argo Rollout's workloadRef names, Kubeflow training
	// runtimes, the configurations an LLMInferenceService is composed of. A reference is looked
	// up in its own kustomization's build first (each overlay deploys its own copy of a base),
	// then among the manifests read as they stand.
	referable := map[string]*object{}
	for _, r := range opts.ChartReleases {
		for _, err := range sharing.addRelease(r) {
			res.Errors = append(res.Errors, parser.Error{File: r.File, Line: r.Line, Message: r.Source + ": " + err.Error()})
		}
	}
	for _, o := range objs {
		if o.Kind == "ConfigMap" && o.APIVersion == "v1" {
			cms.add(o) // a container's environment may come from it
		}
		if o.Kind == "ConfigMap" && o.APIVersion == "v1" || isKueueConfig(o.APIVersion, o.Kind) {
			cfgs, errs := kueueConfigs(o)
			for _, err := range errs {
				res.Errors = append(res.Errors, specError(o, err))
			}
			for _, c := range cfgs {
				kueue.configs = append(kueue.configs, rooted[*kueueConfig]{o.rootName(), c})
			}
		}
		if name, ok := globalDefaultPriority(o); ok && defaultPriority[o.root] == "" {
			defaultPriority[o.root] = name // the API server admits one global default
		}
		if o.Kind == "ResourceQuota" && o.APIVersion == "v1" {
			q, ok, err := decodeResourceQuota(o)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
			} else if ok {
				quotas = append(quotas, q)
			}
		}
		if isRuntimeClass(o) {
			if rc, err := decodeRuntimeClass(o); err != nil {
				res.Errors = append(res.Errors, specError(o, err))
			} else {
				runtimes.add(o, rc)
			}
		}
		if o.Kind == "LimitRange" && o.APIVersion == "v1" {
			lr, ok, err := decodeLimitRange(o)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
			} else if ok {
				limits[lr.key] = append(limits[lr.key], lr)
			}
		}
		switch {
		case (o.Kind == "WorkflowTemplate" || o.Kind == "ClusterWorkflowTemplate") && group(o.APIVersion) == "argoproj.io",
			o.Kind == "Deployment" && group(o.APIVersion) == "apps",
			(o.Kind == "ClusterTrainingRuntime" || o.Kind == "TrainingRuntime") && group(o.APIVersion) == "trainer.kubeflow.org",
			o.Kind == "LLMInferenceServiceConfig" && group(o.APIVersion) == "serving.kserve.io":
			referable[o.root+"|"+referenceKey(o)] = o
		case (o.Kind == "ResourceClaimTemplate" || o.Kind == "ResourceClaim") && group(o.APIVersion) == "resource.k8s.io":
			c, err := decodeClaim(o, claims)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
				continue
			}
			for _, err := range c.problems {
				res.Errors = append(res.Errors, specError(o, err))
			}
			key := o.namespace() + "/" + o.Metadata.Name
			if o.Kind == "ResourceClaimTemplate" {
				claims.templates[key] = c
			} else {
				claims.claims[key] = c
				claims.objects = append(claims.objects, claimObject{key: o.root + "|" + o.namespace(), address: c.address, quota: c.quota})
			}
		case o.Kind == "NodePool" && group(o.APIVersion) == "karpenter.sh":
			np, err := decodeNodePool(o)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
				continue
			}
			pools = append(pools, np) // cluster-wide: a pool applies whichever files declare it
		case isCrossplaneAPI(o) && o.Kind == "CompositeResourceDefinition":
			x, err := decodeXRD(o)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
				continue
			}
			crossplane.addXRD(x)
		case isCrossplaneAPI(o) && o.Kind == "Composition":
			c, err := decodeComposition(o)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
				continue
			}
			crossplane.addComposition(c)
		case isKueue(o) && (o.Kind == "ResourceFlavor" || o.Kind == "ClusterQueue" || o.Kind == "LocalQueue" || o.Kind == "Cohort" ||
			o.Kind == "AdmissionCheck" || o.Kind == "ProvisioningRequestConfig" || o.Kind == "MultiKueueConfig" || o.Kind == "Topology"):
			if err := kueue.add(o); err != nil {
				res.Errors = append(res.Errors, specError(o, err))
			}
		case o.APIVersion == "v1" && o.Kind == "Namespace":
			kueue.namespaces[o.Metadata.Name] = o.Metadata.Labels
		case o.Kind == "EC2NodeClass" && group(o.APIVersion) == "karpenter.k8s.aws":
			class, err := decodeEC2NodeClass(o)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
				continue
			}
			// Cluster-wide, as NodePools: several of one name are several clusters'.
			ec2Classes[o.Metadata.Name] = append(ec2Classes[o.Metadata.Name], rooted[ec2Class]{o.rootName(), class})
		case o.Kind == "ComputeClass" && group(o.APIVersion) == "cloud.google.com":
			cc, err := decodeComputeClass(o)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
				continue
			}
			classes[o.Metadata.Name] = append(classes[o.Metadata.Name], rooted[*computeClass]{o.rootName(), cc}) // cluster-wide, as NodePools
		case isPluginSharing(o):
			res.Errors = append(res.Errors, sharing.addObject(o)...) // cluster-wide, as NodePools
			if o.Kind == "ConfigMap" {
				layouts.add(o)
			}
		case o.Kind == "HorizontalPodAutoscaler" || o.Kind == "ScaledObject" && group(o.APIVersion) == "keda.sh":
			s, err := decodeScaler(o)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
				continue
			}
			// An autoscaler applies within its kustomization's build (each overlay deploys
			// its own copy of a base); one read as it stands, to manifests read so too.
			key := o.root + "|" + s.target
			if prev, ok := scalers[key]; !ok || s.source < prev.source {
				scalers[key] = s
			}
		}
	}
	nodePools := newNodePools(pools)
	for _, np := range pools {
		class := nearestOf(ec2Classes[np.nodeClass], np.root) // its own cluster's, when several share its name
		np.noGPUDriver, np.bottlerocket = class.noGPUDriver, class.bottlerocket
		if class.bottlerocket != nil {
			np.bottlerocketFrom = fmt.Sprintf("settings.kubelet-device-plugins.nvidia in EC2NodeClass/%s's userData", np.nodeClass)
		}
	}
	var composed []ManagedResource
	if opts.Managed != nil {
		for _, o := range objs {
			if !crossplane.isComposite(o) {
				continue
			}
			mrs, warns, err := crossplane.render(o)
			if err != nil {
				res.Errors = append(res.Errors, specError(o, err))
			}
			composed = append(composed, mrs...)
			res.Warnings = append(res.Warnings, warns...)
		}
	}
	before := len(res.Resources)
	buildManaged(objs, composed, opts, &res)
	errs, warns := sharing.finish()
	res.Errors, res.Warnings = append(res.Errors, errs...), append(res.Warnings, warns...)
	for _, r := range sharing.kueue {
		c, err := kueueReleaseConfig(r)
		if err != nil {
			res.Errors = append(res.Errors, parser.Error{File: r.File, Line: r.Line, Message: r.Source + ": " + err.Error()})
		} else if c != nil {
			kueue.configs = append(kueue.configs, rooted[*kueueConfig]{r.File, c})
		}
	}
	for name, l := range sharing.layouts {
		if _, ok := layouts[name]; !ok { // a ConfigMap among the manifests declares it itself
			layouts[name] = l
		}
	}
	buildMachineSets(objs, &res)
	if declared := NodeGroupsOf(res.Resources[before:]); len(declared) > 0 {
		// Node pools declared as managed resources among the manifests (Crossplane, Config
		// Connector, ASO, ACK) and Cluster API's machine sets are node groups the pods may
		// select, as Terraform's are.
		groups = newGroupIndex(append(slices.Clip(opts.NodeGroups), declared...), opts.GPUs)
	}
	buildKaito(objs, &res)
	onPool := map[*nodePool][]int{} // the resources each NodePool places, by index
	claimBuilds := map[int]string{} // the build (object root) of each resource that names a shared claim, by index
	quotaPods := map[int]quotaPod{} // what quotas look at in each GPU workload's pods, by index, when there are quotas
	for _, o := range objs {
		wk, ok := workloadOf(o)
		if !ok {
			if name, line := gpuRequestIn(&o.Spec); name != "" && !isTemplateKind(o.Kind) && referable[o.root+"|"+referenceKey(o)] != o && !crossplane.isComposite(o) {
				res.Warnings = append(res.Warnings, parser.Error{File: o.file, Line: o.lineOf(line),
					Message: fmt.Sprintf("%s (%s) requests %s, but gpuguard does not know how this kind runs its pods: its GPUs are not counted", o.address(), o.APIVersion, name)})
			} else if typ, field := gpuTypeInObject(o); typ != "" && !readsMachineTypes(o) && referable[o.root+"|"+referenceKey(o)] != o && !crossplane.isComposite(o) {
				res.Warnings = append(res.Warnings, parser.Error{File: o.file, Line: o.line,
					Message: fmt.Sprintf("%s (%s): %s is GPU type %s, but gpuguard does not read %s objects: if they run machines, those are not counted", o.address(), o.APIVersion, field, typ, o.Kind)})
			}
			continue
		}
		roles, err := wk.extract(o)
		var ref *reference
		var absent []string // referred objects not among the files read, said when no GPU is found
		if errors.As(err, &ref) {
			roles, absent, err = resolve(o, ref, referable)
		}
		var parts partsError
		if errors.As(err, &parts) {
			for _, e := range parts {
				res.Errors = append(res.Errors, specError(o, e))
			}
			err = nil // the parts that could be read are built
		}
		if err != nil {
			res.Errors = append(res.Errors, specError(o, err))
			continue
		}
		built := 0
		at := make([]int, len(roles)) // where each role's resource is in res.Resources, -1 when not built
		places := make([]placement, len(roles))
		var besides []besideSet // pods of several roles that Kueue puts on one node
		// The API's pod-level request defaults, the RuntimeClass's overhead and scheduling,
		// then the LimitRanges' defaults fill in every role's pods first: Kueue counts each pod
		// set of the workload with them, whichever role is built.
		runs := make([]runtimeClassOutcome, len(roles))
		outcomes := make([]limitRangeOutcome, len(roles))
		for i := range roles {
			runs[i] = runtimes.apply(o, defaultPodLevel(roles[i].template.Spec))
			outcomes[i] = limits.apply(o.root+"|"+o.namespace(), runs[i].spec)
			roles[i].template.Spec = outcomes[i].spec
		}
		for i, r := range roles {
			at[i] = -1
			if r.replicas < 0 || r.replicas > maxPods {
				res.Errors = append(res.Errors, specError(o, fmt.Errorf("%s%d is not a number of pods", roleLabel(r), r.replicas)))
				continue
			}
			defaulted := outcomes[i]
			rs, where, errs, warns, beside := buildRole(o, r, roles, nodeSources{nodePools, classes, kueue, groups, sharing, layouts}, scalers, claims, cms, opts)
			places[i] = where
			if beside != nil && !slices.ContainsFunc(besides, func(b besideSet) bool { return b.source == beside.source }) {
				besides = append(besides, *beside)
			}
			res.Errors = append(res.Errors, errs...)
			res.Warnings = append(res.Warnings, warns...)
			if rs != nil {
				np := where.pool
				if rs.Pod != nil && o.Kind != "DaemonSet" {
					keepApart(o, &r.template, where, rs)
					keepTogether(o, &r, rs)
					if w, ok := capByDomains(o, &r.template, where, rs); ok {
						res.Warnings = append(res.Warnings, w)
					}
					if w, ok := capBySpread(o, &r.template, where, rs); ok {
						res.Warnings = append(res.Warnings, w)
					}
					if w, ok := pendingPastNodes(o, where, rs); ok {
						res.Warnings = append(res.Warnings, w)
					}
				}
				runs[i].report(rs, &res.Warnings)
				reportPodLevel(r.template.Spec, rs, &res.Warnings)
				defaulted.report(rs, &res.Warnings)
				if np != nil {
					onPool[np] = append(onPool[np], len(res.Resources))
				}
				if rs.Pod != nil && len(rs.Pod.SharedClaims) > 0 {
					claimBuilds[len(res.Resources)] = o.root
				}
				if rs.Pod != nil && len(quotas) > 0 {
					quotaPods[len(res.Resources)] = newQuotaPod(o.root+"|"+o.namespace(), o.namespace(), &r.template.Spec, defaultPriority[o.root], claims)
				}
				at[i] = len(res.Resources)
				res.Resources = append(res.Resources, *rs)
				built++
			}
		}
		keepBeside(o, roles, at, res.Resources, besides)
		res.Warnings = append(res.Warnings, capExclusive(o, roles, places, at, res.Resources)...)
		if w, ok := misplacedTAS(o, roles); ok && built > 0 {
			res.Warnings = append(res.Warnings, w)
		}
		if w, ok := misnamedPlacement(o, roles); ok && built > 0 {
			res.Warnings = append(res.Warnings, w)
		}
		if why := removedAPI(o); why != "" && built > 0 {
			res.Warnings = append(res.Warnings, parser.Error{File: o.file, Line: o.line, Message: why})
		}
		if len(absent) > 0 && built == 0 {
			res.Warnings = append(res.Warnings, parser.Error{File: o.file, Line: o.line,
				Message: fmt.Sprintf("%s runs %s, which %s not among the files read: %s are not counted", o.address(), strings.Join(absent, ", "), isAre(len(absent)), ref.missing)})
		}
	}
	res.Warnings = append(res.Warnings, quotaConstraints(res.Resources, quotaPods, quotas)...)
	quotaWarns, quotaShares := capByQuotas(res.Resources, quotaPods, quotas, claims.objects)
	res.Warnings = append(res.Warnings, quotaWarns...)
	for _, np := range pools {
		notePoolShared(np, onPool[np], res.Resources)
	}
	shareQuotas(res.Resources, quotaShares)
	shareClaims(res.Resources, claimBuilds)
	return res
}

// notePoolShared tells the workloads that share a NodePool's GPU limit when their maximums
// together pass it: each is capped alone, so the sum at full scale-out is more than the pool can
// ever launch.
func notePoolShared(np *nodePool, placed []int, rs []parser.Resource) {
	if len(placed) < 2 {
		return
	}
	for _, l := range np.limits {
		var want int64 // devices at every workload's maximum
		sharing := 0
		claims := map[string]bool{} // a shared claim's devices count once
		for _, i := range placed {
			r := &rs[i]
			if r.Pod.Resource != l.resource || r.Pod.SharedReplicas > 0 {
				continue
			}
			pods := r.Quantity
			if r.ScaleMax != nil {
				pods = max(pods, r.ScaleMax.Quantity)
			}
			want += r.Pod.LimitGPUs(pods, claims, func(claim string) string { return r.Root + "|" + claim })
			sharing++
		}
		if sharing < 2 || float64(want) <= l.amount {
			continue
		}
		for _, i := range placed {
			if r := &rs[i]; r.Pod.Resource == l.resource && r.Pod.SharedReplicas == 0 {
				r.SharedLimit = &parser.SharedLimit{Owner: np.address, What: "limit of " + l.text + " " + l.resource,
					Limit: l.amount, Unit: l.resource, PerInstance: float64(r.Pod.Requested)}
				if np.root != r.Root { // a pool of another file or kustomization read with it
					r.SharedLimit.Root = np.root
				}
				r.Note("shares %s's limit of %s %s with %d other workload%s: together they can use at most %s, not the %d their maximums add up to",
					np.address, l.text, l.resource, sharing-1, parser.Plural(int64(sharing-1)), l.text, want)
			}
		}
	}
}

// maxPods bounds one role's pods: a count beyond it is a typo, not a plan.
const maxPods = 100000

func roleLabel(r role) string {
	if r.name == "" {
		return "replicas "
	}
	return fmt.Sprintf("%s replicas ", r.name)
}

func specError(o *object, err error) parser.Error {
	if le, ok := err.(lineError); ok {
		return parser.Error{File: o.file, Line: le.line, Message: fmt.Sprintf("%s: %v", o.address(), le.err)}
	}
	e := yamlError(o.file, o.offset, o.line, err)
	e.Message = o.address() + ": " + strings.TrimPrefix(e.Message, "invalid YAML: ")
	return e
}

// releaseErrors places the errors in a release's values at the line of the values.
func releaseErrors(o *object, r ChartRelease, errs []error) []parser.Error {
	out := make([]parser.Error, 0, len(errs))
	for _, err := range errs {
		out = append(out, specError(o, lineError{line: r.Line, err: err}))
	}
	return out
}

// scaler is an HPA (or KEDA ScaledObject) and the floor of replicas it keeps.
type scaler struct {
	target      string // Kind/namespace/name
	minReplicas int
	maxReplicas int // 0 when none is declared
	source      string
	// crons are a ScaledObject's cron triggers, each a window of replicas; cronProblem says why
	// they cannot be read, when one cannot.
	crons       []schedule.Window
	cronNames   []string
	cronProblem string
}

func decodeScaler(o *object) (scaler, error) {
	var spec struct {
		ScaleTargetRef struct {
			Kind string `yaml:"kind"`
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		MinReplicas     *int          `yaml:"minReplicas"`
		MinReplicaCount *int          `yaml:"minReplicaCount"`
		MaxReplicas     *int          `yaml:"maxReplicas"`
		MaxReplicaCount *int          `yaml:"maxReplicaCount"`
		Triggers        []kedaTrigger `yaml:"triggers"` // a ScaledObject's
	}
	if err := decodeSpec(o, &spec); err != nil {
		return scaler{}, err
	}
	kind := spec.ScaleTargetRef.Kind
	if kind == "" {
		kind = "Deployment" // KEDA's default target kind
	}
	// An HPA must declare maxReplicas; a KEDA ScaledObject defaults it to 100.
	min, max := intOr(spec.MinReplicas, 1), intOr(spec.MaxReplicas, 0)
	if o.Kind == "ScaledObject" {
		min, max = intOr(spec.MinReplicaCount, 0), intOr(spec.MaxReplicaCount, 100)
	}
	if min < 0 || min > maxPods {
		return scaler{}, fmt.Errorf("minimum replicas %d is not a number of pods", min)
	}
	if max < 0 || max > maxPods {
		return scaler{}, fmt.Errorf("maximum replicas %d is not a number of pods", max)
	}
	s := scaler{target: kind + "/" + o.namespace() + "/" + spec.ScaleTargetRef.Name, minReplicas: min, maxReplicas: max, source: o.address()}
	s.readCronTriggers(spec.Triggers)
	return s, nil
}

// kedaTrigger is one of a KEDA ScaledObject's triggers (or of a Seldon component's kedaSpec,
// which Seldon makes a ScaledObject of).
type kedaTrigger struct {
	Type     string            `yaml:"type"`
	Name     string            `yaml:"name"`
	Metadata map[string]string `yaml:"metadata"`
}

// readCronTriggers reads the cron triggers among triggers into s's windows; the first that
// cannot be read sets s.cronProblem instead.
func (s *scaler) readCronTriggers(triggers []kedaTrigger) {
	for i, t := range triggers {
		if t.Type != "cron" {
			continue
		}
		name := orIndex(t.Name, "trigger", i)
		m := t.Metadata
		n, err := strconv.Atoi(strings.TrimSpace(m["desiredReplicas"]))
		switch {
		case m["start"] == "" || m["end"] == "":
			s.cronProblem = fmt.Sprintf("cron trigger %s has no start or end", name)
		case err != nil || n < 0 || n > maxPods:
			s.cronProblem = fmt.Sprintf("cron trigger %s: desiredReplicas %q is not a number of replicas", name, m["desiredReplicas"])
		}
		if s.cronProblem != "" {
			return
		}
		s.crons = append(s.crons, schedule.Window{Name: "cron trigger " + name, Cron: m["start"], Until: m["end"], TimeZone: m["timezone"], Floor: n})
		s.cronNames = append(s.cronNames, fmt.Sprintf("%s (%q to %q%s, %d replicas)", name, m["start"], m["end"], ", "+schedule.Zone(m["timezone"]), n))
	}
}

// cronReplicas replays a scaler's cron triggers (KEDA's: from start to end, at least
// desiredReplicas, within its maximum) over its floor, in replicas. ok is false, with a note on
// res saying why, when they cannot be replayed; the workload then keeps its floor.
// https://keda.sh/docs/latest/scalers/cron/
func cronReplicas(res *parser.Resource, s scaler) (schedule.Result, bool) {
	if s.cronProblem != "" {
		res.Note("the cron triggers of %s are not applied (%s): priced at its floor", s.source, s.cronProblem)
		return schedule.Result{}, false
	}
	if len(s.crons) == 0 {
		return schedule.Result{}, false
	}
	limit := s.maxReplicas
	if limit == 0 {
		limit = math.MaxInt32
	}
	out, err := schedule.Floors(s.minReplicas, limit, s.crons)
	if err != nil {
		res.Note("the cron triggers of %s cannot be replayed (%v): priced at its floor", s.source, err)
		return schedule.Result{}, false
	}
	return out, true
}

// inPods turns a schedule of replicas (from schedule.Floors, whose maximum holds all year: so no
// AverageMax, which schedule.Price reads only below the maximum) into one of pods, through pods
// (a role's pods for so many replicas, which need not be in proportion: a UnitedDeployment's
// subset with a fixed count takes none of the rest).
func inPods(r schedule.Result, pods func(int) int) schedule.Result {
	out := schedule.Result{MaxSize: pods(r.MaxSize), Runs: r.Runs}
	for i, n := range slices.Sorted(maps.Keys(r.Levels)) { // in order: the same sum every run
		p := pods(n)
		out.Average += float64(p) * r.Levels[n]
		if i == 0 {
			out.Peak, out.Low = p, p
		}
		out.Peak, out.Low = max(out.Peak, p), min(out.Low, p)
	}
	return out
}

// placement is where a role's pods land, beyond what their resource says: the Karpenter
// NodePool that launches their nodes (nil when none does), the Kueue flavors they may land
// on, one list for each resource group (none when Kueue does not admit them), and the node
// groups declared outside the manifests whose nodes run them (runsOn; none when no such group
// does).
type placement struct {
	pool    *nodePool
	flavors [][]kueueFlavor
	groups  []*NodeGroup
}

// buildRole makes the resource for one pod role, or nil when its pods request no GPU, and says
// where its pods land. beside, when set, is the role's pods and other roles' that Kueue's
// topology-aware scheduling puts on one node.
func buildRole(o *object, r role, all []role, nodes nodeSources, scalers map[string]scaler, claims *claimIndex, cms configMaps, opts Options) (*parser.Resource, placement, []parser.Error, []parser.Error, *besideSet) {
	var errs, warns []parser.Error
	req, perrs := podGPUs(r.template.Spec, o, claims)
	for _, e := range perrs {
		errs = append(errs, specError(o, e))
	}
	for _, m := range req.missing {
		warns = append(warns, parser.Error{File: o.file, Line: o.line,
			Message: fmt.Sprintf("%s: its pods claim devices through %s, which is not among the files read: GPUs it claims are not counted", o.address(), m)})
	}
	if req.count == 0 {
		return nil, placement{}, errs, warns, nil
	}
	addr := o.address()
	if r.name != "" && (len(all) > 1 || r.named) {
		addr += fmt.Sprintf("[%q]", r.name)
	}
	res := &parser.Resource{
		Address: addr, Root: o.rootName(), Source: parser.Location{File: o.file, Line: o.line}, Kind: parser.KindKubernetes, Type: o.Kind,
		Provider: parser.Unknown, Quantity: r.replicas, PurchaseOption: parser.OnDemand, RunsToCompletion: r.runsToCompletion,
		Pod: &parser.PodGPUs{Resource: req.resource, Requested: req.count, LargestContainer: req.largest, SharedClaims: req.shared, ClaimSharing: req.sharing,
			ClaimedOnly: (len(req.claimed) > 0 || len(req.draExtended) > 0) && !slices.Contains(req.extended, req.resource)},
	}
	gpuC := gpuContainer(r.template.Spec, req.claimed, req.draExtended)
	res.Pod.Serving = servingCommand(gpuC, o, cms)
	res.Pod.PyTorchAllocConf, res.Pod.PyTorchAllocConfFrom = pytorchAllocConf(gpuC, o, cms)
	if strings.HasPrefix(req.resource, ResourceNvidiaMIG) {
		// A time-sliced slice renamed by the device plugin (nvidia.com/mig-1g.5gb.shared) is
		// still that slice.
		res.Pod.MIGProfile = strings.TrimSuffix(strings.TrimPrefix(req.resource, ResourceNvidiaMIG), ".shared")
	}
	cpu, mem, cerrs := podCompute(r.template.Spec, o)
	for _, e := range cerrs {
		errs = append(errs, specError(o, e))
	}
	// Millicores, and GiB to the hundredth: without float noise in the output.
	res.Pod.CPU, res.Pod.MemoryGiB = math.Round(cpu*1000)/1000, math.Round(mem/(1<<30)*100)/100
	if o.note != "" {
		res.Note("%s", o.note)
	}
	if r.note != "" {
		res.Note("%s", r.note)
	} else if r.replicas == 0 && r.unscaledNote == "" {
		res.Note("0 pods: scaled to zero, no cost while it stays so")
	}
	for _, n := range req.notes {
		res.Note("%s", n)
	}
	annotations := map[string]string{}
	for k, v := range r.template.Metadata.Annotations {
		annotations[k] = v
	}
	for k, v := range o.Metadata.Annotations {
		annotations[k] = v // the workload's own annotations win over its pod template's
	}
	labels := map[string]string{}
	for k, v := range r.template.Metadata.Labels {
		labels[k] = v
	}
	for k, v := range o.Metadata.Labels {
		labels[k] = v
	}
	if len(labels) > 0 {
		res.Tags = labels
	}
	if p := annotations[AnnotationProfile]; p != "" {
		res.Profile = p
	}
	if v, ok := annotations[AnnotationIgnore]; ok {
		res.Suppressions = parser.ParseSuppressionAnnotation(v, res.Source)
	}
	var scheduled schedule.Result // the pods a scaler's cron triggers run, when scheduledBy is set
	var scheduledBy scaler
	switch {
	case r.daemonSet:
		n, ok := opts.DaemonSetNodes[addr]
		if !ok {
			n, ok = opts.DaemonSetNodes[o.Metadata.Name]
		}
		if ok {
			res.Quantity = n
			res.Note("DaemonSet on %d nodes (config kubernetes.daemonset_nodes)", n)
		} else {
			res.Note("DaemonSet: one pod per matching node; priced at 1 node (set kubernetes.daemonset_nodes in the config)")
		}
	case r.scalable:
		s, ok := scalers[o.root+"|"+o.address()]
		if ok && r.share != nil {
			lo, err := r.share(s.minReplicas)
			hi := 0
			if err == nil && s.maxReplicas > 0 {
				hi, err = r.share(s.maxReplicas)
			}
			if err != nil {
				errs = append(errs, specError(o, fmt.Errorf("scaled by %s: %w", s.source, err)))
				break
			}
			res.Quantity = lo
			res.Note("%d pod%s: its share of the minReplicas (%d) of %s, the floor an autoscaler always runs", lo, parser.Plural(int64(lo)), s.minReplicas, s.source)
			if s.maxReplicas > 0 {
				r.maxPods, r.maxFrom = hi, fmt.Sprintf("its share of the maxReplicas (%d) of %s", s.maxReplicas, s.source)
			}
			if rs, applied := cronReplicas(res, s); applied {
				scheduled = inPods(rs, func(n int) int { p, _ := r.share(min(n, maxPods)); return p })
				scheduledBy = s
			}
		} else if ok {
			res.Quantity = s.minReplicas * max(1, r.perReplica)
			res.Note("%d pod%s: the minReplicas (%d) of %s, the floor an autoscaler always runs", res.Quantity, parser.Plural(int64(res.Quantity)), s.minReplicas, s.source)
			if s.maxReplicas > 0 {
				r.maxPods, r.maxFrom = s.maxReplicas*max(1, r.perReplica), "maxReplicas of "+s.source
			}
			if rs, applied := cronReplicas(res, s); applied {
				scheduled = inPods(rs, func(n int) int { return min(n, maxPods) * max(1, r.perReplica) })
				scheduledBy = s
			}
		} else if r.unscaledNote != "" {
			res.Note("%s", r.unscaledNote)
		}
	case r.ownScaler != nil:
		// The kind's own autoscaler (a Seldon component's kedaSpec) has cron triggers: its
		// floor is the role's replicas, its ceiling the role's maxPods.
		if rs, applied := cronReplicas(res, *r.ownScaler); applied {
			scheduled = inPods(rs, func(n int) int { return min(n, maxPods) })
			scheduledBy = *r.ownScaler
		}
	}
	if r.maxPods > maxPods {
		errs = append(errs, specError(o, fmt.Errorf("%s: %d is not a number of pods", r.maxFrom, r.maxPods)))
	} else if r.maxPods > 0 {
		res.SetScaleMax(r.maxPods, r.maxFrom)
	}
	if scheduledBy.source != "" {
		schedule.Price(res, scheduled, "the cron triggers of "+scheduledBy.source+": "+strings.Join(scheduledBy.cronNames, ", "), "pod")
	}
	hoursFromManifest(res, r, annotations, o, &errs)
	if r.cloudRun != nil {
		onCloudRunInstances(res, r.cloudRun, o)
		return res, placement{}, errs, warns, nil
	}
	most := res.Quantity
	if res.ScaleMax != nil {
		most = max(most, res.ScaleMax.Quantity)
	}
	adm := nodes.kueue.admit(o, r, all, most)
	beside := adm.beside
	if adm.pods > 0 {
		res.Quantity = adm.pods
	}
	if adm.together > 0 && res.Pod != nil {
		res.Pod.Together, res.Pod.TogetherWhy, res.Pod.TogetherAdmitted = adm.together, adm.togetherWhy, true
	}
	if n := adm.atOnce; n > 0 {
		if m := capPods(res, n, adm.by); m != nil {
			res.Note("at most %d pod%s at full scale-out, not the %d of the %s: Kueue admits no more at once from %s", n, parser.Plural(int64(n)), m.Quantity, m.From, adm.by)
		}
		if res.Quantity > n {
			warns = append(warns, parser.Error{File: res.Source.File, Line: res.Source.Line,
				Message: fmt.Sprintf("%s runs %d pod%s, but Kueue admits at most %d at once from %s: the others stay gated (priced as declared)", res.Address, res.Quantity, parser.Plural(int64(res.Quantity)), n, adm.by)})
		}
	}
	if adm.refused != "" {
		warns = append(warns, parser.Error{File: res.Source.File, Line: res.Source.Line, Message: res.Address + ": " + adm.refused})
	}
	np, groups, stuck := resolveNode(res, r, o, nodes, req, adm, opts)
	at := placement{pool: np, flavors: adm.flavors, groups: groups}
	if stuck == "" {
		stuck = offZones(&r.template, at)
	}
	for _, u := range req.selection.unread {
		res.Note("a DRA selector gpuguard does not narrow the node by: %s", u)
	}
	if stuck != "" {
		warns = append(warns, parser.Error{File: res.Source.File, Line: res.Source.Line, Message: res.Address + ": " + stuck})
	}
	if np != nil && np.noGPUDriver != "" && res.Pod != nil && strings.HasPrefix(res.Pod.Resource, "nvidia.com/") {
		// No node group is billed for Karpenter's nodes: the pods carry the finding (GPU012).
		res.NoGPUDriver = fmt.Sprintf("Karpenter launches them from %s, whose %s", np.address, np.noGPUDriver)
	}
	if np != nil {
		if w, ok := capByPoolLimits(res, np); ok {
			warns = append(warns, w)
		}
		if res.InstanceType != "" && !np.allowsType(res.InstanceType) {
			warns = append(warns, parser.Error{File: res.Source.File, Line: res.Source.Line,
				Message: fmt.Sprintf("%s pins %s, which %s's requirements do not allow: Karpenter would leave its pods pending (priced as declared)", res.Address, res.InstanceType, np.address)})
		}
	}
	return res, at, errs, warns, beside
}

// capByPoolLimits bounds the pods at full scale-out by what the NodePool they land on may launch
// (spec.limits), and warns when even the declared floor does not fit.
func capByPoolLimits(res *parser.Resource, np *nodePool) (parser.Error, bool) {
	n, by, ok := np.podsWithin(res.Pod)
	if !ok {
		return parser.Error{}, false
	}
	limit := fmt.Sprintf("%s's limits (%s: %s)", np.address, by.resource, by.text)
	if m := capPods(res, n, limit); m != nil {
		res.Note("at most %d pod%s at full scale-out, not the %d of the %s: %s let Karpenter launch nodes for no more", n, parser.Plural(int64(n)), m.Quantity, m.From, limit)
	}
	if res.Quantity <= n {
		return parser.Error{}, false
	}
	return parser.Error{File: res.Source.File, Line: res.Source.Line,
		Message: fmt.Sprintf("%s runs %d pod%s, but %s let Karpenter launch nodes for at most %d: the others would stay pending (priced as declared)",
			res.Address, res.Quantity, parser.Plural(int64(res.Quantity)), limit, n)}, true
}

// cappedBy joins what declares a maximum and the limit that caps it in scale_max.from.
const cappedBy = ", capped by "

// capPods caps a workload's pods at full scale-out at n, by (a limit, for scale_max.from), and
// returns the maximum it had when that was above n (nil when it was not): no maximum is left
// when n is not above the floor. scale_max.from names what declares the maximum and only the
// limit that binds: a cap already there is replaced (the notes say each in turn).
func capPods(res *parser.Resource, n int, by string) *parser.ScaleMax {
	m := res.ScaleMax
	if m == nil || m.Quantity <= n {
		return nil
	}
	res.ScaleMax = nil
	if n > res.Quantity {
		declared, _, _ := strings.Cut(m.From, cappedBy)
		res.ScaleMax = &parser.ScaleMax{Quantity: n, From: declared + cappedBy + by}
	}
	return m
}

// hoursFromManifest sets the hours a workload runs: the annotation wins, then a CronJob's
// schedule × activeDeadlineSeconds. Batch kinds with neither are left for the config's usage or
// the estimator's 730-hour default with a note; one that runs once under a deadline
// (activeDeadlineSeconds) is given that bound (RunHours), which the config's usage overrides.
// HoursAnnotation reads the value of the AnnotationHours annotation: hours a month, more than 0
// and at most 744 (the longest month).
func HoursAnnotation(v string) (float64, error) {
	h, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || h <= 0 || h > 744 || math.IsNaN(h) {
		return 0, fmt.Errorf("annotation %s=%q: hours must be a number between 0 and 744", AnnotationHours, v)
	}
	return h, nil
}

func hoursFromManifest(res *parser.Resource, r role, annotations map[string]string, o *object, errs *[]parser.Error) {
	if v, ok := annotations[AnnotationHours]; ok {
		h, err := HoursAnnotation(v)
		if err != nil {
			*errs = append(*errs, parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s: %v", o.address(), err)})
		} else {
			res.HoursPerMonth, res.CalendarHours = h, false
			res.Note("%g hours a month from annotation %s", h, AnnotationHours)
			return
		}
	}
	if r.cron == nil {
		if d := r.deadline; d != nil && *d > 0 && r.runsToCompletion {
			res.RunHours = float64(*d) / 3600
			res.Note("%s: %s %d bounds a run (retries included) to %.2f hours", o.Kind, r.deadlineField, *d, res.RunHours)
		}
		return
	}
	runs, err := runsPerMonth(r.cron.schedule, r.cron.timeZone)
	if err != nil {
		*errs = append(*errs, parser.Error{File: o.file, Line: r.cron.line, Message: fmt.Sprintf("%s: %v", o.address(), err)})
		res.AddUnresolved("schedule", err.Error())
		return
	}
	if r.cron.noDeadline != "" {
		res.Note("%s runs %.1f times a month; %s to bound a run", o.Kind, runs, r.cron.noDeadline)
		return
	}
	if r.cron.deadlineSeconds == nil || *r.cron.deadlineSeconds <= 0 {
		res.Note("%s runs %.1f times a month but no activeDeadlineSeconds bounds a run", o.Kind, runs)
		return
	}
	hours := runs * float64(*r.cron.deadlineSeconds) / 3600
	if r.cron.concurrencyPolicy == "Forbid" || r.cron.concurrencyPolicy == "Replace" {
		hours = math.Min(hours, 730)
	}
	res.HoursPerMonth, res.CalendarHours = math.Round(hours*100)/100, true
	res.Note("%s: %.1f runs a month × activeDeadlineSeconds %d (an upper bound per run) = %.2f hours", o.Kind, runs, *r.cron.deadlineSeconds, res.HoursPerMonth)
}

// rooted is a cluster-wide object with the root (kustomization or file) that declares it.
type rooted[T any] struct {
	root string
	v    T
}

// nearestOf returns the object of those of one name declared nearest podRoot (its cluster's,
// by the rule nearestBy follows), the first declared among equally near ones; the zero value
// when there is none.
func nearestOf[T any](objs []rooted[T], podRoot string) T {
	if near, _ := nearestBy(objs, func(o rooted[T]) string { return o.root }, podRoot); len(near) > 0 {
		return near[0].v
	}
	var zero T
	return zero
}

// nodeSources are the cluster-wide objects that decide where pods run.
type nodeSources struct {
	pools   nodePools                          // Karpenter NodePools, by name
	classes map[string][]rooted[*computeClass] // GKE ComputeClasses by name
	kueue   *kueueIndex                        // Kueue queues and flavors
	groups  *groupIndex                        // node groups declared outside the manifests
	sharing *pluginSharing                     // NVIDIA device plugin configs that share GPUs
	layouts MIGLayouts                         // MIG layouts of mig-parted configs
}

// resolveNode decides what is known of the node: exact labels first (with those of the Kueue
// flavor a queued workload is admitted to), then the GKE ComputeClass the pod selects or a
// matching Karpenter NodePool, then the config's default instance type. It returns the
// NodePool the pods land on, when one places them, and a warning when the only node groups the
// pod selects keep it off with their taints.
//
// req is what the pod requests: the tolerations the ExtendedResourceToleration admission
// controller adds for the extended resources its containers request count with the pod's own,
// and its DRA claims' selectors narrow the node where its labels do not.
func resolveNode(res *parser.Resource, r role, o *object, nodes nodeSources, req gpuRequest, adm kueueAdmission, opts Options) (pool *nodePool, runs []*NodeGroup, stuck string) {
	sel := podSelector(r.template.Spec)
	tols := withExtendedResourceTolerations(r.template.Spec.Tolerations, req.extended)
	origin := "nodeSelector/affinity"
	for _, note := range adm.notes {
		res.Note("%s", note)
	}
	if f := adm.flavor; f != nil {
		sel, tols = withFlavor(sel, tols, f)
		origin = "nodeSelector/affinity and Kueue ResourceFlavor " + f.name
	}
	n := fromSelector(sel, origin)
	if adm.flexStart != "" {
		// GKE's queued provisioning starts the pods' nodes as flex-start VMs.
		n.ownPrice, n.provider = parser.FlexStart(), parser.GCP
		n.addSource(adm.flexStart)
		res.Note("%s provisions its nodes through GKE's queued provisioning (Dynamic Workload Scheduler): flex-start VMs, billed below the on-demand price", adm.flexStart)
	}
	if refused := req.selection.onNode(&n, fromClaimSelectors, opts.GPUs); refused != "" {
		stuck = "its pods' labels and their DRA claims ask for different GPUs: the claims select " + refused + ", so the scheduler leaves the pods pending"
		res.Note("its labels and its DRA claims ask for different GPUs: the claims select %s, so the scheduler leaves the pod pending; priced from its labels", refused)
	}
	placed := false // by a NodePool or ComputeClass, whose cloud is known
	unplaced := ""  // why the ComputeClass the pod selects cannot say its node
	if v, ok := sel.values(labelComputeClass); ok && len(v) == 1 && len(n.instanceTypes) != 1 {
		if cc := nearestOf(nodes.classes[v[0]], res.Root); cc == nil && builtInComputeClasses[v[0]] {
			res.Note("ComputeClass %s is built into GKE (Autopilot): the node comes from the pod's own labels, priced at Compute Engine rates (Autopilot's own rates for the class may differ)", v[0])
			if v[0] == "autopilot-spot" {
				n.purchase, n.provider = parser.Spot, parser.GCP
			}
		} else if cc == nil {
			res.Note("ComputeClass %s is not among the files read: the node comes from the pod's own labels", v[0])
		} else if c, why := cc.place(sel); why != "" {
			n, unplaced = nodeChoice{provider: parser.GCP}, why
		} else {
			n, placed = c, true
			switch len(cc.rules) {
			case 1:
			case 2:
				res.Note("priced at the first priority rule of %s; its second rule is a fallback GKE uses when that capacity is not available", cc.address)
			default:
				res.Note("priced at the first priority rule of %s; its other %d rules are fallbacks GKE uses when that capacity is not available", cc.address, len(cc.rules)-1)
			}
		}
	}
	// A node group declared with the manifests that the pod selects by its labels (the cloud's
	// group-name label, a label the group declares) runs the pod's nodes.
	groups := nodes.groups.selectGroups(req.selection.onSelector(sel), tols, n.provider)
	if len(n.instanceTypes) == 1 {
		groups = groups.running(n.instanceTypes[0])
	}
	if zones, ok := sel.values(zoneKeys...); ok && zones != nil {
		groups = groups.inZones(zones, res.Root)
	}
	pools := nodes.pools.near(res.Root) // the Karpenter NodePools of the pod's cluster
	groupsWhy := ""                     // why the pod's selection of node groups gives no node
	var onGroup *NodeGroup              // the group whose nodes run the pod, when one does
	if groups.used && !placed && unplaced == "" {
		if p := groups.group(res.Root); p.g == nil {
			groupsWhy = p.why
		} else if g, on := p.g, p.on; len(n.instanceTypes) == 1 && n.instanceTypes[0] != g.InstanceType {
			carry, that := "carries", "that group does"
			if len(on) > 1 {
				carry, that = "carry", "those groups do"
			}
			res.Note("the pod selects %s, which %s %s, but pins %s, which %s not run: priced at %s", groups.selects, addresses(on), carry, n.instanceTypes[0], that, n.instanceTypes[0])
		} else {
			onGroup = g
			n = nodeChoice{provider: g.Provider, instanceTypes: []string{g.InstanceType}, gpuNames: g.acceleratorTypes(), purchase: g.Purchase, region: g.Region, ownPrice: g.OwnPrice}
			n.addSource(fmt.Sprintf("%s (the pod selects %s)", addresses(on), groups.selects))
			runsOn(res, on)
			runs = on
			placed, stuck = true, p.stuck
			if p.off != "" {
				res.Note("the pod also selects %s, whose taints keep it off", p.off)
			}
			if p.near != "" {
				res.Note("%s", p.near)
			}
		}
	}
	if len(n.instanceTypes) != 1 && !placed && unplaced == "" {
		np, passed := matchNodePool(pools, sel, tols, poolHasType(res, sel, req.selection, nodes, opts.GPUs))
		if len(passed) > 0 {
			admit, whose := "admits", "the pool's" // passed, not the pools in the scan
			if len(passed) > 1 {
				admit, whose = "admit", "the pools'"
			}
			why := fmt.Sprintf("%s %s the pod's labels, but none of the catalog types %s requirements allow meets the pod's selection and holds its request", poolAddresses(passed), admit, whose)
			if np != nil {
				res.Note("%s: Karpenter launches its nodes from %s, the next pool by weight", why, np.address)
			} else {
				res.Note("%s: Karpenter leaves the pod pending unless a pool not among the files takes it; the node comes from the pod's own labels", why)
				stuck = fmt.Sprintf("%s %s its pods' labels, but none of the catalog types %s requirements allow meets their selection and holds their request: %s",
					poolAddresses(passed), admit, whose, pendingOnNoPool)
			}
		}
		if np != nil {
			placed, pool = true, np
			merged := np.nodeFor(sel)
			req.selection.onNode(&merged, fromClaimSelectors, opts.GPUs) // the pool passed poolHasType: the claims take its GPUs
			if n.purchase != "" && merged.purchase == "" {
				merged.purchase = n.purchase
			}
			if n.region != "" {
				merged.region = n.region
			}
			n = merged
			n.addSource(np.address)
		} else if refused := gpuPoolsOn(pools, n.provider); len(refused) > 0 && len(passed) == 0 && !namesManagedGroup(sel) {
			res.Note("no NodePool among the files admits the pod (%s: their requirements or taints exclude its selection): Karpenter leaves it pending unless a pool not among the files takes it; the node comes from the pod's own labels", strings.Join(refused, ", "))
			stuck = fmt.Sprintf("no NodePool among the files admits its pods (%s: their requirements or taints exclude their selection): %s", strings.Join(refused, ", "), pendingOnNoPool)
		}
	}
	if len(n.instanceTypes) == 1 && !placed && unplaced == "" {
		// The pod pins its instance type and names its NodePool, or a pool names the type or
		// its family: the pool still decides the capacity type and region, and its limits bound
		// the pods.
		var np *nodePool
		if v, ok := sel.values(labelKarpenterPool); ok && len(v) == 1 {
			np, _ = matchNodePool(pools, sel, tols, nil)
		} else if np = matchPinnedPool(pools, sel, tols, n.instanceTypes[0]); np != nil {
			res.Note("%s names %s in its requirements: Karpenter launches the pods' %s nodes from it, with its capacity type and limits", np.address, np.namesType(n.instanceTypes[0]), n.instanceTypes[0])
		}
		if np != nil {
			pool = np
			merged := fromSelector(np.merge(sel), np.address)
			if n.purchase == "" && merged.purchase != "" {
				n.purchase = merged.purchase
				n.addSource(np.address)
			}
			if n.region == "" {
				n.region = merged.region
			}
		}
	}
	if !res.Pod.ClaimedOnly {
		res.Pod.SharedReplicas = n.sharedReplicas
	}
	if res.Pod.SharedReplicas > 1 {
		res.Pod.SharingStrategy, res.Pod.SharedOneUnit = gkeSharing(n.sharingGKE), true
	}
	res.OwnPrice = n.ownPrice
	var anyGroup *NodeGroup // the node groups' one kind of node, for a pod that names none
	var anyOn []*NodeGroup  // the groups that run it
	var anyOff []refusal    // the groups whose taints keep the pod off
	if opts.AnyNodeGroup && !placed && !groups.used {
		anyGroup, anyOn, anyOff = nodes.groups.anyGroup(n.provider, tols)
	}
	if n.purchase != "" {
		res.PurchaseOption = n.purchase
	}
	res.Region = n.region
	switch {
	case len(n.instanceTypes) == 1:
		res.InstanceType = n.instanceTypes[0]
		res.Provider = parser.ProviderOfInstanceType(res.InstanceType)
		keepAttachedGPU(res, n)
	case n.narrowed() || placed && n.provider != "":
		n.onPod(res.Pod)
		for _, src := range n.excludedFrom {
			n.addSource(src)
		}
		res.Provider = n.provider
		if res.Provider == "" && len(n.instanceTypes) > 0 {
			res.Provider = parser.ProviderOfInstanceType(n.instanceTypes[0])
		}
	case opts.DefaultInstanceType != "":
		res.InstanceType = opts.DefaultInstanceType
		res.Provider = parser.ProviderOfInstanceType(res.InstanceType)
		n.addSource("config kubernetes.default_instance_type")
		keepAttachedGPU(res, n)
	case unplaced != "":
		res.AddUnresolved("node", unplaced)
	case anyGroup != nil:
		g := anyGroup
		onGroup = g
		res.InstanceType, res.Provider = g.InstanceType, g.Provider
		if res.Region == "" {
			res.Region = g.Region
		}
		if n.purchase == "" {
			res.PurchaseOption = g.Purchase
		}
		if n.ownPrice == nil {
			res.OwnPrice = g.OwnPrice
		}
		if strings.HasPrefix(g.InstanceType, "n1-") {
			res.Pod.GPUNames = g.acceleratorTypes()
		}
		runsOn(res, anyOn)
		runs = anyOn
		switch {
		case len(opts.NodeGroups) == 1:
			n.addSource(g.name() + ", the configuration's only GPU node group")
		case len(anyOff) > 0:
			n.addSource(fmt.Sprintf("the configuration's GPU node groups whose taints the pod tolerates (%s), all of %s; not %s", addresses(anyOn), g.InstanceType, refusals(anyOff)))
		default:
			n.addSource(fmt.Sprintf("the configuration's GPU node groups (%s), all of %s", addresses(anyOn), g.InstanceType))
		}
	case len(anyOff) > 0 && len(anyOff) == len(nodes.groups.all):
		res.AddUnresolved("node", fmt.Sprintf("the pod names no node, and does not tolerate the taints of the configuration's GPU node groups (%s): add a toleration, or name the node with node.kubernetes.io/instance-type (nodeSelector or affinity)", refusals(anyOff)))
	case groupsWhy != "":
		res.AddUnresolved("node", groupsWhy+": name the node with node.kubernetes.io/instance-type (nodeSelector or affinity), or set kubernetes.default_instance_type in the config")
		groupsWhy = ""
	default:
		res.AddUnresolved("node", "the pod names no node: set node.kubernetes.io/instance-type (nodeSelector or affinity), a Karpenter or GKE accelerator label, or kubernetes.default_instance_type in the config")
	}
	if groupsWhy != "" {
		// The node came from elsewhere (the pod's own labels, a NodePool, the config).
		res.Note("%s", groupsWhy)
	}
	if why := claimRefusesNode(res, req.selection, opts.GPUs); why != "" && stuck == "" {
		stuck = "its DRA claims select " + why + ": the scheduler leaves its pods pending"
		res.Note("its DRA claims select %s: the scheduler leaves the pod pending there", why)
	}
	res.Pod.GPUComputeFloor = computeFloor(req.selection, sel)
	podUnit(res, sel, pool, onGroup, nodes)
	if res.Provider == "" {
		res.Provider = parser.Unknown
	}
	res.Pod.NodeSource = strings.Join(n.source, ", ")
	return pool, runs, stuck
}

// claimRefusesNode says what a pod's DRA claims select that the GPUs of its node's instance
// type are not ("" when they are, or when the type or its GPUs are not known): a pod pinned to a
// type, or run by a node group, whose GPUs its claims cannot take.
func claimRefusesNode(res *parser.Resource, s deviceSelection, gpus GPUCatalog) string {
	if gpus == nil || res.InstanceType == "" || s.empty() {
		return ""
	}
	g, ok := gpus.NodeGPUs(res.Provider, res.InstanceType, nil)
	if !ok {
		return ""
	}
	if why := s.refuses(g, gpus); why != "" {
		return fmt.Sprintf("%s, which the GPUs of %s (%s) are not", why, res.InstanceType, g.Key)
	}
	return ""
}

// podUnit settles what one unit of the pod's GPU resource is on its nodes (the NodePool or node
// group that runs them, either nil): a MIG slice where their GPUs are split (gpuUnitOnGroup, the
// pool's Bottlerocket settings), a share of a GPU or slice where the device plugin or GKE shares
// them (pluginSharing.apply).
func podUnit(res *parser.Resource, sel selector, pool *nodePool, group *NodeGroup, nodes nodeSources) {
	if res.Pod.ClaimedOnly {
		return // a DRA driver's devices: neither the device plugin's units nor the layout's slices
	}
	unitSel := sel
	if pool != nil && pool.requirements.allowed[LabelMIGConfig] != nil {
		unitSel = pool.merge(sel) // the NodePool's template labels are its nodes'
	}
	gpuUnitOnGroup(res, unitSel, group, nodes.layouts)
	pool.bottlerocketSlice(res)
	if nodes.sharing != nil {
		nodes.sharing.apply(res, sel, pool, group)
	}
	sharedProductNote(res)
}

// pendingOnNoPool ends the warning for pods no NodePool among the files launches nodes for.
const pendingOnNoPool = "Karpenter leaves them pending unless a NodePool not among the files takes them (priced from their own labels)"

// poolHasType returns whether a NodePool has an instance type for a pod with this selection:
// the catalog (Options.GPUs) holds one that the pool's requirements, the pod's selection and its
// DRA claims' selectors allow and that holds the pod's request, each unit of it what the pool's
// nodes make it (podUnit: a MIG slice, a share of a GPU). Nil (every pool has one) without a
// catalog.
func poolHasType(res *parser.Resource, sel selector, claimed deviceSelection, nodes nodeSources, gpus GPUCatalog) func(*nodePool) bool {
	if gpus == nil {
		return nil
	}
	return func(np *nodePool) bool {
		n := np.nodeFor(sel)
		if claimed.onNode(&n, fromClaimSelectors, gpus) != "" {
			return false
		}
		pod := *res.Pod
		n.onPod(&pod)
		if !pod.ClaimedOnly {
			pod.SharedReplicas = n.sharedReplicas
		}
		trial := parser.Resource{Address: res.Address, Pod: &pod} // its notes are dropped
		if len(n.instanceTypes) == 1 {
			trial.InstanceType = n.instanceTypes[0]
		}
		podUnit(&trial, sel, np, nil, nodes)
		return gpus.Offers(n.provider, &pod)
	}
}

func poolAddresses(pools []*nodePool) string {
	out := make([]string, len(pools))
	for i, np := range pools {
		out[i] = np.address
	}
	return strings.Join(out, ", ")
}

// gpuUnitOnGroup makes each nvidia.com/gpu a pod requests one MIG slice where its nodes' GPUs
// are split into slices: the pod selects GKE's partition label, or runs on a node group that
// declares a partition (GKE's gpu_partition_size, AKS's gpu_instance, ARM's
// gpuInstanceProfile). GKE advertises each slice as an nvidia.com/gpu; so does NVIDIA's device
// plugin with the single MIG strategy, and with the mixed one a node whose GPUs are all split
// advertises only nvidia.com/mig-<profile>, so a pod that asks for nvidia.com/gpu there asks
// for slices. The slice is priced as its share of the GPU, and a workload profile is judged
// against its memory. Likewise a pod on a group whose GPUs, or their slices, are shared
// (gpu_sharing_config) pays the share of one each unit is, as one that selects the sharing label
// does.
// https://github.com/NVIDIA/k8s-device-plugin (MIG strategies)
func gpuUnitOnGroup(res *parser.Resource, sel selector, g *NodeGroup, layouts MIGLayouts) {
	if res.Pod.Resource != ResourceNvidiaGPU || res.Pod.MIGProfile != "" {
		return
	}
	var groupPartition, groupLayout string
	if g != nil {
		groupPartition = cmp.Or(g.GPUPartition, g.Labels[LabelGKEGPUPartition])
		// The group's MIG manager layout, unless the group declares a partition of its own.
		// Its own configuration reads the label with the default layouts, or with the custom
		// ones it declares itself.
		if l := g.Labels[LabelMIGConfig]; l != "" {
			def, _ := MIGLayoutSlice(l)
			custom, _, from := layouts.Slice(l)
			if groupPartition == "" || groupPartition == def || from != "" && groupPartition == custom {
				groupLayout = l
			}
		}
	}
	if v, ok := sel.values(LabelGKEGPUPartition); ok && len(v) == 1 {
		res.Pod.MIGProfile = v[0]
		res.Note("the pod selects %s=%s: each nvidia.com/gpu it requests is one MIG %s slice", LabelGKEGPUPartition, v[0], v[0])
	} else if v, ok := sel.values(LabelMIGConfig); ok && len(v) == 1 && groupPartition == "" {
		if slice, why, from := layouts.Slice(v[0]); slice != "" {
			res.Pod.MIGProfile = slice
			if from != "" {
				from = " (as " + from + " declares it)"
			}
			res.Note("its nodes are labelled %s=%s: the GPU Operator's MIG manager splits their GPUs into %s slices%s, and each nvidia.com/gpu the pod requests is one", LabelMIGConfig, v[0], slice, from)
		} else if why != "" {
			res.Note("its nodes are labelled %s=%s, which %s", LabelMIGConfig, v[0], why)
		}
	} else if slice, why, from := layouts.Slice(groupLayout); from != "" {
		// The group's layout is a custom one of a mig-parted config among the manifests, which
		// its own configuration could not read (or read as the default config's of that name).
		res.Pod.MIGProfile = slice
		if slice != "" {
			res.Note("%s labels its nodes %s=%s: the GPU Operator's MIG manager splits their GPUs into %s slices (as %s declares it), and each nvidia.com/gpu the pod requests is one", g.name(), LabelMIGConfig, groupLayout, slice, from)
		} else {
			if why == "" {
				why = from + " declares with MIG disabled: the GPUs are whole"
			}
			res.Note("%s labels its nodes %s=%s, which %s", g.name(), LabelMIGConfig, groupLayout, why)
		}
	} else if groupPartition != "" {
		res.Pod.MIGProfile = groupPartition
		res.Note("%s splits its GPUs into MIG slices (%s): each nvidia.com/gpu the pod requests is one", g.name(), groupPartition)
	}
	if g == nil {
		return
	}
	if n, err := strconv.Atoi(g.Labels[LabelGKESharedClients]); err == nil && n > 1 && res.Pod.SharedReplicas == 0 {
		// GKE time-shares MIG slices as it does whole GPUs: each slice between up to n.
		// https://cloud.google.com/kubernetes-engine/docs/how-to/timesharing-gpus
		res.Pod.SharedReplicas, res.Pod.SharingStrategy, res.Pod.SharedOneUnit = n, gkeSharing(g.Labels[LabelGKESharingStrategy]), true
		res.Note("%s shares each %s between up to %d containers (gpu_sharing_config): each nvidia.com/gpu the pod requests is that share of one", g.name(), res.Pod.UnitDevice(), n)
	}
}

// GKE's GPU sharing, time-sharing or MPS, refuses a container more than one nvidia.com/gpu (the
// kubelet fails the pod: "at most 1 nvidia.com/gpu can be requested on GPU nodes"), so a pod on
// its shared GPUs takes SharedOneUnit.
// https://cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus
//
// gkeSharing is the strategy of GKE's GPU sharing label as a pod's SharingStrategy: only
// time-sharing, which isolates no memory (each container may use all of it) as NVIDIA's
// time-slicing does. GKE's MPS is left unnamed: how it splits memory is not read here.
// https://cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus
func gkeSharing(label string) string {
	if label == "time-sharing" {
		return parser.SharingGKETimeSharing
	}
	return ""
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// resolve builds the roles of a workload whose pods other objects describe, from those found
// among the files read, and answers the ones that are absent. When none is found, the
// workload's fallback (if any) prices it from its own fields, and then nothing is said absent.
func resolve(o *object, ref *reference, referable map[string]*object) ([]role, []string, error) {
	found := map[string]*object{}
	var absent []string
	for _, k := range ref.refs {
		if obj, ok := referable[o.root+"|"+k]; ok {
			found[k] = obj
		} else if obj, ok := referable["|"+k]; ok {
			found[k] = obj
		} else {
			absent = append(absent, k)
		}
	}
	if len(found) == 0 && ref.fallback != nil {
		if roles, err := ref.fallback(); err != nil || len(roles) > 0 {
			return roles, nil, err
		}
	}
	roles, err := ref.build(found)
	return roles, absent, err
}

// keepAttachedGPU keeps the GPU a pod's labels name when its node type is a GCP N1 machine: N1
// VMs have no GPUs of their own, GKE attaches the accelerator its node pool names
// (cloud.google.com/gke-accelerator), and the estimator prices the two together.
func keepAttachedGPU(res *parser.Resource, n nodeChoice) {
	if strings.HasPrefix(res.InstanceType, "n1-") && len(n.gpuNames) > 0 {
		res.Pod.GPUNames = n.gpuNames
	}
}
