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

package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/bind"
	"github.com/freeleaps/provider-devops/internal/testing/distribution"
)

// The project the Kopf operator made, which the migration takes over: the
// names of internal/migrate/testdata/operator/inline-credentials.yaml
// (namespace team-blog, project blog), laid out as its shop.yaml is
// (children linked by ownerReferences, one IngressResource per
// environment), so that it clashes with nothing of the scenario's.
const (
	MigrationNamespace = "team-blog"
	migrationProject   = "blog"
	// migrationFolder is the operator's Jenkins folder: its jobs are
	// <folder>/<environment>.
	migrationFolder = "blog"
	// migrationImage is the operator's image repository (namespace/name)
	// and the tag it pushed.
	migrationImage = "blog/web"
	migrationTag   = "1.0.0"
	// migrationAppProject is the operator's own Argo CD AppProject.
	migrationAppProject = "blog"
	inCluster           = "https://kubernetes.default.svc"
	// operatorBuilds is how many builds each operator job has run.
	operatorBuilds = 2
)

// migrationEnv is one environment the operator made.
type migrationEnv struct {
	name, domain, namespace string
}

func (e migrationEnv) job() string { return migrationFolder + "/" + e.name }
func (e migrationEnv) app() string { return migrationProject + "-" + e.name }

func migrationEnvs() []migrationEnv {
	return []migrationEnv{
		{name: "staging", domain: "staging.blog.example.com", namespace: "blog-staging"},
		{name: "prod", domain: "blog.example.com", namespace: "blog-prod"},
	}
}

// operatorState is what the operator's objects in the backends are, to
// compare before and after the migration.
type operatorState struct {
	// created, deleted and refused are the Jenkins items made and removed
	// so far, and the creates refused because the item existed.
	created, deleted, refused map[string]int
	// argoCreates are Argo CD's application creates, deletes and syncs.
	argoCreates map[string]int
	// builds are each job's build numbers and results.
	builds map[string][]string
	// apps are each application's uid, sync history and last operation;
	// allApps every application Argo CD holds.
	apps    map[string]string
	allApps []string
	// records are each DNS name's CNAME values.
	records map[string][]string
	// image is the digest of migrationImage:migrationTag, tags its tags.
	image string
	tags  []string
}

// RunMigration plays moving a project off the Kopf operator, as
// docs/migration.md's runbook says: the backends hold what the operator
// made (Jenkins jobs with finished builds, Argo CD applications synced in
// the operator's AppProject, DNS records, an image), devopsctl (the
// built CLI at cli) turns the operator's exported objects into a
// DevOpsProject, in a dry run first and then with --apply, and the
// project becomes Ready having created and deleted nothing in any
// backend: the same jobs (whose build numbers go on), the same
// applications (same objects, same sync history, no new operation), the
// same records and image, each now carrying this provider's owner marker.
// It returns what it observed, for the log.
func (c *Cluster) RunMigration(ctx context.Context, cli string) (string, error) {
	repo, err := c.seedOperator(ctx)
	if err != nil {
		return "", fmt.Errorf("the operator's objects: %w", err)
	}
	before, err := c.operatorState(ctx)
	if err != nil {
		return "", err
	}
	c.logf("  the operator's objects: Jenkins jobs %v, applications %v, DNS records %v, image %s", before.builds, keys(before.apps), before.records, before.image)
	export := filepath.Join(c.dir, "operator-"+MigrationNamespace+".yaml")
	if err := os.WriteFile(export, []byte(operatorExport(repo)), 0o600); err != nil {
		return "", err
	}
	// The runbook's steps 5 and 7: a dry run, then --apply.
	args := []string{"migrate", "-f", export, "--provider-config", "ProviderConfig/default"}
	c.logf("$ devopsctl %s", strings.Join(args, " "))
	projects, report, err := runCLI(ctx, cli, args...)
	if err != nil {
		return "", err
	}
	if err := checkDryRun(projects, report); err != nil {
		return "", err
	}
	c.logf("  report:\n%s", report)
	args = append(args, "--apply", "--kubeconfig", c.KubeConfig)
	c.logf("$ devopsctl %s", strings.Join(args, " "))
	if _, _, err := runCLI(ctx, cli, args...); err != nil {
		return "", err
	}
	t0 := time.Now()
	if err := c.waitReady(ctx, MigrationNamespace, migrationProject, "the migrated DevOpsProject to be Ready", 5*time.Minute); err != nil {
		return "", err
	}
	ready := time.Since(t0)
	c.logf("  the DevOpsProject is Ready %s after --apply", ready.Round(100*time.Millisecond))
	if err := c.checkAdopted(ctx); err != nil {
		return "", err
	}
	if err := c.checkRepositories(ctx, repo); err != nil {
		return "", err
	}
	build, err := c.buildAfterMigration(ctx)
	if err != nil {
		return "", err
	}
	if err := c.waitCompared(ctx, t0); err != nil {
		return "", err
	}
	after, err := c.operatorState(ctx)
	if err != nil {
		return "", err
	}
	if err := before.unchanged(after, migrationEnvs()[0].job()); err != nil {
		return "", err
	}
	return fmt.Sprintf("Ready %s after devopsctl --apply; 0 Jenkins items, Argo CD applications, DNS records or images created or deleted; applications the same objects with the same sync history and no new operation; owner markers on each; %s", ready.Round(100*time.Millisecond), build), nil
}

