package estimator

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// Pricer prices resources against a catalog.
type Pricer struct {
	Catalog *catalog.Catalog
	// DefaultRegion applies to resources whose manifest names no region (config or --region).
	DefaultRegion string
	// HoursPerMonth is the default month; 0 means DefaultHoursPerMonth.
	HoursPerMonth float64
	// Today is the day of the run, against which retired instance types are judged; zero means
	// the catalog's date.
	Today time.Time
}

// today is the day retirements are judged against.
func (p *Pricer) today() time.Time {
	if !p.Today.IsZero() {
		return p.Today
	}
	t, _ := time.Parse(time.DateOnly, p.Catalog.Updated())
	return t
}

// retired says whether an instance type, or a GPU attached apart from it (a GCP accelerator),
// is retired by today and, if so, why it is not priced: the day, the successor its cloud
// suggests and what the resource would cost as that. A type or GPU retiring later is priced,
// with coming saying when.
func (p *Pricer) retired(r parser.Resource, typ string) (why, coming string) {
	x, ok := catalog.Retired(r.Provider, typ)
	ok = ok && !x.Accelerator
	for _, a := range r.Accelerators {
		if ok {
			break
		}
		x, ok = catalog.Retired(r.Provider, a.Type)
		ok = ok && x.Accelerator
	}
	switch {
	case !ok:
		return "", ""
	case !x.By(p.today()):
		return "", x.Coming()
	}
	why = x.Why()
	if _, known := p.instance(r.Provider, x.Successor); known && !x.Accelerator {
		alt := r
		alt.InstanceType = x.Successor
		if who, m, ok := p.costWith(alt, p.Catalog); ok {
			why += fmt.Sprintf("; as %s %s would cost %s/month", x.Successor, who, m)
		}
	}
	return why, ""
}

// month is the hours of the month p prices: the config's, else DefaultHoursPerMonth.
func (p *Pricer) month() float64 {
	if p.HoursPerMonth > 0 {
		return p.HoursPerMonth
	}
	return DefaultHoursPerMonth
}

func (p *Pricer) hours(r *parser.Resource) float64 {
	month := p.month()
	if r.HoursPerMonth > 0 {
		if r.CalendarHours {
			return calendarHours(r.HoursPerMonth, month)
		}
		return r.HoursPerMonth
	}
	if r.RunsToCompletion && r.RunHours > 0 {
		return math.Min(r.RunHours, month) // one run, at most as long as its deadline lets it
	}
	return month
}

