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

package argocd

import (
	"encoding/json"
	"time"
)

// Application is the part of Argo CD's Application we manage or surface. The
// JSON names follow the Argo CD API (argoproj.io/v1alpha1).
type Application struct {
	Metadata ObjectMeta      `json:"metadata"`
	Spec     ApplicationSpec `json:"spec"`
	// Operation is an operation asked for and not yet started by the
	// application controller (it then moves to status.operationState).
	Operation *Operation        `json:"operation,omitempty"`
	Status    ApplicationStatus `json:"status,omitempty"`
}

// ObjectMeta of an Application.
type ObjectMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	Finalizers        []string          `json:"finalizers,omitempty"`
	ResourceVersion   string            `json:"resourceVersion,omitempty"`
	DeletionTimestamp *time.Time        `json:"deletionTimestamp,omitempty"`
}

// ApplicationSpec is the desired state of an Application.
type ApplicationSpec struct {
	Project string             `json:"project"`
	Source  *ApplicationSource `json:"source,omitempty"`
	// Sources and SourceHydrator, when set, replace Source for Argo CD:
	// they are read only to see that someone set them.
	Sources        json.RawMessage        `json:"sources,omitempty"`
	SourceHydrator json.RawMessage        `json:"sourceHydrator,omitempty"`
	Destination    ApplicationDestination `json:"destination"`
	SyncPolicy     *SyncPolicy            `json:"syncPolicy,omitempty"`
}

// ApplicationSource is where manifests come from.
type ApplicationSource struct {
	RepoURL        string           `json:"repoURL"`
	Path           string           `json:"path,omitempty"`
	Chart          string           `json:"chart,omitempty"`
	TargetRevision string           `json:"targetRevision,omitempty"`
	Helm           *HelmSource      `json:"helm,omitempty"`
	Kustomize      *KustomizeSource `json:"kustomize,omitempty"`
}

// HelmSource options.
type HelmSource struct {
	ReleaseName string          `json:"releaseName,omitempty"`
	ValueFiles  []string        `json:"valueFiles,omitempty"`
	Values      string          `json:"values,omitempty"`
	Parameters  []HelmParameter `json:"parameters,omitempty"`
	// ValuesObject, when set, takes precedence over Values in Argo CD.
	ValuesObject json.RawMessage `json:"valuesObject,omitempty"`
}

// HelmParameter overrides one value.
type HelmParameter struct {
	Name        string `json:"name"`
	Value       string `json:"value"`
	ForceString bool   `json:"forceString,omitempty"`
}

// KustomizeSource options.
type KustomizeSource struct {
	NamePrefix string           `json:"namePrefix,omitempty"`
	NameSuffix string           `json:"nameSuffix,omitempty"`
	Images     []string         `json:"images,omitempty"`
	Patches    []KustomizePatch `json:"patches,omitempty"`
}

// KustomizePatch is one of a Kustomize source's patches.
type KustomizePatch struct {
	Path   string             `json:"path,omitempty"`
	Patch  string             `json:"patch,omitempty"`
	Target *KustomizeSelector `json:"target,omitempty"`
}

// KustomizeSelector selects the resources a patch applies to.
type KustomizeSelector struct {
	Group              string `json:"group,omitempty"`
	Version            string `json:"version,omitempty"`
	Kind               string `json:"kind,omitempty"`
	Name               string `json:"name,omitempty"`
	Namespace          string `json:"namespace,omitempty"`
	LabelSelector      string `json:"labelSelector,omitempty"`
	AnnotationSelector string `json:"annotationSelector,omitempty"`
}

// ApplicationDestination is where manifests are deployed.
type ApplicationDestination struct {
	Server    string `json:"server,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// SyncPolicy of an Application.
type SyncPolicy struct {
	Automated   *SyncPolicyAutomated `json:"automated,omitempty"`
	SyncOptions []string             `json:"syncOptions,omitempty"`
	Retry       *RetryStrategy       `json:"retry,omitempty"`
}

// SyncPolicyAutomated options.
type SyncPolicyAutomated struct {
	Prune      bool `json:"prune,omitempty"`
	SelfHeal   bool `json:"selfHeal,omitempty"`
	AllowEmpty bool `json:"allowEmpty,omitempty"`
	// Enabled false turns automated sync off (Argo CD 3.x); unset means on.
	Enabled *bool `json:"enabled,omitempty"`
}

// RetryStrategy of failed syncs.
type RetryStrategy struct {
	Limit   int64    `json:"limit,omitempty"`
	Backoff *Backoff `json:"backoff,omitempty"`
}

// Backoff between retries.
type Backoff struct {
	Duration    string `json:"duration,omitempty"`
	Factor      *int64 `json:"factor,omitempty"`
	MaxDuration string `json:"maxDuration,omitempty"`
}

// Info is a name and value recorded with an operation.
type Info struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Operation is an operation asked of the application: a sync.
type Operation struct {
	Sync *SyncOperation `json:"sync,omitempty"`
	Info []Info         `json:"info,omitempty"`
	// InitiatedBy says who started it: a user, or automated sync.
	InitiatedBy *InitiatedBy `json:"initiatedBy,omitempty"`
}

// InitiatedBy is who started an operation.
type InitiatedBy struct {
	Username  string `json:"username,omitempty"`
	Automated bool   `json:"automated,omitempty"`
}

// SyncOperation is a sync's request.
type SyncOperation struct {
	Revision string `json:"revision,omitempty"`
}

// SyncOperationResult is what a sync did.
type SyncOperationResult struct {
	Revision string `json:"revision,omitempty"`
}

// HasInfo is true when the operation records name=value.
func (o *Operation) HasInfo(name, value string) bool {
	if o == nil {
		return false
	}
	for _, i := range o.Info {
		if i.Name == name && i.Value == value {
			return true
		}
	}
	return false
}

// ApplicationStatus is the part of status we surface.
type ApplicationStatus struct {
	Sync           SyncStatus             `json:"sync,omitempty"`
	Health         HealthStatus           `json:"health,omitempty"`
	OperationState *OperationState        `json:"operationState,omitempty"`
	ReconciledAt   *time.Time             `json:"reconciledAt,omitempty"`
	Conditions     []ApplicationCondition `json:"conditions,omitempty"`
}

// ApplicationCondition is a problem Argo CD reports about the application,
// e.g. ComparisonError when it cannot render or compare the manifests.
type ApplicationCondition struct {
	Type    string `json:"type"`
	Message string `json:"message,omitempty"`
}

// SyncStatus of an Application.
type SyncStatus struct {
	Status   string `json:"status,omitempty"`
	Revision string `json:"revision,omitempty"`
}

// HealthStatus of an Application.
type HealthStatus struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
}

// OperationState of the last sync operation.
type OperationState struct {
	Phase      string               `json:"phase,omitempty"`
	Message    string               `json:"message,omitempty"`
	Operation  Operation            `json:"operation,omitempty"`
	SyncResult *SyncOperationResult `json:"syncResult,omitempty"`
	StartedAt  *time.Time           `json:"startedAt,omitempty"`
	FinishedAt *time.Time           `json:"finishedAt,omitempty"`
}

// ApplicationList is what GET /api/v1/applications returns. Argo CD sends
// "items": null when nothing matches.
type ApplicationList struct {
	Items []Application `json:"items"`
}