// seedOperator makes in the backends what the operator made, with no
// owner marker of this provider, and returns the project's repository.
func (c *Cluster) seedOperator(ctx context.Context) (string, error) {
	c.logf("the operator's project %s/%s: its repository, Jenkins jobs with %d builds each, Argo CD applications synced in AppProject %s, DNS records, image %s:%s", MigrationNamespace, migrationProject, operatorBuilds, migrationAppProject, migrationImage, migrationTag)
	// The namespace with a ProviderConfig for the scenario's backends
	// (the runbook's step 1).
	if err := c.Apply(ctx, c.configYAML(MigrationNamespace)); err != nil {
		return "", err
	}
	files := map[string]string{}
	for _, e := range migrationEnvs() {
		files["deploy/"+e.name+"/configmap.yaml"] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  environment: %s\n", migrationProject, e.name)
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.namespace}}
		if err := c.Kube.Create(ctx, ns); client.IgnoreAlreadyExists(err) != nil {
			return "", err
		}
	}
	repo, err := c.Argo.Git.Create(migrationProject, files)
	if err != nil {
		return "", err
	}
	// Private, read with the team's Secret git-credentials (configYAML),
	// which the operator's GitCredentials names.
	c.Argo.Git.Protect(migrationProject, GitUser, c.GitPassword)
	if err := c.seedJenkins(ctx); err != nil {
		return "", fmt.Errorf("jenkins: %w", err)
	}
	if err := c.seedArgo(ctx, repo.URL); err != nil {
		return "", fmt.Errorf("argo cd: %w", err)
	}
	for _, e := range migrationEnvs() {
		if err := c.nsupdate(dns.Fqdn(e.domain), IngressAddress+"."); err != nil {
			return "", fmt.Errorf("dns: %w", err)
		}
	}
	ref, err := name.NewTag(c.Registry.Host+"/"+migrationImage+":"+migrationTag, name.Insecure)
	if err != nil {
		return "", err
	}
	img, err := random.Image(256, 1)
	if err != nil {
		return "", err
	}
	if err := remote.Write(ref, img, distribution.Auth(), remote.WithContext(ctx)); err != nil {
		return "", fmt.Errorf("push %s: %w", ref, err)
	}
	return repo.URL, nil
}

