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

package migrate

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/freeleaps/provider-devops/apis/contract"
)

// Options of a migration.
type Options struct {
	// ProviderConfig the projects name; nil leaves it to the
	// Composition's default.
	ProviderConfig *ConfigRef
}

// Result is what a migration makes: the DevOpsProjects, and the report.
type Result struct {
	Projects []Project
	Report   *Report
}

// inCluster is Argo CD's name for the cluster it runs in, the default
// destination of a DevOpsProject's environments.
const inCluster = "https://kubernetes.default.svc"

// group is one operator DevOpsProject and the objects that belong to it.
type group struct {
	project  *unstructured.Unstructured
	children map[string][]*unstructured.Unstructured // by kind
}

// Translate carries objs (the operator's, see Operator) over.
func Translate(objs []*unstructured.Unstructured, o Options) Result {
	r := &Report{}
	groups, orphans := groupByProject(objs)
	for _, u := range orphans {
		r.note(u.GetKind(), u.GetNamespace(), u.GetName(), NotCarried,
			"belongs to no DevOpsProject of namespace %s (no ownerReference or spec.project naming one): nothing was made for it; carry it over by hand", u.GetNamespace())
	}
	out := Result{Report: r}
	for _, g := range groups {
		if p, ok := (&translation{g: g, r: r, opts: o}).project(); ok {
			out.Projects = append(out.Projects, p)
		}
	}
	return out
}

// groupByProject sorts the children to the DevOpsProject of their
// namespace that owns them (ownerReferences, as Kopf's adopt sets) or
// that their spec.project names.
func groupByProject(objs []*unstructured.Unstructured) ([]*group, []*unstructured.Unstructured) {
	byKey := map[string]*group{}
	groups := make([]*group, 0, len(objs))
	for _, u := range objs {
		if u.GetKind() == KindProject {
			g := &group{project: u, children: map[string][]*unstructured.Unstructured{}}
			byKey[u.GetNamespace()+"/"+u.GetName()] = g
			groups = append(groups, g)
		}
	}
	sort.Slice(groups, func(i, j int) bool {
		a, b := groups[i].project, groups[j].project
		return a.GetNamespace()+"/"+a.GetName() < b.GetNamespace()+"/"+b.GetName()
	})
	var orphans []*unstructured.Unstructured
	for _, u := range objs {
		if u.GetKind() == KindProject {
			continue
		}
		g := byKey[u.GetNamespace()+"/"+ownerName(u)]
		if g == nil {
			orphans = append(orphans, u)
			continue
		}
		g.children[u.GetKind()] = append(g.children[u.GetKind()], u)
	}
	for _, g := range groups {
		for _, l := range g.children {
			sort.Slice(l, func(i, j int) bool { return l[i].GetName() < l[j].GetName() })
		}
	}
	return groups, orphans
}

// ownerName is the name of the operator DevOpsProject u belongs to.
func ownerName(u *unstructured.Unstructured) string {
	for _, ref := range u.GetOwnerReferences() {
		if ref.Kind == KindProject {
			return ref.Name
		}
	}
	return field(u.Object, "spec.project_name", "spec.projectName", "spec.devops_project", "spec.devopsProject", "spec.project")
}

// translation carries one group over.
type translation struct {
	g    *group
	r    *Report
	opts Options
	p    Project
	// adopted lists, per kind, the backend objects the project adopts,
	// for the DevOpsProject's entry.
	adopted []string
}

func (t *translation) kids(kind string) []*unstructured.Unstructured { return t.g.children[kind] }

func (t *translation) first(kind string) *unstructured.Unstructured {
	if l := t.kids(kind); len(l) > 0 {
		return l[0]
	}
	return nil
}

func (t *translation) note(u *unstructured.Unstructured, o Outcome, format string, a ...any) {
	t.r.note(u.GetKind(), u.GetNamespace(), u.GetName(), o, format, a...)
}

// project builds the DevOpsProject; false when it cannot be made (the
// report says why).
func (t *translation) project() (Project, bool) {
	src := t.g.project
	ns, name := src.GetNamespace(), src.GetName()
	t.p = Project{
		APIVersion: ProjectAPIVersion, Kind: ProjectKind,
		Metadata: Metadata{Name: name, Namespace: ns, Annotations: map[string]string{
			AnnotationMigratedFrom: fmt.Sprintf("%s %s %s/%s", src.GetAPIVersion(), KindProject, ns, name),
		}},
		Spec: ProjectSpec{ProviderConfigRef: t.opts.ProviderConfig},
	}
	t.r.entry(KindProject, ns, name)
	if !t.git() {
		t.skipAll("no git repository URL in the DevOpsProject, its JenkinsSetting or its ArgoSetting: the DevOpsProject was not written. Add spec.git.url by hand")
		return Project{}, false
	}
	t.registry()
	t.pipeline()
	t.environments()
	t.deployments()
	if len(t.p.Spec.Environments) == 0 {
		t.skipAll("no environment could be carried over (each needs an Argo CD application or Jenkins job and an IngressResource's domain): the DevOpsProject was not written")
		return Project{}, false
	}
	t.r.note(KindProject, ns, name, Adopted, "written as DevOpsProject %s/%s (%s)", ns, name, ProjectAPIVersion)
	for _, a := range t.adopted {
		t.r.note(KindProject, ns, name, Adopted, "adopts %s", a)
	}
	return t.p, true
}

