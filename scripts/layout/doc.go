// Package layout holds no code: its test keeps the repository's size
// rules (CONVENTIONS: no non-test function over 80 lines, no file over
// 500 lines outside generated code and tests) true after every change, as
// part of go test ./... and so of make test.
package layout
