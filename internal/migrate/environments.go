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
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins/declarative"
)

var (
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	appName  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
)

// app is one application of an ArgoSetting.
type app struct {
	from *unstructured.Unstructured
	spec map[string]any
	name string
}

// pipeline sets spec.pipeline from the JenkinsSetting: jobs keep their
// paths, <folder>/<environment>.
func (t *translation) pipeline() {
	js := t.first(KindJenkins)
	if js == nil {
		t.r.note(KindProject, t.g.project.GetNamespace(), t.g.project.GetName(), Changed,
			"no JenkinsSetting: each environment's Jenkins job is created new, in the default folder")
		return
	}
	for _, u := range t.kids(KindJenkins)[1:] {
		t.note(u, NotCarried, "a project has one Jenkins folder; %s was used: its jobs are not adopted", js.GetName())
	}
	folder := field(js.Object, "spec.folder", "spec.folder_path", "spec.folderPath", "spec.project", "spec.project_name", "spec.projectName")
	folder = cmpOr(folder, t.g.project.GetName())
	script := field(js.Object, "spec.script_path", "spec.scriptPath", "spec.jenkinsfile")
	t.p.Spec.Pipeline = &Pipeline{Folder: folder}
	if script != "" && script != "Jenkinsfile" {
		t.p.Spec.Pipeline.ScriptPath = script
	}
	t.p.Spec.AdoptExisting.Pipelines = true
	t.build(js, folder, script)
}

// build carries over what the operator generated each job's pipeline
// from: its YAML configuration, read from the repository (config_path) or
// held in the JenkinsSetting (spec.config). A path becomes
// spec.pipeline.buildFile, read at every poll as the operator did every 5
// minutes; an inline configuration that is a build becomes
// spec.pipeline.build. Otherwise the jobs run the repository's
// Jenkinsfile, which must be committed first.
func (t *translation) build(js *unstructured.Unstructured, folder, script string) {
	config := field(js.Object, "spec.config_path", "spec.configPath", "spec.config_file", "spec.configFile")
	inline := lookup(js.Object, "spec.config")
	branch := cmpOr(t.p.Spec.Git.Branch, "main")
	switch {
	case config != "" && strings.HasPrefix(t.p.Spec.Git.URL, "https://") && !strings.Contains(strings.SplitN(strings.TrimPrefix(t.p.Spec.Git.URL, "https://"), "/", 2)[0], "@"):
		t.p.Spec.Pipeline.BuildFile, t.p.Spec.Pipeline.ScriptPath = config, ""
		t.note(js, Changed, "its jobs are adopted under %s/<environment> with their builds, and written from %s of branch %s (spec.pipeline.buildFile), which the provider reads at every poll as the operator did every 5 minutes. The file must hold a build in the shape of spec.pipeline.build (docs/migration.md): until it does, each job keeps the pipeline the operator generated and its JenkinsPipeline's Synced condition says what is wrong with the file",
			folder, config, branch)
		return
	case config == "" && inline != nil:
		b, err := inlineBuild(inline, t.p.Spec.Git.URL, branch)
		if err == nil {
			t.p.Spec.Pipeline.Build, t.p.Spec.Pipeline.ScriptPath = b, ""
			t.note(js, Changed, "its jobs are adopted under %s/<environment> with their builds, and written from the build in its spec.config (spec.pipeline.build): a checkout stage without url checks out %s, an image stage without registry pushes to the project's registry repository", folder, t.p.Spec.Git.URL)
			return
		}
		t.note(js, NotCarried, "its spec.config is not a build in the shape of spec.pipeline.build (%v): write spec.pipeline.build by hand, or the jobs run %s of branch %s", err, cmpOr(script, "Jenkinsfile"), branch)
	case config != "":
		t.note(js, Changed, "spec.pipeline.buildFile (%s) is read over https only, and spec.git.url is %s: the build file is not used", config, t.p.Spec.Git.URL)
	}
	t.note(js, Changed, "its jobs are adopted under %s/<environment> with their builds, but each becomes \"Pipeline script from SCM\" running %s of branch %s: the pipeline the operator generated from %s is not carried over; commit an equivalent Jenkinsfile before applying",
		folder, cmpOr(script, "Jenkinsfile"), branch, cmpOr(config, "the project's YAML config"))
}

