#!/usr/bin/env bash
# Builds a Go tool at a pinned version into the cache (once per version) and prints its path.
# Usage: [TOOL_LDFLAGS=...] hack/tool.sh MODULE VERSION PACKAGE [BINARY]
# It builds in a throwaway module with an explicit require instead of `go install pkg@v`,
# because the module proxy refuses version *lists* for some modules and `go install` asks
# for one (to check deprecations).
set -euo pipefail
module="$1" version="$2" pkg="$3" bin="${4:-$(basename "$3")}"
cache="${PROVIDER_DEVOPS_CACHE:-$HOME/.cache/provider-devops}/tools/$bin-$version"
if [ ! -x "$cache/$bin" ]; then
  echo "tool.sh: building $bin $version (once)" >&2
  work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
  (
    cd "$work"
    go mod init provider-devops.local/tools >/dev/null 2>&1
    echo "require $module $version" >> go.mod
    printf 'package tools\n\nimport _ "%s"\n' "$pkg" > tools.go
    GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || GOFLAGS=-mod=mod go mod tidy
    mkdir -p "$cache"
    CGO_ENABLED=0 go build -trimpath -ldflags "${TOOL_LDFLAGS:-}" -o "$cache/$bin.tmp" "$pkg"
    mv "$cache/$bin.tmp" "$cache/$bin"
  )
fi
echo "$cache/$bin"
