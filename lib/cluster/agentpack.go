package cluster

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// PackAgent packs the agent directory dir into a tar archive that depends
// only on the names, contents, modes and links of its files (no times, no
// owners, names in lexical order), so that the same agent packs to the
// same bytes on every host, and returns it with its SHA-256 (hex), the
// name it is stored under. Runs an agent made in place are left out:
// .delta directories, and the workspaces a run without -w creates at the
// top of the agent (W001 … and workspaces/).
func PackAgent(dir string) (data []byte, hash string, err error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() && leftOut(rel) {
			return fs.SkipDir
		}
		return packEntry(tw, p, rel, d)
	})
	if err == nil {
		err = tw.Close()
	}
	if err != nil {
		return nil, "", fmt.Errorf("pack agent %s: %w", dir, err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return buf.Bytes(), hex.EncodeToString(sum[:]), nil
}

// leftOut says whether the directory rel (slash-separated, relative to
// the agent) holds runs rather than the agent.
func leftOut(rel string) bool {
	if path.Base(rel) == ".delta" {
		return true
	}
	if strings.Contains(rel, "/") {
		return false
	}
	if rel == "workspaces" {
		return true
	}
	if len(rel) < 2 || rel[0] != 'W' {
		return false
	}
	for _, c := range rel[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func packEntry(tw *tar.Writer, p, rel string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	h := &tar.Header{Name: rel, Mode: int64(info.Mode().Perm())}
	switch {
	case d.IsDir():
		h.Typeflag, h.Name = tar.TypeDir, rel+"/"
	case d.Type()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		h.Typeflag, h.Linkname = tar.TypeSymlink, target
	case d.Type().IsRegular():
		h.Typeflag, h.Size = tar.TypeReg, info.Size()
	default:
		return nil // sockets, devices, fifos are not part of an agent
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if h.Typeflag != tar.TypeReg {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.CopyN(tw, f, h.Size)
	return err
}

// UnpackAgent unpacks an archive PackAgent made into dest, which must not
// exist: it is built beside dest and renamed into place, so a dest that
// exists is whole. A dest another process finished first is kept.
func UnpackAgent(data []byte, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("unpack agent: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".tmp-agent-")
	if err != nil {
		return fmt.Errorf("unpack agent: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := untar(data, tmp); err != nil {
		return fmt.Errorf("unpack agent into %s: %w", dest, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		if _, serr := os.Stat(dest); serr == nil {
			return nil
		}
		return fmt.Errorf("unpack agent: %w", err)
	}
	return nil
}

func untar(data []byte, dir string) error {
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if !fs.ValidPath(name) || name == "." {
			return fmt.Errorf("archive entry %q is outside the agent", h.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		mode := fs.FileMode(h.Mode).Perm()
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, mode|0o700)
		case tar.TypeSymlink:
			target := path.Join(path.Dir(name), h.Linkname)
			if path.IsAbs(h.Linkname) || !fs.ValidPath(target) {
				return fmt.Errorf("archive link %q points outside the agent (%q)", h.Name, h.Linkname)
			}
			err = os.Symlink(h.Linkname, p)
		case tar.TypeReg:
			err = writeFile(p, tr, mode)
		default:
			return fmt.Errorf("archive entry %q has type %q, which an agent does not hold", h.Name, h.Typeflag)
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(p string, r io.Reader, mode fs.FileMode) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// PutAgent stores a packed agent under its hash in AgentStore, unless it
// is there already.
func (c *Cluster) PutAgent(ctx context.Context, hash string, data []byte) error {
	obs, err := c.agentStore(ctx)
	if err != nil {
		return err
	}
	if _, err := obs.GetInfo(ctx, hash); err == nil {
		return nil
	}
	if _, err := obs.PutBytes(ctx, hash, data); err != nil {
		return fmt.Errorf("store agent %s in the cluster: %w", hash, err)
	}
	return nil
}

// GetAgent returns the packed agent stored under hash, checking that its
// bytes have that hash.
func (c *Cluster) GetAgent(ctx context.Context, hash string) ([]byte, error) {
	obs, err := c.agentStore(ctx)
	if err != nil {
		return nil, err
	}
	data, err := obs.GetBytes(ctx, hash)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fmt.Errorf("agent %s is not in the cluster's %s store (submit its batch again)", hash, AgentStore)
	}
	if err != nil {
		return nil, fmt.Errorf("fetch agent %s from the cluster: %w", hash, err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != hash {
		return nil, fmt.Errorf("agent %s from the cluster does not have that hash: refusing it", hash)
	}
	return data, nil
}

func (c *Cluster) agentStore(ctx context.Context) (jetstream.ObjectStore, error) {
	obs, err := c.JS.ObjectStore(ctx, AgentStore)
	if err != nil {
		return nil, fmt.Errorf("cluster object store %s: %w (run `delta cluster init` first)", AgentStore, err)
	}
	return obs, nil
}
