#!/usr/bin/env bash
# Builds Prometheus's promtool from the Go module proxy, once per version, into
# the cache (hack/tool.sh), and prints its path. The alert rules' test
# (package/monitoring) runs it: promtool check rules and promtool test rules.
# Prometheus 3.x is tagged v3.N.x but its Go module is versioned v0.3N.x.
set -euo pipefail
PROMETHEUS_VERSION="${PROMETHEUS_VERSION:-v0.316.0}"
exec "$(dirname "$0")/tool.sh" github.com/prometheus/prometheus "$PROMETHEUS_VERSION" \
  github.com/prometheus/prometheus/cmd/promtool promtool