// Estimate prices one resource. It never returns a zero price for something it could not price:
// the cost stays nil and UnpricedReason says why.
func (p *Pricer) Estimate(r parser.Resource) Estimate {
	vcpuNote := ""
	if r.QuantityVCPUs > 0 {
		if in, ok := p.instance(r.Provider, r.InstanceType); ok && in.VCPU > 0 {
			r.Quantity = (r.QuantityVCPUs + in.VCPU - 1) / in.VCPU
			vcpuNote = fmt.Sprintf("%d vCPUs = %d × %s (%d vCPUs each)", r.QuantityVCPUs, r.Quantity, r.InstanceType, in.VCPU)
		} else if r.InstanceType != "" {
			r.AddUnresolved("vcpus", fmt.Sprintf("%d vCPUs of %s: the type's vCPU count is not in the catalog", r.QuantityVCPUs, r.InstanceType))
		}
	}
	e := Estimate{
		Address: r.Address, Root: r.Root, ID: ResourceID(r.Root, r.Address), Source: r.Source, Kind: r.Kind, Type: r.Type, Provider: r.Provider,
		Region: r.Region, InstanceType: r.InstanceType, Quantity: r.Quantity, PurchaseOption: r.PurchaseOption,
		HoursPerMonth: p.hours(&r), Tags: r.Tags, TagsUnsupported: r.TagsUnsupported, Unresolved: r.Unresolved, Notes: append([]string(nil), r.Notes...),
		Suppressions: r.Suppressions, Pod: r.Pod, NoGPUDriver: r.NoGPUDriver, Recommendations: []Recommendation{}, scaleMaxUnknown: r.ScaleMaxUnknown,
	}
	if e.SharedLimit = p.sharedLimit(&r); r.SharedLimit != nil && e.SharedLimit == nil && r.InstanceType != "" {
		unit := "vCPUs"
		if r.SharedLimit.PerGPU {
			unit = "GPUs"
		}
		e.Notes = append(e.Notes, fmt.Sprintf("%s's %s is counted in %s and %s's are not in the catalog: its maximum is counted on its own",
			r.SharedLimit.Owner, r.SharedLimit.What, unit, r.InstanceType))
	}
	if e.Provider == "" {
		e.Provider = parser.Unknown
	}
	// The machine of capacity an autoscaler provisions is gpuguard's pick (resolveAutoProvision).
	e.PriceEstimated = r.AutoProvision != nil
	if a := r.AutoProvision; a != nil {
		e.AutoProvision = &AutoProvisionInfo{Accelerator: a.Accelerator, From: a.From}
		if !a.MaxUnknown {
			n := a.MaxGPUs
			e.AutoProvision.MaxGPUs = &n
		}
	}
	if vcpuNote != "" {
		e.Notes = append(e.Notes, vcpuNote)
	}
	if r.CalendarHours && r.HoursPerMonth > 0 && e.HoursPerMonth != r.HoursPerMonth {
		addNote(&e, fmt.Sprintf("its schedule's %.2f hours of a %g-hour month (a twelfth of a year) are %.2f hours of the configured %g-hour month",
			r.HoursPerMonth, DefaultHoursPerMonth, e.HoursPerMonth, p.month()))
	}
	switch {
	case r.RunsToCompletion && r.HoursPerMonth == 0 && r.RunHours > e.HoursPerMonth:
		addNote(&e, fmt.Sprintf("runs once, but its deadline (%.2f hours) is longer than the month: priced at the full month", r.RunHours))
	case r.RunsToCompletion && r.HoursPerMonth == 0 && r.RunHours > 0:
		addNote(&e, fmt.Sprintf("runs once: priced as one run of at most %.2f hours in the month, the most its deadline lets it run; set the gpuguard.dev/hours-per-month annotation or usage in the config if it runs more often", e.HoursPerMonth))
	}
	if e.Region == "" && p.DefaultRegion != "" {
		e.Region = p.region(&r)
		note := fmt.Sprintf("region %s from the default (config or --region)", e.Region)
		if r.RegionUnknown != "" {
			note += ": " + r.RegionUnknown
		}
		e.Notes = append(e.Notes, note)
	}
	if r.Profile != "" {
		prof := r.Profile
		e.Profile = &prof
	}
	if r.InstanceType == "" && r.Requirements != nil && len(r.Unresolved) == 0 {
		if reason := p.chooseByRequirements(&r, &e); reason != "" {
			e.UnpricedReason = &reason
			return e
		}
	}
	if r.SpotQuantity > 0 && r.SpotQuantity < r.Quantity {
		e.CapacitySplit = &CapacitySplit{OnDemand: r.Quantity - r.SpotQuantity, Spot: r.SpotQuantity}
	}
	e.GPU = p.gpuInfo(&r)
	if r.Pod != nil {
		if reason := p.preparePod(&r, &e); reason != "" {
			e.UnpricedReason = &reason
			return e
		}
	}
	priced := r
	priced.Provider, priced.Region = e.Provider, e.Region
	if why, coming := p.retired(priced, e.InstanceType); why != "" {
		e.UnpricedReason = &why
		return e
	} else if coming != "" {
		e.Notes = append(e.Notes, coming)
	}
	hourly, reason := p.unitHourly(&r, &e)
	if reason != "" {
		e.UnpricedReason, e.PriceBound = &reason, ""
		return e
	}
	total := hourly
	e.HourlyCost = ptrRate(total)
	monthly := total.Mul(e.HoursPerMonth)
	e.MonthlyCost = ptrAmount(monthly)
	return e
}

func ptrRate(m money.Micros) *money.Rate     { r := money.Rate(m); return &r }
func ptrAmount(m money.Micros) *money.Amount { a := money.Amount(m); return &a }

// gpuInfo describes the GPUs of one instance from the catalog (or, for a pod, its request).
func (p *Pricer) gpuInfo(r *parser.Resource) *GPUInfo {
	if r.Pod != nil {
		return &GPUInfo{Count: float64(r.Pod.Requested), Model: r.Pod.Resource}
	}
	if in, ok := p.instance(r.Provider, r.InstanceType); ok && in.GPU != "" {
		g, _ := p.Catalog.GPU(in.GPU)
		info := &GPUInfo{Model: g.Name, Count: in.GPUCount, MemoryGiB: in.GPUMemoryGiB, Key: g.Key}
		if slice, ok := partitionSlice(g, r.GPUPartition); ok && r.GPUPartition != "" {
			info.MIGProfile = slice.Profile
		}
		return info
	}
	if len(r.Accelerators) > 0 {
		info := &GPUInfo{}
		for _, a := range r.Accelerators {
			info.Count += float64(a.Count)
			if in, ok := p.Catalog.Instance(r.Provider, a.Type); ok && in.GPU != "" {
				g, _ := p.Catalog.GPU(in.GPU)
				info.Model, info.MemoryGiB, info.Key = g.Name, in.GPUMemoryGiB, g.Key
			} else if g, ok := p.Catalog.GPU(strings.TrimPrefix(strings.ToLower(a.Type), "nvidia-")); ok {
				// A GPU the catalog knows but not as an attachable accelerator (Cloud Run's
				// nvidia-rtx-pro-6000 is the G4 machines' GPU): named by its own key.
				info.Model, info.MemoryGiB, info.Key = g.Name, g.MemoryGiB, g.Key
			} else if x, ok := catalog.Retired(r.Provider, a.Type); ok && x.Accelerator && info.Model == "" {
				info.Model = x.GPU // a retired GPU the catalog no longer holds: named as its cloud did
			} else if info.Model == "" {
				info.Model = a.Type
			}
		}
		return info
	}
	return nil
}