// inlineBuild is the JenkinsSetting's spec.config (a mapping, or YAML
// text) as a declared build, checked by the JenkinsPipeline CRD's own
// rules with what the project fills in (its repository, a registry).
func inlineBuild(config any, gitURL, branch string) (map[string]any, error) {
	var text []byte
	switch c := config.(type) {
	case string:
		text = []byte(c)
	default:
		var err error
		if text, err = yaml.Marshal(c); err != nil {
			return nil, err
		}
	}
	d := &jenkinsv1alpha1.BuildFileDefaults{Checkout: &jenkinsv1alpha1.CheckoutStage{URL: gitURL, Branch: branch}, Image: &jenkinsv1alpha1.ImageTarget{Registry: "registry.example", Repository: "team/project"}}
	if _, err := declarative.ParseFile(text, d); err != nil {
		return nil, err
	}
	out := map[string]any{}
	return out, yaml.Unmarshal(text, &out)
}

// jenkinsEnvironments are the environments the JenkinsSetting names.
func (t *translation) jenkinsEnvironments() []string {
	js := t.first(KindJenkins)
	if js == nil {
		return nil
	}
	envs := list(js.Object, "spec.environments", "spec.envs")
	out := make([]string, 0, len(envs))
	for _, e := range envs {
		switch e := e.(type) {
		case string:
			out = append(out, e)
		case map[string]any:
			out = append(out, nameOf(e))
		}
	}
	return out
}

// apps are the applications of the ArgoSettings, and the projects and
// repositories they registered are reported.
func (t *translation) apps() []app {
	var out []app
	for _, as := range t.kids(KindArgo) {
		for _, p := range list(as.Object, "spec.projects") {
			if m, ok := p.(map[string]any); ok && nameOf(m) != "" {
				t.note(as, Changed, "its applications move from AppProject %s into the project's own (%s.%s, bounded to its repository and destinations); %s stays in Argo CD: delete it once no application uses it",
					nameOf(m), t.g.project.GetNamespace(), t.g.project.GetName(), nameOf(m))
			}
		}
		for _, r := range list(as.Object, "spec.repositories") {
			if m, ok := r.(map[string]any); ok {
				repo, _ := withoutPassword(field(m, "url", "repo_url", "repoUrl"))
				t.note(as, Changed, "repository %s is registered again for the project's AppProject only; the operator's registration stays in Argo CD: remove it once nothing else uses it", repo)
			}
		}
		for _, a := range list(as.Object, "spec.applications") {
			if m, ok := a.(map[string]any); ok {
				out = append(out, app{from: as, spec: m, name: nameOf(m)})
			}
		}
	}
	return out
}

// envOf is the environment an application deploys: its environment
// field, or its name less the project's ("shop-alpha" is alpha).
func (t *translation) envOf(a app) string {
	if e := field(a.spec, "environment", "env"); e != "" {
		return e
	}
	return strings.TrimPrefix(a.name, t.g.project.GetName()+"-")
}

// ingresses are the IngressResources by environment.
func (t *translation) ingresses() map[string]*unstructured.Unstructured {
	out := map[string]*unstructured.Unstructured{}
	for _, ir := range t.kids(KindIngress) {
		env := field(ir.Object, "spec.environment", "spec.env")
		if env == "" || out[env] != nil {
			t.note(ir, NotCarried, "names no environment (spec.environment), or one another IngressResource names first: its DNS record is not adopted; add it by hand")
			continue
		}
		out[env] = ir
	}
	return out
}

// environments sets spec.environments and spec.dns.
func (t *translation) environments() {
	apps, ingresses := t.apps(), t.ingresses()
	var names []string
	byEnv := map[string]*app{}
	for i := range apps {
		e := t.envOf(apps[i])
		if byEnv[e] == nil {
			names = append(names, e)
			byEnv[e] = &apps[i]
		}
	}
	for _, e := range t.jenkinsEnvironments() {
		if byEnv[e] == nil && !contains(names, e) {
			names = append(names, e)
		}
	}
	for _, name := range names {
		if env, ok := t.environment(name, byEnv[name], ingresses[name]); ok {
			t.p.Spec.Environments = append(t.p.Spec.Environments, env)
		}
	}
	for env, ir := range ingresses {
		if !contains(names, env) {
			t.note(ir, NotCarried, "environment %s has no Argo CD application or Jenkins job here: its DNS record is not adopted", env)
		}
	}
	if t.p.Spec.DNS.Zone != "" {
		t.p.Spec.AdoptExisting.DNSRecords = true
	}
}

