#!/usr/bin/env bash
# Builds CoreDNS from the Go module proxy, once per version, into the cache, and prints its path:
# the cluster DNS of the one-node test cluster (internal/testing/node). Only the plugins a
# cluster's DNS uses are compiled in (CoreDNS's documented way of choosing plugins: a main that
# imports coremain, the plugins, and sets the directive order), so no cloud SDK is built.
set -euo pipefail
VERSION="${COREDNS_VERSION:-v1.14.7}"
CACHE="${PROVIDER_DEVOPS_CACHE:-$HOME/.cache/provider-devops}/tools/coredns-$VERSION"
if [ ! -x "$CACHE/coredns" ]; then
  echo "coredns.sh: building CoreDNS $VERSION (once)" >&2
  work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
  (
    cd "$work"
    go mod init provider-devops.local/coredns >/dev/null 2>&1
    echo "require github.com/coredns/coredns $VERSION" >> go.mod
    cat > main.go <<'GO'
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	dnsserver.Directives = []string{"ready", "health", "errors", "log", "loadbalance", "cache", "kubernetes"}
}

func main() { coremain.Run() }
GO
    GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || GOFLAGS=-mod=mod go mod tidy
    mkdir -p "$CACHE"
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$CACHE/coredns.tmp" .
    mv "$CACHE/coredns.tmp" "$CACHE/coredns"
  )
fi
echo "$CACHE/coredns"
