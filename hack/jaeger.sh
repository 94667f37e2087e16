#!/usr/bin/env bash
# Builds Jaeger (v2: the OpenTelemetry Collector with Jaeger's storage and
# query API) from the Go module proxy, once per version, into the cache,
# and prints the binary's path. The tests send it the provider's traces over
# OTLP and read them back through its query API (internal/testing/jaeger).
set -euo pipefail
JAEGER_VERSION="${JAEGER_VERSION:-v1.76.0}"
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/tool.sh" github.com/jaegertracing/jaeger "$JAEGER_VERSION" github.com/jaegertracing/jaeger/cmd/jaeger jaeger
