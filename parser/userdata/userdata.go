package userdata

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/bottlerocket"
)

// How a node's user data bootstraps it (Node.Bootstrap).
const (
	BootstrapScript = "bootstrap.sh" // the EKS Amazon Linux 2 AMI's /etc/eks/bootstrap.sh
	Nodeadm         = "nodeadm"      // Amazon Linux 2023's NodeConfig
	Bottlerocket    = "Bottlerocket" // settings.kubernetes
	K3s             = "k3s"          // k3s agent (or server), started by its installer or its service
	RKE2            = "RKE2"         // RKE2's agent (or server)
	Kubeadm         = "kubeadm"      // kubeadm join
)

// Node is what user data says of the Kubernetes node an instance boots as.
type Node struct {
	// Bootstrap is how the node joins its cluster: BootstrapScript, Nodeadm, Bottlerocket, K3s,
	// RKE2 or Kubeadm.
	Bootstrap string
	// Cluster is the cluster it joins, "" when not said (or computed at boot): the EKS cluster's
	// name, or the server k3s, RKE2 or kubeadm joins.
	Cluster string
	Labels  map[string]string
	Taints  []parser.Taint
	// LabelsUnknown and TaintsUnknown are set when some labels or taints are what a script
	// computes at boot (a shell variable gpuguard cannot read).
	LabelsUnknown, TaintsUnknown bool
	// UnknownValues are labels whose names are known and whose values are computed at boot
	// (zone=$(...)): a pod that selects any value of them may run on the node.
	UnknownValues []string
	// Settings are the Bottlerocket settings, decoded, for what else they set (the device
	// plugin's); nil for another bootstrap.
	Settings *bottlerocket.Settings
}

// How names, for notes, what registers the node with its labels and taints: "bootstrap.sh",
// "nodeadm's NodeConfig", "Bottlerocket's settings", "k3s", "RKE2" or "kubeadm join".
func (n Node) How() string {
	switch n.Bootstrap {
	case Nodeadm:
		return "nodeadm's NodeConfig"
	case Bottlerocket:
		return "Bottlerocket's settings"
	case Kubeadm:
		return "kubeadm join"
	}
	return n.Bootstrap
}

// EKS says whether the node joins an EKS cluster in EKS's own ways (bootstrap.sh, nodeadm,
// Bottlerocket), rather than as a k3s, RKE2 or kubeadm node.
func (n Node) EKS() bool {
	return n.Bootstrap == BootstrapScript || n.Bootstrap == Nodeadm || n.Bootstrap == Bottlerocket
}

// maxText bounds the decoded user data read: EC2 takes 16 KB of it, which gzip may expand.
const maxText = 1 << 20

// Read parses user data as a launch template holds it (base64, or plain). ok says whether it
// bootstraps a Kubernetes node in a way this package reads. Labels and taints that the
// bootstrap would refuse are errors, as is settings text that is not TOML.
func Read(userData string) (n Node, ok bool, err error) {
	return ReadAll(Source{Text: userData})
}

// Source is one text an instance boots with.
type Source struct {
	// Name names the text in errors ("startup-script"): an error reads "Name: ...".
	Name string
	// Text is the text, as the cloud holds it: base64, gzip or plain. (A command line, which
	// holds spaces, is never valid base64.)
	Text string
	// Script marks a startup script, which its runner (GCE's guest agent) runs as a shell
	// script whatever its first line; Text is otherwise user data, which cloud-init reads by its
	// look (a #! script, #cloud-config, a MIME archive).
	Script bool
}

// ReadAll reads the texts an instance boots with, in the order they run (cloud-init's user data
// before a GCE startup script): a file an earlier one writes is there for a later one's k3s,
// RKE2 or kubeadm to read. ok and the errors are Read's.
func ReadAll(sources ...Source) (n Node, ok bool, err error) {
	r := &reader{node: Node{Labels: map[string]string{}}}
	for i, s := range sources {
		r.source = i
		if err := r.read(s); err != nil {
			return Node{}, false, &SourceError{Index: i, Name: s.Name, Err: err}
		}
	}
	if i, err := r.finish(); err != nil {
		return Node{}, false, &SourceError{Index: i, Name: sources[i].Name, Err: err}
	}
	if r.node.Bootstrap == "" {
		return Node{}, false, nil
	}
	return r.node, true, nil
}

// SourceError is an error in one of the texts ReadAll reads: a text that cannot be parsed, or a
// node it launches whose labels or taints its bootstrap would refuse.
type SourceError struct {
	Index int    // the text's index among ReadAll's sources
	Name  string // its Source.Name
	Err   error
}

func (e *SourceError) Error() string {
	if e.Name == "" {
		return e.Err.Error()
	}
	return e.Name + ": " + e.Err.Error()
}

func (e *SourceError) Unwrap() error { return e.Err }

// read reads one text an instance boots with.
func (r *reader) read(s Source) error {
	text, err := decode([]byte(s.Text))
	if err != nil {
		return err
	}
	if s.Script {
		return r.script(text)
	}
	return r.part(text, "")
}

