package terraform

// gceBootTexts reads the texts a Compute Engine instance boots with from its metadata (v, the
// instance's or its template's, declared at addr), and from the project's when the instance's
// sets no startup script: the guest agent's script runner looks for startup-script and
// startup-script-url among the instance's attributes, and only when it finds neither (an empty
// value is none) among the project's (GoogleCloudPlatform/guest-agent,
// google_metadata_script_runner, getExistingKeys). cloud-init reads only the instance's
// user-data. The project's metadata is google_compute_project_metadata's and
// google_compute_project_metadata_item's, in the instance's module or a module above it, for
// the same project (one that names none is the provider's, taken to be the same).
func (c *mapContext) gceBootTexts(v *view, addr string) bootTexts {
	b := bootTextsOf(v, addr, "metadata", gceBoot)
	if v == nil {
		return b
	}
	q := v.quiet()
	for _, path := range [][]any{{"metadata", "startup-script"}, {"metadata_startup_script"}, {"metadata", "startup-script-url"}} {
		if s, ok := q.str(path...); q.has(path...) && !(ok && s == "") {
			return b
		}
	}
	project, _ := q.str("project")
	b.add(c.projectStartupScripts(project)...)
	return b
}

// projectStartupScripts reads the project-wide startup-script and startup-script-url of project
// ("" when the instance names none), in the module being mapped and the modules above it.
func (c *mapContext) projectStartupScripts(project string) []bootTexts {
	var out []bootTexts
	sameProject := func(w *view) bool {
		p, ok := w.quiet().str("project")
		return project == "" || !ok || p == project
	}
	for mi := c.inst.mod; mi != nil; mi = mi.parent {
		for _, inst := range c.instancesIn(mi, "google_compute_project_metadata") {
			if w := (&view{obj: inst.value}); sameProject(w) {
				if b := bootTextsOf(w, inst.addr, "project metadata", gceProjectBoot); b.declared() {
					out = append(out, b)
				}
			}
		}
		for _, inst := range c.instancesIn(mi, "google_compute_project_metadata_item") {
			w := &view{obj: inst.value}
			key, _ := w.quiet().str("key")
			if !sameProject(w) || key != "startup-script" && key != "startup-script-url" {
				continue
			}
			attr := bootAttr{name: "value", path: []any{"value"}, script: true, opaque: key == "startup-script-url"}
			if b := bootTextsOf(w, inst.addr, key, []bootAttr{attr}); b.declared() {
				out = append(out, b)
			}
		}
	}
	return out
}

// gceProjectBoot: the project-wide metadata's startup scripts.
var gceProjectBoot = []bootAttr{
	{name: "metadata.startup-script", path: []any{"metadata", "startup-script"}, script: true},
	{name: "metadata.startup-script-url", path: []any{"metadata", "startup-script-url"}, opaque: true},
}
