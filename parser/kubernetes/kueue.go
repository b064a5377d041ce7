package kubernetes

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Kueue queues batch workloads and admits them onto resource flavors: a Job labelled
// kueue.x-k8s.io/queue-name names a LocalQueue, which feeds a ClusterQueue, whose resource
// groups list flavors in the order Kueue tries them; an admitted workload's pods get the
// flavor's node labels and tolerations.
// https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/#flavors-and-resources
//
// gpuguard assigns flavors as Kueue's flavor assigner does in an empty cluster (no other
// workload admitted): for each resource the pods request, the resource group that covers it,
// and in that group the first flavor that the pods tolerate (its nodeTaints), whose node labels
// their node selection allows (on the label keys the group's flavors use), and whose quota
// holds the workload's whole request of every covered resource: its nominalQuota, plus what it
// may borrow through its cohort (what the cohort's other ClusterQueues lend, their
// nominalQuota or lendingLimit, and a Cohort object's own quota and its parents', as Kueue's
// hierarchical cohorts count it, up to each borrowingLimit on the way). With flavorFungibility.whenCanBorrow: TryNextFlavor a flavor that
// fits only by borrowing is taken when no later one fits without. Kueue never admits a
// workload that requests a resource no group covers, for which no flavor of a group fits, or
// whose namespace its ClusterQueue's namespaceSelector does not select (left out, it selects
// none): it stays suspended, which is a warning (priced as declared, as a quota's refusal is).
// https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/#flavors-and-borrowing-semantics and
// https://kueue.sigs.k8s.io/docs/concepts/cohort/, read 2026-11.
const labelQueueName = "kueue.x-k8s.io/queue-name"

type kueueIndex struct {
	flavors       map[string]kueueFlavor
	clusterQueues map[string]*clusterQueue
	localQueues   map[string]string // namespace/name → ClusterQueue
	// cohorts are the Cohort objects read, by name. A cohort a ClusterQueue or Cohort names
	// without an object is a root with no quota of its own, as Kueue makes it.
	cohorts map[string]*kueueCohort
	// namespaces are the labels of the Namespace objects read, by name.
	namespaces map[string]map[string]string
	// configs are the Kueue Configurations read (kueueconfig.go), each with the root that
	// declares it: a workload follows the one declared nearest it.
	configs []rooted[*kueueConfig]
	// checks are the AdmissionChecks read, and provisioning the ProvisioningRequestConfigs,
	// by name.
	checks       map[string]admissionCheck
	provisioning map[string]provisioningConfig
	// multiKueue are the worker clusters of each MultiKueueConfig read, by its name.
	multiKueue map[string][]string
	// claims are the DRA claims and templates read, whose devices a configuration's
	// deviceClassMappings count against the queues' quota.
	claims *claimIndex
	// topologies are the levels (node labels, highest first) of the Topology objects read.
	topologies map[string][]string
}

// admissionCheck is an AdmissionCheck: the controller that runs it and the object its
// parameters name (a ProvisioningRequestConfig for the provisioning-request controller).
type admissionCheck struct {
	controller   string
	paramsKind   string
	paramsName   string
	paramsInRepo bool // the parameters are a kueue.x-k8s.io object
}

// provisioningConfig is a ProvisioningRequestConfig: the cluster autoscaler's provisioning
// class, and the resources whose pod sets get a ProvisioningRequest (all when empty).
type provisioningConfig struct {
	class   string
	managed []string
}

// controllerProvisioning is the controller of Kueue's ProvisioningRequest admission checks, and
// classQueuedProvisioning GKE's provisioning class for queued provisioning, whose nodes are
// flex-start VMs (Dynamic Workload Scheduler).
// https://kueue.sigs.k8s.io/docs/admission-check-controllers/provisioning/ and
// https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest, read 2026-11.
const (
	controllerProvisioning  = "kueue.x-k8s.io/provisioning-request"
	classQueuedProvisioning = "queued-provisioning.gke.io"
)

// controllerMultiKueue is the controller of MultiKueue admission checks: the manager cluster
// sends a workload its ClusterQueue admits to one of the worker clusters its MultiKueueConfig
// (spec.clusters) names, whose own Kueue admits it there; its pods run on that cluster's nodes.
// MultiKueue expects the workers' namespaces and queues to mirror the manager's.
// https://kueue.sigs.k8s.io/docs/concepts/multikueue/ and
// https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/, read 2026-11-28.
const controllerMultiKueue = "kueue.x-k8s.io/multikueue"

// config is the Kueue Configuration that applies to o, nil when none was read.
func (k *kueueIndex) config(o *object) *kueueConfig {
	return nearestOf(k.configs, o.rootName())
}

// kueueCohort is a Cohort object: its parent cohort, and its own quota, which lends to the
// ClusterQueues and cohorts below it, by flavor and resource (cohortKey).
type kueueCohort struct {
	parent string
	quotas map[string]kueueQuota
}

func cohortKey(flavor, res string) string { return flavor + "\x00" + res }

type kueueFlavor struct {
	name        string
	labels      map[string]string
	tolerations []toleration
	taints      []toleration // nodeTaints: key, value, effect
	topology    string       // topologyName: a flavor for topology-aware scheduling (kueuetas.go)
}

type clusterQueue struct {
	name   string
	cohort string
	groups []kueueGroup
	// tryNextWhenBorrowing is flavorFungibility.whenCanBorrow: TryNextFlavor.
	tryNextWhenBorrowing bool
	stopPolicy           string // Hold or HoldAndDrain: Kueue admits nothing new
	// namespaces selects the namespaces whose workloads it admits: nil, as when the field is
	// left out, selects none; {} selects all.
	namespaces *labelSelector
	// checks are its admission checks (admissionChecks, or admissionChecksStrategy with the
	// flavors each applies to: all when none are named).
	checks []queueCheck
}

// queueCheck is one of a ClusterQueue's admission checks, and the flavors it applies to (all
// when empty).
type queueCheck struct {
	name      string
	onFlavors []string
}

type kueueGroup struct {
	covered []string
	flavors []flavorQuotas
}

type flavorQuotas struct {
	name   string
	quotas map[string]kueueQuota // by resource
}

// kueueQuota is one flavor's quota of one resource, in the resource's unit (cores, bytes,
// devices); borrowing and lending are nil when not set.
type kueueQuota struct {
	nominal            float64
	borrowing, lending *float64
}

func newKueueIndex() *kueueIndex {
	return &kueueIndex{flavors: map[string]kueueFlavor{}, clusterQueues: map[string]*clusterQueue{}, localQueues: map[string]string{}, cohorts: map[string]*kueueCohort{}, namespaces: map[string]map[string]string{},
		topologies: map[string][]string{}, checks: map[string]admissionCheck{}, provisioning: map[string]provisioningConfig{},
		multiKueue: map[string][]string{}}
}

func isKueue(o *object) bool { return group(o.APIVersion) == "kueue.x-k8s.io" }