// instance looks a type up, reading a SageMaker ml.* type as its EC2 counterpart.
func (p *Pricer) instance(provider, typ string) (catalog.Instance, bool) {
	if in, ok := p.Catalog.Instance(provider, typ); ok {
		return in, true
	}
	if sageMakerType(provider, typ) {
		return p.Catalog.Instance(provider, ec2Type(typ))
	}
	return catalog.Instance{}, false
}

// sageMakerType reports whether an instance type is one of SageMaker's ML instance types
// (ml.g5.xlarge), which run on the EC2 type of the same name and which the catalog prices at
// that type's EC2 rate.
func sageMakerType(provider, typ string) bool {
	return provider == parser.AWS && strings.HasPrefix(typ, "ml.")
}

// ec2Type is the EC2 type a SageMaker ML instance type runs on ("g5.xlarge" of "ml.g5.xlarge"),
// and sageMakerName the reverse: the catalog holds the EC2 names only.
func ec2Type(sageMaker string) string { return strings.TrimPrefix(sageMaker, "ml.") }

func sageMakerName(ec2 string) string { return "ml." + ec2 }

// sageMakerFamilies are the GPU instance families SageMaker offers as ml. types, from the
// instance type enums of the SageMaker API Reference (ProductionVariantInstanceType,
// TrainingInstanceType, ClusterInstanceType, notebook InstanceType), read 2026-11-26. Not every
// SageMaker feature offers every family (HyperPod has no ml.g4dn, real-time endpoints no
// ml.p3dn); EC2-only families (g6f and gr6f vGPU slices, AMD g4ad) are not among them.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariant.html
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterInstanceGroupSpecification.html
var sageMakerFamilies = map[string]bool{
	"g4dn": true, "g5": true, "g6": true, "g6e": true, "gr6": true,
	"p3": true, "p3dn": true, "p4d": true, "p4de": true, "p5": true, "p5e": true, "p5en": true, "p6-b200": true,
}

// offeredSizes are the instance types of services that accept only some of their cloud's, by
// Resource.OfferedSizes, in lower case. Azure Machine Learning's managed online endpoints: the
// GPU sizes of Microsoft's "Managed online endpoints SKU list" (read 2026-11-27), less those
// since retired (NCv2, NCv3).
// https://learn.microsoft.com/azure/machine-learning/reference-managed-online-endpoints-vm-sku-list
var offeredSizes = map[string]map[string]bool{
	parser.AzureMLOnlineSizes: setOf(
		"standard_nc24ads_a100_v4", "standard_nc48ads_a100_v4", "standard_nc96ads_a100_v4",
		"standard_nc4as_t4_v3", "standard_nc8as_t4_v3", "standard_nc16as_t4_v3", "standard_nc64as_t4_v3",
		"standard_nc40ads_h100_v5", "standard_nc80adis_h100_v5",
		"standard_nd96amsr_a100_v4", "standard_nd96asr_v4", "standard_nd40rs_v2",
		"standard_nd96is_h100_v5", "standard_nd96isr_h100_v5",
		"standard_nv6ads_a10_v5", "standard_nv12ads_a10_v5", "standard_nv18ads_a10_v5",
		"standard_nv36ads_a10_v5", "standard_nv36adms_a10_v5", "standard_nv72ads_a10_v5",
	),
}

