package coding

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/deltakit/delta/plugins/sdk"
)

// MaxImageBytes bounds an image read_file returns: Anthropic's limit for
// one image, the smallest of the providers'.
const MaxImageBytes = 5 << 20

// ErrImageTooLarge is returned by read_file for an image over
// MaxImageBytes.
var ErrImageTooLarge = errors.New("image too large")

// imageTypes are the media types read_file returns as images: the ones
// every provider that takes images accepts.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// imageType is the media type of data when it is an image read_file
// returns, told by its first bytes (not the file's name: a .png that is
// text is text, a screenshot saved without an extension is an image).
func imageType(data []byte) (string, bool) {
	t := http.DetectContentType(data)
	return t, imageTypes[t]
}

// readImage is read_file's answer for an image: a line for the
// observation, the image itself attached to the call's result.
func readImage(ctx context.Context, name, mediaType string, data []byte) (string, error) {
	if len(data) > MaxImageBytes {
		return "", fmt.Errorf("%w: %s is an image of %.1f MB (%s); read_file returns images up to %d MB: "+
			"make a smaller copy (for example with ImageMagick: convert %s -resize 50%% small.png) and read that",
			ErrImageTooLarge, name, float64(len(data))/(1<<20), mediaType, MaxImageBytes>>20, name)
	}
	attach(ctx, sdk.Image(mediaType, data))
	return fmt.Sprintf("Image %s (%s, %d bytes).", name, mediaType, len(data)), nil
}

// callParts collects the images of one call, which Call returns with its
// result.
type callParts struct {
	mu    sync.Mutex
	parts []sdk.Part
}

type callPartsKey struct{}

// withCallParts gives a call its collector.
func withCallParts(ctx context.Context) (context.Context, *callParts) {
	c := &callParts{}
	return context.WithValue(ctx, callPartsKey{}, c), c
}

// attach adds p to the call's result.
func attach(ctx context.Context, p sdk.Part) {
	if c, _ := ctx.Value(callPartsKey{}).(*callParts); c != nil {
		c.mu.Lock()
		c.parts = append(c.parts, p)
		c.mu.Unlock()
	}
}

func (c *callParts) list() []sdk.Part {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.parts
}
