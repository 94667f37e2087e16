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
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/events/deployrequest"
	"github.com/freeleaps/provider-devops/internal/events/projectrequest"
)

// Time is a time as a Python dataclass serialises it: an ISO 8601 string
// (datetime.isoformat(), with or without a zone: one without is UTC), or
// seconds since the epoch (time.time()).
type Time struct{ time.Time }

// isoFormats are what datetime.isoformat() writes without a zone.
var isoFormats = []string{"2006-01-02T15:04:05.999999", "2006-01-02 15:04:05.999999"} //nolint:gochecknoglobals // read-only table

// UnmarshalJSON reads an ISO 8601 string or a number of seconds.
func (t *Time) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		f, ferr := strconv.ParseFloat(string(b), 64)
		if ferr != nil || f <= 0 {
			return errors.Errorf("%s is neither an ISO 8601 time nor seconds since the epoch", string(b))
		}
		t.Time = time.Unix(0, int64(f*float64(time.Second))).UTC()
		return nil
	}
	if v, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t.Time = v
		return nil
	}
	for _, f := range isoFormats {
		if v, err := time.Parse(f, s); err == nil {
			t.Time = v.UTC()
			return nil
		}
	}
	return errors.Errorf("%q is not an ISO 8601 time", s)
}

// ptr is t as the requests take it, nil for none.
func (t *Time) ptr() *time.Time {
	if t == nil {
		return nil
	}
	v := t.Time
	return &v
}

// Reconcile is the operator's DevOpsReconcile: deploy a revision of a
// project's environment.
type Reconcile struct {
	EventType string `json:"event_type,omitempty"`
	// ID is the deployment id the UI tracks: heartbeats carry it back.
	ID string `json:"id"`
	// DevOpsProjID (or ProjectIDAlias) is the operator's project id, which
	// the platform's table maps to a DevOpsProject.
	DevOpsProjID   string `json:"devops_proj_id,omitempty"`
	ProjectIDAlias string `json:"project_id,omitempty"`
	// TargetEnv (or Environment) is the environment's name, as in the
	// DevOpsProject's spec.environments.
	TargetEnv   string `json:"target_env,omitempty"`
	Environment string `json:"environment,omitempty"`
	// CommitSHA (or Revision) is what to build: a commit id or git ref.
	CommitSHA string `json:"commit_sha,omitempty"`
	Revision  string `json:"revision,omitempty"`
	// Parameters of the build, each declared by the pipeline.
	Parameters  map[string]string `json:"parameters,omitempty"`
	TriggeredBy string            `json:"triggered_by,omitempty"`
	TriggeredAt *Time             `json:"triggered_at,omitempty"`

	project, env, revision string
}

const reconcileFields = "event_type, id, devops_proj_id or project_id, target_env or environment, commit_sha or revision, parameters, triggered_by, triggered_at"

// ParseReconcile decodes a DevOpsReconcile in the operator's shape.
func ParseReconcile(body []byte) (*Reconcile, error) {
	m := &Reconcile{}
	if err := decode(body, TypeReconcile, reconcileFields, m); err != nil {
		return nil, err
	}
	var err error
	if m.project, err = projectID(TypeReconcile, m.DevOpsProjID, m.ProjectIDAlias); err != nil {
		return nil, err
	}
	if m.env, err = either(TypeReconcile, "target_env", m.TargetEnv, "environment", m.Environment); err != nil {
		return nil, err
	}
	if m.revision, err = either(TypeReconcile, "commit_sha", m.CommitSHA, "revision", m.Revision); err != nil {
		return nil, err
	}
	switch {
	case m.ID == "":
		return nil, errors.New("malformed operator DevOpsReconcile: id is required: the heartbeats carry it back to the UI")
	case m.env == "":
		return nil, errors.New("malformed operator DevOpsReconcile: target_env (or environment) is required")
	}
	return m, nil
}

// ProjectID is the operator's project id.
func (m *Reconcile) ProjectID() string { return m.project }

// Request is the deploy request m asks for, of the DevOpsProject t.
func (m *Reconcile) Request(t Target) *deployrequest.Request {
	return &deployrequest.Request{
		Project: t.Project, Environment: m.env, Namespace: t.Namespace, Revision: m.revision,
		Parameters: m.Parameters, ID: m.ID, RequestedAt: m.TriggeredAt.ptr(), TriggeredBy: m.TriggeredBy,
	}
}

// Initialize is the operator's DevOpsInitialize: create or update a
// project from the operator's DevOpsProject spec.
type Initialize struct {
	EventType      string        `json:"event_type,omitempty"`
	ID             string        `json:"id,omitempty"`
	DevOpsProjID   string        `json:"devops_proj_id,omitempty"`
	ProjectIDAlias string        `json:"project_id,omitempty"`
	TriggeredBy    string        `json:"triggered_by,omitempty"`
	TriggeredAt    *Time         `json:"triggered_at,omitempty"`
	Spec           *OperatorSpec `json:"spec"`

	project string
}

// OperatorSpec is the operator's DevOpsProject spec, snake_case.
type OperatorSpec struct {
	GitRepo           *GitRepo              `json:"git_repo"`
	ContainerRegistry *ContainerRegistry    `json:"container_registry"`
	Jenkins           *Jenkins              `json:"jenkins,omitempty"`
	DNS               *DNS                  `json:"dns,omitempty"`
	Environments      []OperatorEnvironment `json:"environments"`
}