func setOf(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// offered says whether the service that runs a resource accepts an instance type.
func offered(r parser.Resource, typ string) bool {
	sizes, ok := offeredSizes[r.OfferedSizes]
	return !ok || sizes[strings.ToLower(typ)]
}

// instanceFamily is the family of an AWS instance type: "g5" of "g5.xlarge".
func instanceFamily(typ string) string {
	fam, _, _ := strings.Cut(typ, ".")
	return fam
}

// unitHourly computes the hourly cost of the whole resource (all its instances), or why it
// cannot be priced.
func (p *Pricer) unitHourly(r *parser.Resource, e *Estimate) (money.Micros, string) {
	if len(r.Unresolved) > 0 {
		parts := make([]string, 0, len(r.Unresolved))
		for _, u := range r.Unresolved {
			parts = append(parts, fmt.Sprintf("%s (%s)", u.Attribute, u.Reason))
		}
		reason := "unresolved: " + strings.Join(parts, "; ")
		if more := p.bundledRange(r, e); more != "" {
			reason += "; " + more
		}
		return 0, reason
	}
	if e.Region == "" && r.RegionUnknown != "" {
		return 0, noRegion(r)
	}
	if r.InstanceType == "" {
		return 0, "no instance type"
	}
	if r.Provider == parser.Unknown || r.Provider == "" {
		return 0, fmt.Sprintf("cannot tell which cloud %s belongs to", r.InstanceType)
	}
	type part struct {
		opt parser.PurchaseOption
		qty int
	}
	parts := []part{{r.PurchaseOption, r.Quantity}}
	if e.CapacitySplit != nil && r.PurchaseOption != parser.Spot {
		parts = []part{{r.PurchaseOption, e.CapacitySplit.OnDemand}, {parser.Spot, e.CapacitySplit.Spot}}
	}
	var total money.Micros
	for _, pt := range parts {
		unit, reason := p.instanceHourly(r, e, pt.opt)
		if reason != "" {
			return 0, reason
		}
		if r.Pod != nil {
			share, reason := p.podShare(r)
			if reason != "" {
				return 0, reason
			}
			e.nodeShare = share
			unit = unit.Mul(share)
		}
		total += unit.MulInt(int64(pt.qty))
	}
	return total, ""
}

// instanceHourly is the hourly price of one instance (machine plus attached GPUs).
func (p *Pricer) instanceHourly(r *parser.Resource, e *Estimate, opt parser.PurchaseOption) (money.Micros, string) {
	typ := r.InstanceType
	q, miss := p.Catalog.Quote(r.Provider, typ, e.Region, opt)
	if miss != nil && sageMakerType(r.Provider, typ) {
		ec2 := ec2Type(typ)
		if q2, miss2 := p.Catalog.Quote(r.Provider, ec2, e.Region, opt); miss2 == nil {
			q, miss = q2, nil
			q.Estimated = true
			e.PriceBound = BoundLower
			addNote(e, fmt.Sprintf("SageMaker %s is priced at the EC2 rate of %s, a lower bound: SageMaker's own rate is higher and not in the catalog", typ, ec2))
		}
	}
	own := r.OwnPrice.Applies(opt)
	if miss == nil && own {
		q.Estimated = true
		e.PriceBound = BoundUpper
		if r.OwnPrice.Higher {
			e.PriceBound = BoundLower
		}
		addNote(e, ownPriceNote(r))
	}
	if miss != nil {
		// Name the attached GPUs the catalog lacks too: fixing the machine type alone would
		// only lead to the next reason.
		reason := p.missReason(r, e, typ, opt, miss)
		for _, a := range r.Accelerators {
			if _, amiss := p.Catalog.Quote(r.Provider, a.Type, e.Region, opt); amiss != nil && amiss.Reason != catalog.NoRegion && !strings.Contains(reason, amiss.Reason) {
				reason += "; " + amiss.Reason
			}
		}
		return 0, reason
	}
	unit := q.Hourly
	p.addSource(e, typ, opt, q)
	sud := 1.0
	// Sustained-use discounts are Compute Engine's: a service that bills at its own price does
	// not get them.
	if in, ok := p.Catalog.Instance(r.Provider, typ); ok && r.Provider == parser.GCP && in.Kind == catalog.KindVM && opt == parser.OnDemand && !own {
		sud = gcpSustainedUseMultiplier(e.HoursPerMonth, p.month())
		if sud < 1 {
			addNote(e, fmt.Sprintf("GCP sustained-use discount for N1 and its GPUs at %.0f h/month: %.0f%% off list", e.HoursPerMonth, (1-sud)*100))
		}
	}
	for _, a := range r.Accelerators {
		aq, amiss := p.Catalog.Quote(r.Provider, a.Type, e.Region, opt)
		if amiss != nil {
			return 0, p.missReason(r, e, a.Type, opt, amiss)
		}
		aq.Estimated = aq.Estimated || own
		p.addSource(e, a.Type, opt, aq)
		unit += aq.Hourly.MulInt(int64(a.Count))
	}
	return unit.Mul(sud), ""
}

// Price bounds (Estimate.PriceBound).
const (
	// BoundLower: the service bills more than the catalog's price (SageMaker, Vertex AI
	// prediction): the bill is at least this.
	BoundLower = "lower"
	// BoundUpper: the capacity bills less than the catalog's on-demand price (flex-start): the
	// bill is at most this.
	BoundUpper = "upper"
)

// ownPriceNote says who bills the resource at a price of its own, and which bound the catalog's
// price is.
func ownPriceNote(r *parser.Resource) string {
	what := r.InstanceType
	if len(r.Accelerators) > 0 {
		what += " and its GPUs"
	}
	cloud := computeService(r.Provider)
	if r.OwnPrice.Higher {
		return fmt.Sprintf("%s bills %s at its own price, higher than %s's and not in the catalog: priced at %s's, a lower bound", r.OwnPrice.By, what, cloud, cloud)
	}
	return fmt.Sprintf("%s bills %s at its own price, lower than %s's on-demand price and not in the catalog: priced at that, an upper bound", r.OwnPrice.By, what, cloud)
}

// computeService names the cloud's own service for virtual machines, whose prices the catalog
// holds.
func computeService(provider string) string {
	switch provider {
	case parser.AWS:
		return "EC2"
	case parser.Azure:
		return "Azure Virtual Machines"
	}
	return "Compute Engine"
}

// gcpSustainedUseMultiplier is the share of list price paid for an N1 VM (and its GPUs) that
// runs the given hours of a month of month hours: each quarter of the month is billed at 100%,
// 80%, 60% and 40% of list, so a full month costs 70%.
// https://cloud.google.com/compute/docs/sustained-use-discounts
func gcpSustainedUseMultiplier(hours, month float64) float64 {
	frac := hours / month
	if frac <= 0 {
		return 1
	}
	if frac > 1 {
		frac = 1
	}
	rates := []float64{1.0, 0.8, 0.6, 0.4}
	paid := 0.0
	for i, rate := range rates {
		lo := float64(i) * 0.25
		if frac <= lo {
			break
		}
		paid += (minf(frac, lo+0.25) - lo) * rate
	}
	return paid / frac
}

func minf(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}

// podShare is the share of a node one pod pays for: the GPUs it requests over the GPUs the
// node has (its own or attached), or the larger share its CPU and memory take (NodeShare, set
// by preparePod). A pod's cost is replicas × that share × node hourly.
func (p *Pricer) podShare(r *parser.Resource) (float64, string) {
	if r.Pod.NodeShare > 0 {
		return r.Pod.NodeShare, ""
	}
	_, count, ok := p.nodeGPUs(r)
	if !ok {
		return 0, fmt.Sprintf("%s has no GPUs in the catalog, so a pod's GPU share cannot be priced", r.InstanceType)
	}
	return r.Pod.PerPodGPUs / devices(count), ""
}

func (p *Pricer) addSource(e *Estimate, typ string, opt parser.PurchaseOption, q catalog.Quote) {
	src := PriceSource{InstanceType: typ, Region: q.Price.Region, PurchaseOption: string(opt), Source: q.Price.Source,
		Date: q.Price.Date, Basis: q.Price.Basis, Estimated: q.Estimated}
	if q.Derived != "" {
		src.Basis = strings.TrimPrefix(strings.TrimSpace(src.Basis+"; "+q.Derived), "; ")
	}
	for _, s := range e.PriceSources {
		if s == src {
			return
		}
	}
	e.PriceSources = append(e.PriceSources, src)
	if q.Estimated {
		e.PriceEstimated = true
	}
}

// missReason explains a missing price and, where a nearby region has one, what the resource
// would cost there.
func (p *Pricer) missReason(r *parser.Resource, e *Estimate, typ string, opt parser.PurchaseOption, miss *catalog.Miss) string {
	reason := miss.Reason
	switch {
	case miss.NearestRegion == "":
	case typ == r.InstanceType:
		alt := *r
		alt.Region = miss.NearestRegion
		if who, m, ok := p.costWith(alt, p.Catalog); ok {
			reason += fmt.Sprintf("; in %s %s would cost %s/month", miss.NearestRegion, who, m)
		}
	case !p.Catalog.NearestRegionFallback():
		// An attached GPU without a price here (GCP's N1 GPUs are priced in us-central1 only):
		// what the resource would cost with its GPUs at the nearest priced region's rate and
		// its machine at this region's, as region_fallback: nearest would price it.
		if who, m, ok := p.costWith(*r, p.Catalog.WithNearestRegionFallback()); ok {
			return reason + fmt.Sprintf("; with %s at %s's rate, the nearest region with one, %s would cost %s/month (region_fallback: nearest prices it so)", typ, miss.NearestRegion, who, m)
		}
		fallthrough
	default:
		reason += fmt.Sprintf("; the nearest region with a price is %s", miss.NearestRegion)
	}
	return reason
}

// costWith prices a resource with another catalog or region, for a reason that says what it
// would cost: who is "it", or "one" when the resource is scaled to zero and one instance is
// priced instead.
func (p *Pricer) costWith(alt parser.Resource, cat *catalog.Catalog) (who string, m money.Micros, ok bool) {
	who = "it"
	if alt.Quantity == 0 && alt.QuantityVCPUs == 0 {
		alt.Quantity, alt.SpotQuantity, who = 1, 0, "one"
	}
	alt.ScaleMax = nil
	est := (&Pricer{Catalog: cat, HoursPerMonth: p.HoursPerMonth, Today: p.Today}).Estimate(alt)
	m, ok = est.Monthly()
	return who, m, ok
}

func addNote(e *Estimate, n string) {
	for _, x := range e.Notes {
		if x == n {
			return
		}
	}
	e.Notes = append(e.Notes, n)
}

// region is where a resource is priced: its own region, else the default (config or --region).
func (p *Pricer) region(r *parser.Resource) string {
	if r.Region == "" && p.DefaultRegion != "" {
		return parser.NormalizeRegion(p.DefaultRegion)
	}
	return r.Region
}

// ResourceID is the identity of a resource in a scan: its root and its address.
func ResourceID(root, address string) string {
	if root == "" {
		return address
	}
	return root + "|" + address
}

// EstimateAll prices every resource, in order.
func (p *Pricer) EstimateAll(rs []parser.Resource) []Estimate {
	out := make([]Estimate, len(rs))
	for i := range rs {
		p.resolveBundledMachine(&rs[i])
		p.resolveAutoProvision(&rs[i])
		out[i] = p.Estimate(rs[i])
		p.priceScaleMax(&rs[i], &out[i])
	}
	onNodeGroups(out)
	notePartNodes(out)
	return out
}

// notePartNodes says, of pods priced at their share of a node that no node group among the
// estimates provides (a node an autoscaler or Karpenter starts, a cluster declared elsewhere),
// what whole nodes would cost when the workload's pods leave part of their last node empty: the
// share is the bill only where other pods fill the rest.
func notePartNodes(es []Estimate) {
	const eps = 1e-9
	for i := range es {
		e := &es[i]
		if e.Pod == nil || e.NodeGroup != "" || e.MonthlyCost == nil || e.nodeShare <= 0 || e.nodeShare >= 1-eps || e.Quantity <= 0 || e.Type == "DaemonSet" {
			continue
		}
		load := float64(e.Quantity) * e.nodeShare
		nodes := nodesNeeded([]podLoad{{pods: e.Quantity, share: e.nodeShare}})
		if float64(nodes) <= load+eps {
			continue // the pods fill their nodes
		}
		if nodes > 1 && len(e.Pod.SharedClaims) > 0 {
			continue // they are all on their claim's one node: those it cannot hold are pending, said
		}
		whole := money.Micros(*e.MonthlyCost).Mul(float64(nodes) / load)
		star := ""
		if e.PriceEstimated {
			star = "*"
		}
		what := fmt.Sprintf("its %d pods take %s of %s each and are priced at that share; the %d nodes they need, started for them alone, would cost %s%s a month",
			e.Quantity, percent(e.nodeShare), e.InstanceType, nodes, whole, star)
		switch {
		case e.Quantity == 1:
			what = fmt.Sprintf("its pod takes %s of %s and is priced at that share; a node started for it alone would cost %s%s a month",
				percent(e.nodeShare), e.InstanceType, whole, star)
		case nodes == 1:
			what = fmt.Sprintf("its %d pods take %s of %s each and are priced at that share; a node started for them alone would cost %s%s a month",
				e.Quantity, percent(e.nodeShare), e.InstanceType, whole, star)
		}
		e.Notes = append(e.Notes, what+": the share is the bill only where other pods use the rest")
	}
}

// onNodeGroups links pods to the node groups among the estimates whose nodes they run on: Sum
// counts the groups and their pods once. Groups that pods share (a pod on either of two groups
// of one kind) are one pool of nodes: each of them gets the same PodsOnGroup, which names them
// all, with how many nodes the pods need against how many the groups can have, and the first
// of them a note when they cannot hold the pods.
func onNodeGroups(es []Estimate) {
	ids := make(map[string]int, len(es))
	for i := range es {
		ids[es[i].ID] = i
	}
	parent := map[int]int{} // union-find over the groups that pods share
	var find func(int) int
	find = func(g int) int {
		if p, ok := parent[g]; ok && p != g {
			parent[g] = find(p)
			return parent[g]
		}
		parent[g] = g
		return g
	}
	var withPods []int // the pods that run on groups among the estimates
	for i := range es {
		e := &es[i]
		if e.Pod == nil || len(e.Pod.NodeGroups) == 0 {
			continue
		}
		var on, names []string
		first := -1
		for _, ref := range e.Pod.NodeGroups {
			root := ref.Root
			if root == "" {
				root = e.Root
			}
			id := ResourceID(root, ref.Address)
			g, ok := ids[id]
			if !ok || g == i {
				continue
			}
			on, names = append(on, id), append(names, ref.Address)
			if first < 0 {
				first = find(g) // find registers a group it has not met
			} else {
				parent[find(g)] = find(first)
			}
		}
		if first < 0 {
			continue
		}
		e.NodeGroup = on[0]
		if len(on) > 1 {
			e.NodeGroups = on
		}
		w := [...]string{"the group and the pods on it", "the group at its maximum", "the group's nodes make it scale out, up to its maximum"}
		if len(on) > 1 {
			w = [...]string{"those groups and the pods on them", "the groups at their maximums", "the groups' nodes make them scale out, up to their maximums"}
		}
		e.Notes = append(e.Notes, fmt.Sprintf("its pods run on the nodes of %s, priced too: the totals count %s once, as the larger of the two, and no more than %s (pods that need more than %s)", strings.Join(names, " or "), w[0], w[1], w[2]))
		withPods = append(withPods, i)
	}
	type pool struct{ groups, pods []int }
	pools := map[int]*pool{}
	var leads []int // in the order of the estimates
	for i := range es {
		if _, ok := parent[i]; ok {
			l := find(i)
			if pools[l] == nil {
				pools[l] = &pool{}
				leads = append(leads, l)
			}
			pools[l].groups = append(pools[l].groups, i)
		}
	}
	for _, i := range withPods {
		p := pools[find(ids[es[i].NodeGroup])]
		p.pods = append(p.pods, i)
	}
	for _, l := range leads {
		groupPods(es, pools[l].groups, pools[l].pods)
	}
}

// groupPods sets what the pods on groups (one pool of nodes) need of them, on each of the
// groups, and says so on the first when their maximums cannot hold them. Unpriced pods add
// nothing (their share of a node is unknown): the needs stay lower bounds.
func groupPods(es []Estimate, groups, on []int) {
	gp := &GroupPods{}
	var floor, top []podLoad
	lead := &es[groups[0]]
	for _, i := range on {
		e := &es[i]
		gp.Workloads = append(gp.Workloads, e.Address)
		if e.MonthlyCost == nil || e.nodeShare <= 0 || e.Type == "DaemonSet" {
			continue
		}
		part := e.HoursPerMonth < lead.HoursPerMonth-1e-9
		floor = append(floor, podLoad{e.Quantity, e.nodeShare, part})
		q := e.Quantity
		if e.ScaleMax != nil {
			q = e.ScaleMax.Quantity
		}
		top = append(top, podLoad{q, e.nodeShare, part})
	}
	gp.NodesNeeded, gp.NodesNeededAtMax = nodesNeeded(floor), nodesNeeded(top)
	most, known := 0, true
	var names []string
	for _, g := range groups {
		grp := &es[g]
		names = append(names, grp.Address)
		if len(groups) > 1 {
			gp.Groups = append(gp.Groups, grp.ID)
		}
		grp.PodsOnGroup = gp
		known = known && !grp.scaleMaxUnknown && grp.MonthlyCost != nil // an unpriced group's maximum is not read
		most += grp.Quantity
		if grp.ScaleMax != nil {
			most += grp.ScaleMax.Quantity - grp.Quantity
		}
	}
	// How the notes name the groups: the one, or all of them.
	group, atMax, has := "the group", "its maximum", "it has"
	if len(groups) > 1 {
		group, atMax, has = "the groups", "their maximums", fmt.Sprintf("it and %s have", strings.Join(names[1:], ", "))
	}
	for _, g := range groups {
		others := ""
		if len(groups) > 1 {
			others = fmt.Sprintf(" (and on %s)", strings.Join(slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == es[g].Address }), ", "))
		}
		es[g].Notes = append(es[g].Notes, fmt.Sprintf("the pods of %s run on its nodes%s: the totals count %s and those pods once, as the larger of the two", strings.Join(gp.Workloads, ", "), others, group))
	}
	if !known {
		return
	}
	gp.MaxNodes = &most
	switch {
	case gp.NodesNeeded > most:
		lead.Notes = append(lead.Notes, fmt.Sprintf("its pods need at least %d nodes and %s at most %d: pods would stay Pending; the totals count %s at %s", gp.NodesNeeded, has, most, group, atMax))
	case gp.NodesNeededAtMax > most:
		lead.Notes = append(lead.Notes, fmt.Sprintf("at their autoscalers' maximums its pods need at least %d nodes and %s at most %d: replicas past that would stay Pending", gp.NodesNeededAtMax, has, most))
	}
}

