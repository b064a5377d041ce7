package gitref

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Tree is a materialised ref.
type Tree struct {
	// Dir is the directory that corresponds to the working directory the command ran in (the
	// repository root plus the same relative path).
	Dir string
	// Root is the temporary directory holding the whole tree; Remove deletes it.
	Root string
}

// Remove deletes the tree.
func (t *Tree) Remove() error { return os.RemoveAll(t.Root) }

// MaxTreeBytes bounds what an archive may expand to.
const MaxTreeBytes = 2 << 30

// Materialize extracts ref from the git repository around cwd. It fails with a clear error when
// cwd is not in a repository or the ref does not exist.
func Materialize(ctx context.Context, cwd, ref string) (*Tree, error) {
	topDir, err := Top(ctx, cwd)
	if err != nil {
		return nil, fmt.Errorf("%q is neither a directory nor a git ref here: %w", ref, err)
	}
	if _, err := git(ctx, cwd, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		hint := ""
		if out, err := git(ctx, cwd, "rev-parse", "--is-shallow-repository"); err == nil && strings.TrimSpace(string(out)) == "true" {
			// CI checkouts fetch one commit by default: the pull request's base is not in them.
			hint = ": the clone is shallow, so the ref may not have been fetched (actions/checkout with fetch-depth: 0, or git fetch origin " + ref + ")"
		}
		return nil, fmt.Errorf("%q is neither a directory nor a commit, branch or tag of %s%s", ref, topDir, hint)
	}
	absCwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil, err
	}
	realTop, _ := filepath.EvalSymlinks(topDir)
	realCwd, _ := filepath.EvalSymlinks(absCwd)
	rel, err := filepath.Rel(realTop, realCwd)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	root, err := os.MkdirTemp("", "gpuguard-base-")
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "git", "-C", topDir, "archive", "--format=tar", ref)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("git archive: %w", err)
	}
	extractErr := extract(out, root)
	waitErr := cmd.Wait()
	if extractErr != nil || waitErr != nil {
		os.RemoveAll(root)
		if extractErr != nil {
			return nil, fmt.Errorf("extracting %s: %w", ref, extractErr)
		}
		return nil, fmt.Errorf("git archive %s: %v: %s", ref, waitErr, strings.TrimSpace(stderr.String()))
	}
	return &Tree{Dir: filepath.Join(root, rel), Root: root}, nil
}

// Top is the top directory of the git repository around cwd.
func Top(ctx context.Context, cwd string) (string, error) {
	top, err := git(ctx, cwd, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(top)), nil
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

// extract writes a tar stream under dir, refusing entries that would escape it.
func extract(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if name == "." || filepath.IsAbs(name) || strings.HasPrefix(name, ".."+string(filepath.Separator)) || name == ".." {
			continue
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if total > MaxTreeBytes {
				return fmt.Errorf("the tree is larger than %d bytes", int64(MaxTreeBytes))
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, io.LimitReader(tr, h.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			// Symlinks and other entries are skipped: a base tree needs only plain files.
		}
	}
}
