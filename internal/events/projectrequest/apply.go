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

package projectrequest

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/backendconfig"
	"github.com/freeleaps/provider-devops/internal/events"
)

// Annotations a message sets on the project it applies, under
// FieldManager like its spec.
const (
	// AnnotationRequestedAt is the requestedAt (RFC 3339) of the last
	// message applied: an older one is superseded.
	AnnotationRequestedAt = "devops.freeleaps.io/initialize-requested-at"
	// AnnotationRequestKey is the last message's key (its message id, else
	// a digest of its body and timestamp): its redelivery is not applied
	// again.
	AnnotationRequestKey = "devops.freeleaps.io/initialize-request-key"
	// AnnotationRequestedBy is amqp:<user_id> of the last message.
	AnnotationRequestedBy = "devops.freeleaps.io/initialize-requested-by"
	// AnnotationRequestID is the last message's id field, when it had one.
	AnnotationRequestID = "devops.freeleaps.io/initialize-request-id"
)

// FieldManager owns what messages set. Not forced: a field another
// manager (a person with kubectl) set is theirs until they hand it over.
const FieldManager = "provider-devops-broker"

// DefaultProviderConfig is the XRD's default spec.providerConfigName.
const DefaultProviderConfig = "default"

// Delivery is what the broker says about a message.
type Delivery struct {
	// Token is the message's key (deployrequest.Token).
	Token string
	// User is the AMQP user_id, validated by RabbitMQ.
	User string
}

// Apply creates or updates the DevOpsProject req describes, if d.User may
// write it.
func Apply(ctx context.Context, projects Projects, configs client.Reader, req *Request, d Delivery) error {
	name := req.Namespace + "/" + req.Project
	cur, err := projects.Get(ctx, req.Namespace, req.Project)
	switch {
	case kerrors.IsNotFound(err):
		// Also when the kind is not served: the apply says which.
		cur = nil
	case err != nil:
		return apiError(err, "cannot get DevOpsProject "+name)
	}
	// Authorised first: whoever may not write the project learns nothing
	// about it from the reason of the refusal. By the ProviderConfig the
	// message names, or the XRD's default when it names none (which the
	// project falls back to if only messages had set another).
	pc := cmp.Or(req.ProviderConfigName, DefaultProviderConfig)
	if err := authorise(ctx, configs, req, pc, d.User); err != nil {
		return err
	}
	if cur != nil {
		// And by the one the project uses now: moving a project to
		// another ProviderConfig needs the consent of both.
		if was := cmp.Or(providerConfigOf(cur), DefaultProviderConfig); was != pc {
			if err := authorise(ctx, configs, req, was, d.User); err != nil {
				return err
			}
		}
		if cur.GetDeletionTimestamp() != nil {
			return events.Reject("DevOpsProject %s is being deleted: publish the message again once it is gone", name)
		}
		a := cur.GetAnnotations()
		if a[AnnotationRequestKey] == d.Token {
			return nil // a redelivery (or a second publish) of the message applied last
		}
		if last, err := time.Parse(time.RFC3339Nano, a[AnnotationRequestedAt]); err == nil && req.RequestedAt.Before(last) {
			return events.Reject("superseded: requested at %s, before the message last applied to DevOpsProject %s (%s)",
				req.RequestedAt.UTC().Format(time.RFC3339Nano), name, last.Format(time.RFC3339Nano))
		}
	}
	body, err := applyBody(req, d, cur)
	if err != nil {
		return events.Reject("cannot encode DevOpsProject %s: %v", name, err)
	}
	if err := projects.Apply(ctx, req.Namespace, req.Project, body); err != nil {
		if kerrors.IsNotFound(err) && cur != nil {
			return errors.Wrapf(err, "DevOpsProject %s was deleted while the message was applied", name)
		}
		return apiError(err, "cannot apply DevOpsProject "+name)
	}
	return nil
}

// providerConfigOf is the namespaced ProviderConfig u names
// (spec.providerConfigRef of kind ProviderConfig, or
// spec.providerConfigName), "" for none or a ClusterProviderConfig.
func providerConfigOf(u *unstructured.Unstructured) string {
	if u == nil {
		return ""
	}
	if kind, ok, _ := unstructured.NestedString(u.Object, "spec", "providerConfigRef", "kind"); ok {
		if kind != "ProviderConfig" {
			return ""
		}
		s, _, _ := unstructured.NestedString(u.Object, "spec", "providerConfigRef", "name")
		return s
	}
	s, _, _ := unstructured.NestedString(u.Object, "spec", "providerConfigName")
	return s
}