// nameOf is an operator list entry's name.
func nameOf(m map[string]any) string { return field(m, "name") }

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// environment carries one environment over: its application a (nil for a
// Jenkins job only) and its IngressResource ir.
func (t *translation) environment(name string, a *app, ir *unstructured.Unstructured) (Environment, bool) {
	owner := t.first(KindJenkins)
	if a != nil {
		owner = a.from
	}
	if !dnsLabel.MatchString(name) {
		t.note(owner, NotCarried, "environment %q is not a DNS label, which environments' names must be: left out; add it under another name by hand (its job and application are then new ones)", name)
		return Environment{}, false
	}
	if ir == nil {
		t.note(owner, NotCarried, "environment %s has no IngressResource giving its domain: left out; add it to spec.environments with a domain to adopt its job and application", name)
		return Environment{}, false
	}
	env := Environment{Name: name, Domain: strings.TrimSuffix(field(ir.Object, "spec.domain", "spec.host", "spec.hostname"), ".")}
	if env.Domain == "" {
		t.note(ir, NotCarried, "has no domain: environment %s was left out", name)
		return Environment{}, false
	}
	if !t.dns(ir, env.Domain) {
		return Environment{}, false
	}
	if js := t.first(KindJenkins); js != nil {
		t.adopted = append(t.adopted, fmt.Sprintf("Jenkins job %s/%s", t.p.Spec.Pipeline.Folder, name))
	}
	if a == nil {
		t.note(owner, Changed, "environment %s had no Argo CD application: one is created (%s.%s.%s)", name, t.g.project.GetNamespace(), t.g.project.GetName(), name)
		return env, true
	}
	t.application(&env, *a)
	return env, true
}

// application carries an ArgoSetting application over into env.
func (t *translation) application(env *Environment, a app) {
	t.p.Spec.AdoptExisting.Applications = true
	if !appName.MatchString(a.name) {
		t.note(a.from, NotCarried, "application %q is not a valid name: environment %s gets a new one", a.name, env.Name)
	} else {
		if a.name != t.g.project.GetNamespace()+"."+t.g.project.GetName()+"."+env.Name {
			env.ApplicationName = a.name
		}
		t.adopted = append(t.adopted, "Argo CD application "+a.name)
	}
	if p := field(a.spec, "source.path"); p != "deploy/"+env.Name {
		env.Path = p
	}
	if repo, _ := withoutPassword(field(a.spec, "source.repo_url", "source.repoURL", "source.repoUrl")); repo != "" && repo != t.p.Spec.Git.URL {
		t.note(a.from, Changed, "application %s deploys from %s; every environment deploys from the project's repository %s now", a.name, repo, t.p.Spec.Git.URL)
	}
	if rev := field(a.spec, "source.revision", "source.target_revision", "source.targetRevision"); rev != "" && rev != t.p.Spec.Git.Branch {
		t.note(a.from, Changed, "application %s tracked revision %s; it tracks the project's branch %s now", a.name, rev, t.p.Spec.Git.Branch)
	}
	if lookup(a.spec, "source.helm") != nil || field(a.spec, "source.chart") != "" {
		env.SourceType = "Helm"
		t.note(a.from, Changed, "application %s is a Helm source: its release is named %s-%s now, so check the chart's object names do not depend on the release name", a.name, t.g.project.GetName(), env.Name)
	}
	t.destination(env, a)
	t.note(a.from, Changed, "application %s is adopted in place: labelled and patched into the project's AppProject, never recreated (so nothing cascades to its workloads) and not synced by the adoption; from then on its sync policy is automated with prune and selfHeal, so Argo CD syncs it if its manifests differ", a.name)
}

