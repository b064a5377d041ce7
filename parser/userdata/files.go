package userdata

import (
	"path"
	"slices"
	"strings"
)

// computedMark stands in a written file's text for what is computed at boot (a shell variable
// gpuguard cannot read). It is a private-use character, which YAML reads as text.
const computedMark = "\uE000"

// files are the files user data writes before the node starts: the configuration k3s, RKE2
// and kubeadm read. They come from cloud-config's write_files and from the scripts' here-documents
// and echo commands redirected to a file or piped into tee. The last write of a path is its
// text, as the node sees it after its user data ran; >> and tee -a append.
type files struct {
	text map[string]string
	// unknownPath is set when a script writes to a path it computes at boot: any
	// configuration file may be that one.
	unknownPath bool
	// copied are the destinations of files copied or downloaded (cp, curl -o, aws s3 cp, ...):
	// files whose text is not known, or directories that may receive them.
	copied []string
	// opaque are the files some of whose text is not known: a command's output gpuguard does
	// not follow was redirected there.
	opaque map[string]bool
	size   int
}

// unknown says whether the file at name may have been written with text the user data does
// not say: copied or downloaded there, or into a directory above it.
func (f *files) unknown(name string) bool {
	name = path.Clean(name)
	if f.opaque[name] {
		return true
	}
	for _, c := range f.copied {
		if name == c || strings.HasPrefix(name, c+"/") {
			return true
		}
	}
	return false
}

func (f *files) write(name, text string, appending bool) {
	if f.text == nil {
		f.text = map[string]string{}
	}
	if f.size+len(text) > maxText { // written over and over: as good as unknown
		text = computedMark
	}
	f.size += len(text)
	name = path.Clean(name)
	if appending {
		text = f.text[name] + text
	} else {
		delete(f.opaque, name) // written anew
	}
	f.text[name] = text
}

// dropIns are the files in dir.d/ (for k3s's and RKE2's config.yaml.d) whose names end in one
// of exts, in the order of their names, as the distributions read them.
func (f *files) dropIns(dir string, exts ...string) []string {
	var names []string
	for name := range f.text {
		if path.Dir(name) == dir && slices.ContainsFunc(exts, func(e string) bool { return strings.HasSuffix(strings.ToLower(name), e) }) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// output is what a command writes to its standard output, as far as the files it writes need:
// cat's here-document, tee's input (its here-document or what is piped into it), echo's
// arguments. ok is false for anything else. prev is the output of the command piping into it.
func output(cmd command, at int, vars map[string]*word, prev *string) (text string, ok bool) {
	if at < 0 || cmd.words[at].dynamic {
		return "", false
	}
	args := cmd.words[at+1:]
	switch path.Base(cmd.words[at].text) {
	case "cat":
		if cmd.heredoc != nil && len(operands(args)) == 0 {
			return expandDocument(cmd.heredoc, vars), true
		}
	case "tee":
		if cmd.heredoc != nil {
			return expandDocument(cmd.heredoc, vars), true
		}
		if cmd.piped && prev != nil {
			return *prev, true
		}
	case "echo":
		words := expand(args, vars)
		newline := "\n"
		for len(words) > 0 && (words[0].text == "-n" || words[0].text == "-e" || words[0].text == "-E") {
			if words[0].text == "-n" {
				newline = ""
			}
			words = words[1:]
		}
		texts := make([]string, len(words))
		for i, w := range words {
			texts[i] = markComputed(w)
		}
		return strings.Join(texts, " ") + newline, true
	}
	return "", false
}

// copies records where a command whose output is not known writes: its > and >> redirections
// (the file's text is unknown), and the destination of cp, mv, install, rsync, aws s3 cp and
// gsutil cp (their last operand), curl -o and wget -O (a file or a directory it lands in).
func (r *reader) copies(cmd command, at int, vars map[string]*word) {
	for _, rd := range cmd.redirects {
		r.unknownWrite(rd, vars)
	}
	if at < 0 || cmd.words[at].dynamic {
		return
	}
	args := cmd.words[at+1:]
	var dest *shellWord
	switch program := path.Base(cmd.words[at].text); program {
	case "cp", "mv", "install", "rsync":
		if ops := operands(args); len(ops) >= 2 {
			dest = &ops[len(ops)-1]
		}
	case "aws", "gsutil": // aws s3 cp SRC DEST, gsutil cp SRC DEST
		ops := operands(args)
		if len(ops) >= 3 && slices.ContainsFunc(ops, func(w shellWord) bool { return w.text == "cp" || w.text == "mv" || w.text == "sync" }) {
			dest = &ops[len(ops)-1]
		}
	case "curl", "wget":
		for i, a := range args {
			name, value, inline := strings.Cut(a.text, "=")
			isOut := program == "curl" && (name == "-o" || name == "--output") || program == "wget" && (name == "-O" || name == "--output-document")
			switch {
			case isOut && !inline && i+1 < len(args):
				dest = &args[i+1]
			case isOut && inline:
				w := a
				w.text, w.dynamic = value, a.dynamic
				dest = &w
			}
		}
	}
	if dest == nil {
		return
	}
	name := expandOne(*dest, vars)
	if name.dynamic {
		r.files.unknownPath = true
		return
	}
	r.files.copied = append(r.files.copied, path.Clean(name.text))
}

// unknownWrite records a redirection of what is not known (a command's output gpuguard does not
// follow, another descriptor's) to its file.
func (r *reader) unknownWrite(rd redirect, vars map[string]*word) {
	name := expandOne(rd.target, vars)
	if name.dynamic {
		r.files.unknownPath = true
		return
	}
	r.files.write(name.text, computedMark, rd.append)
	if r.files.opaque == nil {
		r.files.opaque = map[string]bool{}
	}
	r.files.opaque[path.Clean(name.text)] = true
}

// operands are a command's arguments that are not options.
func operands(args []shellWord) []shellWord {
	var out []shellWord
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") || a.text == "-" {
			out = append(out, a)
		}
	}
	return out
}

