//go:build tools

// Package tools pins modules the provider's later parts build on, so the whole
// dependency set is resolved and verified together now: function-sdk-go is
// what functions/devopsproject is written against.
package tools

import (
	_ "github.com/crossplane/function-sdk-go"
)