// AssessNodeGroups carries what assessing the estimates (profiles, fit, recommendations) found
// to the node groups whose nodes pods among them run on: a group whose pods all have a profile
// is judged on them (PodsOnGroup.Profiled), and the pods' recommendations say that taking them
// means changing the group.
func AssessNodeGroups(es []Estimate) {
	ids := make(map[string]*Estimate, len(es))
	for i := range es {
		if es[i].PodsOnGroup != nil {
			ids[es[i].ID] = &es[i]
			es[i].PodsOnGroup.Profiled = true
		}
	}
	for i := range es {
		e := &es[i]
		g := ids[e.NodeGroup]
		if g == nil {
			continue
		}
		g.PodsOnGroup.Profiled = g.PodsOnGroup.Profiled && e.Profile != nil
		on, that := g.Address, "that group"
		if len(e.NodeGroups) > 1 {
			names := make([]string, len(e.NodeGroups))
			for k, id := range e.NodeGroups {
				names[k] = ids[id].Address
			}
			on, that = strings.Join(names, " or "), "those groups"
		}
		for k := range e.Recommendations {
			e.Recommendations[k].Reason += fmt.Sprintf("; its pods run on %s: this means changing %s", on, that)
		}
	}
}

// podLoad is one workload's pods on a node group: how many, the share of a node each takes, and
// whether they run only part of the month.
type podLoad struct {
	pods     int
	share    float64
	partTime bool
}