// seedJenkins makes the operator's folder and jobs (a pipeline script it
// generated, no owner line) and runs operatorBuilds builds of each.
func (c *Cluster) seedJenkins(ctx context.Context) error {
	const folder = `<com.cloudbees.hudson.plugins.folder.Folder plugin="cloudbees-folder"><description>freeleaps DevOps project blog</description></com.cloudbees.hudson.plugins.folder.Folder>`
	const job = `<flow-definition plugin="workflow-job"><description>Generated by the freeleaps DevOps operator from .freeleaps/devops.yaml</description><keepDependencies>false</keepDependencies><definition class="org.jenkinsci.plugins.workflow.cps.CpsFlowDefinition" plugin="workflow-cps"><script>pipeline { agent any; stages { stage('build') { steps { sh 'make image' } } } }</script><sandbox>true</sandbox></definition><disabled>false</disabled></flow-definition>`
	if err := c.jenkinsPost(ctx, "/createItem?name="+migrationFolder, folder); err != nil {
		return err
	}
	for _, e := range migrationEnvs() {
		if err := c.jenkinsPost(ctx, "/job/"+migrationFolder+"/createItem?name="+e.name, job); err != nil {
			return err
		}
	}
	// Jenkins keeps one queue item per job: each build is queued once the
	// one before finished.
	for n := 1; n <= operatorBuilds; n++ {
		for _, e := range migrationEnvs() {
			if err := c.jenkinsPost(ctx, "/job/"+migrationFolder+"/job/"+e.name+"/build", ""); err != nil {
				return err
			}
		}
		if err := c.waitBuilds(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// waitBuilds waits for every operator job to have n finished builds.
func (c *Cluster) waitBuilds(ctx context.Context, n int) error {
	return c.Wait(ctx, fmt.Sprintf("the operator's jobs to have %d finished builds", n), 2*time.Minute, func(ctx context.Context) (bool, string, error) {
		s, err := c.sandboxState(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		for _, e := range migrationEnvs() {
			j := s.Jobs[e.job()]
			done := 0
			for _, b := range j.Builds {
				if !b.Building && b.Result != "" {
					done++
				}
			}
			if done < n || j.Queued > 0 {
				return false, fmt.Sprintf("%s: %+v", e.job(), j), nil
			}
		}
		return true, "", nil
	})
}

// jenkinsPost sends a POST with an XML body ("" for none) to the fake
// Jenkins as the platform's user (an API token: no crumb).
func (c *Cluster) jenkinsPost(ctx context.Context, path, body string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.Sandbox.Jenkins.URL, "/")+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/xml")
	}
	req.SetBasicAuth(c.Sandbox.Jenkins.User, c.Sandbox.Jenkins.Secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode >= http.StatusBadRequest {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("POST %s: %s %s %s", path, resp.Status, resp.Header.Get("X-Error"), b)
	}
	return nil
}

// jenkinsGet reads path from the fake Jenkins.
func (c *Cluster) jenkinsGet(ctx context.Context, path string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.Sandbox.Jenkins.URL, "/")+path, nil)
	if err != nil {
		return "", err
	}
	req.SetBasicAuth(c.Sandbox.Jenkins.User, c.Sandbox.Jenkins.Secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return string(b), err
}

// seedArgo makes the operator's AppProject and applications, each synced
// once by an explicit operation (the operator's own sync), and waits for
// them to be Synced and Healthy.
func (c *Cluster) seedArgo(ctx context.Context, repo string) error {
	dests := []any{}
	for _, e := range migrationEnvs() {
		dests = append(dests, map[string]any{"server": inCluster, "namespace": e.namespace})
	}
	// The operator registered the repository globally, with its
	// credentials.
	reg := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "repo-" + migrationProject, Namespace: argocdserver.Namespace, Labels: map[string]string{"argocd.argoproj.io/secret-type": "repository"}},
		StringData: map[string]string{"type": "git", "url": repo, "username": GitUser, "password": c.GitPassword},
	}
	if err := c.Kube.Create(ctx, reg); err != nil {
		return err
	}
	proj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
		"metadata": map[string]any{"name": migrationAppProject, "namespace": argocdserver.Namespace},
		"spec": map[string]any{
			"description":  "freeleaps DevOps project blog",
			"sourceRepos":  []any{repo},
			"destinations": dests,
		},
	}}
	if err := c.Kube.Create(ctx, proj); err != nil {
		return err
	}
	for _, e := range migrationEnvs() {
		app := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": e.app(), "namespace": argocdserver.Namespace},
			"spec": map[string]any{
				"project":     migrationAppProject,
				"source":      map[string]any{"repoURL": repo, "path": "deploy/" + e.name, "targetRevision": appBranch},
				"destination": map[string]any{"server": inCluster, "namespace": e.namespace},
			},
			"operation": map[string]any{
				"initiatedBy": map[string]any{"username": "freeleaps-devops-operator"},
				"sync":        map[string]any{"revision": appBranch},
			},
		}}
		if err := c.Kube.Create(ctx, app); err != nil {
			return err
		}
	}
	return c.Wait(ctx, "the operator's applications to be synced", 3*time.Minute, func(ctx context.Context) (bool, string, error) {
		for _, e := range migrationEnvs() {
			app, err := c.Argo.Application(ctx, argocdserver.Namespace, e.app())
			if err != nil || app == nil {
				return false, fmt.Sprintf("%s: %v", e.app(), err), nil
			}
			sync, _, _ := unstructured.NestedString(app.Object, "status", "sync", "status")
			health, _, _ := unstructured.NestedString(app.Object, "status", "health", "status")
			phase, _, _ := unstructured.NestedString(app.Object, "status", "operationState", "phase")
			history, _, _ := unstructured.NestedSlice(app.Object, "status", "history")
			if sync != "Synced" || health != "Healthy" || phase != "Succeeded" || len(history) != 1 {
				return false, fmt.Sprintf("%s: %s/%s, operation %s, %d history entries", e.app(), sync, health, phase, len(history)), nil
			}
		}
		return true, "", nil
	})
}

