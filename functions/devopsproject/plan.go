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
	"time"
)

// phaseRequeue is how soon the function asks to run again while an
// environment is between the two expiry phases, and at the latest while
// one is being provisioned.
const phaseRequeue = 10 * time.Second

// previewRequeue is how soon at the latest a project with previews is
// run again: a pull request's change reaches it within that and the
// ForgeRepository's poll.
const previewRequeue = 20 * time.Second

// minRequeue is the soonest the function asks to run again.
const minRequeue = 500 * time.Millisecond

// provisioningRequeue is how soon the function asks to run again while an
// environment is being provisioned: an eighth of the time since the
// composition last grew (changed: the latest creation of the XR or of a
// resource not yet Ready), between minRequeue and phaseRequeue; phaseRequeue
// when that time is unknown or in the future. Crossplane's watch of the
// composed resources would run it as soon as one turns Ready, but the XR
// circuit breaker drops those events during a project's creation burst (in
// the e2e it opened and dropped 502 of 604): so a resource that turns
// Ready is still reported within an eighth of its age, not up to 10 s
// later, while a project that waits long is run at most every 10 s.
func provisioningRequeue(changed, now time.Time) time.Duration {
	if changed.IsZero() || changed.After(now) {
		return phaseRequeue
	}
	return min(max(now.Sub(changed)/8, minRequeue), phaseRequeue)
}

// envPlan is what becomes of one environment in this run.
type envPlan struct {
	env Environment
	// prev is its entry in the last run's status; nil when it is new.
	prev   *EnvStatus
	expiry expiry
	phase  Phase
	// policy is its deletion policy, Orphan or Delete.
	policy string
	// deployment is the deployment running now, last the one that
	// succeeded last.
	deployment, last *Deployment
}

// plan is what a run does with each environment, decided from the request
// and the clock alone (no protobuf, nothing written), so that the time
// line (phases, expiries, when to run again) is tested on its own.
type plan struct {
	envs []envPlan
	// ttl is the response TTL: how soon Crossplane runs the function
	// again, at the latest after input.pollInterval.
	ttl time.Duration
	// expiring says, per environment past its warning, what is happening
	// to it; expired is true when one is past its expiry. They make the
	// XR's Expiring condition.
	expiring []string
	expired  bool
}

// planRun plans every environment of the spec at now.
func planRun(rs *requestState, now time.Time) plan {
	s, envs := rs.project.in, rs.project.spec.Environments
	prev := make(map[string]*EnvStatus, len(rs.prev))
	for i := range rs.prev {
		prev[rs.prev[i].Name] = &rs.prev[i]
	}
	pl := plan{envs: make([]envPlan, 0, len(envs))}
	next := s.pollInterval
	for _, e := range envs {
		cur, last := rs.deployments(e.Name, prev[e.Name])
		before := prev[e.Name]
		if e.preview != nil && e.preview.reopened {
			// A pull request opened again starts a new preview.
			before = nil
		}
		x := previewExpiry(e, expiryOf(s, e, before, rs.annotations, last.finishedAt(), now))
		ep := envPlan{env: e, prev: before, expiry: x, policy: policyOf(e, x, before), deployment: cur, last: last}
		ep.phase = phaseAt(x, now, rs.envReady(e.Name), ep.prev, e, rs.observed)
		pl.envs = append(pl.envs, ep)

		switch ep.phase {
		case PhaseProvisioning:
			// Come back soon to report Ready: the watch events that would
			// trigger it are dropped while Crossplane's XR circuit breaker
			// is open, which a project's creation burst trips.
			next = min(next, provisioningRequeue(rs.changed, now))
			switch {
			case x.at.IsZero():
			case now.Before(x.warnAt):
				next = min(next, x.warnAt.Sub(now))
			default:
				pl.expiring = append(pl.expiring, fmt.Sprintf("%s expires at %s", e.Name, x.at.Format(time.RFC3339)))
				next = min(next, x.at.Sub(now))
			}
		case PhaseExpiringSoon:
			pl.expiring = append(pl.expiring, fmt.Sprintf("%s expires at %s", e.Name, x.at.Format(time.RFC3339)))
			next = min(next, x.at.Sub(now))
		case PhaseExpiring:
			pl.expiring = append(pl.expiring, e.Name+" is expiring: its retained resources are being orphaned")
			pl.expired = true
			next = min(next, phaseRequeue)
		case PhaseExpired:
			pl.expiring = append(pl.expiring, e.Name+" expired at "+x.at.Format(time.RFC3339))
			pl.expired = true
		case PhaseReady:
			// Run again when the warning window opens.
			if !x.at.IsZero() {
				next = min(next, x.warnAt.Sub(now))
			}
		}
	}
	if rs.project.spec.Previews.PullRequests != nil {
		// The ForgeRepository's watch event is what brings a pull
		// request's change here at once, and Crossplane's circuit
		// breaker drops it while a preview's bursts keep the breaker
		// open: come back within previewRequeue anyway.
		next = min(next, previewRequeue)
	}
	pl.ttl = max(next, minRequeue)
	return pl
}

// orphans is true when an environment in the spec keeps its external
// objects when removed: the AppProject and repository credentials its
// application syncs with must then be kept too.
func (pl plan) orphans() bool {
	for _, ep := range pl.envs {
		if ep.policy == PolicyOrphan {
			return true
		}
	}
	return false
}
