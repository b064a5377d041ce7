package kubernetes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// The annotations that place pods (exclusive placement, Kueue's topology-aware scheduling) are
// read by their full key: one written with another domain (jobset.sigs.k8s.io/... without
// "alpha.", a LeaderWorkerSet's key on a JobSet, kueue.sigs.k8s.io/...) does nothing, and the
// pods are placed as if it were not there. misnamedPlacement warns of such keys where the kind
// has a key of the same name that would place its pods.

// placementReads are the placement annotation keys each kind reads, "" for those every kind
// does.
var placementReads = map[string][]string{
	"":                  {tasRequiredKey, tasPreferredKey, tasUnconstrainedKey, tasSliceKey, tasSliceSizeKey, tasLayersKey, tasGroupKey},
	"JobSet":            {jobSetExclusiveKey},
	"LeaderWorkerSet":   {lwsExclusiveKey, lwsSubExclusiveKey},
	"RoleBasedGroup":    {rbgExclusiveKey, rbgOldExclusiveKey},
	"RoleBasedGroupSet": {rbgExclusiveKey, rbgOldExclusiveKey},
}

// misnamedPlacement warns of placement annotations on an object (its metadata, its roles' pod
// templates, a JobSet's replicated job templates) whose key its kind does not read, where a
// key of the same name would place its pods.
func misnamedPlacement(o *object, roles []role) (parser.Error, bool) {
	sets := []map[string]string{o.Metadata.Annotations}
	for _, r := range roles {
		sets = append(sets, r.template.Metadata.Annotations, r.jobAnnotations)
	}
	var found []string
	for _, ann := range sets {
		for key := range ann {
			if want := readKey(o.Kind, key); want != "" {
				if s := fmt.Sprintf("%s, where %s reads %s", key, readerOf(want), want); !slices.Contains(found, s) {
					found = append(found, s)
				}
			}
		}
	}
	if len(found) == 0 {
		return parser.Error{}, false
	}
	slices.Sort(found)
	return parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s sets %s: a key nothing reads places nothing (priced without it)",
		o.address(), strings.Join(found, "; "))}, true
}

// readerOf names what reads a placement key.
func readerOf(key string) string {
	switch key {
	case jobSetExclusiveKey:
		return "JobSet"
	case lwsExclusiveKey, lwsSubExclusiveKey:
		return "LeaderWorkerSet"
	case rbgExclusiveKey, rbgOldExclusiveKey:
		return "RoleBasedGroup"
	}
	return "Kueue"
}

// readKey is the placement key a kind reads in place of key: one of the same name after its
// domain, when key itself is not one it reads; "" otherwise.
func readKey(kind, key string) string {
	reads := slices.Concat(placementReads[kind], placementReads[""])
	if slices.Contains(reads, key) {
		return ""
	}
	for _, k := range reads {
		if keyName(k) == keyName(key) {
			return k
		}
	}
	return ""
}

// keyName is an annotation key's name, after its domain (the whole key when it has none).
func keyName(key string) string {
	return key[strings.LastIndexByte(key, '/')+1:]
}
