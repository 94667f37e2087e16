package main

import (
	"fmt"
	"regexp"
	"time"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/functions/devopsproject/input/v1beta1"
)

// settings is the Input with defaults applied and durations parsed.
type settings struct {
	registryVisibility string
	dnsRecordTTL       int64
	defaultTTL         time.Duration
	preview            *regexp.Regexp
	expiryWarning      time.Duration
	pollInterval       time.Duration
	teardown           []string
	// clusterResources are the AppProject's allowed cluster-scoped kinds;
	// createNamespace is true when Namespace is among them.
	clusterResources []argov1alpha1.ProjectGroupKind
	createNamespace  bool
}

// Defaults of the Input, also written into its CRD.
const (
	defaultVisibility    = "private"
	defaultDNSRecordTTL  = 300
	defaultPreview       = "^(pr|preview)-"
	defaultExpiryWarning = time.Hour
	defaultPollInterval  = time.Minute
)

func parseInput(in *v1beta1.Input) (*settings, error) {
	s := &settings{
		registryVisibility: defaultVisibility, dnsRecordTTL: defaultDNSRecordTTL,
		expiryWarning: defaultExpiryWarning, pollInterval: defaultPollInterval,
		teardown: []string{KindDNS, KindApp, KindPipeline},
	}
	pattern := defaultPreview
	if in == nil {
		s.preview = regexp.MustCompile(pattern)
		return s, nil
	}
	if v := in.RegistryVisibility; v != "" {
		if v != "public" && v != "private" {
			return nil, fieldErr("input.registryVisibility", "%q is not public or private", v)
		}
		s.registryVisibility = v
	}
	if in.DNSRecordTTL != 0 {
		if in.DNSRecordTTL < 30 {
			return nil, fieldErr("input.dnsRecordTTL", "%d is below 30 seconds", in.DNSRecordTTL)
		}
		s.dnsRecordTTL = in.DNSRecordTTL
	}
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
			return nil, fieldErr(d.field, "%q must be a duration of at least %s", d.value, d.min)
		}
		*d.into = v
	}
	if in.PreviewPattern != "" {
		pattern = in.PreviewPattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fieldErr("input.previewPattern", "%q is not a regular expression: %v", pattern, err)
	}
	s.preview = re
	if len(in.TeardownOrder) > 0 {
		seen := map[string]bool{}
		for i, k := range in.TeardownOrder {
			if !retainable[k] || seen[k] {
				return nil, fieldErr(fmt.Sprintf("input.teardownOrder[%d]", i), "%q must be one of DNSRecord, ArgoApplication, JenkinsPipeline, each once", k)
			}
			seen[k] = true
		}
		s.teardown = in.TeardownOrder
	}
	for _, g := range in.ArgoCDClusterResources {
		s.clusterResources = append(s.clusterResources, argov1alpha1.ProjectGroupKind{Group: g.Group, Kind: g.Kind})
		if g.Group == "" && g.Kind == "Namespace" {
			s.createNamespace = true
		}
	}
	return s, nil
}

// ttlOf is an environment's time to live: its own, or the default for
// preview environments; 0 means it never expires.
func (s *settings) ttlOf(e Environment) time.Duration {
	if e.TTL != "" {
		d, _ := time.ParseDuration(e.TTL) // validated
		return d
	}
	if s.defaultTTL > 0 && s.preview.MatchString(e.Name) {
		return s.defaultTTL
	}
	return 0
}
