package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ErrScheme is wrapped when a URL (or a redirect) is not http or https.
var ErrScheme = errors.New("only http and https URLs can be fetched")

// ErrRedirects is wrapped when a fetch is redirected more often than the
// config allows.
var ErrRedirects = errors.New("too many redirects")

// ErrTimeout is wrapped when a fetch did not end within its timeout.
var ErrTimeout = errors.New("timed out")

// page is one fetched response: what the model is told about it and its
// body, up to the config's max_bytes.
type page struct {
	URL, FinalURL string
	Status        int
	ContentType   string // the media type, without parameters
	Title         string // an HTML page's <title>, once text has read it
	Charset       string
	Body          []byte
	// Cut is set when the body was longer than max_bytes (Body is its
	// beginning); MaxBytes is that cap.
	Cut      bool
	MaxBytes int64
}

// data is what the call's record keeps of the fetch.
func (p page) data() json.RawMessage {
	if p.URL == "" {
		return nil
	}
	d, _ := json.Marshal(map[string]any{"url": p.URL, "final_url": p.FinalURL, "status": p.Status,
		"content_type": p.ContentType, "bytes": len(p.Body), "cut_at_max_bytes": p.Cut})
	return d
}

// parseURL checks raw is an absolute http or https URL.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("invalid url %q: %v", raw, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, fmt.Errorf("url %q has no scheme: %w (write https://%s)", raw, ErrScheme, strings.TrimPrefix(raw, "//"))
	default:
		return nil, fmt.Errorf("url %q is %s: %w", raw, u.Scheme, ErrScheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("url %q has no host", raw)
	}
	return u, nil
}

// client is the HTTP client of one fetch: the config's timeout and
// redirect limit, and no redirect to another scheme than http(s).
func (t *Tools) client() *http.Client {
	limit := t.Config.maxRedirects()
	return &http.Client{
		Timeout: t.Config.timeout(),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > limit {
				return fmt.Errorf("%w: stopped after %d (the web plugin's max_redirects); the last one pointed to %s", ErrRedirects, limit, req.URL)
			}
			if s := req.URL.Scheme; s != "http" && s != "https" {
				return fmt.Errorf("redirected to %s: %w", req.URL, ErrScheme)
			}
			return nil
		},
	}
}

// accept is the Accept header: the types web_fetch returns, HTML last
// among the text ones (a server that has Markdown or text gives it).
const accept = "text/markdown, text/plain;q=0.9, text/html;q=0.8, application/xhtml+xml;q=0.8, application/json;q=0.8, */*;q=0.1"

// fetch GETs rawURL and reads its body up to max_bytes. A page that
// could not be had at all is an error; so is an HTTP error status, whose
// page (with the start of its body) is returned too.
func (t *Tools) fetch(ctx context.Context, rawURL string) (page, error) {
	u, err := parseURL(rawURL)
	if err != nil {
		return page{}, err
	}
	p := page{URL: u.String(), MaxBytes: t.Config.maxBytes()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return page{}, fmt.Errorf("fetch %s: %v", u, err)
	}
	req.Header.Set("User-Agent", t.Config.userAgent())
	req.Header.Set("Accept", accept)
	resp, err := t.client().Do(req)
	if err != nil {
		return page{}, t.fetchError(u, err)
	}
	defer resp.Body.Close()
	p.FinalURL, p.Status = resp.Request.URL.String(), resp.StatusCode
	p.ContentType, p.Charset = mediaType(resp.Header.Get("Content-Type"))
	if err := p.readBody(resp.Body); err != nil {
		return p, t.fetchError(u, err)
	}
	if p.ContentType == "" {
		p.ContentType, p.Charset = mediaType(http.DetectContentType(p.Body))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return p, p.statusError()
	}
	return p, nil
}

// readBody reads up to MaxBytes of body, noting whether there was more.
func (p *page) readBody(body io.Reader) error {
	data, err := io.ReadAll(io.LimitReader(body, p.MaxBytes+1))
	if int64(len(data)) > p.MaxBytes {
		data, p.Cut, err = data[:p.MaxBytes], true, nil
	}
	p.Body = data
	return err
}

// statusError is the error of a response with an HTTP error status,
// with the beginning of what the server said.
func (p page) statusError() error {
	msg := fmt.Sprintf("%s answered HTTP %d %s", p.FinalURL, p.Status, http.StatusText(p.Status))
	if text, err := p.text(false); err == nil && strings.TrimSpace(text) != "" {
		r := []rune(strings.TrimSpace(text))
		if len(r) > 2000 {
			r = append(r[:2000], []rune(" …")...)
		}
		msg += "; the page it sent:\n\n" + string(r)
	}
	return errors.New(msg)
}

// fetchError says what went wrong with a fetch, in the words the model
// needs: a timeout names the limit, the rest keeps Go's own message
// (which for a connect the sandbox refused reads "permission denied", so
// that the plugin host adds the sandbox's note).
func (t *Tools) fetchError(u *url.URL, err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, ErrRedirects), errors.Is(err, ErrScheme):
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("fetch %s: %w", u, err)
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("fetch %s: %w after %s (the web plugin's timeout_ms, or the call's deadline)", u, ErrTimeout, t.Config.timeout().Round(time.Millisecond))
	}
	return fmt.Errorf("fetch %s: %w", u, err)
}

// mediaType splits a Content-Type header into its lower-case media type
// and charset ("" when it has none or is malformed).
func mediaType(header string) (typ, charset string) {
	if header == "" {
		return "", ""
	}
	typ, params, err := mime.ParseMediaType(header)
	if err != nil {
		typ, _, _ = strings.Cut(header, ";")
		return strings.ToLower(strings.TrimSpace(typ)), ""
	}
	return typ, strings.ToLower(params["charset"])
}