// writeFiles records the files a command writes its output to: its > and >> redirections, and
// tee's operands.
func (r *reader) writeFiles(cmd command, at int, vars map[string]*word, text string) {
	type target struct {
		w         shellWord
		appending bool
	}
	var targets []target
	for _, rd := range cmd.redirects {
		if rd.other {
			r.unknownWrite(rd, vars)
			continue
		}
		targets = append(targets, target{rd.target, rd.append})
	}
	if path.Base(cmd.words[at].text) == "tee" {
		args := cmd.words[at+1:]
		appending := slices.ContainsFunc(args, func(a shellWord) bool { return a.text == "-a" || a.text == "--append" })
		for _, a := range operands(args) {
			targets = append(targets, target{a, appending})
		}
	}
	for _, t := range targets {
		name := expandOne(t.w, vars)
		if name.dynamic {
			r.files.unknownPath = true
			continue
		}
		r.files.write(name.text, text, t.appending)
	}
}

// markComputed is a word's text with its computed bytes as computedMark.
func markComputed(w word) string {
	if !w.dynamic {
		return w.text
	}
	return strings.ReplaceAll(w.text, "\x00", computedMark)
}

// expandDocument is a here-document's text: as written when its delimiter is quoted, else with
// the variables the script assigned plainly expanded, and computedMark for every other
// expansion ($(...), `...`, a variable from elsewhere), as the shell expands it at boot.
func expandDocument(d *document, vars map[string]*word) string {
	if !d.expand || !strings.ContainsAny(d.body, "$`\\") {
		return d.body
	}
	s := &shellScanner{src: d.body, line: d.line}
	s.startWord()
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\\' && s.i+1 < len(s.src) && strings.IndexByte("$`\\\n", s.src[s.i+1]) >= 0:
			if s.src[s.i+1] != '\n' { // a backslash and newline join the lines
				s.literal(s.src[s.i+1 : s.i+2])
			}
			s.i += 2
		case c == '$' || c == '`':
			if err := s.expansion(); err != nil {
				return computedMark // the shell stops at it: nothing of the document is known
			}
		default:
			s.literal(s.src[s.i : s.i+1])
			s.i++
		}
	}
	s.endWord()
	return markComputed(expandOne(s.cur.words[0], vars))
}