// nsupdate adds a CNAME to BIND with the zone's key, as the operator did:
// no ownership record.
func (c *Cluster) nsupdate(fqdn, target string) error {
	rr, err := dns.NewRR(fmt.Sprintf("%s 300 IN CNAME %s", fqdn, target))
	if err != nil {
		return err
	}
	m := new(dns.Msg)
	m.SetUpdate(c.BIND.Zone)
	m.Insert([]dns.RR{rr})
	m.SetTsig(bind.KeyName, dns.HmacSHA256, 300, time.Now().Unix())
	cl := &dns.Client{Net: "tcp", Timeout: 5 * time.Second, TsigSecret: map[string]string{bind.KeyName: c.BIND.Secret}}
	r, _, err := cl.Exchange(m, c.BIND.Addr)
	if err != nil {
		return err
	}
	if r.Rcode != dns.RcodeSuccess {
		return fmt.Errorf("update %s: %s", fqdn, dns.RcodeToString[r.Rcode])
	}
	return nil
}

// operatorExport is what `kubectl get devopsprojects,argosettings,... -n
// team-blog -o yaml` shows of the operator's project (the runbook's step
// 4), in the shapes docs/migration.md assumes.
func operatorExport(repo string) string {
	const uid = "0b6c1a52-0000-4000-8000-0000000000b1"
	owner := fmt.Sprintf(`
    ownerReferences:
    - {apiVersion: freeleaps.com/v1alpha1, kind: DevOpsProject, name: %s, uid: %s}`, migrationProject, uid)
	meta := func(name string) string {
		return fmt.Sprintf("\n  metadata:\n    name: %s\n    namespace: %s", name, MigrationNamespace) + owner
	}
	var apps, dests, ingresses, envs []string
	for _, e := range migrationEnvs() {
		envs = append(envs, e.name)
		dests = append(dests, fmt.Sprintf("\n      - {server: %s, namespace: %s}", inCluster, e.namespace))
		apps = append(apps, fmt.Sprintf(`
    - name: %s
      project: %s
      environment: %s
      source: {repo_url: %q, path: deploy/%s, revision: %s}
      destination: {server: %s, namespace: %s}`, e.app(), migrationAppProject, e.name, repo, e.name, appBranch, inCluster, e.namespace))
		ingresses = append(ingresses, fmt.Sprintf(`
- apiVersion: freeleaps.com/v1alpha1
  kind: IngressResource%s
  spec:
    environment: %s
    domain: %s
    dns: {provider: rfc2136, zone: example.com, record_type: CNAME, target: %s}
    ingress_class: nginx`, meta(e.app()), e.name, e.domain, IngressAddress))
	}
	img := strings.SplitN(migrationImage, "/", 2)
	return fmt.Sprintf(`# The Kopf operator's objects of namespace %[1]s (kubectl get -o yaml).
apiVersion: v1
kind: List
items:
- apiVersion: freeleaps.com/v1alpha1
  kind: DevOpsProject
  metadata: {name: %[2]s, namespace: %[1]s, uid: %[3]s}
  spec:
    project_name: %[2]s
    git_repo: {url: %[4]q, branch: %[5]s}
    git_credentials: %[2]s-git
  status: {phase: Ready}
- apiVersion: freeleaps.com/v1alpha1
  kind: GitCredentials%[17]s
  spec:
    type: https
    secret_ref: {name: git-credentials}
    jenkins_credentials_id: %[2]s-git
- apiVersion: freeleaps.com/v1alpha1
  kind: ArgoSetting%[6]s
  spec:
    projects:
    - name: %[7]s
      destinations:%[8]s
    repositories:
    - {url: %[4]q, type: git}
    applications:%[9]s
- apiVersion: freeleaps.com/v1alpha1
  kind: JenkinsSetting%[10]s
  spec:
    project: %[2]s
    folder: %[11]s
    repo: {url: %[4]q, branch: %[5]s}
    environments: [%[12]s]
    config_path: .freeleaps/devops.yaml
- apiVersion: freeleaps.com/v1alpha1
  kind: ContainerRegistry%[13]s
  spec:
    registry_type: oci
    namespace: %[14]s
    name: %[15]s
    visibility: private%[16]s
`, MigrationNamespace, migrationProject, uid, repo, appBranch,
		meta(migrationProject+"-argo"), migrationAppProject, strings.Join(dests, ""), strings.Join(apps, ""),
		meta(migrationProject+"-jenkins"), migrationFolder, strings.Join(envs, ", "),
		meta(migrationProject+"-registry"), img[0], img[1], strings.Join(ingresses, ""),
		meta(migrationProject+"-git"))
}

