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

// Package contract declares, once, the labels and annotations the
// composition function, the provider's controllers and its event stream
// agree on, and those the provider puts on backend objects.
package contract

import (
	"net/url"
	"path"
	"strings"
	"unicode"
)

// On every resource the DevOpsProject function composes.
const (
	// LabelProject is the DevOpsProject's name.
	LabelProject = "devops.freeleaps.io/project"
	// LabelEnvironment is the environment's name, on its resources.
	LabelEnvironment = "devops.freeleaps.io/environment"
	// AnnotationExpiresAt (RFC 3339), on each composed resource of an
	// environment with a ttl, is when the environment expires: the event
	// stream reports a deletion at or after it as expired, not deleted.
	AnnotationExpiresAt = "devops.freeleaps.io/expires-at"
	// AnnotationDeleteAfter, on a managed resource, lists kinds of the
	// provider's (comma-separated, such as "DNSRecord" or
	// "ArgoApplication"): while it is being deleted, the provider leaves
	// its external object alone until no resource of those kinds in its
	// namespace, of its project (LabelProject), of its environment
	// (LabelEnvironment, when it has one) and of the same composite
	// (controller reference, when it has one) exists any more. It is how
	// the function orders an environment's teardown.
	AnnotationDeleteAfter = "devops.freeleaps.io/delete-after"
)

// How the provider records creating a managed resource's external object,
// where crossplane-runtime writes its crossplane.io/external-create-pending
// and -succeeded annotations in two Updates: with the resource's first
// observed status, which follows the create at once.
const (
	// ConditionCreated, True, records that the provider created the
	// external object, at its lastTransitionTime.
	ConditionCreated = "Created"
	// ReasonCreated is ConditionCreated's reason.
	ReasonCreated = "ExternalCreated"
	// FinalizerManaged is crossplane-runtime's finalizer of a managed
	// resource (managed.FinalizerName, which the function does not
	// import for a constant). The function composes each managed resource
	// with it and its external name, so that the provider need not write
	// them before the external create.
	FinalizerManaged = "finalizer.managedresource.crossplane.io"
)

// AnnotationRenewPrefix + an environment's name, on a DevOpsProject, is the
// renew annotation: a new value restarts that environment's ttl from now.
const AnnotationRenewPrefix = "renew.devops.freeleaps.io/"

// On a JenkinsPipeline, written by the deploy-request handler in the same
// optimistic-locked patch as its buildRequest.
const (
	// AnnotationDeployRequestTime is the requestedAt of the last request
	// applied.
	AnnotationDeployRequestTime = "devops.freeleaps.io/deploy-request-time"
	// AnnotationDeployRequestIDs lists the tokens of the last requests
	// applied, newest first, space-separated.
	AnnotationDeployRequestIDs = "devops.freeleaps.io/deploy-request-ids"
)

// On Argo CD objects the provider manages.
const (
	// AnnotationURL, on a DNSRecord, is the URL its name answers on
	// (https:// with TLS, http:// without): the one a DeployRun reports
	// the environment live at.
	AnnotationURL = "devops.freeleaps.io/url"
	// AnnotationDeployedBy, on a JenkinsPipeline, names the kind that
	// deploys what it builds: "ArgoApplication" for the environments a
	// DevOpsProject composes. A DeployRun of such an environment waits for
	// its ArgoApplication and never counts the build alone as the
	// deployment. Absent: a pipeline that deploys by itself.
	AnnotationDeployedBy = "devops.freeleaps.io/deployed-by"
	// LabelOwner marks an Argo CD application or AppProject as managed by
	// one resource (namespace/name), so another's object of the same name
	// is never adopted or overwritten by accident.
	LabelOwner = "devops.freeleaps.io/owner"
	// LabelOwnerNamespace names, on an AppProject, the namespace of the
	// ArgoProject that manages it: applications and repositories of other
	// namespaces never use it.
	LabelOwnerNamespace = "devops.freeleaps.io/owner-namespace"
	// LabelOwnerUID, on an AppProject, is the UID of the ArgoProject that
	// created or took it over. The owner label can be planted ahead of a
	// resource; its UID cannot be known before the resource exists. A
	// project without it (planted, or made by someone else) has the role
	// tokens issued before revoked when taken over.
	LabelOwnerUID = "devops.freeleaps.io/owner-uid"
	// InfoDeployRun is the Argo CD operation info that marks a sync as a
	// DeployRun's own; its value is the DeployRun's namespace/name/uid.
	InfoDeployRun = "devops.freeleaps.io/deployrun"
)

