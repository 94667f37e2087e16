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

// Package vocab is what the managed-resource controllers and the event
// stream share: how a kind describes itself to the stream (Kind), the
// work it reports (Work) and the statuses of work. It imports neither the
// stream nor its broker, so the controllers need not either.
package vocab

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/contract"
)

// MaxClockSkew is how far ahead of this replica's clock a time recorded on
// a resource (by another replica, or by anyone who may edit it) may be
// and still be taken as past.
const MaxClockSkew = time.Minute

// CreatedAt is when the provider last recorded creating mg's external
// object (contract.ConditionCreated, or, on a resource created by a
// version before it, crossplane-runtime's create-succeeded annotation);
// zero when it did not.
func CreatedAt(mg resource.Managed) time.Time {
	t := meta.GetExternalCreateSucceeded(mg)
	if c := mg.GetCondition(contract.ConditionCreated); c.Status == corev1.ConditionTrue && c.LastTransitionTime.After(t) {
		t = c.LastTransitionTime.Time
	}
	return t
}

// Created is the condition that records creating an external object at t.
// Its message names the time, so that a create recorded again (the object
// was deleted behind the resource's back) replaces the record.
func Created(t time.Time) xpv2.Condition {
	return xpv2.Condition{
		Type: contract.ConditionCreated, Status: corev1.ConditionTrue,
		Reason: contract.ReasonCreated, LastTransitionTime: metav1.NewTime(t),
		Message: "external object created at " + t.UTC().Format(time.RFC3339),
	}
}

// Statuses of work, as events carry them in data.status.
const (
	StatusRunning   = "Running"
	StatusSucceeded = "Succeeded"
	StatusFailed    = "Failed"
	// StatusTerminated: the work was cancelled before it finished.
	StatusTerminated = "Terminated"
)

// Work is a build or sync as a kind reports it.
type Work struct {
	// ID names one run, e.g. "build #12"; empty when the backend gives none.
	ID string
	// Running while in progress.
	Running bool
	// Status: StatusRunning, StatusSucceeded or StatusFailed.
	Status string
	// Phase as the backend says it: QUEUED, BUILDING, SUCCESS, Running...
	Phase   string
	Message string
	URL     string
}

// Kind tells the event stream about one managed-resource kind.
type Kind struct {
	// Name is the kind, e.g. JenkinsPipeline; GVK the kind in full,
	// whose CRD must be served before the kind is watched.
	Name string
	GVK  schema.GroupVersionKind
	// New returns an empty object of the kind.
	New func() client.Object
	// URL of the resource in its backend; nil for none.
	URL func(resource.Managed) string
	// Work in progress or last finished; nil when the kind has none.
	Work func(resource.Managed) *Work
}
