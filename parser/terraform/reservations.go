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
// instance of this configuration is seen to take, and the instances that take it keep their own
// price, with a note: together they count the reserved capacity once.
//
// Sources: AWS, "On-Demand Capacity Reservations" (billing: "you are charged the equivalent
// On-Demand rate whether you run instances in reserved capacity or not");
// GCP, "Reservations of Compute Engine zonal resources" (reserved resources are charged at
// on-demand rates, used or not); Azure, "On-demand capacity reservation" (billed at the
// pay-as-you-go rate whether used or not). Read 2026-11.

func init() {
	register("aws_ec2_capacity_reservation", mapAWSCapacityReservation)
	register("google_compute_reservation", mapGCPReservation)
	register("azurerm_capacity_reservation", mapAzureCapacityReservation)
}

// reservationNote says how a reservation is billed and which instances were seen to run in it.
func reservationNote(r *parser.Resource, reserved int, takers []string, more string) {
	used := len(takers)
	if used > reserved {
		used = reserved
	}
	r.Quantity = reserved - used
	msg := fmt.Sprintf("capacity reservation of %d: billed at the on-demand rate whether instances run in it or not", reserved)
	if len(takers) > 0 {
		msg += fmt.Sprintf("; %d of it taken by %s (priced there), the %d left idle priced here", used, strings.Join(takers, ", "), reserved-used)
	}
	r.Note("%s%s", msg, more)
}

// runsInReservation notes on an instance that it takes capacity of a reservation.
func runsInReservation(r *parser.Resource, reservation string) {
	r.Note("runs in %s: its price here is its share of the reservation, whose idle capacity is priced there", reservation)
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
			r.AddUnresolved("instance_count", "not set")
		}
		return []*parser.Resource{r}
	}
	az, _ := w.str("availability_zone")
	open := true
	if crit, ok := w.str("instance_match_criteria"); ok && strings.EqualFold(crit, "targeted") {
		open = false
	}
	// In a plan, an existing reservation has its id: an instance may name it by value.
	id, _ := (&view{obj: c.inst.value}).str("id")
	var takers []string
	for _, inst := range c.ev.order {
		if inst.decl.typ != "aws_instance" {
			continue
		}
		iw := &view{obj: inst.value}
		it, _ := iw.str("instance_type")
		if it != t {
			continue
		}
		ic := &mapContext{inst: inst, ev: c.ev}
		target := ic.referenced(iw, "aws_ec2_capacity_reservation", "capacity_reservation_specification", "capacity_reservation_target", "capacity_reservation_id")
		targetID, _ := iw.str("capacity_reservation_specification", "capacity_reservation_target", "capacity_reservation_id")
		pref, _ := iw.str("capacity_reservation_specification", "capacity_reservation_preference")
		iaz, _ := iw.str("availability_zone")
		switch {
		case target == c.inst, target == nil && id != "" && targetID == id:
		case target == nil && targetID == "" && open && !strings.EqualFold(pref, "none") && az != "" && iaz == az:
			// An open reservation takes any instance of its type in its zone.
		default:
			continue
		}
		takers = append(takers, inst.addr)
	}
	sort.Strings(takers)
	more := ""
	if open {
		more = "; an open reservation also takes matching instances this configuration does not declare"
	}
	reservationNote(r, n, takers, more)
	if end, ok := w.str("end_date"); ok && end != "" {
		r.Note("reserved until %s", end)
	}
	return []*parser.Resource{r}
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
			r.AddUnresolved("specific_reservation.count", "not set")
		}
		return []*parser.Resource{r}
	}
	name, _ := w.str("name")
	specific, _ := w.boolean("specific_reservation_required")
	var takers []string
	for _, inst := range c.ev.order {
		if inst.decl.typ != "google_compute_instance" {
			continue
		}
		iw := &view{obj: inst.value}
		if it, _ := iw.str("machine_type"); lastSegment(it) != r.InstanceType {
			continue
		}
		kind, _ := iw.str("reservation_affinity", "type")
		switch strings.ToUpper(kind) {
		case "SPECIFIC_RESERVATION":
			values, _ := iw.strList("reservation_affinity", "specific_reservation", "values")
			if name == "" || !containsString(values, name) {
				continue
			}
		case "ANY_RESERVATION", "":
			if specific {
				continue // the reservation takes only instances that name it
			}
			zone, _ := iw.str("zone")
			rz, _ := w.str("zone")
			if zone == "" || zone != rz {
				continue
			}
		default:
			continue
		}
		takers = append(takers, inst.addr)
	}
	sort.Strings(takers)
	reservationNote(r, n, takers, "")
	return []*parser.Resource{r}
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
			r.AddUnresolved("sku.capacity", "not set")
		}
		return []*parser.Resource{r}
	}
	// VMs join a reservation group, not one reservation: those of its size in the group take it.
	var takers []string
	for _, inst := range c.ev.order {
		switch inst.decl.typ {
		case "azurerm_linux_virtual_machine", "azurerm_windows_virtual_machine":
		default:
			continue
		}
		iw := &view{obj: inst.value}
		if s, _ := iw.str("size"); s != size {
			continue
		}
		ic := &mapContext{inst: inst, ev: c.ev}
		if g := ic.referenced(iw, "azurerm_capacity_reservation_group", "capacity_reservation_group_id"); g == nil || g != group {
			continue
		}
		takers = append(takers, inst.addr)
	}
	sort.Strings(takers)
	reservationNote(r, n, takers, "")
	return []*parser.Resource{r}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
