package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// testPNG is a small PNG image.
func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{G: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imageFake is a fake model server of one protocol that answers a
// read_file call, then text, for as many runs as asked, and says whether
// its n-th request showed the model the image.
type imageFake struct {
	llm, env string // agent.yaml's llm block; the variable naming the server
	url      string
	reply    func(llm.Response)
	sent     func(n int, b64 string) bool
}

func newImageFakes(t *testing.T) map[string]*imageFake {
	chat, resp, anth, gem := llmtest.NewServer(t), llmtest.NewServer(t), llmtest.NewAnthropic(t), llmtest.NewGemini(t)
	// openAISent: a message of the OpenAI fakes' parsed requests (a tool
	// result, or the user message after the results) holds the image.
	openAISent := func(s *llmtest.Server, role string) func(int, string) bool {
		return func(n int, b64 string) bool {
			for _, m := range s.Requests()[n].Messages {
				for _, p := range m.Parts {
					if m.Role == role && p.MediaType == "image/png" && base64.StdEncoding.EncodeToString(p.Data) == b64 {
						return true
					}
				}
			}
			return false
		}
	}
	return map[string]*imageFake{
		"chat": {llm: "provider: openai-compatible\n  model: gpt-4o", env: "DELTA_BASE_URL", url: chat.URL,
			reply: chat.Reply, sent: openAISent(chat, llm.RoleUser)},
		"responses": {llm: "provider: openai\n  api: responses\n  model: gpt-5", env: "DELTA_BASE_URL", url: resp.URL,
			reply: resp.Reply, sent: openAISent(resp, llm.RoleTool)},
		"anthropic": {llm: "provider: anthropic\n  model: claude-sonnet-4-5", env: "ANTHROPIC_BASE_URL", url: anth.URL, reply: anth.Reply,
			sent: func(n int, b64 string) bool {
				msgs, _ := json.Marshal(anth.Requests()[n]["messages"])
				return strings.Contains(string(msgs), `"type":"tool_result"`) &&
					strings.Contains(string(msgs), `{"source":{"data":"`+b64+`","media_type":"image/png","type":"base64"},"type":"image"}`)
			}},
		"gemini": {llm: "provider: gemini\n  model: gemini-2.5-flash", env: "GEMINI_BASE_URL", url: gem.URL, reply: gem.Reply,
			sent: func(n int, b64 string) bool {
				contents, _ := json.Marshal(gem.Requests()[n].Body["contents"])
				return strings.Contains(string(contents), `{"inlineData":{"data":"`+b64+`","mimeType":"image/png"}}`)
			}},
	}
}

// TestReadFileImageReachesEachProvider: a PNG the model reads with the
// coding plugin's read_file reaches each protocol's fake server as that
// API's image part; ACTION_RESULT names the image's file in the call's
// record, which holds the bytes; and after delta continue the model is
// shown the same image again, read from that file.
func TestReadFileImageReachesEachProvider(t *testing.T) {
	bin, home := installedBin(t, true), t.TempDir()
	img := testPNG(t)
	b64 := base64.StdEncoding.EncodeToString(img)
	for name, f := range newImageFakes(t) {
		t.Run(name, func(t *testing.T) {
			f.reply(llm.Response{Content: "Looking.", ToolCalls: []llm.ToolCall{{ID: "call_img", Name: "read_file", Arguments: `{"file_path":"shot.png"}`}}})
			f.reply(llm.Response{Content: "A green dot."})
			f.reply(llm.Response{Content: "Still a green dot."})
			agentDir := writeAgent(t, "llm:\n  "+f.llm+"\nplugins:\n  - name: coding\n", nil)
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "shot.png"), img, 0o644); err != nil {
				t.Fatal(err)
			}
			env := []string{f.env + "=" + f.url, "DELTA_API_KEY=" + testKey}
			if stderr, code := runIn(t, bin, ws, home, env, "run", "--agent", agentDir, "-w", ws, "-m", "What is in shot.png?", "--run-id", "i1"); code != 0 {
				t.Fatalf("run: exit %d\n%s", code, stderr)
			}
			if !f.sent(1, b64) {
				t.Errorf("the request after read_file does not show the model the PNG as an image part")
			}
			runDir := filepath.Join(ws, ".delta", "i1")
			results := ofType(readEvents(t, filepath.Join(runDir, "journal.jsonl")), journal.ActionResult)
			if len(results) != 1 || len(results[0].Parts) != 1 {
				t.Fatalf("ACTION_RESULTs %+v: want one with one part", results)
			}
			p := results[0].Parts[0]
			kept, err := os.ReadFile(filepath.Join(runDir, p.Path))
			if p.Type != llm.PartImage || p.MediaType != "image/png" || p.Size != int64(len(img)) || !bytes.Equal(kept, img) ||
				!strings.HasPrefix(p.Path, strings.TrimSuffix(results[0].ExecutionRef, ".json")+"/image-1.png") {
				t.Errorf("ACTION_RESULT part %+v (record %s): file %d bytes, %v; want the PNG kept beside the call's record", p, results[0].ExecutionRef, len(kept), err)
			}
			if stderr, code := runIn(t, bin, ws, home, env, "continue", "--run-id", "i1", "-w", ws, "-m", "And now?"); code != 0 {
				t.Fatalf("continue: exit %d\n%s", code, stderr)
			}
			if !f.sent(2, b64) {
				t.Errorf("after continue, the request does not show the model the same image")
			}
			checkContextShowsImage(t, ws, p)
		})
	}
}

// checkContextShowsImage: delta-context's text output shows the image as
// its line, and its JSON names the image's file, without the bytes.
func checkContextShowsImage(t *testing.T, ws string, p llm.Part) {
	t.Helper()
	ctxBin := filepath.Join(clitest.BinDir(t), "delta-context")
	text, err := exec.Command(ctxBin, "-w", ws, "--run-id", "i1", "--format", "text").Output()
	if want := p.Placeholder(); err != nil || !strings.Contains(string(text), want) {
		t.Errorf("delta-context --format text: %v; want the line %s in\n%s", err, want, text)
	}
	raw, err := exec.Command(ctxBin, "-w", ws, "--run-id", "i1").Output()
	if err != nil {
		t.Fatalf("delta-context: %v", err)
	}
	var msgs []llm.Message
	if err := json.Unmarshal(raw, &msgs); err != nil {
		t.Fatalf("delta-context JSON: %v", err)
	}
	var named bool
	for _, m := range msgs {
		for _, q := range m.Parts {
			named = named || q.Path == p.Path && q.Size == p.Size && q.Data == nil
		}
	}
	if !named {
		t.Errorf("delta-context JSON does not name the image's file %s:\n%s", p.Path, raw)
	}
}
