package userdata

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// script reads a shell script for the ways a node joins a cluster:
//   - the EKS AL2 AMI's bootstrap.sh: its first argument not an option is the cluster, and
//     --kubelet-extra-args the kubelet's flags, word-split as the kubelet's environment file is
//     (amazon-eks-ami templates/al2/runtime/bootstrap.sh). Every option of bootstrap.sh takes a
//     value after it;
//   - k3s, RKE2 and kubeadm (launchOf), read by finish with the files the user data writes
//     (here-documents and echo redirected to a file or piped into tee), which this records.
//
// Variables the script assigns plainly before the call are read; anything else computed at boot
// leaves the labels or taints unknown.
func (r *reader) script(text string) error {
	joins := joinsCluster(text)
	if !joins && !strings.Contains(text, "kubelet") { // nor writes the kubelet's environment
		return nil
	}
	commands, err := shellCommands(text)
	if err != nil {
		if !joins {
			return nil // a script gpuguard cannot follow, which starts no node: not its business
		}
		return err
	}
	vars := map[string]*word{}
	var prevOut *string // the output of the command before, which output hands on only to a piped one
	for i := range commands {
		cmd := &commands[i]
		if assigned(*cmd, vars) {
			prevOut = nil
			continue
		}
		at := commandAt(cmd.words)
		out, ok := output(*cmd, at, vars, prevOut)
		prevOut = nil
		if ok {
			r.writeFiles(*cmd, at, vars, out)
			prevOut = &out
		} else {
			r.copies(*cmd, at, vars)
		}
		if l, ok := launchOf(*cmd, pipedFrom(commands, i), vars); ok {
			r.addLaunch(l)
			continue
		}
		if at < 0 || cmd.words[at].dynamic || path.Base(cmd.words[at].text) != "bootstrap.sh" {
			continue
		}
		if err := r.bootstrapScript(*cmd, at, vars); err != nil {
			return err
		}
	}
	return nil
}

// joinsCluster says whether a script has the words of one that may join a node to a cluster.
func joinsCluster(text string) bool {
	for _, w := range []string{"bootstrap.sh", "k3s", "K3S_", "rke2", "RKE2_", "kubeadm"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// pipedFrom is the command piping into commands[i], nil when none does.
func pipedFrom(commands []command, i int) *command {
	if i == 0 || !commands[i].piped {
		return nil
	}
	return &commands[i-1]
}

// bootstrapScript reads a call of bootstrap.sh: the cluster and --kubelet-extra-args.
func (r *reader) bootstrapScript(cmd command, at int, vars map[string]*word) error {
	args := expand(cmd.words[at+1:], vars)
	cluster, clusterKnown := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a.text, "--") {
			if !clusterKnown {
				cluster, clusterKnown = a.text, true
				if a.dynamic {
					cluster = ""
				}
			}
			continue
		}
		if i+1 == len(args) {
			break
		}
		i++
		if a.text != "--kubelet-extra-args" {
			continue
		}
		flags := splitFields(args[i])
		if err := r.kubeletFlags(flags); err != nil {
			return fmt.Errorf("line %d: bootstrap.sh --kubelet-extra-args: %v", cmd.line, err)
		}
	}
	r.set(BootstrapScript, cluster)
	return nil
}

// splitFields splits a word into the words a shell splits its expansion into (the kubelet's
// extra args, expanded unquoted). A computed word's pieces are all computed.
func splitFields(w word) []word {
	var out []word
	start := -1
	for i := 0; i <= len(w.text); i++ {
		space := i == len(w.text) || w.text[i] == ' ' || w.text[i] == '\t' || w.text[i] == '\n'
		switch {
		case !space && start < 0:
			start = i
		case space && start >= 0:
			piece := word{text: w.text[start:i]}
			if w.computed != nil {
				piece.dynamic = slices.Contains(w.computed[start:i], true)
			}
			out = append(out, piece)
			start = -1
		}
	}
	return out
}

// assignment is NAME=value, the whole of a shell word.
var assignment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=`)

// assigned records the variables a command assigns (NAME=value, export NAME=value) and says
// whether the command was only that.
func assigned(cmd command, vars map[string]*word) bool {
	words := cmd.words
	if len(words) > 1 && (words[0].text == "export" || words[0].text == "declare" || words[0].text == "readonly") {
		words = words[1:]
	}
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if assignment.FindStringIndex(w.raw) == nil {
			return false
		}
	}
	for _, w := range words {
		m := assignment.FindStringSubmatch(w.raw)
		name := m[1]
		value := expandOne(w, vars)
		value.text = value.text[len(name)+1:]
		if value.computed != nil {
			value.computed = value.computed[len(name)+1:]
		}
		vars[name] = &value
	}
	return true
}

// expand resolves the variables in words with those assigned before.
func expand(words []shellWord, vars map[string]*word) []word {
	out := make([]word, len(words))
	for i, w := range words {
		out[i] = expandOne(w, vars)
	}
	return out
}

// expandOne resolves a word's $NAME and ${NAME} from vars; any other expansion, or a variable
// not assigned plainly, makes it computed.
func expandOne(w shellWord, vars map[string]*word) word {
	if !w.dynamic {
		return word{text: w.text}
	}
	var out word
	var b strings.Builder
	add := func(text string, computed bool, marks []bool) {
		if b.Len()+len(text) > maxText { // A=$A$A, doubled line after line: as good as unknown
			text, computed, marks = "\x00", true, nil
		}
		b.WriteString(text)
		for i := range len(text) {
			out.computed = append(out.computed, computed || marks != nil && marks[i])
		}
		out.dynamic = out.dynamic || computed || slices.Contains(marks, true)
	}
	for _, p := range w.parts {
		// What is known only at boot stands as one byte: it splits into no words of its own.
		switch v := vars[p.variable]; {
		case p.computed:
			add("\x00", true, nil)
		case p.variable == "":
			add(p.text, false, nil)
		case v == nil:
			add("\x00", true, nil) // not assigned plainly: known at boot only
		default:
			add(v.text, false, v.computed)
		}
	}
	out.text = b.String()
	if !out.dynamic {
		out.computed = nil
	}
	return out
}

// wrappers are the commands that run the command after them (and their options).
var wrappers = map[string]bool{"sudo": true, "exec": true, "nohup": true, "env": true, "time": true, "bash": true, "sh": true, "command": true}

// commandAt is the index of the word a command runs: past assignments before it, and past
// sudo, bash, env and the like with their options; -1 when there is none.
func commandAt(words []shellWord) int {
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case assignment.MatchString(w.raw):
		case wrappers[path.Base(w.text)]:
		case strings.HasPrefix(w.text, "-") && i > 0 && wrappers[path.Base(words[i-1].text)]:
		default:
			return i
		}
	}
	return -1
}
