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

// Package health holds the provider's readiness checks: a replica is
// ready when it can do its work, that is when it reaches the API server,
// its caches are synced, and it leads or knows which replica does.
// Backend outages are not among them: they show in metrics and in the
// resources' conditions, and restarting or unreadying a Pod would not
// bring a backend back.
package health

import (
	"context"
	"net/http"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// checkTimeout bounds one check: a probe that hangs is a failed probe.
const checkTimeout = 2 * time.Second

// released is how long a released lease counts as a takeover under way:
// a standby retries acquiring every 2s or so.
const released = 15 * time.Second

// Synced is what CacheSynced asks: the manager's cache.
type Synced interface {
	WaitForCacheSync(ctx context.Context) bool
}

// CacheSynced is ready once every informer the cache runs has synced: a
// replica that has not read the objects yet would act on nothing.
func CacheSynced(c Synced) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), checkTimeout)
		defer cancel()
		if !c.WaitForCacheSync(ctx) {
			return errors.New("the caches have not synced")
		}
		return nil
	}
}

// Pinger reaches the API server: its /readyz, or any cheap request.
type Pinger func(ctx context.Context) error

// APIServer is ready while ping answers; an answer is reused for every,
// so probes of several kinds do not each call the API server.
func APIServer(ping Pinger, every time.Duration, now func() time.Time) healthz.Checker {
	var (
		mu   sync.Mutex
		last time.Time
		err  error
	)
	return func(req *http.Request) error {
		mu.Lock()
		defer mu.Unlock()
		if t := now(); last.IsZero() || t.Sub(last) >= every {
			ctx, cancel := context.WithTimeout(req.Context(), checkTimeout)
			defer cancel()
			err, last = ping(ctx), t
			if err != nil {
				err = errors.Wrap(err, "cannot reach the API server")
			}
		}
		return err
	}
}

// Leader is ready on the replica that leads (elected closed) and on a
// standby while the lease names a holder that renewed it within twice its
// duration: once the lease has run out a standby takes it over within
// seconds, and a takeover must not make every replica unready at once (a
// disruption budget would then refuse to drain any). A standby that sees
// no leader for that long, or cannot read the lease, is not ready.
func Leader(elected <-chan struct{}, kube client.Reader, lease types.NamespacedName, now func() time.Time) healthz.Checker {
	return func(req *http.Request) error {
		select {
		case <-elected:
			return nil
		default:
		}
		ctx, cancel := context.WithTimeout(req.Context(), checkTimeout)
		defer cancel()
		l := &coordinationv1.Lease{}
		if err := kube.Get(ctx, lease, l); err != nil {
			return errors.Wrapf(err, "standby: cannot read the leader's lease %s", lease)
		}
		s := l.Spec
		if s.RenewTime == nil || s.LeaseDurationSeconds == nil {
			return errors.Errorf("standby: lease %s names no leader", lease)
		}
		// A leader that stops in order releases the lease (no holder, a
		// 1s duration) for a standby to take at once: that is a takeover
		// under way too, timed from the release by the holder's duration.
		d := max(time.Duration(*s.LeaseDurationSeconds)*time.Second, released)
		if now().After(s.RenewTime.Add(2 * d)) {
			holder := "none"
			if s.HolderIdentity != nil && *s.HolderIdentity != "" {
				holder = *s.HolderIdentity
			}
			return errors.Errorf("standby: no leader has renewed lease %s since %s (holder: %s)", lease, s.RenewTime.UTC().Format(time.RFC3339), holder)
		}
		return nil
	}
}