// skipAll reports the project as not carried over, and its children too.
func (t *translation) skipAll(why string) {
	t.note(t.g.project, NotCarried, "%s", why)
	for _, l := range t.g.children {
		for _, u := range l {
			t.note(u, NotCarried, "its DevOpsProject %s was not carried over", t.g.project.GetName())
		}
	}
}

// git sets spec.git from the DevOpsProject, the JenkinsSetting, the
// ArgoSetting and GitCredentials; false without a repository URL.
func (t *translation) git() bool {
	spec := t.g.project.Object
	jenkins, argo := t.first(KindJenkins), t.first(KindArgo)
	g := Git{
		URL:    field(spec, "spec.git.url", "spec.git_repo.url", "spec.gitRepo.url", "spec.git.repo_url", "spec.git_url", "spec.gitUrl", "spec.repo_url", "spec.repoUrl"),
		Branch: field(spec, "spec.git.branch", "spec.git_repo.branch", "spec.gitRepo.branch", "spec.git_branch", "spec.gitBranch", "spec.branch"),
	}
	if jenkins != nil {
		g.URL = cmpOr(g.URL, field(jenkins.Object, "spec.repo.url", "spec.repo.repo_url", "spec.repo_url", "spec.repoUrl"))
		g.Branch = cmpOr(g.Branch, field(jenkins.Object, "spec.repo.branch", "spec.branch"))
		g.JenkinsCredentialsID = field(jenkins.Object, "spec.repo.credentials_id", "spec.repo.credentialsId", "spec.credentials_id", "spec.credentialsId")
	}
	if argo != nil && g.URL == "" {
		if l := list(argo.Object, "spec.repositories"); len(l) > 0 {
			if m, ok := l[0].(map[string]any); ok {
				g.URL = field(m, "url", "repo_url", "repoUrl")
			}
		}
	}
	if g.URL == "" {
		return false
	}
	g.Branch = cmpOr(g.Branch, "main")
	if clean, had := withoutPassword(g.URL); had {
		g.URL = clean
		t.r.note(KindProject, t.g.project.GetNamespace(), t.g.project.GetName(), Changed,
			"the repository URL carried a user and password (or token): they were neither copied nor printed, and the URL is %s; put them in the Secret spec.git.credentialsSecretRef names (keys username and password) and rotate the token, which the operator's objects held in clear", g.URL)
	}
	t.p.Spec.Git = g
	t.credentials()
	return true
}

// optIn is the report's request to label Secret name of namespace so the
// project's ArgoRepository (and, with jenkins, its JenkinsCredential) may
// use it: the labels are the Secret owner's consent, which the operator
// did not ask for.
func optIn(namespace, name string, jenkins bool) string {
	labels := contract.LabelGitRepository + "=" + contract.ValueGitRepository
	if jenkins {
		labels += " " + contract.LabelJenkinsCredential + "=" + contract.ValueJenkinsCredential
	}
	return fmt.Sprintf("Its owner labels it to consent to its use: kubectl label secret -n %s %s %s", namespace, name, labels)
}

// credentials carries GitCredentials over by the name of its Secret only.
// Credentials held inline are never read into the output or the report:
// the user makes a Secret of them.
func (t *translation) credentials() {
	ref := field(t.g.project.Object, "spec.git.credentials", "spec.git_repo.credentials", "spec.git_credentials", "spec.gitCredentials", "spec.git.credentialsRef", "spec.git.credentials_ref")
	var gc *unstructured.Unstructured
	for _, u := range t.kids(KindGitCreds) {
		if gc == nil || u.GetName() == ref {
			gc = u
		}
	}
	if gc == nil {
		return
	}
	for _, u := range t.kids(KindGitCreds) {
		if u != gc {
			t.note(u, NotCarried, "a project has one repository credential; %s was used: register this one in Argo CD or Jenkins by hand if still needed", gc.GetName())
		}
	}
	g := &t.p.Spec.Git
	if id := field(gc.Object, "spec.jenkins_credentials_id", "spec.jenkinsCredentialsId", "spec.jenkins.credentials_id", "spec.jenkins.credentialsId"); id != "" {
		if g.JenkinsCredentialsID != "" && g.JenkinsCredentialsID != id {
			t.note(gc, Changed, "Jenkins credentials id %q is used, the JenkinsSetting's %q is not", id, g.JenkinsCredentialsID)
		}
		g.JenkinsCredentialsID = id
	}
	// Only fields that name a Secret: a bare "secret" may hold the value.
	secret := field(gc.Object, "spec.secret_ref.name", "spec.secretRef.name", "spec.secret_name", "spec.secretName")
	if secret != "" {
		g.CredentialsSecretRef = &SecretRef{Name: secret}
		t.note(gc, Changed, "Argo CD reads the repository with Secret %s, registered for the project's AppProject only (an ArgoRepository); it must hold the keys username and password (https) or sshPrivateKey (ssh): rename the operator's keys if they differ. %s", secret, optIn(gc.GetNamespace(), secret, g.JenkinsCredentialsID == ""))
		return
	}
	if inline(gc.Object) {
		g.CredentialsSecretRef = &SecretRef{Name: gc.GetName()}
		t.note(gc, NotCarried, "holds its credentials inline; they were neither copied nor printed. Create Secret %s in namespace %s with the keys username and password (https) or sshPrivateKey (ssh) before applying: the project's ArgoRepository waits for it. %s", gc.GetName(), gc.GetNamespace(), optIn(gc.GetNamespace(), gc.GetName(), g.JenkinsCredentialsID == ""))
		return
	}
	t.note(gc, NotCarried, "names no Secret and holds no credentials: the repository is taken as public; set spec.git.credentialsSecretRef if it is not")
}