// destination carries the application's destination over into env.
func (t *translation) destination(env *Environment, a app) {
	env.Namespace = field(a.spec, "destination.namespace")
	switch server, cname := field(a.spec, "destination.server"), field(a.spec, "destination.name"); {
	case server != "" && server != inCluster:
		env.Cluster = server
	case server == "" && cname != "" && cname != "in-cluster":
		t.note(a.from, NotCarried, "application %s deploys to cluster %q by name; environments name clusters by API server URL: set spec.environments[%s].cluster before applying (the in-cluster one is assumed)", a.name, cname, env.Name)
	}
}

// dns sets spec.dns from the first IngressResource and reports one whose
// zone, target or type differs (a project has one of each).
func (t *translation) dns(ir *unstructured.Unstructured, domain string) bool {
	d := DNS{
		Zone:   strings.TrimSuffix(field(ir.Object, "spec.dns.zone", "spec.zone", "spec.dns_zone", "spec.dnsZone"), "."),
		Target: field(ir.Object, "spec.dns.target", "spec.dns.value", "spec.target", "spec.ip", "spec.dns.ip"),
		Type:   strings.ToUpper(field(ir.Object, "spec.dns.record_type", "spec.dns.recordType", "spec.dns.type", "spec.record_type", "spec.recordType")),
	}
	if d.Zone == "" {
		labels := strings.Split(domain, ".")
		if len(labels) < 2 {
			t.note(ir, NotCarried, "domain %s has no zone: environment left out", domain)
			return false
		}
		d.Zone = strings.Join(labels[len(labels)-2:], ".")
		t.note(ir, Changed, "names no zone: %s is assumed; change spec.dns.zone if the zone is another", d.Zone)
	}
	if domain != d.Zone && !strings.HasSuffix(domain, "."+d.Zone) {
		t.note(ir, NotCarried, "domain %s is not inside zone %s: environment left out", domain, d.Zone)
		return false
	}
	cur := &t.p.Spec.DNS
	switch {
	case cur.Zone == "":
		*cur = d
	case cur.Zone != d.Zone:
		t.note(ir, NotCarried, "zone %s differs from the project's %s (a project has one zone): environment left out", d.Zone, cur.Zone)
		return false
	case (d.Target != "" && d.Target != cur.Target) || (d.Type != "" && d.Type != cur.Type):
		t.note(ir, Changed, "record %s %s is rewritten to the project's %s %s (a project points every name at one target)", d.Type, d.Target, cur.Type, cur.Target)
	}
	t.adopted = append(t.adopted, "DNS record "+domain+" "+cmpOr(cur.Type, "A/AAAA/CNAME"))
	t.note(ir, Changed, "DNS record %s is adopted (spec.adoptExisting.dnsRecords); the Ingress and certificate the operator made stay in the cluster, not managed: to hand host and TLS to the chart instead, set spec.ingress (docs/ingress.md)", domain)
	if p := field(ir.Object, "spec.dns.provider", "spec.provider"); p != "" {
		t.note(ir, Changed, "records are written through the ProviderConfig's spec.dns (the operator used %s): check it serves zone %s", p, cur.Zone)
	}
	return true
}

// deployments reports each DeploymentRecord: history is not carried over.
func (t *translation) deployments() {
	for _, dr := range t.kids(KindDeployment) {
		t.note(dr, NotCarried, "deployment history is not carried over: deployments are DeployRuns from now (docs/deployments.md); the record stays until the operator's CRDs are removed")
		env := field(dr.Object, "spec.environment", "spec.env")
		if ttl := ttlOf(dr.Object); ttl != "" && env != "" {
			t.note(dr, NotCarried, "environment %s had a ttl of %s: if it is a preview, set spec.environments[%s].ttl: %s (production environments have none)", env, ttl, env, ttl)
		}
	}
}

// ttlOf is a DeploymentRecord's ttl as a Go duration, "" for none.
func ttlOf(obj map[string]any) string {
	for _, p := range []string{"spec.ttl_seconds", "spec.ttlSeconds", "spec.ttl"} {
		switch v := lookup(obj, p).(type) {
		case int64:
			return (time.Duration(v) * time.Second).String()
		case float64:
			return (time.Duration(v) * time.Second).String()
		case string:
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return (time.Duration(n) * time.Second).String()
			}
			if d, err := time.ParseDuration(v); err == nil {
				return d.String()
			}
		}
	}
	return ""
}
