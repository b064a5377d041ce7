package terraform

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// Capacity reservations hold GPU capacity and are billed for it at the on-demand rate whether
// instances run in it or not (AWS On-Demand Capacity Reservations, GCP reservations, Azure
// capacity reservations). Idle reserved GPUs are overspend like any other; instances that run in a
// reservation are billed through it, not again. So a reservation is priced for the capacity no
// resource of this configuration is seen to take, and the resources that take it keep their own
// price, with a note: together they count the reserved capacity once.
//
// Sources: AWS, "On-Demand Capacity Reservations" (billing: "you are charged the equivalent
// On-Demand rate whether you run instances in reserved capacity or not");
// GCP, "Reservations of Compute Engine zonal resources" (reserved resources are charged at
// on-demand rates, used or not); Azure, "On-demand capacity reservation" (billed at the
// pay-as-you-go rate whether used or not). Read 2026-11.
//
// Mappers record reservations and the resources that may take them in the evaluation's book;
// the book is settled once every resource is mapped, since a reservation and the node group that
// fills it may come in any order.

func init() {
	register("aws_ec2_capacity_reservation", mapAWSCapacityReservation)
	register("google_compute_reservation", mapGCPReservation)
	register("azurerm_capacity_reservation", mapAzureCapacityReservation)
	register("aws_ec2_capacity_block_reservation", mapAWSCapacityBlock)
}

// reservationBook collects reservations and their possible takers during one evaluation.
type reservationBook struct {
	reserved []*reservation
	takers   []taker
}

// reservation is one reservation resource and what it holds.
type reservation struct {
	res    *parser.Resource
	key    string // its instance address, or (Azure) its reservation group's address
	id     string // its id, when a plan knows it
	count  int
	zone   string
	open   bool // takes any matching resource in its zone, not only those naming it
	suffix string
}

// taker is a resource that may run in a reservation: one that names it (key or id), or one an
// open reservation takes by type and zone.
type taker struct {
	res      *parser.Resource
	key, id  string
	zone     string
	anyOpen  bool // eligible for open reservations in its zone
	quantity int  // how many of its instances can run in reserved capacity (not spot)
}

func (ev *evaluation) book() *reservationBook {
	if ev.reservations == nil {
		ev.reservations = &reservationBook{}
	}
	return ev.reservations
}

// settle prices each reservation for what no taker takes and notes who takes what.
func (b *reservationBook) settle() {
	if b == nil {
		return
	}
	taken := map[*reservation][]string{}
	used := map[*reservation]int{}
	// Resources that name a reservation first, then those an open one takes by type and zone.
	for _, named := range []bool{true, false} {
		for _, t := range b.takers {
			if (t.key != "" || t.id != "") != named || t.quantity <= 0 {
				continue
			}
			for _, rv := range b.reserved {
				if rv.res.Provider != t.res.Provider || rv.res.InstanceType != t.res.InstanceType || used[rv] >= rv.count {
					continue
				}
				match := named && (t.key != "" && t.key == rv.key || t.id != "" && t.id == rv.id) ||
					!named && t.anyOpen && rv.open && rv.zone != "" && t.zone == rv.zone
				if !match {
					continue
				}
				used[rv] += min(t.quantity, rv.count-used[rv])
				taken[rv] = append(taken[rv], t.res.Address)
				t.res.Note("runs in %s: its price here is its share of the reservation, whose idle capacity is priced there", rv.res.Address)
				break
			}
		}
	}
	for _, rv := range b.reserved {
		rv.res.Quantity = rv.count - used[rv]
		msg := fmt.Sprintf("capacity reservation of %d: billed at the on-demand rate whether instances run in it or not", rv.count)
		if names := taken[rv]; len(names) > 0 {
			sort.Strings(names)
			msg += fmt.Sprintf("; %d of it taken by %s (priced there), the %d left idle priced here", used[rv], strings.Join(names, ", "), rv.count-used[rv])
		}
		rv.res.Note("%s%s", msg, rv.suffix)
	}
}

// reserve records a reservation of count (known) on the book.
func (c *mapContext) reserve(r *parser.Resource, rv reservation) {
	rv.res = r
	c.ev.book().reserved = append(c.ev.book().reserved, &rv)
}

// mayTake records a resource that may run in a reservation.
func (c *mapContext) mayTake(r *parser.Resource, t taker) {
	t.res = r
	c.ev.book().takers = append(c.ev.book().takers, t)
}

func mapAWSCapacityReservation(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.AWS, c.inst.addr)
	t, ok := w.str("instance_type")
	r.InstanceType = t
	requireInstanceType(r, "instance_type", ok)
	c.awsCommon(r, w)
	n, ok := w.num("instance_count")
	if !ok {
		if !w.has("instance_count") {
			r.AddUnresolved("instance_count", parser.ReasonNotSet)
		}
		return []*parser.Resource{r}
	}
	rv := reservation{key: c.inst.addr, count: n, open: true}
	rv.zone, _ = w.str("availability_zone")
	// In a plan, an existing reservation has its id: a resource may name it by value.
	rv.id, _ = (&view{obj: c.inst.value}).str("id")
	if crit, ok := w.str("instance_match_criteria"); ok && strings.EqualFold(crit, "targeted") {
		rv.open = false
	}
	if rv.open {
		rv.suffix = "; an open reservation also takes matching instances this configuration does not declare"
	}
	if end, ok := w.str("end_date"); ok && end != "" {
		rv.suffix += "; reserved until " + end
	}
	c.reserve(r, rv)
	return []*parser.Resource{r}
}

