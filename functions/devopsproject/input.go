/*
Copyright 2026 The provider-devops Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync"
	"time"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/functions/devopsproject/input/v1beta1"
)

// settings is the Input with defaults applied and durations parsed.
type settings struct {
	// patterns compiles the preview pattern (the function's cache).
	patterns           *patternCache
	registryVisibility string
	dnsRecordTTL       int64
	defaultTTL         time.Duration
	preview            *regexp.Regexp
	protected          map[string]bool
	expiryWarning      time.Duration
	pollInterval       time.Duration
	// ingressAddress is the default DNS target.
	ingressAddress string
	// ingressClasses and clusterIssuers are the allow-lists; empty: any.
	ingressClasses, clusterIssuers []string
	// ttlFromDeployment runs a ttl from the environment's last successful
	// deployment too (input.ttlStart LastDeployment).
	ttlFromDeployment bool
	teardown          []string
	// clusterResources are the AppProject's allowed cluster-scoped kinds;
	// createNamespace is true when Namespace is among them.
	clusterResources []argov1alpha1.ProjectGroupKind
	createNamespace  bool
	// config is the config of a project whose spec names none.
	config ConfigRef
	// destinationNamespaces (with "{namespace}" unexpanded) and
	// destinationClusters bound projects on a ClusterProviderConfig.
	destinationNamespaces, destinationClusters []string
	// pipelineFolder is the folder template of a project that names none.
	pipelineFolder string
}

// Kinds of config a project's managed resources may use.
const (
	KindProviderConfig        = "ProviderConfig"
	KindClusterProviderConfig = "ClusterProviderConfig"
)

// Defaults of the destination bounds: the provider's own defaults for a
// ClusterProviderConfig's spec.argocd.tenancy.
//
//nolint:gochecknoglobals // read-only defaults, copied before use
var (
	defaultDestinationNamespaces = []string{"{namespace}", "{namespace}--*"}
	defaultDestinationClusters   = []string{"*"}
)

// Values of input.ttlStart.
const (
	TTLStartCreation       = "Creation"
	TTLStartLastDeployment = "LastDeployment"
)

// Defaults of the Input, also written into its CRD.
const (
	defaultVisibility    = "private"
	defaultDNSRecordTTL  = 300
	defaultPreview       = "(pr|preview)-[a-z0-9-]+"
	defaultExpiryWarning = time.Hour
	defaultPollInterval  = time.Minute
)

// patternCache holds the preview patterns compiled so far: Compositions
// name a few, and each run would otherwise compile its pattern again. At
// most maxPatterns are kept. The Function owns one; its zero value is
// ready, and a nil cache compiles every time.
type patternCache struct {
	mu sync.Mutex
	m  map[string]*regexp.Regexp
}

const maxPatterns = 64

// compile compiles a preview pattern, anchored, once.
func (c *patternCache) compile(pattern string) (*regexp.Regexp, error) {
	if c == nil {
		return regexp.Compile(anchored(pattern))
	}
	c.mu.Lock()
	re, ok := c.m[pattern]
	c.mu.Unlock()
	if ok {
		return re, nil
	}
	re, err := regexp.Compile(anchored(pattern))
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*regexp.Regexp{}
	}
	if len(c.m) < maxPatterns {
		c.m[pattern] = re
	}
	c.mu.Unlock()
	return re, nil
}

func parseInput(in *v1beta1.Input, patterns *patternCache) (*settings, error) {
	s := &settings{
		patterns:           patterns,
		registryVisibility: defaultVisibility, dnsRecordTTL: defaultDNSRecordTTL,
		expiryWarning: defaultExpiryWarning, pollInterval: defaultPollInterval,
		teardown:              []string{KindDNS, KindApp, KindPipeline},
		config:                ConfigRef{Kind: KindProviderConfig, Name: "default"},
		destinationNamespaces: defaultDestinationNamespaces, destinationClusters: defaultDestinationClusters,
	}
	s.protected = map[string]bool{"prod": true, "production": true, "main": true}
	if in == nil {
		s.preview, _ = s.patterns.compile(defaultPreview)
		return s, nil
	}
	for _, parse := range inputParsers {
		if err := parse(s, in); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// inputParsers each read a part of the Input over the defaults, in this
// order: the first problem is the one reported.
var inputParsers = []func(*settings, *v1beta1.Input) error{ //nolint:gochecknoglobals // read-only table
	parseProtected,
	parseRegistryVisibility,
	parseDNSRecordTTL,
	parseDurations,
	parseIngress,
	parseTTLStart,
	parsePreviewPattern,
	parseTeardownOrder,
	parseClusterResources,
	parseProviderConfigRef,
	parsePipelineFolder,
	parseDestinations,
}

func parseProtected(s *settings, in *v1beta1.Input) error {
	if len(in.ProtectedEnvironments) > 0 {
		s.protected = map[string]bool{}
		for _, n := range in.ProtectedEnvironments {
			s.protected[n] = true
		}
	}
	return nil
}

func parseRegistryVisibility(s *settings, in *v1beta1.Input) error {
	if v := in.RegistryVisibility; v != "" {
		if v != "public" && v != "private" {
			return fieldErr("input.registryVisibility", "%q is not public or private", v)
		}
		s.registryVisibility = v
	}
	return nil
}

func parseDNSRecordTTL(s *settings, in *v1beta1.Input) error {
	if in.DNSRecordTTL != 0 {
		if in.DNSRecordTTL < 30 {
			return fieldErr("input.dnsRecordTTL", "%d is below 30 seconds", in.DNSRecordTTL)
		}
		s.dnsRecordTTL = in.DNSRecordTTL
	}
	return nil
}

func parseDurations(s *settings, in *v1beta1.Input) error {
	for _, d := range []struct {
		field, value string
		into         *time.Duration
		min          time.Duration
	}{
		{"input.defaultTTL", in.DefaultTTL, &s.defaultTTL, time.Minute},
		{"input.expiryWarning", in.ExpiryWarning, &s.expiryWarning, 0},
		{"input.pollInterval", in.PollInterval, &s.pollInterval, time.Second},
	} {
		if d.value == "" {
			continue
		}
		v, err := time.ParseDuration(d.value)
		if err != nil || v < d.min {
			return fieldErr(d.field, "%q must be a duration of at least %s", d.value, d.min)
		}
		*d.into = v
	}
	return nil
}

// parseIngress reads the default DNS target and the allow-lists.
func parseIngress(s *settings, in *v1beta1.Input) error {
	if a := in.IngressAddress; a != "" {
		ip := net.ParseIP(a)
		switch {
		case ip == nil && !fqdn.MatchString(strings.ToLower(a)):
			return fieldErr("input.ingressAddress", "%q is neither an IP address nor a host name", a)
		case ip != nil && (ip.IsUnspecified() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsMulticast() || (ip.To4() != nil && strings.Contains(a, ":"))):
			return fieldErr("input.ingressAddress", "%q is not an address an ingress answers on (unspecified, loopback, link-local, multicast or IPv4-mapped)", a)
		}
		s.ingressAddress = a
	}
	s.ingressClasses, s.clusterIssuers = in.IngressClasses, in.ClusterIssuers
	return nil
}

func parseTTLStart(s *settings, in *v1beta1.Input) error {
	switch in.TTLStart {
	case "", TTLStartCreation:
	case TTLStartLastDeployment:
		s.ttlFromDeployment = true
	default:
		return fieldErr("input.ttlStart", "%q must be Creation or LastDeployment", in.TTLStart)
	}
	return nil
}

func parsePreviewPattern(s *settings, in *v1beta1.Input) error {
	pattern := defaultPreview
	if in.PreviewPattern != "" {
		pattern = in.PreviewPattern
	}
	re, err := s.patterns.compile(pattern)
	if err != nil {
		return fieldErr("input.previewPattern", "%q is not a regular expression: %v", pattern, err)
	}
	s.preview = re
	return nil
}

// deleteAfter is the kind an environment's resource of kind is deleted
// after: the one before it in the teardown order ("" for the first, and
// for a kind not in the order). The provider holds the resource's deletion
// while that kind's resource of the environment exists
// (contract.AnnotationDeleteAfter).
func (s *settings) deleteAfter(kind string) string {
	for i, k := range s.teardown {
		if k == kind && i > 0 {
			return s.teardown[i-1]
		}
	}
	return ""
}

func parseTeardownOrder(s *settings, in *v1beta1.Input) error {
	if len(in.TeardownOrder) > 0 {
		seen := map[string]bool{}
		for i, k := range in.TeardownOrder {
			if !retainable[k] || seen[k] {
				return fieldErr(fmt.Sprintf("input.teardownOrder[%d]", i), "%q must be one of DNSRecord, ArgoApplication, JenkinsPipeline, each once", k)
			}
			seen[k] = true
		}
		s.teardown = in.TeardownOrder
	}
	return nil
}

func parseClusterResources(s *settings, in *v1beta1.Input) error {
	for _, g := range in.ArgoCDClusterResources {
		s.clusterResources = append(s.clusterResources, argov1alpha1.ProjectGroupKind{Group: g.Group, Kind: g.Kind})
		if g.Group == "" && g.Kind == "Namespace" {
			s.createNamespace = true
		}
	}
	return nil
}

func parseProviderConfigRef(s *settings, in *v1beta1.Input) error {
	if r := in.ProviderConfigRef; r != nil {
		ref := ConfigRef(*r)
		if err := ref.validate("input.providerConfigRef"); err != nil {
			return err
		}
		s.config = ref
	}
	return nil
}

func parsePipelineFolder(s *settings, in *v1beta1.Input) error {
	if f := in.PipelineFolder; f != "" {
		if strings.Contains(f, "..") || strings.HasPrefix(f, "/") || strings.HasSuffix(f, "/") {
			return fieldErr("input.pipelineFolder", "%q must be a relative folder path such as teams/{namespace}/{project}", f)
		}
		s.pipelineFolder = f
	}
	return nil
}

func parseDestinations(s *settings, in *v1beta1.Input) error {
	if len(in.DestinationNamespaces) > 0 {
		s.destinationNamespaces = in.DestinationNamespaces
	}
	if len(in.DestinationClusters) > 0 {
		s.destinationClusters = in.DestinationClusters
	}
	return nil
}

// anchored makes pattern match whole names only: "pr" must not match
// "prod".
func anchored(pattern string) string { return `^(?:` + pattern + `)$` }

// TTL sources recorded in an environment's status.
const (
	ttlFromSpec    = "spec"
	ttlFromDefault = "input.defaultTTL"
)

// ttlOf is an environment's time to live and where it comes from: its
// own, or the default for a preview environment; 0 means it never expires.
// Whether the default applies is decided when the environment first
// appears (prev is nil) and kept in its status: a later change of the
// pattern, the protected list or the default never gives an existing
// environment a ttl, and one that had the default keeps its ttl.
func (s *settings) ttlOf(e Environment, prev *EnvStatus) (time.Duration, string) {
	if e.TTL != "" {
		d, _ := time.ParseDuration(e.TTL) // validated
		return d, ttlFromSpec
	}
	if s.protected[e.Name] {
		// Never from its status either: whoever may write the status, or a
		// ttl it had before it was protected, must not expire it.
		return 0, ""
	}
	if prev != nil {
		// Statuses written before ttlFrom existed: a ttl without a spec
		// ttl came from the default.
		if prev.TTL != "" && (prev.TTLFrom == ttlFromDefault || prev.TTLFrom == "") {
			if d, err := time.ParseDuration(prev.TTL); err == nil {
				return d, ttlFromDefault
			}
		}
		return 0, ""
	}
	if s.defaultTTL > 0 && !s.protected[e.Name] && s.preview.MatchString(e.Name) {
		return s.defaultTTL, ttlFromDefault
	}
	return 0, ""
}

// policyOf is an environment's deletion policy: its own, else Orphan
// without a ttl (production) and Delete with one. An environment that was
// Orphan (it started without a ttl) stays Orphan when a ttl is added: only
// an explicit deletionPolicy Delete lets its expiry delete what it holds.
func policyOf(e Environment, x expiry, prev *EnvStatus) string {
	switch {
	case e.DeletionPolicy != "":
		return e.DeletionPolicy
	case prev != nil && prev.DeletionPolicy == PolicyOrphan:
		return PolicyOrphan
	case x.at.IsZero():
		return PolicyOrphan
	default:
		return PolicyDelete
	}
}
