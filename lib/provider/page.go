package provider

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// pageGuard is an SDK middleware: an answer that is a web page or plain
// text instead of the API's JSON means the base URL points somewhere else
// (a site's home page, Ollama without /v1 …). The SDKs report that as a
// decoding failure; this turns it into an APIError that says what to check.
func (r remote) pageGuard(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || !notAPI(resp) {
		return resp, err
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	ae := r.ep.newAPIError(resp.StatusCode, resp.Header, "")
	ae.Message = fmt.Sprintf("%s answered with %s, not the API's JSON (%q)", req.URL.Redacted(), contentType(resp), strings.TrimSpace(string(snippet)))
	if !ae.transient() {
		ae.Hint = r.ep.urlHint()
	}
	return nil, ae
}

// notAPI reports whether resp is a page rather than an API answer: HTML
// at any status, or a non-JSON body on 404 and 405 (wrong path).
func notAPI(resp *http.Response) bool {
	ct := contentType(resp)
	if ct == "text/html" {
		return true
	}
	wrongPath := resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed
	return wrongPath && ct != "application/json" && !strings.HasSuffix(ct, "+json")
}

func contentType(resp *http.Response) string {
	ct, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || ct == "" {
		return "no content type"
	}
	return ct
}

// urlHint says which setting to check and what the URL should look like.
func (ep endpoint) urlHint() string {
	from := ep.urlFrom
	if from == "" {
		from = "DELTA_BASE_URL"
	}
	if ep.name == "anthropic" {
		return fmt.Sprintf("check %s (the API's root, such as https://api.anthropic.com, without /v1)", from)
	}
	if ep.name == "gemini" {
		return fmt.Sprintf("check %s (the API's root with its version, such as https://generativelanguage.googleapis.com/v1beta)", from)
	}
	return fmt.Sprintf("check %s (does it end in /v1?)", from)
}
