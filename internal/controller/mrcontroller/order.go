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

package mrcontroller

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	kmeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
)

// ownGroup is the API group suffix of the kinds a resource may be deleted
// after (contract.AnnotationDeleteAfter).
const ownGroup = ".devops.freeleaps.io"

// maxNamed is how many of the resources waited for a condition names;
// maxKinds how many kinds an annotation may list (the provider has seven).
const (
	maxNamed = 3
	maxKinds = 10
)

// MaxDeleteWait is the longest a deletion waits for the resources it is to
// be deleted after: past it, the resource is deleted anyway. Without a
// bound, a resource that is never deleted (a stuck backend, a hand-written
// annotation naming a kind that waits in turn for this one) would hold the
// deletion, and its namespace's, forever.
const MaxDeleteWait = 10 * time.Minute

// deleteInOrder holds a resource being deleted, before the managed
// reconciler touches its external object, while resources it is to be
// deleted after (contract.AnnotationDeleteAfter) exist: an environment's
// DNS record goes before its application, the application before its
// job, every application before the project's AppProject. The reconciler
// says what it waits for in the Ready condition and looks again as
// afterDeletion says; the resources waited for are read from the cache.
//
// This is what Crossplane's Usages did for the function. A Usage is an
// object of its own, with a finalizer, a status and a label it writes on
// the resource it protects: a dozen Usages per project were about sixty
// writes, each waking the composite, enough to open Crossplane's circuit
// breaker on every new project.
type deleteInOrder[T resource.Managed] struct {
	reconcile.Reconciler
	kube client.Client
	new  func() T
	// kind is T's kind; kinds are the provider's managed kinds by name.
	kind  string
	kinds map[string]schema.GroupVersionKind
	now   func() time.Time
}

// ownKinds are the managed-resource kinds of the provider's API groups in
// s, by kind name (not the options and events every group also holds).
func ownKinds(s *runtime.Scheme) map[string]schema.GroupVersionKind {
	out := map[string]schema.GroupVersionKind{}
	for gvk := range s.AllKnownTypes() {
		if !strings.HasSuffix(gvk.Group, ownGroup) {
			continue
		}
		if o, err := s.New(gvk); err == nil {
			if _, ok := o.(resource.Managed); ok {
				out[gvk.Kind] = gvk
			}
		}
	}
	return out
}

// deletesExternal is false for a resource whose management policies keep
// its external object: its deletion touches nothing in the backend, so
// it waits for nothing.
func deletesExternal(mg resource.Managed) bool {
	pols := mg.GetManagementPolicies()
	for _, p := range pols {
		if p == xpv2.ManagementActionAll || p == xpv2.ManagementActionDelete {
			return true
		}
	}
	return len(pols) == 0
}

func (d deleteInOrder[T]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	// Every reconcile of every resource passes here, and almost none is
	// being deleted: read the cached object without copying it, and copy
	// it only to write its status.
	cr := d.new()
	if err := d.kube.Get(ctx, req.NamespacedName, cr, client.UnsafeDisableDeepCopy); err != nil || !meta.WasDeleted(cr) || cr.GetAnnotations()[contract.AnnotationDeleteAfter] == "" || !deletesExternal(cr) {
		return d.Reconciler.Reconcile(ctx, req)
	}
	deadline := cr.GetDeletionTimestamp().Add(MaxDeleteWait)
	if !d.now().Before(deadline) {
		return d.Reconciler.Reconcile(ctx, req)
	}
	first, err := d.waitingFor(ctx, cr)
	if err != nil {
		return reconcile.Result{}, err
	}
	if len(first) == 0 {
		return d.Reconciler.Reconcile(ctx, req)
	}
	c := xpv2.Deleting().WithMessage(waitMessage(first, deadline))
	if !cr.GetCondition(xpv2.TypeReady).Equal(c) {
		w, ok := cr.DeepCopyObject().(T)
		if !ok {
			return reconcile.Result{}, errors.Errorf("unexpected managed resource type %T", cr)
		}
		w.SetConditions(c)
		if err := d.kube.Status().Update(ctx, w); err != nil && !kerrors.IsConflict(err) && !kerrors.IsNotFound(err) {
			return reconcile.Result{}, errors.Wrap(err, "cannot say in the status what the deletion waits for")
		}
	}
	return reconcile.Result{RequeueAfter: afterDeletion(cr, d.now())}, nil
}

// waitingFor returns the resources cr is to be deleted after that exist,
// as Kind/name, sorted. A kind that is not one of the provider's managed
// kinds is ignored: no resource of it could ever be deleted by the
// provider. So is one whose CRD is not installed (not activated under
// safe-start): none exists. A resource that is itself being deleted and
// waits for cr's kind is not waited for: the two would wait for each
// other until MaxDeleteWait.
func (d deleteInOrder[T]) waitingFor(ctx context.Context, cr T) ([]string, error) {
	sel := client.MatchingLabels{}
	for _, l := range []string{contract.LabelProject, contract.LabelEnvironment} {
		if v, ok := cr.GetLabels()[l]; ok {
			sel[l] = v
		}
	}
	var out []string
	for _, k := range kindsIn(cr.GetAnnotations()[contract.AnnotationDeleteAfter]) {
		gvk, ok := d.kinds[k]
		if !ok {
			continue
		}
		// Only names are read: the cache's objects need no copies.
		items, err := d.list(ctx, gvk, client.InNamespace(cr.GetNamespace()), sel, client.UnsafeDisableDeepCopy)
		if kmeta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return nil, errors.Wrapf(err, "cannot list the %ss %s is to be deleted after (%s)", k, cr.GetName(), contract.AnnotationDeleteAfter)
		}
		owner := metav1.GetControllerOf(cr)
		for _, o := range items {
			self := o.GetUID() == cr.GetUID() && o.GetName() == cr.GetName()
			mutual := meta.WasDeleted(o) && slices.Contains(kindsIn(o.GetAnnotations()[contract.AnnotationDeleteAfter]), d.kind)
			if c := metav1.GetControllerOf(o); self || mutual || owner != nil && (c == nil || c.UID != owner.UID) {
				continue
			}
			out = append(out, k+"/"+o.GetName())
		}
	}
	sort.Strings(out)
	return out, nil
}

// kindsIn are the kinds an annotation value lists, each once and at most
// maxKinds.
func kindsIn(v string) []string {
	var out []string
	for _, k := range strings.Split(v, ",") {
		if k = strings.TrimSpace(k); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
		if len(out) == maxKinds {
			break
		}
	}
	return out
}

// list lists the resources of kind gvk, from the cache.
func (d deleteInOrder[T]) list(ctx context.Context, gvk schema.GroupVersionKind, opts ...client.ListOption) ([]client.Object, error) {
	ro, err := d.kube.Scheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return nil, err
	}
	l, ok := ro.(client.ObjectList)
	if !ok {
		return nil, errors.Errorf("%T is not a list", ro)
	}
	if err := d.kube.List(ctx, l, opts...); err != nil {
		return nil, err
	}
	items, err := kmeta.ExtractList(l)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(items))
	for _, it := range items {
		if o, ok := it.(client.Object); ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// waitMessage says which resources a deletion waits for, and until when
// at most.
func waitMessage(first []string, deadline time.Time) string {
	named := first[:min(len(first), maxNamed)]
	more := ""
	if n := len(first) - len(named); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("waiting for %s%s to be deleted first (%s); the external object is left alone until then, or until %s", strings.Join(named, ", "), more, contract.AnnotationDeleteAfter, deadline.UTC().Format(time.RFC3339))
}