// On a Secret a JenkinsCredential reads.
const (
	// LabelJenkinsCredential, with the value ValueJenkinsCredential, is a
	// Secret's consent to being copied into Jenkins, where every pipeline
	// of the folder can read it. A JenkinsCredential (one of its own or
	// one a DevOpsProject composes from spec.git.credentialsSecretRef)
	// copies no Secret without it: being allowed to create a
	// JenkinsCredential or a DevOpsProject is not being allowed to read
	// every Secret of the namespace. Only someone who may update the
	// Secret can add the label, and they can read it already. A label, not
	// an annotation, so that
	//   kubectl get secrets -l devops.freeleaps.io/jenkins-credential=true
	// lists what a namespace exposes to Jenkins.
	LabelJenkinsCredential = "devops.freeleaps.io/jenkins-credential" //nolint:gosec // a label key, not a credential
	// ValueJenkinsCredential is the only value that consents. It names no
	// credential id: the ids and folders a namespace may write are the
	// ProviderConfig's to limit, every one of them is the same tenant's,
	// and an id (up to 255 characters) does not fit a label value (63).
	ValueJenkinsCredential = "true"
)

// On a Secret that is sent to a git repository's server: registered in
// Argo CD by an ArgoRepository, or used by the provider to read a
// JenkinsPipeline's build file.
const (
	// LabelGitRepository, with the value ValueGitRepository, is a Secret's
	// consent to being sent to the git server a resource names, which its
	// author chooses: Argo CD sends it when an ArgoRepository registers it,
	// the provider when it reads a JenkinsPipeline's source.buildFile. Both
	// are composed by a DevOpsProject from spec.git.credentialsSecretRef and
	// spec.git.url, and neither uses a Secret without it: being allowed to
	// create them is not being allowed to read every Secret of the
	// namespace. A label of its own, not LabelJenkinsCredential: copying
	// into Jenkins exposes the value to every pipeline of the folder,
	// reading a repository only to its server, and a Secret may consent to
	// one and not the other (a project with spec.git.jenkinsCredentialsId
	// needs only this one).
	//   kubectl get secrets -l devops.freeleaps.io/git-repository=true
	// lists what a namespace lets be sent to git servers.
	LabelGitRepository = "devops.freeleaps.io/git-repository"
	// ValueGitRepository is the only value that consents. It names no
	// URL: a URL does not fit a label value (63 characters); the
	// annotation AnnotationGitRepositoryURLs does.
	ValueGitRepository = "true"
	// AnnotationGitRepositoryURLs, on a Secret labelled
	// LabelGitRepository, narrows its consent to the repositories it
	// lists, separated by commas or white space: a URL ending in "/"
	// admits every repository below it, any other admits itself only.
	// Scheme and host must match exactly; an SSH URL may be written as
	// git@host:path. Without the annotation the consent is to any
	// repository the namespace's resources name; with it empty, to none.
	//   kubectl annotate secret -n team git devops.freeleaps.io/git-repository-urls=https://git.example.com/team/
	AnnotationGitRepositoryURLs = "devops.freeleaps.io/git-repository-urls"
)