// nodesNeeded is the fewest nodes that can hold the workloads' pods at once: no fewer than their
// shares of a node add up to (always-on workloads together with the largest part-time one: part-
// time workloads may run at different times), and no fewer than one workload's pods need alone
// when a node holds only so many of them (pods that take 3 of a node's 8 GPUs go two to a node).
func nodesNeeded(ws []podLoad) int {
	const eps = 1e-9
	var always, part float64
	need := 0
	for _, w := range ws {
		if w.pods <= 0 || w.share <= 0 {
			continue
		}
		load := float64(w.pods) * w.share
		if w.partTime {
			part = max(part, load)
		} else {
			always += load
		}
		perNode := max(1, int(math.Floor(1/w.share+eps)))
		need = max(need, (w.pods+perNode-1)/perNode)
	}
	return max(need, int(math.Ceil(always+part-eps)))
}

// sharedLimit is the resource's shared limit with its per-instance share known: a limit in
// vCPUs takes the type's vCPUs from the catalog. Without them the resource is left out of the
// limit (its own maximum still bounds it) and a note says so.
func (p *Pricer) sharedLimit(r *parser.Resource) *parser.SharedLimit {
	l := r.SharedLimit
	if l == nil || l.PerInstance > 0 {
		return l
	}
	if l.Unit == parser.UnitVCPU {
		if in, ok := p.instance(r.Provider, r.InstanceType); ok && in.VCPU > 0 {
			c := *l
			c.PerInstance = float64(in.VCPU)
			return &c
		}
	}
	if l.PerGPU {
		if _, n, ok := p.nodeGPUs(r); ok {
			c := *l
			c.PerInstance = n
			return &c
		}
	}
	return nil
}

