# provider-devops: a Crossplane v2 provider and composition function.
# Every tool is built from the Go module proxy at a pinned version into
# $(CACHE) once; nothing else is downloaded.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

CACHE ?= $(HOME)/.cache/provider-devops
export PROVIDER_DEVOPS_CACHE := $(CACHE)

CONTROLLER_GEN_VERSION := v0.20.0
GOLANGCI_LINT_VERSION := v2.15.0
ANGRYJET_VERSION := v0.0.0-20260719180100-659f1dc036c5
# The crossplane CLI for render tests: v2.1.x, the last line whose render runs a Development function without Docker.
CROSSPLANE_MODULE := github.com/crossplane/crossplane/v2
CROSSPLANE_VERSION := v2.1.3
KUBE_VERSION := v1.35.3
export KUBE_VERSION
# Argo CD for the tests, the e2e and the demo: the real one, built from the module proxy.
ARGOCD_VERSION := v3.2.11
export ARGOCD_VERSION
# cert-manager's CRDs (from its Go module's deploy/crds), installed in the tests' control plane so charts shipping a Certificate apply.
CERT_MANAGER_VERSION := v1.21.2
export CERT_MANAGER_VERSION

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
LDFLAGS := -X github.com/freeleaps/provider-devops/internal/version.Version=$(VERSION)
BIN := _output/bin

GO_TEST_FLAGS ?= -count=1
TEST_TIMEOUT ?= 20m
# Test packages run at once by make test. Its integration packages mostly
# wait on the servers they start (a warm CI run kept 2 cores 37% busy), so
# four at a time on 2 cores: 8.4 minutes instead of about 11.
TEST_PARALLEL ?= 4

.PHONY: tools
tools: ## Build the pinned code generators into the cache.
	@hack/tool.sh sigs.k8s.io/controller-tools $(CONTROLLER_GEN_VERSION) sigs.k8s.io/controller-tools/cmd/controller-gen >/dev/null
	@hack/tool.sh github.com/crossplane/crossplane-tools $(ANGRYJET_VERSION) github.com/crossplane/crossplane-tools/cmd/angryjet >/dev/null

.PHONY: generate
generate: tools ## Regenerate deepcopy, managed method sets and CRDs.
	@PATH="$(CACHE)/tools/controller-gen-$(CONTROLLER_GEN_VERSION):$(CACHE)/tools/angryjet-$(ANGRYJET_VERSION):$$PATH" go generate ./apis/... ./functions/...
	@gofmt -s -w apis

.PHONY: check-generated
check-generated: generate ## Fail when generated files are not committed.
	@if [ -n "$$(git status --porcelain -- apis functions package internal/clients/jenkins/declarative/crd)" ]; then \
	  echo "make generate changed the tree; commit the generated files:"; git status --porcelain -- apis functions package internal/clients/jenkins/declarative/crd; exit 1; fi

.PHONY: build
build: ## Build the provider binary.
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN)/provider ./cmd/provider

.PHONY: devopsctl
devopsctl: ## Build devopsctl, the users' tool (devopsctl migrate: docs/migration.md).
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN)/devopsctl ./cmd/devopsctl

# Packages: semantic versions, as dependency constraints need them.
PKG_VERSION ?= v0.1.0
# make e2e and make demo upgrade the packages to a second build of the same code, tagged so.
PKG_UPGRADE_VERSION ?= v0.1.1
# How make e2e and make demo run Crossplane and the packages: pods (a one-node cluster) or processes.
E2E_RUNTIME ?= pods
XPKG := _output/xpkg
CROSSPLANE_CLI = $$(hack/tool.sh $(CROSSPLANE_MODULE) $(CROSSPLANE_VERSION) $(CROSSPLANE_MODULE)/cmd/crank crossplane)
IMAGE_LABELS = -label org.opencontainers.image.source=https://github.com/freeleaps/provider-devops -label org.opencontainers.image.version=$(PKG_VERSION) -label org.opencontainers.image.revision=$(VERSION)

.PHONY: xpkg
xpkg: ## Build the provider, function and configuration packages with embedded runtime images (no Docker).
	@mkdir -p $(XPKG) _output/images
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $(LDFLAGS)" -o _output/static/provider ./cmd/provider
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $(LDFLAGS)" -o _output/static/function ./functions/devopsproject
	go run ./cluster/image -binary _output/static/provider -tag provider-devops:$(PKG_VERSION) -out _output/images/provider.tar $(IMAGE_LABELS) -label org.opencontainers.image.title=provider-devops
	go run ./cluster/image -binary _output/static/function -tag function-devopsproject:$(PKG_VERSION) -out _output/images/function.tar $(IMAGE_LABELS) -label org.opencontainers.image.title=function-devopsproject
	cli="$(CROSSPLANE_CLI)"; \
	  $$cli xpkg build --package-root package/provider --examples-root examples --ignore 'devopsproject/*,install/*,events/*.json,*/README.md' --embed-runtime-image-tarball _output/images/provider.tar -o $(XPKG)/provider-devops-$(PKG_VERSION).xpkg; \
	  $$cli xpkg build --package-root package/function --embed-runtime-image-tarball _output/images/function.tar -o $(XPKG)/function-devopsproject-$(PKG_VERSION).xpkg; \
	  $$cli xpkg build --package-root package/configuration --examples-root examples/devopsproject -o $(XPKG)/configuration-devopsproject-$(PKG_VERSION).xpkg
	@ls -l $(XPKG)

.PHONY: apt-deps
apt-deps: ## Install the Debian packages the tests and the demo run (etcd, BIND 9, registry, RabbitMQ) if missing.
	@hack/apt-deps.sh