// awsTaker records an AWS resource (an instance, or a group through its launch template) whose
// capacity_reservation_specification at spec may put quantity instances in a reservation.
func (c *mapContext) awsTaker(r *parser.Resource, spec *view, quantity int) {
	if spec == nil || quantity <= 0 {
		return
	}
	t := taker{quantity: quantity}
	targetID := []any{"capacity_reservation_specification", "capacity_reservation_target", "capacity_reservation_id"}
	if res := c.referenced(spec, "aws_ec2_capacity_reservation", targetID...); res != nil {
		t.key = res.addr
	}
	// These attributes are optional: read without recording them as unresolved on r.
	optional := &view{obj: spec.obj}
	t.id, _ = optional.str(targetID...)
	pref, _ := optional.str("capacity_reservation_specification", "capacity_reservation_preference")
	t.anyOpen = !strings.EqualFold(pref, "none")
	t.zone, _ = optional.str("availability_zone")
	c.mayTake(r, t)
}

func mapGCPReservation(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.GCP, c.inst.addr)
	props := []any{"specific_reservation", "instance_properties"}
	mt, found := w.str(append(props, "machine_type")...)
	r.InstanceType = lastSegment(mt)
	requireInstanceType(r, "specific_reservation.instance_properties.machine_type", found)
	gcpAccelerators(r, w.blocks(append(props, "guest_accelerators")...), "accelerator_type", "accelerator_count", "guest_accelerators block", lastSegment)
	c.gcpPlace(r, w, "zone")
	n, ok := w.num("specific_reservation", "count")
	if !ok {
		if !w.has("specific_reservation", "count") {
			r.AddUnresolved("specific_reservation.count", parser.ReasonNotSet)
		}
		return []*parser.Resource{r}
	}
	rv := reservation{key: c.inst.addr, count: n}
	rv.zone, _ = w.str("zone")
	specific, _ := w.boolean("specific_reservation_required")
	rv.open = !specific
	c.reserve(r, rv)
	return []*parser.Resource{r}
}

// gcpTaker records a GCP instance whose reservation_affinity may put it in a reservation.
func (c *mapContext) gcpTaker(r *parser.Resource, w *view) {
	c.gcpAffinity(r, w, "reservation_affinity", "type", []any{"reservation_affinity", "specific_reservation", "values"})
}

// gcpAffinity records a GCP resource whose reservation affinity block (at block, its type in
// typeAttr, the reservation names at valuesPath) may put it in a reservation: an instance, or a
// GKE node pool's node_config (node pools name specific reservations only, since their zones
// are many).
func (c *mapContext) gcpAffinity(r *parser.Resource, w *view, block, typeAttr string, valuesPath []any) {
	v := &view{obj: w.obj}
	kind, _ := v.str(block, typeAttr)
	t := taker{quantity: r.Quantity}
	t.zone, _ = v.str("zone")
	if r.PurchaseOption == parser.Spot {
		return // spot VMs do not consume reservations
	}
	switch strings.ToUpper(kind) {
	case "SPECIFIC_RESERVATION":
		values, _ := v.strList(valuesPath...)
		if len(values) == 0 {
			return
		}
		res := c.byAttribute("google_compute_reservation", "name", lastSegment(values[0]))
		if res == nil {
			return
		}
		t.key = res.addr
	case "ANY_RESERVATION", "":
		t.anyOpen = t.zone != ""
	default:
		return
	}
	c.mayTake(r, t)
}

func mapAzureCapacityReservation(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.Azure, c.inst.addr)
	size, found := w.str("sku", "name")
	r.InstanceType = size
	requireInstanceType(r, "sku.name", found)
	group := c.referenced(w, "azurerm_capacity_reservation_group", "capacity_reservation_group_id")
	if group != nil {
		if loc, ok := (&view{obj: group.value}).str("location"); ok {
			r.Region = parser.NormalizeRegion(loc)
		}
	}
	applyTags(r, w.strMap("tags"))
	n, ok := w.num("sku", "capacity")
	if !ok {
		if !w.has("sku", "capacity") {
			r.AddUnresolved("sku.capacity", parser.ReasonNotSet)
		}
		return []*parser.Resource{r}
	}
	if group == nil {
		c.reserve(r, reservation{count: n})
		return []*parser.Resource{r}
	}
	// VMs join a reservation group, not one reservation: those of its size take it.
	c.reserve(r, reservation{key: group.addr, count: n})
	return []*parser.Resource{r}
}

// mapAWSCapacityBlock lists an EC2 Capacity Block for ML: its price is set by the offering it is
// bought from, paid upfront, and is not in the catalog.
func mapAWSCapacityBlock(c *mapContext) []*parser.Resource {
	r, w := c.resource(parser.AWS, c.inst.addr)
	typeAndCount(r, w, "instance_count")
	c.awsCommon(r, w)
	r.AddUnresolved("capacity_block_offering_id", "a Capacity Block is paid upfront at the price of the offering it is bought from, which the catalog does not hold")
	return []*parser.Resource{r}
}

// azureTaker records an Azure VM or scale set in a capacity reservation group.
func (c *mapContext) azureTaker(r *parser.Resource, w *view) {
	if r.PurchaseOption == parser.Spot {
		return
	}
	if g := c.referenced(&view{obj: w.obj}, "azurerm_capacity_reservation_group", "capacity_reservation_group_id"); g != nil {
		c.mayTake(r, taker{key: g.addr, quantity: r.Quantity - r.SpotQuantity}) // a Spot Priority Mix's Spot VMs take none
	}
}
