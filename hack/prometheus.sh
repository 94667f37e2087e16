#!/usr/bin/env bash
# Builds the Prometheus server from the Go module proxy, once per version,
# into the cache, and prints the binary's path. The tests run it to scrape
# the provider and the function (internal/testing/prometheus). Built without
# the builtinassets tag: the web UI is absent, the HTTP API is all there.
# Module versions v0.3XX.Y are Prometheus 3.XX.Y; the same as hack/promtool.sh's.
set -euo pipefail
PROMETHEUS_VERSION="${PROMETHEUS_VERSION:-v0.316.0}"
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/tool.sh" github.com/prometheus/prometheus "$PROMETHEUS_VERSION" github.com/prometheus/prometheus/cmd/prometheus prometheus