.PHONY: envtest-assets
envtest-assets: apt-deps ## Install etcd, build kube-apiserver and the one-node cluster (controllers, scheduler, kubelet, kube-proxy, CoreDNS) and Argo CD, and fetch cert-manager's CRDs, for the integration tests.
	@hack/envtest-assets.sh kube-controller-manager kube-scheduler kubelet kube-proxy coredns >/dev/null
	@hack/argocd.sh >/dev/null

# The servers the integration tests run: etcd + kube-apiserver (+ the garbage collector), a kubelet
# (a one-node cluster, internal/testing/node) and Argo CD.
SERVERS_ENV = KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh kube-controller-manager kube-scheduler kubelet kube-proxy coredns)" ARGOCD="$$(hack/argocd.sh)"
# make test also runs promtool on the alert rules (package/monitoring) and a
# Prometheus scraping the provider and the function (TestBinaryMetricsScraped)
# and a Jaeger receiving a deployment's trace (TestBinaryDeploymentTraced),
# and a Gitea forge whose pull requests the tests open, label, push to and
# merge (internal/testing/gitea); the benchmarks, the end-to-end test and
# the demo do not need them.
TEST_ENV = $(SERVERS_ENV) PROMTOOL="$$(hack/promtool.sh)" PROMETHEUS="$$(hack/prometheus.sh)" JAEGER="$$(hack/jaeger.sh)" GITEA="$$(hack/gitea.sh)"

.PHONY: test
test: envtest-assets ## Every test: unit and integration (real kube-apiserver + etcd, real Argo CD), then make e2e.
	$(TEST_ENV) CROSSPLANE_CLI="$(CROSSPLANE_CLI)" \
	  go test $(GO_TEST_FLAGS) -p $(TEST_PARALLEL) -timeout $(TEST_TIMEOUT) $$(go list ./... | grep -v /test/e2e)
	@$(MAKE) --no-print-directory e2e

# The end-to-end test and the demo run a real Crossplane: its core binary is
# built at the CLI's release, with the version stamped in (an unversioned core
# refuses every package as incompatible).
CROSSPLANE_CORE = $$(TOOL_LDFLAGS="-X $(CROSSPLANE_MODULE)/internal/version.version=$(CROSSPLANE_VERSION)" hack/tool.sh $(CROSSPLANE_MODULE) $(CROSSPLANE_VERSION) $(CROSSPLANE_MODULE)/cmd/crossplane crossplane-core)
E2E_ENV = $(SERVERS_ENV) CROSSPLANE="$(CROSSPLANE_CORE)" \
	  CROSSPLANE_CLI="$(CROSSPLANE_CLI)" CROSSPLANE_VERSION=$(CROSSPLANE_VERSION) PKG_VERSION=$(PKG_VERSION) PKG_UPGRADE_VERSION=$(PKG_UPGRADE_VERSION) E2E_RUNTIME=$(E2E_RUNTIME)

.PHONY: e2e-deps
e2e-deps: envtest-assets xpkg
	@$(MAKE) --no-print-directory xpkg PKG_VERSION=$(PKG_UPGRADE_VERSION)
	@echo "$(CROSSPLANE_CORE)" >/dev/null
	CGO_ENABLED=0 go build -trimpath -o $(BIN)/sandbox ./test/sandbox

.PHONY: e2e
e2e: e2e-deps ## Crossplane (Helm) and the packages (crossplane xpkg install) on a one-node cluster, and the DevOpsProject scenario, asserted. E2E_RUNTIME=processes: host processes, quicker.
	$(E2E_ENV) PROMETHEUS="$$(hack/prometheus.sh)" JAEGER="$$(hack/jaeger.sh)" GITEA="$$(hack/gitea.sh)" go test -count=1 -v -timeout 35m ./test/e2e/

.PHONY: soak
soak: e2e-deps ## Four DevOpsProjects for 10 minutes in a real Crossplane v2: provider and function RSS must not grow (about 15 minutes).
	$(E2E_ENV) SOAK=1 go test -count=1 -v -timeout 45m -run TestSoak ./test/e2e/

.PHONY: demo
demo: e2e-deps ## The local demo: the same scenario with readable progress and a summary.
	$(E2E_ENV) GITEA="$$(hack/gitea.sh)" go run ./test/demo

.PHONY: unit
unit: ## Unit tests only (no servers).
	go test $(GO_TEST_FLAGS) -short ./...

.PHONY: lint
lint: ## gofmt -s, the license header, and golangci-lint (pinned, built from the Go module proxy; .golangci.yml).
	@out="$$(gofmt -s -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "gofmt -s would change:"; echo "$$out"; exit 1; fi
	@out="$$(git ls-files '*.go' | xargs grep -L 'Licensed under the Apache License, Version 2.0')"; if [ -n "$$out" ]; then echo "missing the license header (hack/boilerplate.go.txt):"; echo "$$out"; exit 1; fi
	"$$(hack/tool.sh github.com/golangci/golangci-lint/v2 $(GOLANGCI_LINT_VERSION) github.com/golangci/golangci-lint/v2/cmd/golangci-lint)" run --allow-serial-runners ./...

.PHONY: render
render: ## Render and validate every DevOpsProject example with the real crossplane CLI (updates the golden files).
	CROSSPLANE_CLI="$(CROSSPLANE_CLI)" \
	  go test -count=1 -run TestRender ./functions/devopsproject/ -update

.PHONY: bench
bench: envtest-assets ## Benchmarks, including 1,000 managed resources on a real API server.
	$(SERVERS_ENV) go test -run '^$$' -bench . -benchmem ./...

.PHONY: reviewable
reviewable: check-generated lint test ## Everything CI checks.

.PHONY: run
run: ## Run the provider against the current kubeconfig.
	go run ./cmd/provider --debug

.PHONY: help
help:
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*?## "}{printf "%-18s %s\n", $$1, $$2}'
