#!/usr/bin/env bash
# Prepares the binaries controller-runtime's envtest needs -- etcd and kube-apiserver -- without
# downloading anything but Debian packages and Go modules, and prints the directory to use as
# KUBEBUILDER_ASSETS. etcd comes from Debian's etcd-server; kube-apiserver is built from the Go
# module proxy at the version matching our k8s.io libraries, once, into a cache keyed by version.
# With the argument kube-controller-manager it also builds that (the end-to-end test runs its
# garbage collector and namespace controllers, which Crossplane relies on); kube-scheduler,
# kubelet and kube-proxy likewise, and coredns (hack/coredns.sh, linked here), for a one-node
# cluster.
# It also links crds/cert-manager to cert-manager's CRDs (hack/cert-manager-crds.sh):
# KUBEBUILDER_ASSETS is what every integration test gets, and the shared control
# plane (internal/testing/controlplane) installs them from there.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.35.3}"
CACHE="${PROVIDER_DEVOPS_CACHE:-$HOME/.cache/provider-devops}"
ASSETS="$CACHE/envtest/$KUBE_VERSION"
log() { echo "envtest-assets: $*" >&2; }

ensure_etcd() {
  if ! command -v etcd >/dev/null 2>&1 && [ ! -x /usr/bin/etcd ]; then
    log "installing Debian etcd-server"
    if [ "$(id -u)" -ne 0 ]; then log "etcd is missing and we are not root: apt-get install etcd-server"; exit 1; fi
    "$(cd "$(dirname "$0")" && pwd)/apt-get.sh" install -y -qq etcd-server >/dev/null
  fi
}

build() {
  local cmd="$1" out="$ASSETS/$1"
  [ -x "$out" ] && return 0
  log "building $cmd $KUBE_VERSION from the Go module proxy (about 6 minutes cold)"
  local work; work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  (
    cd "$work"
    go mod init provider-devops.local/kube-tools >/dev/null 2>&1
    go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" >/dev/null
    local gomod; gomod="$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/$KUBE_VERSION.mod"
    # kubernetes requires its staging modules at v0.0.0 and replaces them with ./staging paths;
    # outside its repo each must point at the published v0.X.Y of the same release instead.
    local staging_version="v0.${KUBE_VERSION#v1.}"
    {
      echo "require k8s.io/kubernetes $KUBE_VERSION"
      echo "replace ("
      grep -E '^\s+k8s\.io/[a-z0-9-]+ v0\.0\.0$' "$gomod" | awk -v v="$staging_version" '{print "\t" $1 " => " $1 " " v}'
      echo ")"
    } >> go.mod
    echo "package tools; import _ \"k8s.io/kubernetes/cmd/$cmd/app\"" > tools.go
    go mod tidy >/dev/null 2>&1 || go mod tidy
    mkdir -p "$ASSETS"
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out.tmp" "k8s.io/kubernetes/cmd/$cmd"
    mv "$out.tmp" "$out"
  )
}

mkdir -p "$ASSETS"
ensure_etcd
build kube-apiserver
for extra in "$@"; do
  case "$extra" in
    kube-controller-manager|kube-scheduler|kubelet|kube-proxy) build "$extra" ;;
    coredns) ln -sf "$("$(cd "$(dirname "$0")" && pwd)/coredns.sh")" "$ASSETS/coredns" ;;
    *) log "unknown binary $extra"; exit 2 ;;
  esac
done
ln -sf "$(command -v etcd || echo /usr/bin/etcd)" "$ASSETS/etcd"
crds="$("$(cd "$(dirname "$0")" && pwd)/cert-manager-crds.sh")"
mkdir -p "$ASSETS/crds"
# Replaced by a rename, atomically: concurrent test runs read this link.
if [ "$(readlink "$ASSETS/crds/cert-manager" || true)" != "$crds" ]; then
  ln -sfn "$crds" "$ASSETS/crds/cert-manager.$$"
  mv -Tf "$ASSETS/crds/cert-manager.$$" "$ASSETS/crds/cert-manager"
fi
echo "$ASSETS"
