package userdata

import (
	"path"
	"strings"
)

// launch is a k3s, RKE2 or kubeadm node that user data starts. It is read once every part of the
// user data is, since the configuration files it reads may be written by another part.
type launch struct {
	bootstrap string // K3s, RKE2 or Kubeadm
	flags     []word // the command line's flags after its subcommand (agent, server, join)
	config    string // the configuration file the command line or environment names, else ""
	cluster   string // the server the node joins, "" when not said
	line      int
	source    int // the index of the text that starts it among ReadAll's sources
}

// addLaunch records a launch. A second of the same kind is the same node started again (the
// installer, then systemctl starting the service it set up): the first says how.
func (r *reader) addLaunch(l launch) {
	for _, had := range r.launches {
		if had.bootstrap == l.bootstrap {
			return
		}
	}
	l.source = r.source
	r.launches = append(r.launches, l)
}

// launchOf reads the k3s, RKE2 or kubeadm node a command starts, if any:
//   - k3s agent|server and rke2 agent|server with their flags;
//   - k3s's install script (https://get.k3s.io piped into sh, or a downloaded copy run by sh),
//     which runs k3s with INSTALL_K3S_EXEC and the script's arguments, as an agent when K3S_URL
//     is set and no subcommand is given (https://docs.k3s.io/installation/configuration,
//     "Configuration with install script"); RKE2's (https://get.rke2.io), whose node reads only
//     its configuration file;
//   - systemctl enable|start|restart of the k3s, k3s-agent, rke2-agent or rke2-server service, on
//     an image that has them installed;
//   - kubeadm join, with --config naming its JoinConfiguration.
//
// prev is the command piping into cmd, nil when none does.
func launchOf(cmd command, prev *command, vars map[string]*word) (launch, bool) {
	env := map[string]*word{}
	i := 0
	for ; i < len(cmd.words); i++ {
		w := cmd.words[i]
		if m := assignment.FindStringSubmatch(w.raw); m != nil {
			v := expandOne(w, vars)
			v.text = v.text[len(m[1])+1:]
			if v.computed != nil {
				v.computed = v.computed[len(m[1])+1:]
			}
			env[m[1]] = &v
			continue
		}
		if base := path.Base(w.text); wrappers[base] && base != "sh" && base != "bash" { // sh and bash may run an installer
			for i+1 < len(cmd.words) && strings.HasPrefix(cmd.words[i+1].text, "-") {
				i++
			}
			continue
		}
		break
	}
	if i == len(cmd.words) || cmd.words[i].dynamic {
		return launch{}, false
	}
	lookup := func(name string) *word {
		if v, ok := env[name]; ok {
			return v
		}
		return vars[name]
	}
	line := cmd.line
	args := expand(cmd.words[i+1:], vars)
	switch program := path.Base(cmd.words[i].text); program {
	case "k3s", "rke2":
		if len(args) == 0 || args[0].text != "agent" && args[0].text != "server" {
			return launch{}, false
		}
		b := K3s
		if program == "rke2" {
			b = RKE2
		}
		return distributionLaunch(b, args[1:], lookup, line), true
	case "sh", "bash":
		return installerLaunch(cmd, prev, args, lookup, line)
	case "systemctl":
		if len(args) == 0 || args[0].text != "enable" && args[0].text != "start" && args[0].text != "restart" {
			return launch{}, false
		}
		for _, a := range args[1:] {
			switch strings.TrimSuffix(a.text, ".service") {
			case "k3s", "k3s-agent":
				return launch{bootstrap: K3s, line: line}, true
			case "rke2-agent", "rke2-server":
				return launch{bootstrap: RKE2, line: line}, true
			}
		}
	case "kubeadm":
		if len(args) == 0 || args[0].text != "join" {
			return launch{}, false
		}
		l := launch{bootstrap: Kubeadm, line: line}
		for j := 1; j < len(args); j++ {
			a := args[j]
			name, value, inline := strings.Cut(a.text, "=")
			switch {
			case !strings.HasPrefix(a.text, "-"): // the API server's address
				if l.cluster == "" && !a.dynamic {
					l.cluster = a.text
				}
			case inline, kubeadmJoinSwitches[name]:
			default: // every other flag of kubeadm join takes the value after it
				if j+1 < len(args) {
					j++
					value = args[j].text
				}
			}
			if name == "--config" { // computed at boot, it names no file the user data writes
				l.config = value
			}
		}
		return l, true
	}
	return launch{}, false
}