// add reads a ResourceFlavor, ClusterQueue, LocalQueue, Cohort, AdmissionCheck,
// ProvisioningRequestConfig, MultiKueueConfig or Topology; other Kueue kinds are not needed.
func (k *kueueIndex) add(o *object) error {
	switch o.Kind {
	case "ResourceFlavor":
		var spec struct {
			NodeLabels  map[string]string `yaml:"nodeLabels"`
			Tolerations []toleration      `yaml:"tolerations"`
			NodeTaints  []toleration      `yaml:"nodeTaints"`
			Topology    string            `yaml:"topologyName"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return err
		}
		k.flavors[o.Metadata.Name] = kueueFlavor{name: o.Metadata.Name, labels: spec.NodeLabels, tolerations: spec.Tolerations, taints: spec.NodeTaints, topology: spec.Topology}
	case "Topology":
		return k.addTopology(o)
	case "ClusterQueue":
		var spec struct {
			Cohort            string    `yaml:"cohort"`     // v1beta1
			CohortName        string    `yaml:"cohortName"` // v1beta2
			StopPolicy        string    `yaml:"stopPolicy"`
			NamespaceSelector yaml.Node `yaml:"namespaceSelector"`
			FlavorFungibility struct {
				WhenCanBorrow string `yaml:"whenCanBorrow"`
			} `yaml:"flavorFungibility"`
			ResourceGroups          kueueResourceGroups `yaml:"resourceGroups"`
			AdmissionChecks         []string            `yaml:"admissionChecks"`
			AdmissionChecksStrategy struct {
				AdmissionChecks []struct {
					Name      string   `yaml:"name"`
					OnFlavors []string `yaml:"onFlavors"`
				} `yaml:"admissionChecks"`
			} `yaml:"admissionChecksStrategy"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return err
		}
		cq := &clusterQueue{name: o.Metadata.Name, cohort: spec.Cohort, tryNextWhenBorrowing: spec.FlavorFungibility.WhenCanBorrow == "TryNextFlavor"}
		if spec.CohortName != "" {
			cq.cohort = spec.CohortName
		}
		if spec.StopPolicy == "Hold" || spec.StopPolicy == "HoldAndDrain" {
			cq.stopPolicy = spec.StopPolicy
		}
		if n := &spec.NamespaceSelector; n.Kind != 0 && n.Tag != "!!null" {
			cq.namespaces = &labelSelector{}
			if err := n.Decode(cq.namespaces); err != nil {
				return lineError{line: o.lineOf(n), err: fmt.Errorf("namespaceSelector: %w", err)}
			}
		}
		groups, err := spec.ResourceGroups.read(o)
		if err != nil {
			return err
		}
		cq.groups = groups
		for _, name := range spec.AdmissionChecks {
			cq.checks = append(cq.checks, queueCheck{name: name})
		}
		for _, c := range spec.AdmissionChecksStrategy.AdmissionChecks {
			cq.checks = append(cq.checks, queueCheck{name: c.Name, onFlavors: c.OnFlavors})
		}
		k.clusterQueues[o.Metadata.Name] = cq
	case "AdmissionCheck":
		var spec struct {
			ControllerName string `yaml:"controllerName"`
			Parameters     struct {
				APIGroup string `yaml:"apiGroup"`
				Kind     string `yaml:"kind"`
				Name     string `yaml:"name"`
			} `yaml:"parameters"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return err
		}
		k.checks[o.Metadata.Name] = admissionCheck{controller: spec.ControllerName, paramsKind: spec.Parameters.Kind, paramsName: spec.Parameters.Name,
			paramsInRepo: spec.Parameters.APIGroup == "kueue.x-k8s.io"}
	case "ProvisioningRequestConfig":
		var spec struct {
			ProvisioningClassName string   `yaml:"provisioningClassName"`
			ManagedResources      []string `yaml:"managedResources"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return err
		}
		k.provisioning[o.Metadata.Name] = provisioningConfig{class: spec.ProvisioningClassName, managed: spec.ManagedResources}
	case "MultiKueueConfig":
		var spec struct {
			Clusters []string `yaml:"clusters"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return err
		}
		k.multiKueue[o.Metadata.Name] = spec.Clusters
	case "LocalQueue":
		var spec struct {
			ClusterQueue string `yaml:"clusterQueue"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return err
		}
		k.localQueues[o.namespace()+"/"+o.Metadata.Name] = spec.ClusterQueue
	case "Cohort":
		var spec struct {
			ParentName     string              `yaml:"parentName"`
			ResourceGroups kueueResourceGroups `yaml:"resourceGroups"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return err
		}
		groups, err := spec.ResourceGroups.read(o)
		if err != nil {
			return err
		}
		c := &kueueCohort{parent: spec.ParentName, quotas: map[string]kueueQuota{}}
		for _, g := range groups {
			for _, f := range g.flavors {
				for res, q := range f.quotas {
					c.quotas[cohortKey(f.name, res)] = q
				}
			}
		}
		k.cohorts[o.Metadata.Name] = c
	}
	return nil
}

// kueueResourceGroups is the resourceGroups of a ClusterQueue or a Cohort as written.
type kueueResourceGroups []struct {
	CoveredResources []string `yaml:"coveredResources"`
	Flavors          []struct {
		Name      string `yaml:"name"`
		Resources []struct {
			Name           string    `yaml:"name"`
			NominalQuota   yaml.Node `yaml:"nominalQuota"`
			BorrowingLimit yaml.Node `yaml:"borrowingLimit"`
			LendingLimit   yaml.Node `yaml:"lendingLimit"`
		} `yaml:"resources"`
	} `yaml:"flavors"`
}

// read reads the groups' quotas; one that is not a quantity is an error at its line.
func (rgs kueueResourceGroups) read(o *object) ([]kueueGroup, error) {
	var groups []kueueGroup
	for _, g := range rgs {
		kg := kueueGroup{covered: g.CoveredResources}
		for _, f := range g.Flavors {
			fq := flavorQuotas{name: f.Name, quotas: map[string]kueueQuota{}}
			for _, r := range f.Resources {
				var q kueueQuota
				var err error
				if q.nominal, err = kueueQuantity(o, r.Name, "nominalQuota", &r.NominalQuota); err != nil {
					return nil, err
				}
				for _, l := range []struct {
					field string
					n     *yaml.Node
					to    **float64
				}{{"borrowingLimit", &r.BorrowingLimit, &q.borrowing}, {"lendingLimit", &r.LendingLimit, &q.lending}} {
					if l.n.Kind == 0 || l.n.Tag == "!!null" {
						continue
					}
					v, err := kueueQuantity(o, r.Name, l.field, l.n)
					if err != nil {
						return nil, err
					}
					*l.to = &v
				}
				fq.quotas[r.Name] = q
			}
			kg.flavors = append(kg.flavors, fq)
		}
		groups = append(groups, kg)
	}
	return groups, nil
}

// kueueQuantity reads one of a ClusterQueue's quotas; a missing nominalQuota is 0, as the API
// has it.
func kueueQuantity(o *object, resource, field string, n *yaml.Node) (float64, error) {
	if n.Kind == 0 || n.Tag == "!!null" {
		return 0, nil
	}
	if n.Kind == yaml.ScalarNode {
		if v, err := computeQuantity(n.Value); err == nil && v >= 0 {
			return v, nil
		}
	}
	return 0, lineError{line: o.lineOf(n), err: fmt.Errorf("resource %s: %s %q is not a quantity: the API server refuses the ClusterQueue", resource, field, n.Value)}
}

// kueueAdmission is what Kueue does with one pod role of a queued workload.
type kueueAdmission struct {
	// flavor holds the node labels and tolerations of the flavors assigned to the pods (those
	// of several resource groups together), nil when none is.
	flavor *kueueFlavor
	// notes say how the pods were queued, or what is missing to tell.
	notes []string
	// refused says why Kueue never admits the workload; "" when it does, or when that cannot
	// be told from the files read.
	refused string
	// pods, when not 0, is how many of the role's pods Kueue admits: fewer than declared, by
	// partial admission.
	pods int
	// atOnce, when not 0, is the most of the role's pods Kueue admits at once (up to the most
	// the role may run) where it admits them one by one (a Deployment's) or group by group; by
	// names the ClusterQueue.
	atOnce int
	by     string
	// flexStart, when not "", says which admission check provisions the pods' nodes as GKE
	// flex-start VMs (queued provisioning): their price is Flex-start's.
	flexStart string
	// together, when not 0, is how many of the role's pods Kueue's topology-aware scheduling
	// puts on one node, and togetherWhy says so.
	together    int
	togetherWhy string
	// beside, when set, is the PodSet group of the role that topology-aware scheduling puts
	// on one node: its pods and those of the group's other pod set.
	beside *besideSet
	// flavors is the flavors the role's pods may land on, one list for each resource group
	// (assignment.landing): their node labels narrow the topology domains the pods may use.
	flavors [][]kueueFlavor
}

// admit assigns flavors to the pods of role r of o, one of its roles all (Kueue's pod sets,
// which take their quota in turn); most is the most pods the role may run (its autoscaler's
// maximum). It returns nothing when the workload is not queued.
func (k *kueueIndex) admit(o *object, r role, all []role, most int) kueueAdmission {
	cfg := k.config(o)
	queue := o.Metadata.Labels[labelQueueName]
	podQueued := r.template.Metadata.Labels[labelQueueName] != ""
	if queue == "" {
		queue = r.template.Metadata.Labels[labelQueueName]
	}
	if ok, why := cfg.manages(o, podQueued); !ok {
		if queue == "" {
			return kueueAdmission{}
		}
		return kueueAdmission{notes: []string{fmt.Sprintf("%s: its %s %s does nothing, and the node comes from the pod's own labels", why, labelQueueName, queue)}}
	}
	byDefault := false // the queue is the namespace's LocalQueue named default
	if _, ok := k.localQueues[o.namespace()+"/default"]; queue == "" && ok && defaultQueued(o) {
		queue, byDefault = "default", true
	}
	if queue == "" {
		if cfg != nil && cfg.withoutQueueName && defaultQueued(o) {
			return k.unqueued(o, cfg)
		}
		return kueueAdmission{}
	}
	path := fmt.Sprintf("Kueue: LocalQueue %s/%s", o.namespace(), queue)
	if byDefault {
		path += " (its namespace's LocalQueue named default, which Kueue gives a job that names no " + labelQueueName + ")"
	}
	cqName, ok := k.localQueues[o.namespace()+"/"+queue]
	if !ok {
		return kueueAdmission{notes: []string{fmt.Sprintf("Kueue LocalQueue %s/%s is not among the files read: the node comes from the pod's own labels", o.namespace(), queue)}}
	}
	cq, ok := k.clusterQueues[cqName]
	if !ok {
		return kueueAdmission{notes: []string{fmt.Sprintf("Kueue ClusterQueue %s (of LocalQueue %s/%s) is not among the files read: the node comes from the pod's own labels", cqName, o.namespace(), queue)}}
	}
	path += " → ClusterQueue " + cqName
	if cq.stopPolicy != "" {
		return refusedBy(fmt.Sprintf("Kueue admits no workload from ClusterQueue %s (stopPolicy: %s)", cqName, cq.stopPolicy), path, nil)
	}
	var notes []string
	switch admits, why := k.admitsNamespace(cq, o.namespace()); {
	case !admits && why != "":
		return refusedBy("Kueue never admits it: "+why, path, nil)
	case why != "":
		notes = append(notes, why)
	}
	// Kueue admits a workload whole or not at all; its pod sets take their quota in turn.
	sets := make([]podSet, len(all))
	for i, x := range all {
		ps := cq.podSet(k, o.namespace(), x, cfg)
		if ps.refused == "" {
			ps.refused = ps.tas.checkSize(kueuePods(o, x))
		}
		if ps.refused != "" {
			return refusedBy("Kueue never admits it: "+ps.refused, path, notes)
		}
		sets[i] = ps
	}
	groups, why := podSetGroups(o, all)
	if why != "" {
		return refusedBy("Kueue never admits it: "+why, path, notes)
	}
	ri := slices.IndexFunc(all, func(x role) bool { return x.name == r.name })
	var ownGroup *[2]int // r's PodSet group, nil when none
	for gi, g := range groups {
		if slices.Contains(g[:], ri) {
			ownGroup = &groups[gi]
		}
	}
	units := assignUnits(len(all), groups)
	used := map[string]float64{} // flavor/resource → what the pod sets before took
	var a assignment             // r's
	var own podSet               // r's pod set, as Kueue counts it
	refusal := ""
	for _, unit := range units {
		in := make([]podSetPods, len(unit))
		names := make([]string, len(unit))
		for j, m := range unit {
			in[j], names[j] = podSetPods{sets[m], kueuePods(o, all[m])}, all[m].name
		}
		got := cq.assignSets(k, in, used)
		mine := slices.Contains(unit, ri)
		if mine {
			a, own = got, sets[ri]
			notes = append(notes, own.notes...)
		}
		if got.why != "" && refusal == "" {
			refusal = got.why
			if !mine {
				refusal = fmt.Sprintf("its %s pods: %s", strings.Join(names, " and "), got.why)
			}
		}
	}
	pods := 0 // fewer pods than declared, by partial admission
	if refusal != "" {
		var why string
		if pods, why = k.partial(o, r, all, cq); pods > 0 {
			a, refusal = cq.assign(k, cq.podSet(k, o.namespace(), r, cfg), pods, map[string]float64{}), ""
			notes = append(notes, fmt.Sprintf("Kueue admits %d of its %d pods (partial admission, %s): %s", pods, r.replicas, annotationMinParallelism, why))
		} else if why != "" {
			notes = append(notes, why)
		}
	}
	switch {
	case refusal != "":
		return refusedBy("Kueue never admits it: "+refusal, path, notes)
	case a.unknown != "":
		return kueueAdmission{notes: []string{a.unknown}}
	}
	out := kueueAdmission{notes: notes, pods: pods}
	switch unit := kueuePods(o, r); {
	case unit <= 0 || unit >= most:
	case len(all) == 1:
		var spread string
		out.atOnce, spread = cq.admitted(k, o.namespace(), r, cfg, unit, most)
		out.by = "ClusterQueue " + cq.name + "'s quota"
		if spread != "" {
			out.notes = append(out.notes, spread)
		}
	case o.Kind == "LeaderWorkerSet":
		// A group with a leader template is one workload of two pod sets, the leader and its
		// workers: groups are admitted whole, one after another.
		out.atOnce = cq.admittedGroups(k, o, all, units, cfg, most/unit) * unit
		out.by = "ClusterQueue " + cq.name + "'s quota, group by group"
	}
	flavor, notes := a.describe(path)
	out.flavor, out.notes = flavor, append(out.notes, notes...)
	unit := kueuePods(o, r)
	out.flavors = a.landing(unit <= 0 || unit >= most)
	if len(a.chosen) > 0 {
		out.together, out.togetherWhy = own.tas.together(kueuePods(o, r))
		if ownGroup != nil {
			out.beside = groupBeside(o, all, *ownGroup)
		}
	}
	var note string
	out.flexStart, note = k.provisionedBy(cq, a, own.requests)
	for _, n := range []string{note, k.dispatchedBy(cq, a)} {
		if n != "" {
			out.notes = append(out.notes, n)
		}
	}
	return out
}

// appliesTo says whether a ClusterQueue's admission check applies to a pod set assigned a:
// on every flavor, or on one of those it names that a chose.
func (qc queueCheck) appliesTo(a assignment) bool {
	return len(qc.onFlavors) == 0 || slices.ContainsFunc(a.chosen, func(c flavorChoice) bool { return slices.Contains(qc.onFlavors, c.flavor.name) })
}

// dispatchedBy says, in a note, which MultiKueue admission check of ClusterQueue cq, on the
// flavors assigned (a), sends the workload to a worker cluster, and which clusters those are;
// "" when none does.
func (k *kueueIndex) dispatchedBy(cq *clusterQueue, a assignment) string {
	for _, qc := range cq.checks {
		check, ok := k.checks[qc.name]
		if !ok || check.controller != controllerMultiKueue || !qc.appliesTo(a) {
			continue
		}
		where := fmt.Sprintf("a worker cluster of MultiKueueConfig %s, which is not among the files read", check.paramsName)
		if clusters, ok := k.multiKueue[check.paramsName]; ok && check.paramsInRepo && check.paramsKind == "MultiKueueConfig" {
			where = fmt.Sprintf("one of the worker clusters of MultiKueueConfig %s (%s)", check.paramsName, strings.Join(clusters, ", "))
		}
		return fmt.Sprintf("Kueue AdmissionCheck %s of ClusterQueue %s (MultiKueue) sends it to %s, whose own Kueue admits it there: its pods run on that cluster's nodes, priced here on this ClusterQueue's flavor, as MultiKueue expects the workers' queues to mirror the manager's", qc.name, cq.name, where)
	}
	return ""
}

// provisionedBy says which of a ClusterQueue's admission checks, on the flavors assigned,
// provisions a pod set's nodes through GKE's queued provisioning (flex-start VMs): a
// ProvisioningRequest admission check whose ProvisioningRequestConfig has the class
// queued-provisioning.gke.io and manages one of the resources the pods request (all, when it
// names none). note says so, or that it is not known (a check or config not read).
func (k *kueueIndex) provisionedBy(cq *clusterQueue, a assignment, requests map[string]float64) (flexStart, note string) {
	for _, qc := range cq.checks {
		if !qc.appliesTo(a) {
			continue
		}
		check, ok := k.checks[qc.name]
		if !ok {
			note = fmt.Sprintf("Kueue AdmissionCheck %s (of ClusterQueue %s) is not among the files read: whether it provisions the nodes (a ProvisioningRequest: on GKE, flex-start VMs) or sends the workload to another cluster (MultiKueue) is not known", qc.name, cq.name)
			continue
		}
		if check.controller != controllerProvisioning {
			continue // a MultiKueue check is dispatchedBy's
		}
		cfg, ok := k.provisioning[check.paramsName]
		if !ok || !check.paramsInRepo || check.paramsKind != "ProvisioningRequestConfig" {
			note = fmt.Sprintf("Kueue AdmissionCheck %s provisions the nodes through a ProvisioningRequest, but its ProvisioningRequestConfig %s is not among the files read: whether they are flex-start VMs (GKE's queued provisioning) is not known", qc.name, check.paramsName)
			continue
		}
		if cfg.class != classQueuedProvisioning {
			continue
		}
		if len(cfg.managed) > 0 && !slices.ContainsFunc(cfg.managed, func(r string) bool { _, ok := requests[r]; return ok }) {
			continue // its pods request none of the resources the config manages: no ProvisioningRequest
		}
		return fmt.Sprintf("Kueue AdmissionCheck %s of ClusterQueue %s (ProvisioningRequestConfig %s, %s)", qc.name, cq.name, check.paramsName, classQueuedProvisioning), ""
	}
	return "", note
}

// describe says which flavor each resource group gives the pods and why (path: the queues that
// lead there, for the notes), and merges the node labels and tolerations of those that have
// any into one flavor (nil when none has).
func (a assignment) describe(path string) (flavor *kueueFlavor, notes []string) {
	var names []string
	merged := kueueFlavor{labels: map[string]string{}}
	for _, c := range a.chosen {
		if c.flavor.name != "" && (len(c.flavor.labels) > 0 || len(c.flavor.tolerations) > 0) {
			names = append(names, c.flavor.name)
			maps.Copy(merged.labels, c.flavor.labels)
			merged.tolerations = append(merged.tolerations, c.flavor.tolerations...)
		}
		note := path + " → ResourceFlavor " + c.flavor.name
		if len(a.chosen) > 1 {
			note += " for " + strings.Join(c.resources, ", ")
		}
		if c.index > 0 {
			note += fmt.Sprintf(", the first of its %d flavors that holds the pods (%s)", c.of, strings.Join(c.skipped, "; "))
		} else if c.of > 1 && len(c.closed) > 0 {
			note += fmt.Sprintf(", the first of %d flavors (Kueue moves to the next when its quota is used, but not to %s)", c.of, strings.Join(c.closed, "; "))
		} else if c.of > 1 {
			note += fmt.Sprintf(", the first of %d flavors (Kueue moves to the next when its quota is used)", c.of)
		}
		notes = append(notes, note)
		if c.borrows != "" {
			notes = append(notes, c.borrows)
		}
		if c.tas != "" {
			notes = append(notes, c.tas)
		}
	}
	if len(names) > 0 {
		merged.name = strings.Join(names, ", ")
		flavor = &merged
	}
	return flavor, notes
}

// refusedBy is the admission of a workload Kueue does not admit: why, and the queues that lead
// there (path), in the warning; the path and notes in its notes.
func refusedBy(why, path string, notes []string) kueueAdmission {
	return kueueAdmission{notes: append([]string{path}, notes...),
		refused: fmt.Sprintf("%s (%s): it stays suspended and its pods do not run (priced as declared)", why, path)}
}

// admitsNamespace reports whether a ClusterQueue admits workloads of namespace ns: why says why
// not, or, when it admits them, why that is not known (a selector on labels of a Namespace not
// among the files read). Every namespace carries its name in kubernetes.io/metadata.name.
func (k *kueueIndex) admitsNamespace(cq *clusterQueue, ns string) (admits bool, why string) {
	if cq.namespaces == nil {
		return false, fmt.Sprintf("ClusterQueue %s sets no namespaceSelector, which admits workloads of no namespace (namespaceSelector: {} admits all)", cq.name)
	}
	labels, read := k.namespaceLabels(ns)
	ok, err := cq.namespaces.matches(labels)
	if err != nil {
		return true, fmt.Sprintf("ClusterQueue %s's namespaceSelector: %v: whether it admits namespace %s is not known", cq.name, err, ns)
	}
	if ok {
		return true, ""
	}
	if !read && !selectsByName(*cq.namespaces) {
		return true, fmt.Sprintf("Namespace %s is not among the files read: whether ClusterQueue %s's namespaceSelector admits its workloads is not known", ns, cq.name)
	}
	return false, fmt.Sprintf("ClusterQueue %s's namespaceSelector does not select namespace %s", cq.name, ns)
}

// unqueued is what Kueue does with a job that names no queue (and has no default LocalQueue)
// when its configuration sets manageJobsWithoutQueueName: in a namespace
// managedJobsNamespaceSelector selects, Kueue suspends it, and a workload with no queue is
// never admitted.
func (k *kueueIndex) unqueued(o *object, cfg *kueueConfig) kueueAdmission {
	ns := o.namespace()
	labels, read := k.namespaceLabels(ns)
	selected, err := cfg.managed.matches(labels)
	why := ""
	switch {
	case err != nil:
		why = fmt.Sprintf("managedJobsNamespaceSelector: %v", err)
	case !read && !selectsByName(cfg.managed):
		why = fmt.Sprintf("Namespace %s is not among the files read", ns)
	}
	if why != "" {
		return kueueAdmission{notes: []string{fmt.Sprintf("%s sets manageJobsWithoutQueueName, which suspends for good a job that names no queue in the namespaces it manages; whether it manages %s is not known (%s)", cfg.from, ns, why)}}
	}
	if !selected {
		return kueueAdmission{}
	}
	path := fmt.Sprintf("%s: manageJobsWithoutQueueName, and managedJobsNamespaceSelector selects namespace %s", cfg.from, ns)
	return refusedBy(fmt.Sprintf("Kueue never admits it: it names no %s and its namespace has no LocalQueue named default, but Kueue suspends it", labelQueueName), path, nil)
}

// namespaceLabels are the labels a namespace selector is matched against: those of the
// Namespace object when it was read (read), and its kubernetes.io/metadata.name always.
func (k *kueueIndex) namespaceLabels(ns string) (labels map[string]string, read bool) {
	labels, read = k.namespaces[ns]
	labels = maps.Clone(labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels["kubernetes.io/metadata.name"] = ns
	return labels, read
}

// selectsByName reports whether a namespace selector looks at the namespace's name only
// (kubernetes.io/metadata.name), which every namespace carries.
func selectsByName(s labelSelector) bool {
	for key := range s.MatchLabels {
		if key != "kubernetes.io/metadata.name" {
			return false
		}
	}
	for _, r := range s.MatchExpressions {
		if r.Key != "kubernetes.io/metadata.name" {
			return false
		}
	}
	return true
}

// defaultQueued reports whether Kueue's webhook gives o, when it names no queue, its namespace's
// LocalQueue named default (the LocalQueueDefaulting feature gate: on by default since Kueue
// v0.12, GA in v0.17): the job kinds of Kueue's own integrations; gpuguard does not default the
// pods of a Deployment or StatefulSet so.
// https://github.com/kubernetes-sigs/kueue/tree/main/keps/2936-local-queue-defaulting, read
// 2026-11.
func defaultQueued(o *object) bool {
	switch group(o.APIVersion) {
	case "batch":
		return o.Kind == "Job" || o.Kind == "CronJob"
	case "jobset.x-k8s.io", "trainer.kubeflow.org", "workload.codeflare.dev":
		return o.Kind == "JobSet" || o.Kind == "TrainJob" || o.Kind == "AppWrapper"
	case "kubeflow.org":
		return strings.HasSuffix(o.Kind, "Job")
	case "ray.io":
		return o.Kind == "RayJob" || o.Kind == "RayCluster"
	}
	return false
}

// annotationMinParallelism lets Kueue admit a batch Job with fewer pods than its parallelism,
// down to its value, when its quota holds no more (partial admission).
// https://kueue.sigs.k8s.io/docs/tasks/run/jobs/#partial-admission, read 2026-11.
const annotationMinParallelism = "kueue.x-k8s.io/job-min-parallelism"

// partial finds the most pods, down to a Job's kueue.x-k8s.io/job-min-parallelism, whose
// flavors hold them where its full parallelism fits none: pods is 0 when there is no such
// count, and why says so where the annotation says something.
func (k *kueueIndex) partial(o *object, r role, all []role, cq *clusterQueue) (pods int, why string) {
	v, ok := o.Metadata.Annotations[annotationMinParallelism]
	if !ok || o.Kind != "Job" || group(o.APIVersion) != "batch" || len(all) != 1 {
		return 0, ""
	}
	least, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || least < 1 || least >= r.replicas {
		return 0, fmt.Sprintf("%s: %q is not a number of pods from 1 to below its parallelism (%d): Kueue's webhook refuses the Job", annotationMinParallelism, v, r.replicas)
	}
	ps := cq.podSet(k, o.namespace(), r, k.config(o))
	fits := func(n int) bool {
		a := cq.assign(k, ps, n, map[string]float64{})
		return a.why == "" && a.unknown == ""
	}
	// The pods' request grows with their count: the first count that does not fit, from the
	// least up, is one past the most that does.
	first := least + sort.Search(r.replicas-least, func(i int) bool { return !fits(least + i) })
	if first == least {
		return 0, fmt.Sprintf("even its %s of %d pods does not fit", annotationMinParallelism, least)
	}
	return first - 1, "its quota holds no more"
}

// admitted is how many of a role's pods Kueue admits at once, up to most, where each workload
// holds unit of them (a Deployment's pod, a LeaderWorkerSet's group): workload after workload
// takes its flavors' quota until one fits none. It is 0 when that is not known (a flavor not
// read). spread says so when they land on several flavors.
func (cq *clusterQueue) admitted(k *kueueIndex, ns string, r role, cfg *kueueConfig, unit, most int) (pods int, spread string) {
	ps, used := cq.podSet(k, ns, r, cfg), map[string]float64{}
	on := map[string]int{} // pods by the flavors they land on
	var order []string
	for pods < most {
		a := cq.assign(k, ps, unit, used)
		if a.unknown != "" {
			return 0, ""
		}
		if a.why != "" {
			break
		}
		var names []string
		for _, c := range a.chosen {
			names = append(names, c.flavor.name)
		}
		key := strings.Join(names, " and ")
		if on[key] == 0 {
			order = append(order, key)
		}
		on[key] += unit
		pods += unit
	}
	if len(order) > 1 {
		parts := make([]string, len(order))
		for i, f := range order {
			parts[i] = fmt.Sprintf("%d on %s", on[f], f)
		}
		spread = fmt.Sprintf("Kueue admits its pods workload by workload, so they land on several flavors of ClusterQueue %s: %s; priced on the first", cq.name, strings.Join(parts, ", "))
	}
	return pods, spread
}

// admittedGroups is how many workloads of several pod sets each (a LeaderWorkerSet's groups,
// its leader and its workers) Kueue admits at once, up to most: one after another until one
// fits no flavor. Each workload's pod sets take their flavors by units (assignUnits): those
// of a PodSet group as one. It is 0 when that is not known (a flavor not read).
func (cq *clusterQueue) admittedGroups(k *kueueIndex, o *object, all []role, units [][]int, cfg *kueueConfig, most int) int {
	sets := make([]podSet, len(all))
	for i, x := range all {
		sets[i] = cq.podSet(k, o.namespace(), x, cfg)
	}
	used := map[string]float64{}
	n := 0
	for ; n < most; n++ {
		for _, unit := range units {
			in := make([]podSetPods, len(unit))
			for j, m := range unit {
				in[j] = podSetPods{sets[m], kueuePods(o, all[m])}
			}
			a := cq.assignSets(k, in, used)
			if a.unknown != "" {
				return 0
			}
			if a.why != "" {
				return n
			}
		}
	}
	return n
}

// assignUnits is the pod sets of a workload of n that take their flavors as one, in the order
// Kueue assigns them: each pod set alone, but a PodSet group's two (groups) together, where
// the first of them stands.
func assignUnits(n int, groups [][2]int) [][]int {
	units := make([][]int, n)
	for i := range units {
		units[i] = []int{i}
	}
	for _, g := range groups {
		units[g[0]], units[g[1]] = g[:], nil
	}
	return slices.DeleteFunc(units, func(u []int) bool { return u == nil })
}

// kueuePods is how many of a role's pods one Kueue workload holds: a LeaderWorkerSet's group,
// one pod of a Deployment (Kueue admits its pods one by one), else all of them.
func kueuePods(o *object, r role) int {
	switch {
	case r.perReplica > 0:
		return r.perReplica
	case r.scalable && o.Kind != "StatefulSet":
		return 1
	}
	return r.replicas
}

// flavorChoice is the flavor one resource group gives a pod set.
type flavorChoice struct {
	flavor    kueueFlavor
	resources []string // the requested resources it is assigned for
	index, of int      // its place among the group's flavors, and how many there are
	skipped   []string // why each flavor before it does not hold the pods
	borrows   string   // a note when it holds them only by borrowing from the cohort
	tas       string   // a note when its Topology is not known
	closed    []string // why each flavor after it never holds the pods (topology-aware scheduling)
	// reach is the flavor and those after it that may hold pods admitted one by one (or group
	// by group) as the quota fills: those that take the pods' labels, taints and topology and
	// whose quota holds one unit of them. A flavor not among the files read is in it unknown
	// (no labels).
	reach []kueueFlavor
}

// assignment is the flavors of a pod set, or why it gets none: why when Kueue never admits
// it, unknown when a flavor it would try is not among the files read.
type assignment struct {
	chosen  []flavorChoice
	why     string
	unknown string
}

// podSet is what Kueue reads of a role's pod template: one pod's requests (pods among them
// where the ClusterQueue has a quota on pods), its node selection and its tolerations.
type podSet struct {
	requests    map[string]float64
	selection   selector
	tolerations []toleration
	// config says where Kueue's configuration was read, "" when it was not; notes say what it
	// changed in the requests.
	config string
	notes  []string
	// refused says why Kueue cannot count the pods' requests, and so never admits the
	// workload: a DRA request it does not count (draCharges), TAS annotations it rejects.
	refused string
	// tas is what the pods ask of Kueue's topology-aware scheduling.
	tas tasRequest
}

// podSet is what Kueue reads of a role's pods, under the Kueue configuration cfg (nil when
// none was read): the requests it counts are those cfg leaves in, transformed.
func (cq *clusterQueue) podSet(k *kueueIndex, ns string, r role, cfg *kueueConfig) podSet {
	ps := podSet{selection: podSelector(r.template.Spec), tolerations: r.template.Spec.Tolerations}
	ps.requests, ps.notes = cfg.requests(kueueRequests(r.template.Spec))
	dra, note, why := cfg.draCharges(r.template.Spec, ns, k.claims)
	for res, n := range dra {
		ps.requests[res] += n
	}
	if note != "" {
		ps.notes = append(ps.notes, note)
	}
	ps.refused = why
	tas, why := readTAS(r.template.Metadata.Annotations, r.jobPods)
	ps.tas, ps.refused = tas, cmp.Or(ps.refused, why)
	if cfg != nil {
		ps.config = cfg.from
	}
	for _, g := range cq.groups {
		if slices.Contains(g.covered, "pods") {
			ps.requests["pods"] = 1 // Kueue counts pods where a ClusterQueue has a quota on them
		}
	}
	return ps
}

// podSetPods is n pods of a pod set.
type podSetPods struct {
	ps podSet
	n  int
}

// assign gives n pods of a pod set a flavor in each resource group that covers what they
// request, adding what they take to used.
func (cq *clusterQueue) assign(k *kueueIndex, ps podSet, n int, used map[string]float64) assignment {
	return cq.assignSets(k, []podSetPods{{ps, n}}, used)
}

// assignSets gives pod sets that Kueue assigns as one (a PodSet group: a leader and its
// workers) a flavor in each resource group that covers what any of them requests: the first
// that every one of them may use and whose quota holds them all, as Kueue's flavor assigner
// does for a group (findFlavorForPodSets over the group's summed requests). What they take is
// added to used.
func (cq *clusterQueue) assignSets(k *kueueIndex, sets []podSetPods, used map[string]float64) assignment {
	requests := map[string]float64{} // of all the pods
	for _, set := range sets {
		for res, v := range set.ps.requests {
			if set.n > 0 {
				requests[res] += v * float64(set.n)
			}
		}
	}
	if len(requests) == 0 {
		return assignment{}
	}
	config := sets[0].ps.config // one workload's, the same for each pod set
	var out assignment
	done := map[int]bool{} // the groups assigned
	for _, res := range slices.Sorted(maps.Keys(requests)) {
		gi := slices.IndexFunc(cq.groups, func(g kueueGroup) bool { return slices.Contains(g.covered, res) })
		if gi < 0 {
			hint := "unless Kueue's configuration leaves it out: resources.excludeResourcePrefixes"
			if config != "" {
				hint = config + " does not leave it out (resources.excludeResourcePrefixes)"
			}
			return assignment{why: fmt.Sprintf("ClusterQueue %s covers no %s, which its pods request (%s)", cq.name, res, hint)}
		}
		if done[gi] {
			continue
		}
		done[gi] = true
		g := cq.groups[gi]
		want := map[string]float64{} // the pods' request of each resource the group covers
		for _, c := range g.covered {
			if v, ok := requests[c]; ok {
				want[c] = v
			}
		}
		keys := map[string]bool{} // the label keys of the group's flavors: the only ones matched
		for _, f := range g.flavors {
			for key := range k.flavors[f.name].labels {
				keys[key] = true
			}
		}
		choice := flavorChoice{resources: slices.Sorted(maps.Keys(want)), index: -1, of: len(g.flavors)}
		var fallback *flavorChoice // the first that holds them by borrowing, under TryNextFlavor
		for i, fq := range g.flavors {
			f, ok := k.flavors[fq.name]
			if !ok {
				return assignment{unknown: fmt.Sprintf("Kueue ResourceFlavor %s (of ClusterQueue %s) is not among the files read: the node comes from the pod's own labels", fq.name, cq.name)}
			}
			skip, tasNote := cq.passOver(k, sets, f, keys)
			if skip != "" {
				choice.skipped = append(choice.skipped, skip)
				continue
			}
			short, borrow := "", ""
			for _, c := range choice.resources {
				need := want[c] + used[fq.name+"/"+c]
				nominal, most, from := cq.capacity(k, fq.name, c)
				if need > most {
					short = fmt.Sprintf("%s: %s %s asked, %s at most%s", fq.name, amountOf(need, c), c, amountOf(most, c), from)
					break
				}
				if need > nominal && borrow == "" {
					borrow = fmt.Sprintf("Kueue: ClusterQueue %s holds the pods on ResourceFlavor %s only by borrowing from cohort %s: %s %s asked, %s its own (nominalQuota); they wait while the cohort's other queues use it", cq.name, fq.name, cq.cohort, amountOf(need, c), c, amountOf(nominal, c))
				}
			}
			if short != "" {
				choice.skipped = append(choice.skipped, short)
				continue
			}
			c := choice
			c.flavor, c.index, c.borrows, c.tas, c.skipped = f, i, borrow, tasNote, slices.Clone(choice.skipped)
			if borrow != "" && cq.tryNextWhenBorrowing {
				if fallback == nil {
					fallback = &c
				}
				choice.skipped = append(choice.skipped, fq.name+": only by borrowing (whenCanBorrow: TryNextFlavor)")
				continue
			}
			choice = c
			for _, later := range g.flavors[i+1:] {
				if lf, ok := k.flavors[later.name]; ok {
					for _, set := range sets {
						if skip, _ := k.tasMatch(cq, set.ps.tas, lf); skip != "" {
							choice.closed = append(choice.closed, skip)
							break
						}
					}
				}
			}
			break
		}
		if choice.index < 0 && fallback != nil {
			choice = *fallback
		}
		if choice.index < 0 {
			why := fmt.Sprintf("no flavor of ClusterQueue %s holds its pods' %s", cq.name, strings.Join(choice.resources, ", "))
			if len(choice.skipped) > 0 {
				why += " (" + strings.Join(choice.skipped, "; ") + ")"
			}
			return assignment{why: why}
		}
		for _, c := range choice.resources {
			used[choice.flavor.name+"/"+c] += want[c]
		}
		choice.reach = cq.reach(k, sets, g, choice, keys, want)
		out.chosen = append(out.chosen, choice)
	}
	return out
}

// reach is the flavors of resource group g that may hold the pods of sets admitted one unit
// at a time: the one chosen, and each after it that the pods do not pass over and whose quota
// (with what the cohort lends) holds one unit's requests (want) in an empty cluster.
func (cq *clusterQueue) reach(k *kueueIndex, sets []podSetPods, g kueueGroup, chosen flavorChoice, keys map[string]bool, want map[string]float64) []kueueFlavor {
	out := []kueueFlavor{chosen.flavor}
	for _, fq := range g.flavors[chosen.index+1:] {
		f, ok := k.flavors[fq.name]
		if !ok {
			out = append(out, kueueFlavor{name: fq.name})
			continue
		}
		if skip, _ := cq.passOver(k, sets, f, keys); skip != "" {
			continue
		}
		if !slices.ContainsFunc(chosen.resources, func(c string) bool { _, most, _ := cq.capacity(k, f.name, c); return want[c] > most }) {
			out = append(out, f)
		}
	}
	return out
}

// landing is the flavors a pod set's pods may land on, one list for each resource group: the
// flavor chosen when Kueue admits the pods whole (one workload), or, when it admits them one
// by one or group by group (whole false), every flavor they may land on as the quota fills
// (reach).
func (a assignment) landing(whole bool) [][]kueueFlavor {
	var out [][]kueueFlavor
	for _, c := range a.chosen {
		if whole || len(c.reach) == 0 {
			out = append(out, []kueueFlavor{c.flavor})
		} else {
			out = append(out, c.reach)
		}
	}
	return out
}

// passOver says why pod sets assigned as one pass over flavor f of a resource group whose
// flavors use the label keys keys: a pod set does not tolerate its taints, does not select its
// node labels, or asks for topology-aware scheduling it does not give; "" when they may use it.
// note, when set, says what is not known of its Topology.
func (cq *clusterQueue) passOver(k *kueueIndex, sets []podSetPods, f kueueFlavor, keys map[string]bool) (skip, note string) {
	for _, set := range sets {
		ps := set.ps
		if t, ok := untolerated(f.taints, append(slices.Clone(ps.tolerations), f.tolerations...)); ok {
			return fmt.Sprintf("%s: its pods do not tolerate its taint %s", f.name, t), ""
		}
		if !ps.selection.allowsLabels(keys, f.labels) {
			return fmt.Sprintf("%s: its node labels are not among those the pods select", f.name), ""
		}
		skip, tasNote := k.tasMatch(cq, ps.tas, f)
		if skip != "" {
			return skip, ""
		}
		note = cmp.Or(note, tasNote)
	}
	return "", note
}

// capacity is what a ClusterQueue may hold of resource res on a flavor in an empty cluster:
// its nominal quota, and the most it may borrow through its cohort. from says where the most
// comes from, for a message.
//
// Kueue counts a cohort tree (hierarchical cohorts, KEP-79; its resource_node.go): a node's
// subtree quota is its own nominalQuota plus what each child lends it, the child's subtree
// less what it keeps guaranteed (all of it, or its lendingLimit); a root may use its subtree,
// and any other node what it keeps guaranteed plus what its parent may use, up to its
// borrowingLimit over what it lends. A cohort named without a Cohort object is a root with no
// quota of its own, which makes this the ClusterQueue's nominalQuota plus what the cohort's
// other ClusterQueues lend, up to its borrowingLimit. A cycle of cohorts bounds nothing here.
func (cq *clusterQueue) capacity(k *kueueIndex, flavor, res string) (nominal, most float64, from string) {
	own, ok := cq.quota(flavor, res)
	if !ok {
		// The API server refuses a flavor that does not list each resource its group covers;
		// where one does not, its quota is not known, and bounds nothing here.
		return math.Inf(1), math.Inf(1), ""
	}
	nominal = own.nominal
	if cq.cohort == "" {
		return nominal, nominal, ""
	}
	t := cohortTree{k: k, key: cohortKey(flavor, res), flavor: flavor, res: res, down: map[string]bool{}, up: map[string]bool{}, subtrees: map[string]float64{}}
	most = borrowUp(own, own.nominal, t.available(cq.cohort))
	if most <= nominal {
		return nominal, nominal, ""
	}
	if math.IsInf(most, 1) {
		return nominal, most, ""
	}
	return nominal, most, fmt.Sprintf(" (%s its own, %s lent by cohort %s as read)", amountOf(nominal, res), amountOf(most-nominal, res), k.cohortPath(cq.cohort))
}

// cohortPath names a cohort and the parents of its Cohort objects: "research (under org)".
func (k *kueueIndex) cohortPath(name string) string {
	var parents []string
	seen := map[string]bool{name: true}
	for c := k.cohorts[name]; c != nil && c.parent != "" && !seen[c.parent]; c = k.cohorts[c.parent] {
		seen[c.parent] = true
		parents = append(parents, c.parent)
	}
	if len(parents) == 0 {
		return name
	}
	return name + " (under " + strings.Join(parents, ", under ") + ")"
}

// cohortTree counts one flavor's quota of one resource over the cohorts read.
type cohortTree struct {
	k                *kueueIndex
	key, flavor, res string
	// down and up are the cohorts on the paths walked to children and to parents, to stop at a
	// cycle.
	down, up map[string]bool
	// subtrees are the subtree quotas counted so far: walking up, each parent's subtree holds
	// its child's, which is not counted again. A cohort on a cycle is +Inf from wherever the
	// walk enters it.
	subtrees map[string]float64
}

// subtree is a cohort's subtree quota: its own nominalQuota and what its ClusterQueues and
// child cohorts lend it. +Inf on a cycle.
func (t cohortTree) subtree(name string) float64 {
	if v, ok := t.subtrees[name]; ok {
		return v
	}
	if t.down[name] {
		return math.Inf(1)
	}
	t.down[name] = true
	defer delete(t.down, name)
	var sum float64
	if c := t.k.cohorts[name]; c != nil {
		sum = c.quotas[t.key].nominal
	}
	for _, cq := range t.k.clusterQueues {
		if cq.cohort == name {
			q, _ := cq.quota(t.flavor, t.res)
			sum += lends(q, q.nominal)
		}
	}
	for child, c := range t.k.cohorts {
		if c.parent == name {
			sum += lends(c.quotas[t.key], t.subtree(child))
		}
	}
	t.subtrees[name] = sum
	return sum
}

// available is the most a cohort's subtree may use in an empty cluster. +Inf on a cycle.
func (t cohortTree) available(name string) float64 {
	subtree := t.subtree(name)
	c := t.k.cohorts[name]
	if c == nil || c.parent == "" {
		return subtree
	}
	if t.up[name] {
		return math.Inf(1)
	}
	t.up[name] = true
	defer delete(t.up, name)
	return borrowUp(c.quotas[t.key], subtree, t.available(c.parent))
}

// lends is what a node with this quota and subtree lends its parent: the subtree, or its
// lendingLimit of it.
func lends(q kueueQuota, subtree float64) float64 {
	if q.lending != nil {
		return min(subtree, *q.lending)
	}
	return subtree
}

// borrowUp is what a node with this quota and subtree may use when its parent may use
// parent: what it keeps guaranteed (its subtree less what it lends), and the parent's, up to
// what it lends plus its borrowingLimit.
func borrowUp(q kueueQuota, subtree, parent float64) float64 {
	guaranteed := 0.0 // not subtree - lends: an unbounded subtree (a cycle below) would make NaN
	if q.lending != nil {
		guaranteed = max(0, subtree-*q.lending)
	}
	if q.borrowing != nil {
		parent = min(parent, lends(q, subtree)+*q.borrowing)
	}
	return guaranteed + parent
}

// quota is the ClusterQueue's quota of res on a flavor; ok is false when the flavor does not
// list res.
func (cq *clusterQueue) quota(flavor, res string) (q kueueQuota, ok bool) {
	for _, g := range cq.groups {
		for _, f := range g.flavors {
			if f.name == flavor {
				q, ok = f.quotas[res]
				return q, ok
			}
		}
	}
	return kueueQuota{}, false
}

// kueueRequests is one pod's effective request of each resource its containers name, as Kueue
// counts it: requests of zero are left out, as Kueue leaves them.
func kueueRequests(spec podSpec) map[string]float64 {
	out := podRequests(spec)
	maps.DeleteFunc(out, func(_ string, v float64) bool { return v <= 0 })
	return out
}

// untolerated returns the first NoSchedule or NoExecute taint the tolerations do not allow.
func untolerated(taints, tols []toleration) (string, bool) {
	for _, t := range taints {
		if (t.Effect == "NoSchedule" || t.Effect == "NoExecute") && !tolerates(tols, t) {
			s := t.Key
			if t.Value != "" {
				s += "=" + t.Value
			}
			return s + ":" + t.Effect, true
		}
	}
	return "", false
}

// allowsLabels reports whether a node with these labels meets the selection on the given keys
// (Kueue matches a flavor on the label keys its group's flavors use, and no other).
func (s selector) allowsLabels(keys map[string]bool, labels map[string]string) bool {
	for key := range keys {
		v, has := labels[key]
		if want, in := s.allowed[key]; in && (!has || want != nil && !slices.Contains(want, v)) {
			return false
		}
		if has && slices.Contains(s.excluded[key], v) {
			return false
		}
		if s.bounded(key) {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if !has || err != nil {
				return false
			}
			if gt, ok := s.above[key]; ok && n <= gt {
				return false
			}
			if lt, ok := s.below[key]; ok && n >= lt {
				return false
			}
		}
	}
	return true
}

// withFlavor adds a flavor's node labels to a pod's selection (the pod's own stay: a flavor
// Kueue assigns never contradicts them on its keys) and its tolerations to the pod's.
func withFlavor(sel selector, tols []toleration, f *kueueFlavor) (selector, []toleration) {
	out := newSelector()
	for k, v := range sel.allowed {
		out.allowed[k] = v
	}
	for k, v := range sel.excluded {
		out.excluded[k] = v
	}
	for k, v := range sel.above {
		out.bound("Gt", k, v)
	}
	for k, v := range sel.below {
		out.bound("Lt", k, v)
	}
	for k, v := range f.labels {
		if _, ok := out.allowed[k]; !ok {
			out.allowed[k] = []string{v}
		}
	}
	return out, append(append([]toleration(nil), tols...), f.tolerations...)
}