// runCLI runs the built devopsctl and returns its stdout and stderr.
func runCLI(ctx context.Context, cli string, args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// No kubeconfig but the one passed: the CLI must not reach a cluster
	// of this machine's user.
	cmd.Env = append(os.Environ(), "KUBECONFIG=/nonexistent")
	if err := cmd.Run(); err != nil {
		return out.String(), errOut.String(), fmt.Errorf("devopsctl %s: %w\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String(), nil
}

// checkDryRun requires the dry run to print one DevOpsProject adopting
// every kind, and a report saying each operator object is adopted.
func checkDryRun(projects, report string) error {
	want := []string{"DevOpsProject " + MigrationNamespace + "/" + migrationProject + ": adopted", "adopts image repository " + migrationImage}
	for _, e := range migrationEnvs() {
		want = append(want, "adopts Jenkins job "+e.job(), "adopts Argo CD application "+e.app(), "adopts DNS record "+e.domain+" CNAME")
	}
	for _, w := range want {
		if !strings.Contains(report, w) {
			return fmt.Errorf("the dry run's report does not say %q:\n%s", w, report)
		}
	}
	var p struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Spec struct {
			AdoptExisting map[string]bool `json:"adoptExisting"`
			Environments  []struct {
				Name            string `json:"name"`
				ApplicationName string `json:"applicationName"`
			} `json:"environments"`
		} `json:"spec"`
	}
	docs := strings.Split(strings.TrimSpace(projects), "\n---\n")
	if len(docs) != 1 {
		return fmt.Errorf("the dry run printed %d documents, want one DevOpsProject:\n%s", len(docs), projects)
	}
	if err := yaml.Unmarshal([]byte(docs[0]), &p); err != nil {
		return err
	}
	adopt := map[string]bool{"pipelines": true, "applications": true, "dnsRecords": true, "registry": true}
	if p.Kind != "DevOpsProject" || p.Metadata.Name != migrationProject || p.Metadata.Namespace != MigrationNamespace || !reflect.DeepEqual(p.Spec.AdoptExisting, adopt) || len(p.Spec.Environments) != len(migrationEnvs()) {
		return fmt.Errorf("the dry run printed %+v, want DevOpsProject %s/%s adopting %v with %d environments:\n%s", p, MigrationNamespace, migrationProject, adopt, len(migrationEnvs()), projects)
	}
	return nil
}

// waitReady waits for a DevOpsProject's Ready condition.
func (c *Cluster) waitReady(ctx context.Context, namespace, project, what string, timeout time.Duration) error {
	return c.Wait(ctx, what, timeout, func(ctx context.Context) (bool, string, error) {
		xr, err := c.Get(ctx, xrAPIVersion, "DevOpsProject", namespace, project)
		if err != nil {
			return false, err.Error(), nil
		}
		st, reason, msg := Condition(xr, "Ready")
		return st == "True", reason + ": " + msg, nil
	})
}

// waitCompared waits for Argo CD to have compared each adopted
// application since the adoption (since): had the adoption changed what
// it deploys, its automated sync policy would have started an operation
// by then, which the application's operation field shows.
func (c *Cluster) waitCompared(ctx context.Context, since time.Time) error {
	return c.Wait(ctx, "Argo CD to compare the adopted applications", 3*time.Minute, func(ctx context.Context) (bool, string, error) {
		for _, e := range migrationEnvs() {
			app, err := c.Argo.Application(ctx, argocdserver.Namespace, e.app())
			if err != nil || app == nil {
				return false, fmt.Sprintf("%s: %v", e.app(), err), nil
			}
			if op, ok := app.Object["operation"]; ok {
				return false, "", fmt.Errorf("application %s has an operation after the adoption: %v", e.app(), op)
			}
			at, _, _ := unstructured.NestedString(app.Object, "status", "reconciledAt")
			sync, _, _ := unstructured.NestedString(app.Object, "status", "sync", "status")
			health, _, _ := unstructured.NestedString(app.Object, "status", "health", "status")
			t, err := time.Parse(time.RFC3339, at)
			// reconciledAt has seconds: compared in the second of the
			// adoption or later.
			if err != nil || t.Before(since.Truncate(time.Second)) || sync != "Synced" || health != "Healthy" {
				return false, fmt.Sprintf("%s: compared at %q, %s/%s", e.app(), at, sync, health), nil
			}
		}
		return true, "", nil
	})
}

// operatorState reads the operator's objects from the backends.
func (c *Cluster) operatorState(ctx context.Context) (operatorState, error) {
	s, err := c.sandboxState(ctx)
	if err != nil {
		return operatorState{}, err
	}
	o := operatorState{created: s.Created, deleted: s.Deleted, refused: s.Refused, argoCreates: map[string]int{}, builds: map[string][]string{}, apps: map[string]string{}, records: map[string][]string{}}
	for _, e := range migrationEnvs() {
		for _, b := range s.Jobs[e.job()].Builds {
			o.builds[e.job()] = append(o.builds[e.job()], fmt.Sprintf("#%d %s", b.Number, b.Result))
		}
		app, err := c.Argo.Application(ctx, argocdserver.Namespace, e.app())
		if err != nil || app == nil {
			return operatorState{}, fmt.Errorf("application %s: %v", e.app(), err)
		}
		history, _, _ := unstructured.NestedSlice(app.Object, "status", "history")
		started, _, _ := unstructured.NestedString(app.Object, "status", "operationState", "startedAt")
		h, err := json.Marshal(history)
		if err != nil {
			return operatorState{}, err
		}
		o.apps[e.app()] = fmt.Sprintf("uid %s, last operation started %s, history %s", app.GetUID(), started, h)
		o.records[e.domain] = c.BIND.Values(dns.Fqdn(e.domain), dns.TypeCNAME)
	}
	argo, err := c.Argo.Requests(ctx)
	if err != nil {
		return operatorState{}, err
	}
	for _, k := range []string{"argocd POST", "argocd DELETE", "argocd POST sync"} {
		o.argoCreates[k] = argo[k]
	}
	if o.allApps, err = c.Argo.Applications(ctx); err != nil {
		return operatorState{}, err
	}
	sort.Strings(o.allApps)
	r, err := name.NewRepository(c.Registry.Host+"/"+migrationImage, name.Insecure)
	if err != nil {
		return operatorState{}, err
	}
	if o.tags, err = remote.List(r, distribution.Auth(), remote.WithContext(ctx)); err != nil {
		return operatorState{}, err
	}
	d, err := remote.Head(r.Tag(migrationTag), distribution.Auth(), remote.WithContext(ctx))
	if err != nil {
		return operatorState{}, err
	}
	o.image = d.Digest.String()
	return o, nil
}

// unchanged fails if anything of the operator's was created, deleted or
// changed between o and after: builtJob has one build more.
func (o operatorState) unchanged(after operatorState, builtJob string) error {
	var changed []string
	if !reflect.DeepEqual(o.created, after.created) || !reflect.DeepEqual(o.deleted, after.deleted) || !reflect.DeepEqual(o.refused, after.refused) {
		changed = append(changed, fmt.Sprintf("Jenkins items created %v (was %v), deleted %v (was %v), creates refused %v (was %v)", after.created, o.created, after.deleted, o.deleted, after.refused, o.refused))
	}
	for job, builds := range o.builds {
		if got := after.builds[job]; len(got) < len(builds) || !reflect.DeepEqual(got[:len(builds)], builds) {
			changed = append(changed, fmt.Sprintf("job %s has builds %v, was %v", job, got, builds))
		} else if n := len(got) - len(builds); (job == builtJob) != (n == 1) || n > 1 {
			changed = append(changed, fmt.Sprintf("job %s has builds %v after the migration, was %v", job, got, builds))
		}
	}
	for _, m := range []struct {
		what          string
		before, after any
	}{
		{"Argo CD applications", o.apps, after.apps},
		{"the applications in Argo CD", o.allApps, after.allApps},
		{"Argo CD's application creates, deletes and syncs", o.argoCreates, after.argoCreates},
		{"DNS records", o.records, after.records},
		{"image " + migrationImage + ":" + migrationTag, o.image, after.image},
		{"image tags", o.tags, after.tags},
	} {
		if !reflect.DeepEqual(m.before, m.after) {
			changed = append(changed, fmt.Sprintf("%s: %v, was %v", m.what, m.after, m.before))
		}
	}
	if len(changed) > 0 {
		return fmt.Errorf("the migration changed the operator's objects: %s", strings.Join(changed, "; "))
	}
	return nil
}

// checkAdopted requires each adopted object to carry this provider's
// owner marker: the Jenkins job's description its owner line, the
// application the owner label (and the project's AppProject), the DNS
// record its ownership TXT. OCI registries keep no text to mark.
func (c *Cluster) checkAdopted(ctx context.Context) error {
	for _, e := range migrationEnvs() {
		cfg, err := c.jenkinsGet(ctx, "/job/"+migrationFolder+"/job/"+e.name+"/config.xml")
		if err != nil {
			return err
		}
		if !strings.Contains(cfg, "Managed by Crossplane provider-devops as JenkinsPipeline "+MigrationNamespace+"/") {
			return fmt.Errorf("job %s carries no owner line after the migration:\n%s", e.job(), cfg)
		}
		app, err := c.Argo.Application(ctx, argocdserver.Namespace, e.app())
		if err != nil || app == nil {
			return fmt.Errorf("application %s: %v", e.app(), err)
		}
		proj, _, _ := unstructured.NestedString(app.Object, "spec", "project")
		// The label names the owner as <namespace>.<name>.
		if owner := app.GetLabels()[contract.LabelOwner]; !strings.HasPrefix(owner, MigrationNamespace+"."+migrationProject+".") || proj != MigrationNamespace+"."+migrationProject {
			return fmt.Errorf("application %s has owner label %q and project %q after the migration, want an ArgoApplication of %s/%s's in AppProject %s.%s", e.app(), owner, proj, MigrationNamespace, migrationProject, MigrationNamespace, migrationProject)
		}
		owner := "_devops-owner-cname." + dns.Fqdn(e.domain)
		if v := c.BIND.Values(owner, dns.TypeTXT); len(v) != 1 || !strings.Contains(v[0], MigrationNamespace) {
			return fmt.Errorf("DNS record %s has ownership TXT %v after the migration", e.domain, v)
		}
	}
	c.logf("  owner markers: the jobs' owner lines, the applications' %s label (now in AppProject %s.%s), the records' TXT", contract.LabelOwner, MigrationNamespace, migrationProject)
	return nil
}

// checkRepositories requires the private repository registered for the
// project's AppProject, with the Secret the operator's GitCredentials
// named, beside the operator's global registration (left for step 9).
func (c *Cluster) checkRepositories(ctx context.Context, repo string) error {
	repos, err := c.Argo.Repositories(ctx)
	if err != nil {
		return err
	}
	for _, want := range []string{" " + repo + " Successful", MigrationNamespace + "." + migrationProject + " " + repo + " Successful"} {
		if !slices.Contains(repos, want) {
			return fmt.Errorf("Argo CD repositories %q, want %q among them", repos, want)
		}
	}
	c.logf("  repository %s: registered for AppProject %s.%s, beside the operator's global registration", repo, MigrationNamespace, migrationProject)
	return nil
}

// buildAfterMigration queues a build of the first environment's adopted
// job through its JenkinsPipeline's buildRequest and requires its number
// to follow the operator's builds.
func (c *Cluster) buildAfterMigration(ctx context.Context) (string, error) {
	e := migrationEnvs()[0]
	items, err := c.List(ctx, "jenkins.devops.freeleaps.io/v1alpha1", "JenkinsPipeline", client.InNamespace(MigrationNamespace),
		client.MatchingLabels{contract.LabelProject: migrationProject, contract.LabelEnvironment: e.name})
	if err != nil {
		return "", err
	}
	if len(items) != 1 {
		return "", fmt.Errorf("%d JenkinsPipelines of environment %s, want one", len(items), e.name)
	}
	p := &items[0]
	patch := []byte(`{"spec":{"forProvider":{"buildRequest":"after-migration"}}}`)
	if err := c.Kube.Patch(ctx, p, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return "", err
	}
	want := operatorBuilds + 1
	var got string
	err = c.Wait(ctx, fmt.Sprintf("build #%d of %s", want, e.job()), 2*time.Minute, func(ctx context.Context) (bool, string, error) {
		s, err := c.sandboxState(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		builds := s.Jobs[e.job()].Builds
		nums := []int{}
		for _, b := range builds {
			nums = append(nums, b.Number)
		}
		sort.Ints(nums)
		got = fmt.Sprint(nums)
		if len(builds) <= operatorBuilds {
			return false, "builds " + got, nil
		}
		last := nums[len(nums)-1]
		if len(builds) != want || last != want {
			return false, "", fmt.Errorf("job %s has builds %s after the build request, want %d numbered %d", e.job(), got, want, want)
		}
		for _, b := range builds {
			if b.Number == want && (b.Building || b.Result == "") {
				return false, fmt.Sprintf("build #%d runs", want), nil
			}
		}
		return true, "", nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("a build requested through JenkinsPipeline %s is #%d of %s (builds %s)", p.GetName(), want, e.job(), got), nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
