// Command delta-plugin-web is Delta's first-party web plugin: the
// web_fetch tool, which fetches an http or https URL and returns it as
// text (HTML as Markdown), for agents that list it under plugins: in
// agent.yaml. delta-run starts it; it is not run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/deltakit/delta/plugins/sdk"
	"github.com/deltakit/delta/plugins/web"
)

func main() {
	err := sdk.Serve(sdk.Plugin{Tools: &web.Tools{}, Version: web.Version})
	if err != nil {
		fmt.Fprintln(os.Stderr, "delta-plugin-web: error:", err)
		os.Exit(1)
	}
}
