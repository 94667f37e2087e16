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
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/crossplane/function-sdk-go/resource"

	"github.com/freeleaps/provider-devops/apis/contract"
)

// Phase is where an environment stands on its time line, as
// status.environments[].phase reports it. A named type so that a phase is
// never confused with the other strings (policies, kinds) passed alongside.
type Phase string

// Environment phases.
const (
	PhaseProvisioning Phase = "Provisioning"
	PhaseReady        Phase = "Ready"
	PhaseExpiringSoon Phase = "ExpiringSoon"
	PhaseExpiring     Phase = "Expiring"
	PhaseExpired      Phase = "Expired"
)

// EnvStatus is one environment in the XR's status.environments. ExpiresAt,
// TTL and Renewal persist the expiry: it is computed once and moved only by
// a new ttl or a new renew annotation value, never derived from
// creationTimestamp (which a backup/restore resets).
type EnvStatus struct {
	Name        string `json:"name"`
	Phase       Phase  `json:"phase"`
	URL         string `json:"url,omitempty"`
	PipelineURL string `json:"pipelineURL,omitempty"`
	LastBuild   string `json:"lastBuild,omitempty"`
	Sync        string `json:"sync,omitempty"`
	Health      string `json:"health,omitempty"`
	ExpiresAt   string `json:"expiresAt,omitempty"`
	TTL         string `json:"ttl,omitempty"`
	// TTLFrom says where TTL came from: spec or input.defaultTTL.
	TTLFrom string `json:"ttlFrom,omitempty"`
	Renewal string `json:"renewal,omitempty"`
	// DeletionPolicy is what removing the environment does to its
	// external objects: Orphan (kept) or Delete.
	DeletionPolicy string `json:"deletionPolicy,omitempty"`
	// Deployment is the DeployRun running now; LastDeployment the one
	// that succeeded last (kept here once its pipeline is gone: a ttl may
	// run from it).
	Deployment     *Deployment `json:"deployment,omitempty"`
	LastDeployment *Deployment `json:"lastDeployment,omitempty"`
	// ProviderConfigRef is the config the environment's resources use,
	// recorded for an environment with renewOnDeploy: once it expired its
	// JenkinsPipeline is gone, and this config's deployUsers say who may
	// renew it with a deploy request.
	ProviderConfigRef *ConfigRef `json:"providerConfigRef,omitempty"`
	// PullRequest is the pull request a preview environment is made for.
	PullRequest *PullRequestStatus `json:"pullRequest,omitempty"`
}

// Deployment names a DeployRun of the environment, as its JenkinsPipeline's
// status.deployments records it.
type Deployment struct {
	Name       string `json:"name"`
	Phase      string `json:"phase,omitempty"`
	Revision   string `json:"revision,omitempty"`
	StartedAt  string `json:"startedAt,omitempty"`
	FinishedAt string `json:"finishedAt,omitempty"`
}

// finishedAt is when d finished; zero if it did not or d is nil.
func (d *Deployment) finishedAt() time.Time {
	if d == nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339, d.FinishedAt)
	return t
}

// expiry is an environment's position on its time line.
type expiry struct {
	at      time.Time // zero: never expires
	warnAt  time.Time
	ttl     time.Duration
	ttlFrom string
	renewal string
}

// expiryOf computes or keeps the expiry of e. With input.ttlStart
// LastDeployment, a deployment that succeeded at deployed moves the expiry
// to ttl after it, never earlier than creation or renewal made it.
func expiryOf(s *settings, e Environment, prev *EnvStatus, annotations map[string]string, deployed, now time.Time) expiry {
	ttl, from := s.ttlOf(e, prev)
	if ttl == 0 {
		return expiry{}
	}
	x := expiry{ttl: ttl, ttlFrom: from, renewal: annotations[contract.AnnotationRenewPrefix+e.Name]}
	if prev != nil && prev.TTL == ttl.String() && prev.Renewal == x.renewal {
		if t, err := time.Parse(time.RFC3339, prev.ExpiresAt); err == nil {
			x.at = t
		}
	}
	if x.at.IsZero() {
		x.at = now.Add(ttl).UTC().Truncate(time.Second)
	}
	if s.ttlFromDeployment && !deployed.IsZero() {
		if t := deployed.Add(ttl).UTC().Truncate(time.Second); t.After(x.at) {
			x.at = t
		}
	}
	// Whatever it runs from (creation, renewal, deployment) started by
	// now: an expiry further than ttl away came from a clock in the future
	// (a jump, a hand-written status) and would hold the environment
	// until then.
	if limit := now.Add(ttl).UTC().Truncate(time.Second); x.at.After(limit) {
		x.at = limit
	}
	x.warnAt = x.at.Add(-min(s.expiryWarning, ttl/2))
	return x
}

// retainedApplied is true once every resource e retains is observed with
// management policies that omit Delete (or is not there to retain).
func retainedApplied(e Environment, observed map[resource.Name]*structpb.Struct) bool {
	for _, kind := range e.Retain {
		o, ok := observed[nameOf(e.Name, kind)]
		if !ok {
			continue
		}
		pols := pbAt(o, "spec", "managementPolicies").GetListValue().GetValues()
		if len(pols) == 0 || slices.ContainsFunc(pols, func(v *structpb.Value) bool {
			p, ok := v.GetKind().(*structpb.Value_StringValue)
			return !ok || p.StringValue == "Delete" || p.StringValue == "*"
		}) {
			return false
		}
	}
	return true
}

// phaseAt is the phase of an environment that has not been dropped.
func phaseAt(x expiry, now time.Time, ready bool, prev *EnvStatus, e Environment, observed map[resource.Name]*structpb.Struct) Phase {
	switch {
	case !x.at.IsZero() && !now.Before(x.at):
		// Once Expired, stay Expired: the resources are gone from the
		// desired state and must not come back until a renewal.
		if prev != nil && prev.Phase == PhaseExpired && prev.ExpiresAt == x.at.Format(time.RFC3339) {
			return PhaseExpired
		}
		if prev != nil && (prev.Phase == PhaseExpiring) && retainedApplied(e, observed) {
			return PhaseExpired
		}
		if len(e.Retain) == 0 {
			return PhaseExpired
		}
		return PhaseExpiring
	case !ready:
		// Inside the warning window too: an environment still coming
		// up is not reported Ready (the plan still warns of its expiry).
		return PhaseProvisioning
	case !x.at.IsZero() && !now.Before(x.warnAt):
		return PhaseExpiringSoon
	case ready:
		return PhaseReady
	default:
		return PhaseProvisioning
	}
}