// authorise checks that user is among the initializeUsers of the
// ProviderConfig pc in the project's namespace. A ClusterProviderConfig is
// never asked, even when the project's resources use one: it serves many
// namespaces, and who may write a namespace's projects is that
// namespace's to say (its ProviderConfig "default" then, which may hold
// no credentials at all).
func authorise(ctx context.Context, configs client.Reader, req *Request, pc, user string) error {
	where := "ProviderConfig " + req.Namespace + "/" + pc
	cfg := &v1alpha1.ProviderConfig{}
	if err := configs.Get(ctx, types.NamespacedName{Namespace: req.Namespace, Name: pc}, cfg); err != nil {
		if kerrors.IsNotFound(err) {
			return events.Reject("unauthorised: DevOpsProject %s/%s would use %s (spec.providerConfigName), which does not exist; its spec.initializeUsers says which broker users may write the project (a ClusterProviderConfig never does)",
				req.Namespace, req.Project, where)
		}
		return errors.Wrapf(err, "cannot get %s", where)
	}
	if !slices.Contains(backendconfig.ExpandNamespace(cfg.Spec.InitializeUsers, nil, req.Namespace), user) {
		return events.Reject("unauthorised: broker user %q may not write DevOpsProject %s/%s in namespace %s: it is not in spec.initializeUsers of %s",
			user, req.Namespace, req.Project, req.Namespace, where)
	}
	return nil
}

// applyBody is the apply configuration of the project: the message's spec
// and the annotations of its delivery, and cur's resourceVersion, so that
// the superseded check holds until the write.
func applyBody(req *Request, d Delivery, cur *unstructured.Unstructured) ([]byte, error) {
	annotations := map[string]string{
		AnnotationRequestedAt: req.RequestedAt.UTC().Format(time.RFC3339Nano),
		AnnotationRequestKey:  d.Token,
		AnnotationRequestedBy: "amqp:" + d.User,
	}
	if req.ID != "" {
		annotations[AnnotationRequestID] = req.ID
	}
	meta := map[string]any{"name": req.Project, "namespace": req.Namespace, "annotations": annotations}
	if cur != nil {
		meta["resourceVersion"] = cur.GetResourceVersion()
	}
	return json.Marshal(map[string]any{
		"apiVersion": GroupVersionResource.GroupVersion().String(),
		"kind":       Kind,
		"metadata":   meta,
		"spec":       req.Spec,
	})
}

// conflictManager finds the field manager in a conflict cause's message,
// `conflict with "kubectl-edit" using platform.freeleaps.io/v1alpha1`.
var conflictManager = regexp.MustCompile(`conflict with "([^"]*)"`)

// apiError turns what the API server refused for good into a rejection
// carrying its message; anything else is retried.
func apiError(err error, what string) error {
	var status kerrors.APIStatus
	msg := err.Error()
	if errors.As(err, &status) {
		msg = status.Status().Message
	}
	switch {
	case kerrors.IsConflict(err):
		if fields := conflicts(err); len(fields) > 0 {
			return events.Reject("conflict: %s: the message changes %s, set by someone else; it was not applied, and a message never overwrites another manager's field. "+
				"Drop the field from the message or give it the value set, or hand the field over to the broker (kubectl apply --server-side --field-manager=%s --force-conflicts), then publish again",
				strings.TrimPrefix(what, "cannot apply "), strings.Join(fields, ", "), FieldManager)
		}
		return err // changed since it was read: read it again
	case kerrors.IsInvalid(err), kerrors.IsBadRequest(err), typedPatchError(err):
		return events.Reject("%s: refused by the API server: %s", strings.TrimPrefix(what, "cannot apply "), msg)
	case kerrors.IsForbidden(err):
		return events.Reject("%s: forbidden: %s (the provider's service account needs get, create and patch on devopsprojects.platform.freeleaps.io: see docs/events.md)", what, msg)
	case kerrors.IsNotFound(err):
		return events.Reject("%s: the API server does not serve %s (%s): install the DevOpsProject configuration package", what, Kind, GroupVersionResource.GroupVersion())
	}
	return errors.Wrap(err, what)
}

// typedPatchError is true for the API server's refusal of an apply body its
// schema cannot type (an undeclared field, a list entry without its key):
// answered as 500, not 400, until kubernetes/kubernetes#139253 is fixed,
// and as final as a 400.
func typedPatchError(err error) bool {
	var status kerrors.APIStatus
	return errors.As(err, &status) && status.Status().Code == http.StatusInternalServerError &&
		strings.HasPrefix(status.Status().Message, "failed to create typed patch object")
}

// conflicts lists the fields of a server-side apply conflict, each with
// the manager that holds it.
func conflicts(err error) []string {
	var status kerrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var out []string
	for _, c := range status.Status().Details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		who := c.Message
		if m := conflictManager.FindStringSubmatch(c.Message); m != nil {
			who = "set by " + m[1]
		}
		out = append(out, c.Field+" ("+who+")")
	}
	return out
}