// calendarHours scales hours that a schedule runs in the default month (DefaultHoursPerMonth, a
// twelfth of a year) to a month of the given hours: a group that runs a third of the year runs a
// third of whatever month the config prices.
func calendarHours(hours, month float64) float64 {
	if month == DefaultHoursPerMonth {
		return hours
	}
	return math.Min(month, math.Round(hours*month/DefaultHoursPerMonth*100)/100)
}

// priceScaleMax prices a resource at its autoscaler's declared maximum, when it has one and
// that costs more than its price: the same resource with the maximum's instances, nodes or pods
// (and the maximum's spot share, where purchase is split).
func (p *Pricer) priceScaleMax(r *parser.Resource, e *Estimate) {
	m := p.limitedScaleMax(r, e)
	if m == nil || e.MonthlyCost == nil {
		return
	}
	if r.Pod != nil && r.Pod.SharedOnly() {
		// Pods that get all their GPUs from shared ResourceClaims: the pods an autoscaler adds
		// share the claims' devices, allocated once, and cost nothing more.
		return
	}
	at := *r
	at.ScaleMax, at.Notes = nil, nil
	at.Quantity, at.SpotQuantity, at.QuantityVCPUs = m.Quantity, m.SpotQuantity, m.VCPUs
	if m.HoursPerMonth > 0 {
		at.HoursPerMonth, at.CalendarHours = m.HoursPerMonth, true
	}
	if at.SpotQuantity > 0 && at.SpotQuantity >= at.Quantity {
		at.PurchaseOption, at.SpotQuantity = parser.Spot, 0
	}
	me := p.Estimate(at)
	if me.MonthlyCost == nil || *me.MonthlyCost <= *e.MonthlyCost {
		return
	}
	e.ScaleMax = &ScaleMaxCost{Quantity: me.Quantity, MonthlyCost: *me.MonthlyCost, PriceEstimated: me.PriceEstimated, From: m.From}
}

