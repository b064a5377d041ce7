// Package parser owns the resource model that every input format produces (Resource, Location,
// Error), the discovery of inputs under the paths a user names, and the registry of formats.
//
// Format packages (parser/terraform, parser/kubernetes) turn files into []Resource; they never
// look prices up, never print and never exit. A resource that cannot be fully resolved is still
// returned, with what is missing in Unresolved, so that it is reported rather than dropped.
package parser