// decode undoes the encodings user data comes in: base64 (a launch template's user_data) and
// gzip (cloud-init reads compressed user data).
func decode(b []byte) (string, error) {
	if d, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b))); err == nil && len(d) > 0 {
		b = d
	}
	if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		d, err := gunzip(b)
		if err != nil {
			return "", fmt.Errorf("user data: %v", err)
		}
		b = []byte(d)
	}
	if !utf8.Valid(b) {
		return "", nil // binary: nothing this package reads
	}
	return string(b), nil
}

// gunzip reads gzip data (user data, a cloud-config file's content), bounded to maxText once
// expanded.
func gunzip(b []byte) (string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", fmt.Errorf("gzip: %v", err)
	}
	d, err := io.ReadAll(io.LimitReader(zr, maxText+1))
	if err != nil {
		return "", fmt.Errorf("gzip: %v", err)
	}
	if len(d) > maxText {
		return "", fmt.Errorf("gzip expands past %d bytes", maxText)
	}
	return string(d), nil
}

// reader gathers a node from the parts of user data: what EKS's ways say of it as each part is
// read, and the files the parts write and the k3s, RKE2 or kubeadm nodes they launch, which
// finish reads once all are.
type reader struct {
	node     Node
	depth    int
	files    files
	launches []launch
	source   int // the index of the text being read among ReadAll's sources
}

// set records how the node is bootstrapped, and the cluster a part names: a later part's way
// does not replace an earlier one's (a MIME archive's NodeConfig part and the script after it),
// and a later cluster name does, as nodeadm merges its NodeConfigs in order.
func (r *reader) set(bootstrap, cluster string) {
	if r.node.Bootstrap == "" {
		r.node.Bootstrap = bootstrap
	}
	if cluster != "" {
		r.node.Cluster = cluster
	}
}

func (r *reader) labels(m map[string]string) { maps.Copy(r.node.Labels, m) }

// part reads one part of user data, by its MIME type when it has one, else by its look.
func (r *reader) part(text, mediaType string) error {
	trimmed := strings.TrimLeft(text, " \t\r\n")
	switch {
	case mediaType == "" && isMIME(trimmed):
		return r.mime(trimmed)
	case mediaType == "application/node.eks.aws":
		return r.nodeConfig(text, true)
	case mediaType == "text/x-shellscript", strings.HasPrefix(trimmed, "#!"):
		return r.script(text)
	case mediaType == "text/cloud-config", (mediaType == "" || mediaType == "text/plain") && strings.HasPrefix(trimmed, "#cloud-config"):
		return r.cloudConfig(text)
	case mediaType != "" && mediaType != "text/plain":
		return nil // cloud-config and the like: not read
	case strings.Contains(trimmed, "node.eks.aws/") && strings.Contains(trimmed, "NodeConfig"):
		return r.nodeConfig(text, false)
	case strings.Contains(trimmed, "[settings"), strings.Contains(trimmed, "settings."):
		return r.bottlerocket(text)
	case strings.Contains(trimmed, "bootstrap.sh"):
		return r.script(text)
	}
	return nil
}

// isMIME says whether text starts with MIME headers (cloud-init's multi-part archive).
func isMIME(text string) bool {
	head := strings.ToLower(text[:min(len(text), 200)])
	return strings.HasPrefix(head, "mime-version:") || strings.HasPrefix(head, "content-type:")
}

// mime reads a MIME message: each part of a multi-part archive in order, or the one body.
func (r *reader) mime(text string) error {
	if r.depth > 4 {
		return fmt.Errorf("MIME parts nested more than 4 deep")
	}
	r.depth++
	defer func() { r.depth-- }()
	msg, err := mail.ReadMessage(strings.NewReader(strings.ReplaceAll(text, "\r\n", "\n")))
	if err != nil {
		return fmt.Errorf("MIME user data: %v", err)
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return fmt.Errorf("MIME user data: Content-Type: %v", err)
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		body, err := partBody(msg.Body)
		if err != nil {
			return err
		}
		return r.part(body, mediaType)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for i := 1; ; i++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("MIME user data, part %d: %v", i, err)
		}
		pt, _, err := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if err != nil {
			pt = "text/plain" // RFC 2046: a part without a type is text/plain
		}
		body, err := partBody(p)
		if err != nil {
			return fmt.Errorf("MIME user data, part %d: %v", i, err)
		}
		if strings.HasPrefix(pt, "multipart/") {
			body = "Content-Type: " + p.Header.Get("Content-Type") + "\n\n" + body
			pt = ""
		}
		if err := r.part(body, pt); err != nil {
			return fmt.Errorf("MIME user data, part %d (%s): %v", i, pt, err)
		}
	}
}

// partBody reads a MIME part's body; decode undoes a base64 transfer encoding (with the line
// breaks MIME wraps it at) as it does the whole user data's.
func partBody(body io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(body, maxText))
	if err != nil {
		return "", err
	}
	return decode(b)
}

// bottlerocket reads Bottlerocket settings.
func (r *reader) bottlerocket(text string) error {
	settings, err := bottlerocket.DecodeSettings(text)
	if err != nil {
		return err
	}
	n, ok, err := settings.Node()
	if err != nil || !ok {
		return err
	}
	r.set(Bottlerocket, n.Cluster)
	r.node.Settings = &settings
	r.labels(n.Labels)
	r.node.Taints = append(r.node.Taints, n.Taints...)
	return nil
}