// limitedScaleMax is a resource's maximum within the limit it shares with others, which no
// instance of it may pass on its own either: its autoscaler's maximum, at most the instances the
// limit holds, or those alone when the autoscaler's maximum is known only at apply. A note says
// when the limit is the lower.
func (p *Pricer) limitedScaleMax(r *parser.Resource, e *Estimate) *parser.ScaleMax {
	m, l := r.ScaleMax, e.SharedLimit
	if l == nil || l.PerInstance <= 0 || m == nil && !r.ScaleMaxUnknown || m != nil && (m.VCPUs > 0 || m.Quantity == 0) {
		return m
	}
	most := int(math.Floor(l.Limit/l.PerInstance + 1e-9))
	if m != nil && m.Quantity <= most {
		return m
	}
	from := fmt.Sprintf("%s's %s", l.Owner, l.What)
	if m == nil {
		e.scaleMaxUnknown = false
		addNote(e, fmt.Sprintf("its autoscaler's maximum is known only at apply, but %s holds at most %d of its instances", from, most))
		return &parser.ScaleMax{Quantity: most, From: from}
	}
	addNote(e, fmt.Sprintf("%s holds at most %d of its instances, fewer than the %d of %s", from, most, m.Quantity, m.From))
	capped := *m
	capped.Quantity, capped.SpotQuantity, capped.From = most, min(m.SpotQuantity, most), from
	return &capped
}

// noRegion is why a resource without a region stays unpriced: the reason no manifest could name
// one when the parser knows it, and how to set one.
func noRegion(r *parser.Resource) string {
	if r.RegionUnknown != "" {
		return "no region: " + r.RegionUnknown + "; set one in .gpuguard.yaml (region) or with --region"
	}
	return catalog.NoRegion
}
