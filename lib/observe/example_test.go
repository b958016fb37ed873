package observe_test

import (
	"fmt"

	"github.com/deltakit/delta/lib/observe"
)

func ExampleTruncate() {
	fmt.Println(observe.Truncate("one\ntwo\nthree\nfour\nfive", 0, 2))
	// Output:
	// one
	// [... 3 lines omitted ...]
	// five
}