// GitRepo is the project's repository.
type GitRepo struct {
	URL    string `json:"url"`
	Branch string `json:"branch,omitempty"`
	// CredentialsID is the Jenkins credential that reads it.
	CredentialsID string `json:"credentials_id,omitempty"`
}

// ContainerRegistry is the project's image repository.
type ContainerRegistry struct {
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	Visibility string `json:"visibility,omitempty"`
}

// Jenkins places the project's jobs.
type Jenkins struct {
	Folder     string `json:"folder,omitempty"`
	ScriptPath string `json:"script_path,omitempty"`
}

// DNS says where environments' names point.
type DNS struct {
	Zone   string `json:"zone"`
	Target string `json:"target,omitempty"`
	Type   string `json:"type,omitempty"`
}

// OperatorEnvironment is one environment; TTLSeconds is the operator's
// ttl_seconds (its previews' 10800, 3h), absent for production.
type OperatorEnvironment struct {
	Name       string `json:"name"`
	Domain     string `json:"domain"`
	Namespace  string `json:"namespace,omitempty"`
	Cluster    string `json:"cluster,omitempty"`
	TTLSeconds int64  `json:"ttl_seconds,omitempty"`
}

const initializeFields = "event_type, id, devops_proj_id or project_id, triggered_by, triggered_at, spec {git_repo {url, branch, credentials_id}, container_registry {namespace, name, visibility}, jenkins {folder, script_path}, dns {zone, target, type}, environments [{name, domain, namespace, cluster, ttl_seconds}]}"

// ParseInitialize decodes a DevOpsInitialize in the operator's shape.
func ParseInitialize(body []byte) (*Initialize, error) {
	m := &Initialize{}
	if err := decode(body, TypeInitialize, initializeFields, m); err != nil {
		return nil, err
	}
	var err error
	if m.project, err = projectID(TypeInitialize, m.DevOpsProjID, m.ProjectIDAlias); err != nil {
		return nil, err
	}
	switch {
	case m.Spec == nil:
		return nil, errors.New("malformed operator DevOpsInitialize: spec is required: the operator's DevOpsProject spec")
	case m.ID != "" && !deployrequest.ValidID(m.ID):
		return nil, errors.Errorf("malformed operator DevOpsInitialize: id %q: at most 253 letters, digits, '.', '_', ':' or '-'", truncate(m.ID))
	}
	for i, e := range m.Spec.Environments {
		if e.TTLSeconds < 0 {
			return nil, errors.Errorf("malformed operator DevOpsInitialize: spec.environments[%d].ttl_seconds %d is negative", i, e.TTLSeconds)
		}
	}
	return m, nil
}

// ProjectID is the operator's project id.
func (m *Initialize) ProjectID() string { return m.project }

// Request is the project request m asks for, of the DevOpsProject t: the
// operator's spec in the XRD's fields. What the XRD refuses (a bad URL, a
// domain outside the zone) the API server refuses with its message.
func (m *Initialize) Request(t Target) (*projectrequest.Request, error) {
	spec, err := json.Marshal(m.Spec.devopsProject())
	if err != nil {
		return nil, errors.Wrap(err, "cannot encode the translated spec")
	}
	return &projectrequest.Request{Namespace: t.Namespace, Project: t.Project, Spec: spec, ID: m.ID, RequestedAt: m.TriggeredAt.ptr()}, nil
}

// devopsProject is s in the DevOpsProject's spec fields; what s leaves
// out stays out (the XRD's defaults, or another manager's value).
func (s *OperatorSpec) devopsProject() map[string]any {
	out := map[string]any{}
	put := func(into map[string]any, k, v string) {
		if v != "" {
			into[k] = v
		}
	}
	if g := s.GitRepo; g != nil {
		git := map[string]any{}
		put(git, "url", g.URL)
		put(git, "branch", g.Branch)
		put(git, "jenkinsCredentialsId", g.CredentialsID)
		out["git"] = git
	}
	if r := s.ContainerRegistry; r != nil {
		reg := map[string]any{}
		put(reg, "namespace", r.Namespace)
		put(reg, "name", r.Name)
		put(reg, "visibility", r.Visibility)
		out["registry"] = reg
	}
	if j := s.Jenkins; j != nil {
		p := map[string]any{}
		put(p, "folder", j.Folder)
		put(p, "scriptPath", j.ScriptPath)
		out["pipeline"] = p
	}
	if d := s.DNS; d != nil {
		dns := map[string]any{}
		put(dns, "zone", d.Zone)
		put(dns, "target", d.Target)
		put(dns, "type", d.Type)
		out["dns"] = dns
	}
	envs := make([]any, 0, len(s.Environments))
	for _, e := range s.Environments {
		env := map[string]any{}
		put(env, "name", e.Name)
		put(env, "domain", e.Domain)
		put(env, "namespace", e.Namespace)
		put(env, "cluster", e.Cluster)
		if e.TTLSeconds > 0 {
			env["ttl"] = strconv.FormatInt(e.TTLSeconds, 10) + "s"
		}
		envs = append(envs, env)
	}
	out["environments"] = envs
	return out
}

// truncate shortens a value quoted in a refusal.
func truncate(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
