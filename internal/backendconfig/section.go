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

package backendconfig

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
)

const (
	errTrackUsage      = "cannot track ProviderConfig usage"
	errFmtSectionUnset = "%s has no %s section: add it to configure this backend"
)

// A Tracker records that a managed resource uses its ProviderConfig.
type Tracker interface {
	Track(ctx context.Context, mg resource.ModernManaged) error
}

// A Resolver resolves the configs of one controller's resources. Each
// connector holds one, built with the platform's guard.
type Resolver struct {
	Kube client.Reader
	// Usage records that a resource uses its config; nil records none
	// (a reader that is not the resource's controller).
	Usage Tracker
	// Guard is the platform's rule for the backends a namespaced config
	// names (--tenant-backend-hosts, --tenant-backend-networks); nil is
	// the strictest: any host name, public addresses only.
	Guard *netguard.Guard
}

// Section is what every controller's Connect does first: resolve the config
// mr references, record the usage, and return the backend section pick
// selects from it. name is the section's field name for messages ("jenkins").
func Section[S any](ctx context.Context, r Resolver, mr resource.ModernManaged, name string, pick func(*v1alpha1.ProviderConfigSpec) *S) (*Config, *S, error) {
	// Resolve first: a namespace a ClusterProviderConfig does not allow
	// must not record a usage of it (which would pin the platform's config
	// with the in-use finalizer).
	pc, err := Resolve(ctx, r.Kube, mr)
	if err != nil {
		return nil, nil, err
	}
	pc.guard = r.Guard
	if r.Usage != nil {
		if err := r.Usage.Track(ctx, mr); err != nil {
			return nil, nil, errors.Wrap(err, errTrackUsage)
		}
	}
	s := pick(&pc.Spec)
	if s == nil {
		return nil, nil, errors.Errorf(errFmtSectionUnset, pc, "spec."+name)
	}
	if e, ok := any(s).(interface{ Endpoint() string }); ok && pc.Namespace != "" {
		if err := checkTenantHost(r.Guard, pc.String()+" spec."+name, e.Endpoint()); err != nil {
			return nil, nil, err
		}
	}
	return pc, s, nil
}
