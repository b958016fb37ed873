package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deltakit/delta/lib/clitest"
)

func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }

// goodKey is the only key the fake endpoint accepts.
const goodKey = "sk-doctor-test-0123456789"

// TestScripts runs testdata/script/*.txtar against the real binaries, with
// $API set to a fake OpenAI-compatible endpoint on loopback (its model list
// is at $API/v1/models; any other path answers with a web page).
func TestScripts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path != "/v1/models":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>a web site</html>")
		case r.Header.Get("Authorization") != "Bearer "+goodKey:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided"}}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[{"id":"gpt-4o-mini"}]}`)
		}
	}))
	t.Cleanup(srv.Close) // the scripts run in parallel, after this function returns
	clitest.Run(t, "testdata/script", clitest.WithSetup(func(env *testscript.Env) error {
		env.Setenv("API", srv.URL)
		env.Setenv("GOODKEY", goodKey)
		env.Setenv("DELTA_PLUGIN_DIR", env.WorkDir+"/plugins")
		return nil
	}))
}
