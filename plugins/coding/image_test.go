package coding

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/plugins/sdk"
)

// testImages are small images in each format read_file returns, told by
// content: the PNG has no extension, the WebP only its RIFF header.
func testImages(t *testing.T) map[string][]byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var p, j, g bytes.Buffer
	if err := png.Encode(&p, img); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&j, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&g, img, nil); err != nil {
		t.Fatal(err)
	}
	webp := append([]byte("RIFF\x1a\x00\x00\x00WEBPVP8 "), make([]byte, 14)...)
	return map[string][]byte{"image/png": p.Bytes(), "image/jpeg": j.Bytes(), "image/gif": g.Bytes(), "image/webp": webp}
}

// TestReadFileImages: read_file of an image returns it as an image part
// with a line naming it, whatever the file's name; a text file named .png
// is text; an image over MaxImageBytes is refused with what to do.
func TestReadFileImages(t *testing.T) {
	ws := t.TempDir()
	tools := &Tools{}
	names := map[string]string{"image/png": "shot", "image/jpeg": "photo.jpg", "image/gif": "anim.gif", "image/webp": "pic.webp"}
	for mediaType, data := range testImages(t) {
		name := names[mediaType]
		if err := os.WriteFile(filepath.Join(ws, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		res := call(t, tools, ws, "read_file", `{"file_path":"`+name+`"}`)
		if res.IsError || !strings.HasPrefix(res.Output, "Image "+name+" ("+mediaType) {
			t.Errorf("read_file(%s) = %q (error %v), want the image line", name, res.Output, res.IsError)
		}
		if diff := cmp.Diff([]sdk.Part{sdk.Image(mediaType, data)}, res.Parts); diff != "" {
			t.Errorf("read_file(%s) parts (-want +got):\n%s", name, diff)
		}
	}
	writeFiles(t, ws, map[string]string{"fake.png": "not an image\n"})
	if res := call(t, tools, ws, "read_file", `{"file_path":"fake.png"}`); res.Output != "1 | not an image\n" || len(res.Parts) != 0 {
		t.Errorf("read_file(fake.png) = %q, %d parts; want its text", res.Output, len(res.Parts))
	}
	big := append(testImages(t)["image/png"], make([]byte, MaxImageBytes)...)
	if err := os.WriteFile(filepath.Join(ws, "big.png"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	res := call(t, tools, ws, "read_file", `{"file_path":"big.png"}`)
	if !res.IsError || len(res.Parts) != 0 || !strings.Contains(res.Output, "image too large: big.png is an image of 5.0 MB (image/png); read_file returns images up to 5 MB") {
		t.Errorf("read_file(big.png) = %q (error %v, %d parts), want the size refusal", res.Output, res.IsError, len(res.Parts))
	}
}