// On the objects that record why they exist or what they carry.
const (
	// AnnotationIngressHost, on an environment's ArgoApplication, is the
	// host the function handed it: once handed, a host stays with the
	// application.
	AnnotationIngressHost = "devops.freeleaps.io/ingress-host"
	// AnnotationDeployRequestKey, on a DeployRun a deploy request created,
	// is the token of that request's message.
	AnnotationDeployRequestKey = "devops.freeleaps.io/deploy-request-key"
	// AnnotationRenews, on a DeployRun, is the renew annotation value its
	// deploy request set on the DevOpsProject (an expired environment
	// with renewOnDeploy): the deployment waits in Pending for the
	// environment to come back instead of failing for want of it.
	AnnotationRenews = "devops.freeleaps.io/renews"
	// AnnotationTriggeredBy, on a DeployRun, is who the replaced
	// operator's UI says asked for it (its triggered_by): informative
	// only; spec.requestedBy is who was authorised.
	AnnotationTriggeredBy = "devops.freeleaps.io/triggered-by"
	// AnnotationTraceParent, on a DeployRun, is the W3C traceparent its
	// deployment's trace continues: the deploy request's span, which
	// itself continues the traceparent the request carried. Without it
	// the trace id derives from the DeployRun's uid.
	AnnotationTraceParent = "devops.freeleaps.io/traceparent"
	// AnnotationBuildTrace, on a JenkinsPipeline, is "TOKEN TRACEPARENT":
	// the build that spec.forProvider.buildRequest TOKEN asks for is
	// queued as a span of that trace (a DeployRun's Building phase).
	AnnotationBuildTrace = "devops.freeleaps.io/build-trace"
)

// GitRepositoryConsented reports whether a Secret with these labels has
// consented to being sent to a git repository's server
// (LabelGitRepository set to ValueGitRepository): the one test for every
// use of the label, so a narrower consent changes in one place.
func GitRepositoryConsented(labels map[string]string) bool {
	return labels[LabelGitRepository] == ValueGitRepository
}

// GitRepositoryURLConsented reports whether a Secret with these
// annotations consents to being sent to the repository at repoURL: true
// without AnnotationGitRepositoryURLs, else only for a URL it lists. Ask
// it after GitRepositoryConsented, and of the URL the Secret is sent to.
func GitRepositoryURLConsented(annotations map[string]string, repoURL string) bool {
	list, ok := annotations[AnnotationGitRepositoryURLs]
	if !ok {
		return true
	}
	u, ok := repositoryURL(repoURL)
	if !ok {
		return false
	}
	for _, entry := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		e, ok := repositoryURL(entry)
		if !ok || e.Scheme != u.Scheme || e.Host != u.Host {
			continue
		}
		if e.Path == u.Path || (strings.HasSuffix(entry, "/") && strings.HasPrefix(u.Path, strings.TrimSuffix(e.Path, "/")+"/")) {
			return true
		}
	}
	return false
}

// repositoryURL parses a repository URL for comparison: scheme and host
// lower-cased, the user dropped, the path cleaned; git@host:path is
// ssh://git@host/path. A URL is not compared at all if it has anything
// a client could read otherwise than net/url does: a byte outside
// printable ASCII (a look-alike host), a percent escape or a second @
// before the host (git decodes the URL before it dials), a query, a
// fragment, or a path that climbs.
func repositoryURL(raw string) (*url.URL, bool) {
	if !plainURL(raw) {
		return nil, false
	}
	if i, j := strings.Index(raw, ":"), strings.Index(raw, "@"); !strings.Contains(raw, "://") && j > 0 && i > j {
		raw = "ssh://" + raw[:i] + "/" + strings.TrimPrefix(raw[i+1:], "/")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, false
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == ".." || seg == "." {
			return nil, false
		}
	}
	p := path.Clean("/" + u.Path)
	if p == "/" {
		p = ""
	}
	// Only ASCII is left to fold.
	return &url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: p}, true
}

// plainURL is false for a URL holding a byte outside printable ASCII, or
// a percent escape, backslash or second @ before its host.
func plainURL(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] <= ' ' || raw[i] > '~' {
			return false
		}
	}
	// The part before the host ends: the path of a URL, the : of an
	// scp-like one.
	authority, _, _ := strings.Cut(raw, ":")
	if _, rest, ok := strings.Cut(raw, "://"); ok {
		authority, _, _ = strings.Cut(rest, "/")
	}
	return !strings.ContainsAny(authority, "%\\") && strings.Count(authority, "@") <= 1
}
