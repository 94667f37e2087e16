#!/usr/bin/env bash
# Builds Argo CD's single binary (argocd-server, argocd-repo-server and
# argocd-application-controller are the same program, chosen by argv[0]) from
# the Go module proxy, once per version, into the cache, and prints the
# directory holding it, its three names, crds/ (the release's CRDs) and bin/
# with the helm and kustomize the repo server renders with (the versions
# Argo CD v3.2.11 ships: hack/tool-versions.sh in its module). The provider's own module does
# not import Argo CD: the build happens in a throwaway module that requires
# github.com/argoproj/argo-cd/v3 and copies that release's replace directives.
#
# v3.2.11 is pinned: it builds this way with Go 1.26; v3.2.12's module zip does
# not compile and v3.3+ needs a gitops-engine module the proxy does not serve.
set -euo pipefail

ARGOCD_VERSION="${ARGOCD_VERSION:-v3.2.11}"
CACHE="${PROVIDER_DEVOPS_CACHE:-$HOME/.cache/provider-devops}"
OUT="$CACHE/argocd/$ARGOCD_VERSION"
MODULE=github.com/argoproj/argo-cd/v3
log() { echo "argocd.sh: $*" >&2; }

if [ ! -x "$OUT/argocd" ]; then
  log "building Argo CD $ARGOCD_VERSION from the Go module proxy (once; about 10 minutes cold on 2 cores)"
  work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
  (
    cd "$work"
    go mod init provider-devops.local/argocd >/dev/null 2>&1
    json="$(go mod download -json "$MODULE@$ARGOCD_VERSION")"
    gomod="$(sed -n 's/^\s*"GoMod": "\(.*\)",$/\1/p' <<<"$json")"
    {
      echo "require $MODULE $ARGOCD_VERSION"
      # The release's replace block, verbatim: it pins k8s.io/* and friends to the versions it was
      # built with, which a plain require would otherwise resolve differently.
      awk '/^replace \($/{on=1} on{print} on && /^\)$/{on=0} /^replace [^(]/{print}' "$gomod"
    } >>go.mod
    printf 'package tools\n\nimport _ "%s/cmd"\n' "$MODULE" >tools.go
    GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || GOFLAGS=-mod=mod go mod tidy
    mkdir -p "$OUT"
    ldflags="-s -w -X $MODULE/common.version=${ARGOCD_VERSION#v}"
    CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/argocd.tmp" "$MODULE/cmd"
    mv "$OUT/argocd.tmp" "$OUT/argocd"
  )
fi
if [ ! -f "$OUT/crds/application-crd.yaml" ]; then
  dir="$(cd / && go mod download -json "$MODULE@$ARGOCD_VERSION" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')"
  mkdir -p "$OUT/crds"
  cp "$dir"/manifests/crds/*-crd.yaml "$OUT/crds/"
  chmod u+w "$OUT"/crds/*.yaml
fi
mkdir -p "$OUT/bin"
here="$(cd "$(dirname "$0")" && pwd)"
ln -sf "$("$here/tool.sh" helm.sh/helm/v3 v3.18.4 helm.sh/helm/v3/cmd/helm helm)" "$OUT/bin/helm"
ln -sf "$("$here/tool.sh" sigs.k8s.io/kustomize/kustomize/v5 v5.7.0 sigs.k8s.io/kustomize/kustomize/v5 kustomize)" "$OUT/bin/kustomize"
for name in argocd-server argocd-repo-server argocd-application-controller; do
  ln -sf argocd "$OUT/$name"
done
echo "$OUT"