// inline is true when GitCredentials carries a credential in its spec.
// Only presence is checked; the values are never read.
func inline(obj map[string]any) bool {
	for _, p := range []string{"spec.password", "spec.token", "spec.ssh_key", "spec.sshKey", "spec.ssh_private_key", "spec.sshPrivateKey", "spec.private_key", "spec.privateKey", "spec.data", "spec.secret"} {
		if lookup(obj, p) != nil {
			return true
		}
	}
	return false
}

// withoutPassword is raw without the credentials its authority may
// carry, and whether it carried any: an http(s) URL loses its user and
// password, another scheme's (ssh://git:token@host) its password. The
// migration prints and writes URLs only through it. It parses by hand:
// url.Parse fails on some passwords, and its error quotes the URL.
func withoutPassword(raw string) (string, bool) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		// scp-like git@host:path has a user, never a password.
		return raw, false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return raw, false
	}
	user, host := rest[:at], rest[at+1:]
	switch s := strings.ToLower(scheme); {
	case s == "http" || s == "https":
		return scheme + "://" + host, true
	case strings.Contains(user, ":"):
		name, _, _ := strings.Cut(user, ":")
		return scheme + "://" + name + "@" + host, true
	}
	return raw, false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// registry sets spec.registry from ContainerRegistry.
func (t *translation) registry() {
	cr := t.first(KindRegistry)
	if cr == nil {
		t.p.Spec.Registry = Registry{Namespace: t.g.project.GetNamespace(), Name: t.g.project.GetName()}
		t.r.note(KindProject, t.g.project.GetNamespace(), t.g.project.GetName(), Changed,
			"no ContainerRegistry: spec.registry is %s/%s, created if missing; change it before applying if the images live elsewhere", t.p.Spec.Registry.Namespace, t.p.Spec.Registry.Name)
		return
	}
	for _, u := range t.kids(KindRegistry)[1:] {
		t.note(u, NotCarried, "a project has one image repository; %s was used: make a RegistryRepo for this one by hand if still needed", cr.GetName())
	}
	reg := Registry{
		Namespace: field(cr.Object, "spec.namespace", "spec.registry_namespace", "spec.registryNamespace"),
		Name:      field(cr.Object, "spec.name", "spec.repository", "spec.repo_name", "spec.repoName", "spec.registry_name", "spec.registryName"),
	}
	switch v := strings.ToLower(field(cr.Object, "spec.visibility")); {
	case v == "public" || v == "private":
		reg.Visibility = v
	case lookup(cr.Object, "spec.private") == true || lookup(cr.Object, "spec.is_private") == true:
		reg.Visibility = "private"
	}
	if reg.Namespace == "" || reg.Name == "" {
		reg = Registry{Namespace: cmpOr(reg.Namespace, t.g.project.GetNamespace()), Name: cmpOr(reg.Name, t.g.project.GetName())}
		t.note(cr, Changed, "no repository namespace or name in its spec: %s/%s is used", reg.Namespace, reg.Name)
	}
	t.p.Spec.Registry = reg
	t.p.Spec.AdoptExisting.Registry = true
	t.adopted = append(t.adopted, "image repository "+reg.Namespace+"/"+reg.Name)
	t.note(cr, Adopted, "repository %s/%s is adopted (spec.adoptExisting.registry); its images stay when the project is deleted", reg.Namespace, reg.Name)
	if url := field(cr.Object, "spec.registry_url", "spec.registryUrl", "spec.url", "spec.server"); url != "" {
		url, _ = withoutPassword(url)
		t.note(cr, Changed, "the registry's endpoint (%s) and credentials are the ProviderConfig's spec.registry now, not the project's: check the ProviderConfig points there", url)
	}
}
