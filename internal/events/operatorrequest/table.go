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

package operatorrequest

import (
	"context"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/events"
)

// A Target is the DevOpsProject an operator project id stands for.
type Target struct {
	Namespace, Project string
}

// A Table maps the operator's project ids to DevOpsProjects. An id it
// does not map is refused (events.Reject) with the reason.
type Table interface {
	Lookup(ctx context.Context, id string) (Target, error)
}

// ConfigMapTable is the table of a ConfigMap the platform owns, in the
// provider's namespace (which no tenant may write): each key an operator
// project id, each value <namespace>/<project>. It is read at every
// message, uncached: an entry added or removed counts from the next.
type ConfigMapTable struct {
	Reader          client.Reader
	Namespace, Name string
}

// idChars is what a ConfigMap key, and so an operator project id, may be.
var idChars = regexp.MustCompile(`^[-._a-zA-Z0-9]{1,253}$`)

// Lookup maps id by the ConfigMap.
func (c ConfigMapTable) Lookup(ctx context.Context, id string) (Target, error) {
	where := "ConfigMap " + c.Namespace + "/" + c.Name + " (--events-legacy-projects)"
	if !idChars.MatchString(id) {
		return Target{}, events.Reject("operator project id %q cannot be mapped: the table %s keys ids of at most 253 letters, digits, '-', '_' or '.'", truncate(id), where)
	}
	cm := &corev1.ConfigMap{}
	if err := c.Reader.Get(ctx, types.NamespacedName{Namespace: c.Namespace, Name: c.Name}, cm); err != nil {
		if kerrors.IsNotFound(err) {
			return Target{}, events.Reject("unmapped operator project %q: the table %s does not exist, so no operator project is mapped", id, where)
		}
		return Target{}, errors.Wrapf(err, "cannot get %s", where)
	}
	v, ok := cm.Data[id]
	if !ok {
		return Target{}, events.Reject("unmapped operator project %q: %s does not map it; the platform adds %q: <namespace>/<DevOpsProject> for it", id, where, id)
	}
	t, err := parseTarget(v)
	if err != nil {
		return Target{}, events.Reject("operator project %q: %s maps it to %q: %v", id, where, truncate(v), err)
	}
	return t, nil
}

// parseTarget reads <namespace>/<project>, both DNS labels.
func parseTarget(v string) (Target, error) {
	ns, p, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok {
		return Target{}, errors.New("not <namespace>/<DevOpsProject>")
	}
	for _, f := range []struct{ what, v string }{{"namespace", ns}, {"DevOpsProject", p}} {
		if errs := validation.IsDNS1123Label(f.v); len(errs) > 0 {
			return Target{}, errors.Errorf("%s %q: %s", f.what, truncate(f.v), strings.Join(errs, "; "))
		}
	}
	return Target{Namespace: ns, Project: p}, nil
}