// kubeadmJoinSwitches are kubeadm join's flags that take no value
// (https://kubernetes.io/docs/reference/setup-tools/kubeadm/kubeadm-join/).
var kubeadmJoinSwitches = map[string]bool{"--control-plane": true, "--discovery-token-unsafe-skip-ca-verification": true, "--dry-run": true, "--help": true, "-h": true}

// installerLaunch reads sh or bash running k3s's or RKE2's install script, fetched and piped
// in (curl -sfL https://get.k3s.io | sh -s - agent ...) or downloaded first (sh install.sh ...).
func installerLaunch(cmd command, prev *command, args []word, lookup func(string) *word, line int) (launch, bool) {
	// sh's options, then the script's path unless -s reads it from the pipe, then its arguments.
	stdin := false
	j := 0
	for ; j < len(args) && strings.HasPrefix(args[j].text, "-"); j++ {
		if args[j].text == "-" || args[j].text == "--" {
			j++
			break
		}
		if !strings.HasPrefix(args[j].text, "--") && strings.Contains(args[j].text, "s") {
			stdin = true
		}
	}
	script := ""
	if !stdin && j < len(args) {
		script = args[j].text
		j++
	}
	args = args[j:]
	source := script
	if prev != nil && script == "" {
		for _, w := range prev.words {
			source += " " + w.text
		}
	}
	// The script is the project's when its URL or file name says so (get.k3s.io,
	// k3s-install.sh, get.rke2.io), or when the environment sets the installer's variables.
	kind := ""
	switch m := strings.ToLower(source); {
	case strings.Contains(m, "rke2") && (strings.Contains(m, "get.rke2.io") || strings.Contains(m, "install")):
		kind = RKE2
	case strings.Contains(m, "k3s") && (strings.Contains(m, "get.k3s.io") || strings.Contains(m, "install")):
		kind = K3s
	case lookup("INSTALL_RKE2_TYPE") != nil || lookup("INSTALL_RKE2_VERSION") != nil || lookup("INSTALL_RKE2_CHANNEL") != nil:
		kind = RKE2
	case lookup("INSTALL_K3S_EXEC") != nil || lookup("K3S_URL") != nil || lookup("K3S_TOKEN") != nil:
		kind = K3s
	default:
		return launch{}, false
	}
	if kind == RKE2 { // RKE2's installer installs; its service reads the configuration file
		return launch{bootstrap: RKE2, line: line}, true
	}
	var exec []word
	if v := lookup("INSTALL_K3S_EXEC"); v != nil {
		exec = splitFields(*v)
	}
	exec = append(exec, args...) // agent or server first, if said: a word, not a flag
	return distributionLaunch(K3s, exec, lookup, line), true
}

// distributionLaunch reads the flags of k3s's or RKE2's agent or server command that decide
// its node's registration: --config (and the K3S_CONFIG_FILE or RKE2_CONFIG_FILE environment)
// and --server (or K3S_URL), the cluster it joins. The labels and taints are read from flags
// later, after the configuration file's.
func distributionLaunch(bootstrap string, flags []word, lookup func(string) *word, line int) launch {
	l := launch{bootstrap: bootstrap, flags: flags, line: line}
	env := "K3S_"
	if bootstrap == RKE2 {
		env = "RKE2_"
	}
	if v := lookup(env + "CONFIG_FILE"); v != nil {
		l.config = markComputed(*v)
	}
	if v := lookup(env + "URL"); v != nil && !v.dynamic {
		l.cluster = v.text
	}
	for j := 0; j < len(flags); j++ {
		name, value, inline := strings.Cut(flags[j].text, "=")
		if name != "--config" && name != "-c" && name != "--server" && name != "-s" {
			continue
		}
		dynamic := flags[j].dynamic
		if !inline {
			if j+1 == len(flags) {
				break
			}
			j++
			value, dynamic = flags[j].text, flags[j].dynamic
		}
		switch {
		case name == "--config" || name == "-c":
			l.config = value
			if dynamic {
				l.config = computedMark
			}
		case !dynamic:
			l.cluster = value
		}
	}
	return l
}
