#!/usr/bin/env bash
# Builds the Gitea server from the Go module proxy, once per version, into
# the cache, and prints the binary's path. The tests run it as the forge
# whose pull requests become preview environments (internal/testing/gitea).
#
# Not through hack/tool.sh: Gitea's go.mod declares its module path as
# gitea.dev while the proxy serves it as code.gitea.io/gitea, so a module
# that requires it fails ("module declares its path as: gitea.dev but was
# required as: code.gitea.io/gitea"), and its replace directives would be
# ignored there anyway. It is built inside the downloaded module instead,
# with Gitea's own go.mod and go.sum, as its Makefile does.
#
# Three of v1.27.3's dependencies the proxy refuses ("403 Forbidden: This
# module version is not available"), so a plain build fails. The build uses
# a copy of Gitea's go.mod (-modfile) with replace directives for them:
#   gitea.dev/actions-proto-go v0.6.0 and gitea.dev/sdk v1.1.0 are served
#   under their old paths, code.gitea.io/actions-proto-go and
#   code.gitea.io/sdk, whose go.mod already says gitea.dev/...; the script
#   hashes those trees as gitea.dev/...@version (go.sum's h1: dirhash) and
#   uses them only if the hash is the one Gitea's go.sum pins, so the code
#   built is byte for byte what Gitea locks. (code.gitea.io/sdk@v1.1.0 is
#   not in the checksum database, hence GONOSUMDB for it: the go.sum
#   comparison is its check.)
#   gitlab.com/gitlab-org/api/client-go/v2 v2.42.0 is refused, v2.43.0 is
#   served: only the GitLab migration importer uses it, which the tests do
#   not, and it compiles against v2.43.0.
#
# No build tags: SQLite is modernc.org/sqlite (pure Go, the default unless
# the sqlite_mattn tag is given), so CGO stays off. Without the bindata tag
# Gitea reads options/ (locales, README and label templates) and templates/
# from STATIC_ROOT_PATH at run time, so they are copied beside the binary;
# the frontend is not built (the REST API is what the tests use).
set -euo pipefail
GITEA_VERSION="${GITEA_VERSION:-v1.27.3}"
cache="${PROVIDER_DEVOPS_CACHE:-$HOME/.cache/provider-devops}/tools/gitea-$GITEA_VERSION"
if [ ! -x "$cache/gitea" ]; then
  echo "gitea.sh: building gitea $GITEA_VERSION (once)" >&2
  src="$(go mod download -json "code.gitea.io/gitea@$GITEA_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  if [ -z "$src" ] || [ ! -f "$src/go.mod" ]; then
    echo "gitea.sh: cannot download code.gitea.io/gitea@$GITEA_VERSION" >&2
    exit 1
  fi
  work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
  cp "$src/go.mod" "$src/go.sum" "$work/"
  chmod u+w "$work/go.mod" "$work/go.sum"
  # h1 DIR MODULE@VERSION: go.sum's h1: hash of the module tree DIR had it
  # been published as MODULE@VERSION (golang.org/x/mod/sumdb/dirhash Hash1).
  h1() {
    (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | while IFS= read -r f; do
      printf '%s  %s\n' "$(sha256sum "$f" | cut -d' ' -f1)" "$2/$f"
    done | sha256sum | cut -d' ' -f1 | sed 's/../\\x&/g' | tr -d '\n' | xargs -0 printf | base64)
  }
  # same_as MODULE VERSION SERVED: replace MODULE by the module the proxy
  # serves as SERVED@VERSION, once it hashes as Gitea's go.sum pins MODULE.
  same_as() {
    local want dir got
    want="$(awk -v m="$1" -v v="$2" '$1 == m && $2 == v { print $3 }' "$src/go.sum")"
    [ -n "$want" ] || return 0 # this version of Gitea does not use it
    dir="$(GONOSUMDB="$3" go mod download -json "$3@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    if [ -z "$dir" ] || [ ! -f "$dir/go.mod" ]; then
      echo "gitea.sh: cannot download $3@$2" >&2
      exit 1
    fi
    got="h1:$(h1 "$dir" "$1@$2")"
    if [ "$got" != "$want" ]; then
      echo "gitea.sh: $3@$2 hashes as $got, Gitea's go.sum pins $1@$2 at $want" >&2
      exit 1
    fi
    echo "replace $1 => $dir" >> "$work/go.mod"
  }
  same_as gitea.dev/actions-proto-go v0.6.0 code.gitea.io/actions-proto-go
  same_as gitea.dev/sdk v1.1.0 code.gitea.io/sdk
  if grep -q '^gitlab.com/gitlab-org/api/client-go/v2 v2.42.0 ' "$src/go.sum"; then
    echo "replace gitlab.com/gitlab-org/api/client-go/v2 => gitlab.com/gitlab-org/api/client-go/v2 v2.43.0" >> "$work/go.mod"
  fi
  mkdir -p "$cache"
  rm -rf "$cache/options" "$cache/templates"
  cp -R "$src/options" "$src/templates" "$cache/"
  chmod -R u+w "$cache/options" "$cache/templates"
  (
    cd "$src"
    CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=mod" go build -modfile="$work/go.mod" -trimpath \
      -ldflags "-s -w -X main.Version=${GITEA_VERSION#v} -X main.Tags=" \
      -o "$cache/gitea.tmp" .
  )
  mv "$cache/gitea.tmp" "$cache/gitea"
fi
echo "$cache/gitea"
