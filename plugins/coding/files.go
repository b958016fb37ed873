package coding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrFileNotFound is returned for a file that does not exist.
var ErrFileNotFound = errors.New("file not found")

// ErrBinary is returned by read_file for a file that is not text.
var ErrBinary = errors.New("binary file")

const defaultReadLimit = 2000

func readFileTool(ctx context.Context, t *Tools, ws string, raw json.RawMessage) (string, error) {
	var a struct {
		FilePath string `json:"file_path"`
		Offset   int    `json:"offset"`
		Limit    int    `json:"limit"`
	}
	if err := decode(raw, &a); err != nil {
		return "", err
	}
	p, err := t.resolveRead(ctx, ws, a.FilePath)
	if err != nil {
		return "", err
	}
	// Stamped before it is read: a change in between makes a later
	// edit ask for a fresh read rather than overwrite unseen text.
	saw(ctx, p)
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fileError(a.FilePath, err)
	}
	if mediaType, ok := imageType(data); ok {
		return readImage(ctx, a.FilePath, mediaType, data)
	}
	return ReadLines(data, a.Offset, a.Limit)
}

// ReadLines formats data as "N | line" lines from 1-based offset (0 means
// 1), at most limit lines (0 means 2000). A file with a NUL byte in its
// first 8000 bytes is binary and refused.
func ReadLines(data []byte, offset, limit int) (string, error) {
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return "", fmt.Errorf("%w (%d bytes): read_file shows text only", ErrBinary, len(data))
	}
	if len(data) == 0 {
		return "(empty file)", nil
	}
	if offset <= 0 {
		offset = 1
	}
	if limit <= 0 {
		limit = defaultReadLimit
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if offset > len(lines) {
		return "", fmt.Errorf("%w: offset %d is past the end of the file (%d lines)", ErrArguments, offset, len(lines))
	}
	end := min(len(lines), offset-1+limit)
	width := len(strconv.Itoa(end))
	var b strings.Builder
	for i := offset - 1; i < end; i++ {
		fmt.Fprintf(&b, "%*d | %s\n", width, i+1, strings.TrimSuffix(lines[i], "\r"))
	}
	if end < len(lines) {
		fmt.Fprintf(&b, "[%d more lines; read on with offset %d]\n", len(lines)-end, end+1)
	}
	return b.String(), nil
}

func writeFileTool(ctx context.Context, t *Tools, ws string, raw json.RawMessage) (string, error) {
	var a struct {
		FilePath string  `json:"file_path"`
		Content  *string `json:"content"`
	}
	if err := decode(raw, &a); err != nil {
		return "", err
	}
	if a.Content == nil {
		return "", fmt.Errorf("%w: content is required", ErrArguments)
	}
	p, err := t.resolve(ws, a.FilePath)
	if err != nil {
		return "", err
	}
	if err := t.mustHaveRead(p, a.FilePath); err != nil {
		return "", err
	}
	if err := writeFile(p, *a.Content); err != nil {
		return "", err
	}
	saw(ctx, p)
	return fmt.Sprintf("Wrote %d bytes to %s", len(*a.Content), display(ws, p)), nil
}

// writeFile writes content to p, creating parent directories and keeping
// an existing file's mode.
func writeFile(p, content string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("create directory: %w", err)
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(p); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

func editFileTool(ctx context.Context, t *Tools, ws string, raw json.RawMessage) (string, error) {
	var a struct {
		FilePath   string  `json:"file_path"`
		OldString  *string `json:"old_string"`
		NewString  *string `json:"new_string"`
		ReplaceAll bool    `json:"replace_all"`
		// Expected is gemini-cli's expected_replacements: how many
		// occurrences to replace, all of them, and no other number.
		Expected *int `json:"expected_replacements"`
	}
	if err := decode(raw, &a); err != nil {
		return "", err
	}
	if a.OldString == nil || a.NewString == nil {
		return "", fmt.Errorf("%w: old_string and new_string are required", ErrArguments)
	}
	p, err := t.resolve(ws, a.FilePath)
	if err != nil {
		return "", err
	}
	if err := t.mustHaveRead(p, a.FilePath); err != nil {
		return "", err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fileError(a.FilePath, err)
	}
	all := a.ReplaceAll
	if a.Expected != nil {
		if *a.Expected < 1 {
			return "", fmt.Errorf("%w: expected_replacements must be 1 or more", ErrArguments)
		}
		all = *a.Expected > 1
	}
	res, err := Edit(string(data), *a.OldString, *a.NewString, all)
	if err != nil {
		return "", fmt.Errorf("%s: %w", a.FilePath, err)
	}
	if a.Expected != nil && res.Replacements != *a.Expected {
		return "", fmt.Errorf("%s: expected %d replacement(s) but old_string occurs %d time(s); nothing was changed", a.FilePath, *a.Expected, res.Replacements)
	}
	if err := writeFile(p, res.Content); err != nil {
		return "", err
	}
	saw(ctx, p)
	msg := fmt.Sprintf("Made %d replacement(s) in %s", res.Replacements, display(ws, p))
	if res.Fuzzy {
		msg += " (old_string matched after ignoring whitespace, Unicode punctuation and normalisation differences)"
	}
	return msg, nil
}

// notApplied says plainly that a patch that failed changed nothing: a
// patch applies whole or not at all.
func notApplied(err error) error {
	return fmt.Errorf("%w (nothing was applied: no file was changed)", err)
}

// stageFile writes content to a temporary file in dest's directory,
// creating it, with the mode of modeFrom when that file exists, and
// returns its path.
func stageFile(dest, modeFrom, content string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", fmt.Errorf("create directory: %w", err)
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(modeFrom); err == nil {
		mode = st.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".patch-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", dest, err)
	}
	_, werr := f.WriteString(content)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(f.Name(), mode)); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write %s: %w", dest, err)
	}
	return f.Name(), nil
}

// commitStaged renames a staged file into place.
func commitStaged(tmp *string, dest string) error {
	if err := os.Rename(*tmp, dest); err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	*tmp = ""
	return nil
}

// fileError words a file error for the model.
func fileError(name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s (use glob to find the right path)", ErrFileNotFound, name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("permission denied: %s", name)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err.Error() == "is a directory" {
		return fmt.Errorf("%s is a directory (use glob to list it)", name)
	}
	return err
}
