package web

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/deltakit/delta/plugins/sdk"
)

// ErrType is wrapped when a response is of a type web_fetch does not
// return (an image, a PDF, a binary).
var ErrType = errors.New("not a text type web_fetch returns")

// kind is how web_fetch gives a media type to the model.
type kind int

const (
	refused kind = iota
	asHTML       // converted to Markdown
	asText       // as it is
)

// kindOf sorts a media type: HTML, text of any kind and the textual
// application types (JSON, XML, YAML, JavaScript …), or refused.
func kindOf(typ string) kind {
	switch {
	case typ == "text/html" || typ == "application/xhtml+xml":
		return asHTML
	case strings.HasPrefix(typ, "text/"),
		strings.HasSuffix(typ, "+json"), strings.HasSuffix(typ, "+xml"),
		typ == "application/json", typ == "application/x-ndjson", typ == "application/xml",
		typ == "application/javascript", typ == "application/x-javascript", typ == "application/ecmascript",
		typ == "application/yaml", typ == "application/x-yaml", typ == "application/toml",
		typ == "application/x-sh", typ == "application/sql", typ == "application/graphql":
		return asText
	}
	return refused
}

// text is what the model reads of p: Markdown of an HTML page (its
// source when raw), text as it is, in UTF-8; a type it does not return is
// ErrType. It sets p.Title from an HTML page's <title>.
func (p *page) text(raw bool) (string, error) {
	k := kindOf(p.ContentType)
	if k == refused {
		return "", fmt.Errorf("%s is %s (%d bytes): %w; web_fetch returns HTML pages as Markdown, and text and JSON as they are",
			p.FinalURL, p.ContentType, len(p.Body), ErrType)
	}
	body := p.utf8()
	if k == asText || raw {
		return body, nil
	}
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("parse the HTML of %s: %v", p.FinalURL, err)
	}
	p.Title = title(doc)
	md, err := markdown.ConvertNode(doc, converter.WithDomain(p.FinalURL))
	if err != nil {
		return "", fmt.Errorf("convert the HTML of %s to Markdown: %v", p.FinalURL, err)
	}
	return string(md), nil
}

// markdown is the HTML-to-Markdown converter: CommonMark with tables and
// strikethrough (GitHub's flavour, which models read best), scripts,
// styles and forms removed by the base plugin.
var markdown = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin(), strikethrough.NewStrikethroughPlugin()))

// utf8 is p's body in UTF-8: decoded from the charset the header names,
// or for HTML the one its <meta> names; bytes that decode to nothing
// valid are replaced.
func (p *page) utf8() string {
	label := p.Charset
	if label == "" && kindOf(p.ContentType) == asHTML {
		_, label, _ = charset.DetermineEncoding(p.Body, p.ContentType)
	}
	if label != "" && label != "utf-8" && label != "utf8" && label != "us-ascii" {
		if enc, _ := charset.Lookup(label); enc != nil {
			if out, err := enc.NewDecoder().Bytes(p.Body); err == nil {
				return string(out)
			}
		}
	}
	return string(bytes.ToValidUTF8(p.Body, []byte("\uFFFD")))
}

// title is the text of doc's first <title>, "" when it has none.
func title(doc *html.Node) string {
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == "title" {
			var b strings.Builder
			for c := range n.Descendants() {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			return strings.Join(strings.Fields(b.String()), " ")
		}
	}
	return ""
}

// header is the lines before the page's text: where it came from, its
// title and type, and whether max_bytes cut it.
func (p *page) header(raw bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", p.FinalURL)
	if p.FinalURL != p.URL {
		fmt.Fprintf(&b, "(redirected from %s)\n", p.URL)
	}
	if p.Title != "" {
		fmt.Fprintf(&b, "Title: %s\n", p.Title)
	}
	how := ""
	if kindOf(p.ContentType) == asHTML && !raw {
		how = ", converted to Markdown"
	}
	fmt.Fprintf(&b, "Content-Type: %s%s\n", p.ContentType, how)
	if p.Cut {
		fmt.Fprintf(&b, "[The response is longer than the web plugin's max_bytes (%d bytes): what follows is its beginning only.]\n", p.MaxBytes)
	}
	return b.String() + "\n"
}

// window is the part of text the call asked for: from character start,
// at most maxLength characters, cut by the SDK's Cut (which keeps the rest
// in the call's record and says where) with a note giving the
// start_index to read on from.
func window(req sdk.CallRequest, text string, start, maxLength int) (string, error) {
	total := utf8.RuneCountInString(text)
	if strings.TrimSpace(text) == "" {
		return "(the page has no text)", nil
	}
	if start >= total {
		return fmt.Sprintf("(start_index %d is past the end: the page's text has %d characters)", start, total), nil
	}
	rest := text[runeOffset(text, start):]
	out, err := req.Cut(rest, sdk.Limits{MaxChars: maxLength, Mode: sdk.Head})
	if err != nil {
		return "", fmt.Errorf("web_fetch: %w", err)
	}
	if end := start + maxLength; end < total {
		out += fmt.Sprintf("\n\n[web_fetch: characters %d to %d of the page's %d are shown; call web_fetch again with start_index: %d to read on.]", start, end, total, end)
	}
	return out, nil
}

// runeOffset is the byte offset of s's i-th character.
func runeOffset(s string, i int) int {
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}
