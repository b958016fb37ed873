package board

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/filelock"
	"github.com/deltakit/delta/lib/jsonl"
)

// Names inside an instance directory (see delta-workflow(5), SHARED
// CONTEXT FILES).
const (
	ConfigFile   = "context.json" // the instance's Config
	DocumentsDir = "documents"    // every document, the entry document included
	locksDir     = ".locks"
)

// ChannelLog is the name of the channel's JSONL source of truth for the
// rendered channel named channel (channel.md → channel.jsonl).
func ChannelLog(channel string) string {
	if channel == "" {
		channel = DefaultChannel
	}
	return strings.TrimSuffix(channel, ".md") + ".jsonl"
}

// pollInterval is how often Wait looks at the channel file for entries
// appended by other processes.
const pollInterval = 100 * time.Millisecond

// OpenFile opens the shared context kept as files in dir. With a Config
// naming agents (the runner's case) dir is created when needed and cfg is
// saved as dir/context.json; with a zero Config (the command line, delta-run,
// the MCP server) the saved one is used, and a dir without it is an error
// wrapping ErrNotFound. Opening repairs what a crash may have left: a torn
// last channel line (saved beside the channel as channel.jsonl.torn-TIME)
// and a channel.md behind its JSONL.
func OpenFile(dir string, cfg Config) (Provider, error) {
	now := cfg.Now
	if cfg.IsZero() {
		b, err := os.ReadFile(filepath.Join(dir, ConfigFile))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no workflow context in %s (no %s): %w", dir, ConfigFile, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("open workflow context: %w", err)
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return nil, fmt.Errorf("open workflow context: %s: %w", filepath.Join(dir, ConfigFile), err)
		}
		cfg.Now = now
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("open workflow context: %s: %w", filepath.Join(dir, ConfigFile), err)
		}
	} else {
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create workflow context: %w", err)
		}
		b, _ := json.MarshalIndent(cfg.WithDefaults(), "", "  ")
		if err := atomicfile.Write(filepath.Join(dir, ConfigFile), append(b, '\n'), 0o644); err != nil {
			return nil, fmt.Errorf("create workflow context: %w", err)
		}
	}
	cfg = cfg.WithDefaults()
	for _, d := range []string{DocumentsDir, locksDir} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("open workflow context: %w", err)
		}
	}
	root, err := os.OpenRoot(filepath.Join(dir, DocumentsDir))
	if err != nil {
		return nil, fmt.Errorf("open workflow context: %w", err)
	}
	fsx := &fileStore{
		dir: dir, now: cfg.clock(), docs: root,
		log: filepath.Join(dir, ChannelLog(cfg.Channel)),
		md:  filepath.Join(dir, cfg.Channel),
	}
	if err := fsx.reconcile(); err != nil {
		root.Close()
		return nil, err
	}
	return newProvider(fsx, cfg), nil
}

type fileStore struct {
	dir  string
	log  string // channel.jsonl
	md   string // channel.md
	now  func() time.Time
	docs *os.Root
	n    Notifier

	mu       sync.Mutex // guards the caches below
	seenSize int64
	seenSeq  int64
	// The entries parsed so far, from the first cacheSize bytes of the
	// file cacheFile.
	cache     []Entry
	cacheSize int64
	cacheFile os.FileInfo
	cacheMD   int64 // the size of channel.md rendering cache
}

// lock takes the exclusive lock dir/.locks/NAME.lock (see lib/filelock):
// processes, and goroutines of one process, take turns.
func (s *fileStore) Lock(name string) (func(), error) {
	f, err := filelock.Lock(filepath.Join(s.dir, locksDir, name+".lock"), 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock workflow context: %w", err)
	}
	return func() { f.Close() }, nil
}

// Channel

// appendEntry appends e to the channel's log (lib/jsonl: one line with
// one write call, synced before returning) under the channel lock; the
// seq is the last one in the file plus one, read under the lock, so
// processes never share a number.
func (s *fileStore) AppendEntry(e Entry) (Entry, bool, error) {
	unlock, err := s.Lock("channel")
	if err != nil {
		return Entry{}, false, err
	}
	defer unlock()
	log, err := jsonl.Open(s.log)
	if err != nil {
		return Entry{}, false, fmt.Errorf("append to channel: %w", err)
	}
	defer log.Close()
	size, err := log.RepairTail()
	if err != nil {
		return Entry{}, false, fmt.Errorf("append to channel: %w", err)
	}
	if e.Ref != "" {
		if old, ok, err := s.byRef(e.Ref); ok || err != nil {
			return old, ok, err
		}
	}
	lastLine, err := log.LastLine(size)
	if err != nil {
		return Entry{}, false, fmt.Errorf("append to channel: %w", err)
	}
	last, err := seqOf(lastLine)
	if err != nil {
		return Entry{}, false, err
	}
	e.Seq = last + 1
	if e.Timestamp.IsZero() {
		e.Timestamp = s.now()
	}
	e.Timestamp = e.Timestamp.UTC()
	if e.Mentions == nil {
		e.Mentions = []string{}
	}
	line, err := jsonl.Encode(e)
	if err == nil {
		err = log.Append(line)
	}
	if err != nil {
		return Entry{}, false, fmt.Errorf("append to channel: %w", err)
	}
	s.render(e)
	s.n.Notify()
	return e, false, nil
}

// byRef finds the entry appended with ref, if any.
func (s *fileStore) byRef(ref string) (Entry, bool, error) {
	all, err := s.Entries()
	if err != nil {
		return Entry{}, false, err
	}
	for _, old := range all {
		if old.Ref == ref {
			return old, true, nil
		}
	}
	return Entry{}, false, nil
}

// render brings channel.md up to date after e was appended, under the
// channel lock. It is a rendering, written after the truth and not synced:
// when its size is what the entries before e render to, e's block is
// appended; otherwise (a process killed between the two writes, an edit)
// it is rebuilt whole. A failure here loses nothing: the next append or
// open rebuilds it.
func (s *fileStore) render(e Entry) {
	all, err := s.Entries()
	if err != nil || len(all) == 0 || all[len(all)-1].Seq != e.Seq {
		return
	}
	s.mu.Lock()
	want := s.cacheMD
	s.mu.Unlock()
	block := Render(e)
	if fi, err := os.Stat(s.md); err == nil && fi.Size() == want-int64(len(block)) {
		if md, err := os.OpenFile(s.md, os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			md.WriteString(block)
			md.Close()
			return
		}
	}
	var b strings.Builder
	for _, x := range all {
		b.WriteString(Render(x))
	}
	atomicfile.WriteNoSync(s.md, []byte(b.String()), 0o644)
}

// seqOf is the seq of a channel line; 0 for none (an empty channel).
func seqOf(line []byte) (int64, error) {
	if line == nil {
		return 0, nil
	}
	var e struct {
		Seq int64 `json:"seq"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return 0, fmt.Errorf("read channel: last line: %w", err)
	}
	return e.Seq, nil
}

// Render is an entry as channel.md shows it.
func Render(e Entry) string {
	return fmt.Sprintf("### %s [%s]\n%s\n\n", e.Timestamp.UTC().Format("15:04:05"), e.From, strings.TrimRight(e.Message, "\n"))
}

// ParseChannel splits the content of a channel.jsonl into its entries,
// ignoring an incomplete last line; a complete line that is not an entry
// is an error naming it.
func ParseChannel(data []byte) ([]Entry, error) {
	var out []Entry
	for n := 1; len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn: a crash mid-append
		}
		line := data[:i]
		data = data[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return out, fmt.Errorf("channel line %d: %w", n, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// entries reads the channel. The file only grows (but for the repair of a
// torn tail), so the entries already parsed are kept and only the lines
// appended since are read and parsed.
func (s *fileStore) Entries() ([]Entry, error) {
	f, err := os.Open(s.log)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read channel: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read channel: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cacheFile == nil || !os.SameFile(s.cacheFile, fi) || fi.Size() < s.cacheSize {
		s.cache, s.cacheSize, s.cacheMD = nil, 0, 0
	}
	s.cacheFile = fi
	if fi.Size() > s.cacheSize {
		data := make([]byte, fi.Size()-s.cacheSize)
		n, err := f.ReadAt(data, s.cacheSize)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read channel: %w", err)
		}
		data = data[:n]
		data = data[:bytes.LastIndexByte(data, '\n')+1] // complete lines only
		more, err := ParseChannel(data)
		if err != nil {
			return nil, fmt.Errorf("read channel %s: after byte %d: %w", s.log, s.cacheSize, err)
		}
		s.cache = append(s.cache, more...)
		s.cacheSize += int64(len(data))
		for _, e := range more {
			s.cacheMD += int64(len(Render(e)))
		}
	}
	return slices.Clone(s.cache), nil
}

func (s *fileStore) LastSeq() (int64, error) {
	f, err := os.Open(s.log)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read channel: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("read channel: %w", err)
	}
	s.mu.Lock()
	if fi.Size() == s.seenSize {
		defer s.mu.Unlock()
		return s.seenSeq, nil
	}
	s.mu.Unlock()
	size, err := jsonl.CompleteSize(f, fi.Size())
	if err != nil {
		return 0, fmt.Errorf("read channel: %w", err)
	}
	line, err := jsonl.LastLine(f, size)
	if err != nil {
		return 0, fmt.Errorf("read channel: %w", err)
	}
	seq, err := seqOf(line)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.seenSize, s.seenSeq = fi.Size(), seq
	s.mu.Unlock()
	return seq, nil
}

// wait polls the channel's last seq; between looks it sleeps until the
// file changes (inotify, where there is one), an append by this process,
// ctx's end, or pollInterval.
func (s *fileStore) Wait(ctx context.Context, afterSeq int64) (int64, error) {
	w := newChangeWatch(s.log)
	defer w.close()
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		changed := s.n.Changed()
		last, err := s.LastSeq()
		if err != nil || last > afterSeq {
			return last, err
		}
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-changed:
		case <-w.changed():
		case <-t.C:
		}
	}
}

// reconcile repairs a torn channel tail and rebuilds channel.md when it
// is not the rendering of channel.jsonl (a crash between the two writes,
// or a person editing it).
func (s *fileStore) reconcile() error {
	unlock, err := s.Lock("channel")
	if err != nil {
		return err
	}
	defer unlock()
	log, err := jsonl.Open(s.log)
	if err != nil {
		return fmt.Errorf("open channel: %w", err)
	}
	_, err = log.RepairTail()
	log.Close()
	if err != nil {
		return fmt.Errorf("open channel: %w", err)
	}
	all, err := s.Entries()
	if err != nil {
		return err
	}
	var want strings.Builder
	for _, e := range all {
		want.WriteString(Render(e))
	}
	have, err := os.ReadFile(s.md)
	if err == nil && string(have) == want.String() {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", filepath.Base(s.md), err)
	}
	return atomicfile.Write(s.md, []byte(want.String()), 0o644)
}

// State records

func (s *fileStore) Get(key string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(key)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return b, nil
}

func (s *fileStore) Put(key string, data []byte) error {
	p := filepath.Join(s.dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return atomicfile.Write(p, data, 0o644)
}

func (s *fileStore) Keys(prefix string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(s.dir, filepath.FromSlash(prefix)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, prefix+e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func (s *fileStore) Close() error { return s.docs.Close() }
