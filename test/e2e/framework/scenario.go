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
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/miekg/dns"
	amqp "github.com/rabbitmq/amqp091-go"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/bind"
	"github.com/freeleaps/provider-devops/internal/testing/distribution"
	"github.com/freeleaps/provider-devops/internal/testing/sandbox"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// The project the scenario creates.
const (
	ProjectNamespace = "team-shop"
	Project          = "shop"
	// ShortTTL is the preview environment's time to live.
	ShortTTL   = 90 * time.Second
	previewEnv = "pr-7"
	deployEnv  = "dev"
	// deployJob is its Jenkins job: the Composition puts a team's jobs in
	// teams/<namespace>/<project>.
	deployJob = "teams/" + ProjectNamespace + "/" + Project + "/" + deployEnv
	// revision is what the deploy request asks to build (a branch of the
	// application's source); the build commits what it produced on
	// appBranch of the GitOps repository and reports that commit, which the
	// deployment syncs.
	revision = "main"
	// appBranch is the branch of the GitOps repository the applications
	// track.
	appBranch = "main"
	// manifestPath is each environment's ConfigMap in the GitOps
	// repository; a build bumps its environment's.
	manifestPath = "deploy/{environment}/configmap.yaml"
	// DeployUser is the broker user (a CI system) the project's
	// ProviderConfig lets request deploys.
	DeployUser = "ci-shop"
	// GitUser reads the project's private repository.
	GitUser = "shop-reader"
	// TeamUser is the team's Kubernetes user: it may manage DevOpsProjects
	// and DeployRuns in ProjectNamespace, and nothing else.
	TeamUser = "shop-developer"
)

// Environments of the project and the DNS names they get.
var Environments = map[string]string{
	"prod":     "shop.example.com",
	"staging":  "staging.shop.example.com",
	deployEnv:  "dev.shop.example.com",
	previewEnv: "pr-7.shop.example.com",
}

// Report is what a scenario run measured and saw.
type Report struct {
	// Previews, when RunPreviews ran after the scenario, is what it
	// measured.
	Previews *PreviewReport
	// Trace is the deployment's trace as Jaeger returned it, a line per
	// span ("" without Config.JaegerQuery).
	Trace string
	// Ready is the time from creating the DevOpsProject to its Ready.
	Ready time.Duration
	// Watch is what woke the XR controller until then.
	Watch WatchTally
	// Table is the environment table printed once the project was Ready;
	// ArgoTable the applications as Argo CD reports them; Ingresses the
	// Ingress Argo CD created for each environment (host, class, TLS
	// secret, issuer).
	Table, ArgoTable, Ingresses string
	// ingressUIDs are the environments' Ingresses once Ready.
	ingressUIDs map[string]types.UID
	// Steady is the window the steady state was measured over, with the
	// provider's Kubernetes API requests and the fakes' requests by
	// backend and method in it.
	Steady            time.Duration
	SteadyAPIRequests int
	SteadyAPI         map[string]int
	SteadyBackend     map[string]int
	// DeployQueued is the time from publishing the deploy request to the
	// build reaching Jenkins; Build is that build's number and result.
	DeployQueued time.Duration
	// Crash is the leader killed mid-create, and Failovers the leaders
	// evicted (the pods runtime), with how long each change took.
	Crash     string
	Failovers []string
	// Upgrade is what installing the packages' second build changed, and
	// Rollback the same for a provider build that cannot start and the
	// return to the working one.
	Upgrade, Rollback string
	Build             string
	// Deployed is the time from publishing the deploy request to its
	// DeployRun Succeeded; Timeline its phases; Revision the commit the
	// build made and the deployment synced; History the namespace's
	// DeployRuns as kubectl lists them.
	Deployed time.Duration
	Timeline []string
	Revision string
	History  string
	// Legacy sums up the heartbeats the replaced operator's UI received;
	// LegacyFinal is how many, up to the final one.
	Legacy      string
	LegacyFinal int
	// Expired is the time from creation until the preview environment's
	// external objects were gone.
	Expired time.Duration
	// Deleted is the time from deleting the project until everything was
	// cleaned up.
	Deleted time.Duration
	// Recreated is the time from creating the deleted project again, with
	// prod only, to Ready: prod's orphaned objects taken back.
	Recreated time.Duration
	// Events counts the lifecycle events seen on the stream, by type;
	// EventsResent those that arrived again with the same id.
	Events       map[string]int
	EventsResent int
	// Readiness is when each backend object became ready and each
	// resource, environment and the project reported Ready.
	Readiness readiness
	// Memory of the provider and the function at the end.
	Provider, Function Memory
}

// RunScenario is what a platform team does on day one, asserting each step:
// credentials and a ProviderConfig, a DevOpsProject with four environments
// (one a preview with a two-minute TTL that retains its DNS record), each
// with an Ingress from its Helm chart or Kustomize overlay, a deploy request
// over RabbitMQ (its build commits a new revision, which the deployment
// syncs; the replaced operator's UI follows it on its legacy heartbeats),
// the preview's expiry, and deleting the project. It returns at the first
// step that does not turn out as expected.
func (c *Cluster) RunScenario(ctx context.Context, steady time.Duration) (*Report, error) {
	r := &Report{Steady: steady}
	// No ingress controller or cert-manager runs: the scenario plays them,
	// giving Ingresses their address and Certificates their Ready
	// condition, without which Argo CD reports the applications
	// Progressing.
	stopIngress := c.playIngressControllers(ctx)
	defer stopIngress()
	stream, err := c.watchEvents()
	if err != nil {
		return r, err
	}
	defer stream.close()
	ui, err := c.watchLegacy()
	if err != nil {
		return r, err
	}
	defer ui.close()

	c.logf("the platform: its ClusterProviderConfig and credentials in %s, namespace %s and its team's role (DevOpsProjects and DeployRuns only)", Namespace, ProjectNamespace)
	if err := c.Apply(ctx, c.platformYAML()); err != nil {
		return r, err
	}
	team, err := c.teamClient(ctx)
	if err != nil {
		return r, err
	}
	c.logf("the team (user %s) creating the DevOpsProject %s/%s", TeamUser, ProjectNamespace, Project)
	if err := c.armCrash(ctx); err != nil {
		return r, err
	}
	stopTally, err := c.tallyWatchEvents(ctx)
	if err != nil {
		return r, err
	}
	c.logf("Crossplane's XR circuit breaker before the creation: %s", c.breakerMetrics(ctx))
	if err := team.Create(ctx, c.project()); err != nil {
		stopTally()
		return r, fmt.Errorf("the team's DevOpsProject: %w", err)
	}
	created := time.Now()
	stopWatch := c.watchEnvironments(ctx)
	stopWatch = func(stop func() map[string]time.Time) func() map[string]time.Time {
		return func() map[string]time.Time { r.Watch = stopTally(); return stop() }
	}(stopWatch)
	// The leader crashes in its first job's create; then the replica that
	// took over is deleted while the creation goes on. The last one
	// finishes the job.
	crashed, err := c.crashMidCreate(ctx, r)
	if err != nil {
		stopWatch()
		return r, err
	}
	if err := c.failover(ctx, r, "the project's creation"); err != nil {
		stopWatch()
		return r, err
	}
	if err := c.waitProjectReady(ctx, "the DevOpsProject to be Ready", 5*time.Minute); err != nil {
		stopWatch()
		return r, err
	}
	if err := c.checkCreatedOnce(ctx, crashed); err != nil {
		stopWatch()
		return r, err
	}
	composed, err := c.projectResources(ctx)
	if err != nil {
		stopWatch()
		return r, err
	}
	if _, err := c.checkEvents(ctx, stream, composed); err != nil {
		stopWatch()
		return r, err
	}
	r.Ready = time.Since(created)
	envReady := stopWatch()
	c.logf("DevOpsProject Ready after %s", r.Ready.Round(100*time.Millisecond))
	if r.Readiness, err = c.readinessTimeline(ctx, envReady); err != nil {
		return r, err
	}
	c.logf("when each backend object became ready and each resource, environment and the project reported Ready (seconds since the project was created); environment gaps p50 %.1fs, project gap %s:\n%sCrossplane's XR circuit breaker: %s", r.Readiness.P50().Seconds(), r.Readiness.XRGap, r.Readiness.Table, r.Readiness.Breaker)
	c.logf("%d watch events woke the project's XR controller until it was Ready (its circuit breaker allows 100, then 1 a second): %s\n%s", r.Watch.Total, r.Watch.Tokens, r.Watch.Table)
	if r.Table, err = c.environmentTable(ctx, true); err != nil {
		return r, err
	}
	c.logf("environments:\n%s", r.Table)
	trace, err := c.Trace(ctx)
	if err != nil {
		return r, err
	}
	c.logf("crossplane beta trace devopsproject %s -n %s:\n%s", Project, ProjectNamespace, trace)
	if r.ArgoTable, err = c.argoTable(ctx); err != nil {
		return r, err
	}
	c.logf("Argo CD applications (read from Argo CD), each synced into this control plane:\n%s", r.ArgoTable)
	if r.Ingresses, r.ingressUIDs, err = c.checkIngresses(ctx); err != nil {
		return r, err
	}
	c.logf("Ingresses Argo CD created in the environments' namespaces (addresses set by the played ingress controller):\n%s", r.Ingresses)
	if err := c.checkDNS(Environments, nil); err != nil {
		return r, err
	}

	if err := c.expire(ctx, r, created); err != nil {
		return r, err
	}
	// Once the preview expired nothing is due: the steady state, and the
	// upgrade, which must change nothing. The deployment's commit comes
	// after them, as Argo CD brings every application to it in its own
	// time.
	if err := c.measureSteadyState(ctx, r); err != nil {
		return r, err
	}
	if err := c.upgrade(ctx, r); err != nil {
		return r, err
	}
	// Each leader that started since (after the crash, the failover and
	// the upgrade) sent recent transitions again, with their first ids.
	if r.EventsResent, err = c.checkEvents(ctx, stream, composed); err != nil {
		return r, err
	}
	if err := c.deploy(ctx, r, ui); err != nil {
		return r, err
	}
	if err := c.deleteProject(ctx, r); err != nil {
		return r, err
	}
	if err := c.recreateProject(ctx, r); err != nil {
		return r, err
	}
	if err := ui.checkAfter(r); err != nil {
		return r, err
	}
	if err := c.checkCreatedOnce(ctx, ""); err != nil {
		return r, err
	}
	r.Events = stream.counts()
	for _, want := range []string{"created", "ready", "expired", "deleted"} {
		if r.Events[want] == 0 {
			return r, fmt.Errorf("no %s event on the stream; seen: %v", want, r.Events)
		}
	}
	if r.Provider, err = c.ProviderMemory(ctx); err != nil {
		return r, err
	}
	if r.Function, err = c.FunctionMemory(ctx); err != nil {
		return r, err
	}
	return r, nil
}

const xrAPIVersion = "platform.freeleaps.io/v1alpha1"

// project is the team's DevOpsProject. It names no config: the shipped
// Composition's default, the platform's ClusterProviderConfig, serves it;
// its environments deploy to the default team-shop--shop-<environment>
// and its jobs go to the Composition's teams/team-shop/shop.
func (c *Cluster) project() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(c.projectYAML()), &u.Object); err != nil {
		panic(err) // the scenario's own constant YAML
	}
	return u
}

func (c *Cluster) projectYAML() string {
	return fmt.Sprintf(`
apiVersion: %[2]s
kind: DevOpsProject
metadata: {name: %[3]s, namespace: %[1]s}
spec:
  git: {url: %[7]q, branch: `+appBranch+`, jenkinsCredentialsId: git-readonly, credentialsSecretRef: {name: git-credentials}}
  registry: {namespace: `+ProjectNamespace+`, name: shop, visibility: private}
  pipeline: {scriptPath: Jenkinsfile}
  dns: {zone: example.com, target: %[8]s., type: CNAME}
  # Each environment's host, class, TLS secret and issuer handed to its
  # manifests (ingresses): Helm values for the charts, Kustomize patches for
  # the overlays.
  source: {type: Helm}
  ingress:
    enabled: true
    className: nginx
    issuer: {kind: ClusterIssuer, name: letsencrypt}
  environments:
  - {name: prod, domain: shop.example.com}
  - {name: staging, domain: staging.shop.example.com, deletionPolicy: Delete}
  - name: %[4]s
    domain: dev.shop.example.com
    deletionPolicy: Delete
    sourceType: Kustomize
    ingress: {tls: false}
  - name: %[5]s
    domain: pr-7.shop.example.com
    ttl: %[6]s
    retain: [DNSRecord]
    sourceType: Kustomize
    ingress: {issuer: {kind: Issuer, name: preview-ca}}
`, ProjectNamespace, xrAPIVersion, Project, deployEnv, previewEnv, ShortTTL, c.Argo.Apps.URL, IngressAddress)
}

// platformYAML is what a platform team sets up: the backends' credentials
// in the provider's namespace, the ClusterProviderConfig "default" the
// shipped Composition names (serving the team's namespace only, bounded
// by its default tenancy), the team's namespace with the Secret Argo CD
// reads the team's private repository with, and a Role that lets the team
// manage DevOpsProjects and DeployRuns and nothing else: no Secrets, no
// ProviderConfigs.
func (c *Cluster) platformYAML() string {
	return c.backendsSecret(Namespace, "devops-platform-backends") + fmt.Sprintf(`---
apiVersion: devops.freeleaps.io/v1alpha1
kind: ClusterProviderConfig
metadata: {name: default}
spec:
  allowedNamespaces: [%[1]s]
%[2]s---
`, ProjectNamespace, c.backendsSpec("devops-platform-backends", Namespace, `    tenancy:
      clusterResources: [{group: "", kind: Namespace}]
`)) + c.teamNamespaceYAML(ProjectNamespace) + fmt.Sprintf(`---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: devops-team, namespace: %[1]s}
rules:
- apiGroups: [platform.freeleaps.io]
  resources: [devopsprojects]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [devops.freeleaps.io]
  resources: [deployruns]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: devops-team, namespace: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: devops-team}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: %[2]s}
`, ProjectNamespace, TeamUser)
}

// teamClient is a client acting as the team's user, after checking that
// RBAC grants it DevOpsProjects and no Secret: the platform path must
// work with exactly those rights.
func (c *Cluster) teamClient(ctx context.Context) (client.Client, error) {
	team, err := c.asTeam()
	if err != nil {
		return nil, err
	}
	if err := team.List(ctx, &corev1.SecretList{}, client.InNamespace(ProjectNamespace)); !kerrors.IsForbidden(err) {
		return nil, fmt.Errorf("the team may list Secrets in %s (%v): the role must grant DevOpsProjects and DeployRuns only", ProjectNamespace, err)
	}
	secrets := &corev1.SecretList{}
	if err := c.Kube.List(ctx, secrets, client.InNamespace(ProjectNamespace)); err != nil {
		return nil, err
	}
	for _, s := range secrets.Items {
		if s.Name != "git-credentials" {
			return nil, fmt.Errorf("secret %s/%s: no backend credential may sit in the team's namespace", s.Namespace, s.Name)
		}
	}
	return team, nil
}

// asTeam is a client acting as the team's user.
func (c *Cluster) asTeam() (client.Client, error) {
	cfg := rest.CopyConfig(c.REST)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: TeamUser, Groups: []string{"system:authenticated"}}
	return client.New(cfg, client.Options{Scheme: c.Kube.Scheme()})
}

// configYAML is a team's namespace with its backends' credentials and a
// ProviderConfig "default" for the scenario's backends: the team's own
// credentials path, which the soak runs.
func (c *Cluster) configYAML(namespace string) string {
	return c.teamNamespaceYAML(namespace) + "---" + c.backendsSecret(namespace, "devops-backends") + fmt.Sprintf(`---
apiVersion: devops.freeleaps.io/v1alpha1
kind: ProviderConfig
metadata: {name: default, namespace: %s}
spec:
%s`, namespace, c.backendsSpec("devops-backends", "", ""))
}

// teamNamespaceYAML is a team's namespace and the Secret Argo CD reads the
// team's private repository with.
func (c *Cluster) teamNamespaceYAML(namespace string) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: v1
kind: Secret
metadata: {name: git-credentials, namespace: %[1]s, labels: {devops.freeleaps.io/git-repository: "true"}}
stringData:
  username: %[2]s
  password: %[3]q
`, namespace, GitUser, c.GitPassword)
}

// backendsSecret is the Secret name in namespace holding the scenario's
// backend credentials.
func (c *Cluster) backendsSecret(namespace, name string) string {
	sb := c.Sandbox
	jenkins, _ := json.Marshal(map[string]string{"username": sb.Jenkins.User, "token": sb.Jenkins.Secret})
	reg, _ := json.Marshal(map[string]string{"username": distribution.User, "password": distribution.Password})
	return fmt.Sprintf(`
apiVersion: v1
kind: Secret
metadata: {name: %s, namespace: %s}
stringData:
  jenkins: '%s'
  argocd: %q
  tsig: %q
  registry: '%s'
`, name, namespace, jenkins, c.Argo.Token, c.BIND.Secret, reg) + c.forgeSecret()
}

// backendsSpec is a config's backend sections (indented as spec fields),
// reading their credentials from the Secret secret in secretNamespace
// ("": the config's own namespace); argocdExtra ends the argocd section.
func (c *Cluster) backendsSpec(secret, secretNamespace, argocdExtra string) string {
	ref := "{name: " + secret
	if secretNamespace != "" {
		ref += ", namespace: " + secretNamespace
	}
	return fmt.Sprintf(`  jenkins:
    url: %[2]s
    deployUsers: [`+DeployUser+`]
    credentials: {source: Secret, secretRef: %[1]s, key: jenkins}}
  argocd:
    url: %[3]s
    namespace: argocd
    credentials: {source: Secret, secretRef: %[1]s, key: argocd}}
%[7]s  dns:
    provider: rfc2136
    rfc2136: {server: %[4]q, keyName: %[5]q, keyAlgorithm: hmac-sha256}
    credentials: {source: Secret, secretRef: %[1]s, key: tsig}}
  registry:
    kind: oci
    url: %[6]s
    credentials: {source: Secret, secretRef: %[1]s, key: registry}}
`, ref, c.reachURL(c.Sandbox.Jenkins.URL), c.reachURL(c.Argo.URL), c.reach(c.BIND.Addr), bind.KeyName, c.reachURL(c.Registry.URL), argocdExtra) + c.forgeSpec(ref)
}

// environmentTable renders the XR's status.environments, each with the URL
// its TLS setting gives (https://, or http:// without TLS); healthy requires
// every environment Synced and Healthy.
func (c *Cluster) environmentTable(ctx context.Context, healthy bool) (string, error) {
	xr, err := c.Get(ctx, xrAPIVersion, "DevOpsProject", ProjectNamespace, Project)
	if err != nil {
		return "", err
	}
	envs, _, _ := unstructured.NestedSlice(xr.Object, "status", "environments")
	if len(envs) != len(Environments) {
		return "", fmt.Errorf("status.environments has %d entries, want %d: %v", len(envs), len(Environments), envs)
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, "ENVIRONMENT\tPHASE\tURL\tPIPELINE\tSYNC\tHEALTH\tEXPIRES AT")
	for _, item := range envs {
		e, _ := item.(map[string]any)
		get := func(k string) string {
			if v, ok := e[k].(string); ok && v != "" {
				return v
			}
			return "-"
		}
		_, _ = fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", get("name"), get("phase"), get("url"), get("pipelineURL"), get("sync"), get("health"), get("expiresAt"))
		if want := envURL(get("name")); get("url") != want {
			return "", fmt.Errorf("environment %s has url %q, want %q", get("name"), get("url"), want)
		}
		if healthy && (get("sync") != "Synced" || get("health") != "Healthy") {
			return "", fmt.Errorf("environment %s is Ready but not Synced and Healthy: %v", get("name"), e)
		}
	}
	_ = w.Flush()
	return b.String(), nil
}

// argoTable renders the project's applications as Argo CD reports them, with
// the kinds of the resources each manages, and requires each Synced and
// Healthy with its ConfigMap deployed into its namespace of this control
// plane.
func (c *Cluster) argoTable(ctx context.Context) (string, error) {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, "APPLICATION\tPROJECT\tSYNC\tHEALTH\tREVISION\tDESTINATION\tRESOURCES")
	// The applications belong to the project's own AppProject, which
	// allows exactly their destinations.
	appProject := appProjectName()
	for _, env := range envOrder {
		name := appName(env)
		app, err := c.Argo.Application(ctx, argocdserver.Namespace, name)
		if err != nil || app == nil {
			return "", fmt.Errorf("application %s not in Argo CD (%v)", name, err)
		}
		sync, _, _ := unstructured.NestedString(app.Object, "status", "sync", "status")
		rev, _, _ := unstructured.NestedString(app.Object, "status", "sync", "revision")
		health, _, _ := unstructured.NestedString(app.Object, "status", "health", "status")
		ns, _, _ := unstructured.NestedString(app.Object, "spec", "destination", "namespace")
		if proj, _, _ := unstructured.NestedString(app.Object, "spec", "project"); proj != appProject {
			return "", fmt.Errorf("application %s is in Argo CD project %q, want the DevOpsProject's own %q", name, proj, appProject)
		}
		cm := &corev1.ConfigMap{}
		if err := c.Kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: appConfigMap(env)}, cm); err != nil {
			return "", fmt.Errorf("application %s is %s/%s but its ConfigMap %s is not in %s: %v", name, sync, health, appConfigMap(env), ns, err)
		}
		res, _, _ := unstructured.NestedSlice(app.Object, "status", "resources")
		kinds := []string{}
		for _, x := range res {
			if m, ok := x.(map[string]any); ok {
				kinds = append(kinds, fmt.Sprint(m["kind"]))
			}
		}
		sort.Strings(kinds)
		deployed := strings.Join(kinds, ",")
		if len(rev) > 7 {
			rev = rev[:7]
		}
		_, _ = fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, appProject, sync, health, rev, ns, deployed)
	}
	_ = w.Flush()
	// The private repository is registered for the project's AppProject
	// only, so its credentials serve no other team's applications.
	repos, err := c.Argo.Repositories(ctx)
	if err != nil {
		return "", err
	}
	want := appProject + " " + c.Argo.Apps.URL + " Successful"
	if len(repos) != 1 || repos[0] != want {
		return "", fmt.Errorf("Argo CD repositories %q, want exactly %q", repos, want)
	}
	_, _ = fmt.Fprintf(&b, "repository %s: registered for project %s only, connection Successful\n", c.Argo.Apps.URL, appProject)
	return b.String(), nil
}

// checkDNS requires a CNAME in BIND for every name in present and none for
// those in absent.
func (c *Cluster) checkDNS(present, absent map[string]string) error {
	for env, name := range present {
		if v := c.BIND.Values(name+".", dns.TypeCNAME); len(v) != 1 || v[0] != IngressAddress+"." {
			return fmt.Errorf("BIND answers %v for %s (environment %s), want %s.", v, name, env, IngressAddress)
		}
	}
	for env, name := range absent {
		if v := c.BIND.Values(name+".", dns.TypeCNAME); len(v) != 0 {
			return fmt.Errorf("BIND still answers %v for %s (environment %s)", v, name, env)
		}
	}
	return nil
}

func (c *Cluster) sandboxState(ctx context.Context) (*sandbox.State, error) {
	body, err := httpGet(ctx, c.Sandbox.Control)
	if err != nil {
		return nil, err
	}
	s := &sandbox.State{}
	return s, json.Unmarshal(body, s)
}

func httpGet(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// providerAPIRequests reads the provider's API requests: its GETs, and
// its writes by verb and kind.
func (c *Cluster) providerAPIRequests(ctx context.Context) (map[string]int, error) {
	u, err := c.providerMetricsURL(ctx)
	if err != nil {
		return nil, err
	}
	body, err := httpGet(ctx, u)
	if err != nil {
		return nil, err
	}
	// Reads from client-go's own counter; writes from the provider's, by
	// verb and kind: client-go's would count leader election's lease
	// renewals too.
	return sumCounters(string(body), func(line string) string {
		switch {
		case strings.HasPrefix(line, "rest_client_requests_total{") && metricLabel(line, "method") == "GET":
			return "GET"
		case strings.HasPrefix(line, "provider_devops_kube_writes_total{"):
			return metricLabel(line, "verb") + " " + metricLabel(line, "kind")
		}
		return ""
	})
}

// sumCounters sums the samples of a Prometheus text exposition by the key
// key gives each line ("" leaves the line out).
func sumCounters(body string, key func(line string) string) (map[string]int, error) {
	sums := map[string]int{}
	s := bufio.NewScanner(strings.NewReader(body))
	for s.Scan() {
		line := s.Text()
		k := key(line)
		if k == "" {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return nil, fmt.Errorf("cannot parse %q: %w", line, err)
		}
		sums[k] += int(v)
	}
	return sums, s.Err()
}

// metricLabel is the value of label name in a sample line.
func metricLabel(line, name string) string {
	_, rest, _ := strings.Cut(line, name+`="`)
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// requestCounts reads the provider's API requests by method and the fakes'
// requests by backend and method, so far.
func (c *Cluster) requestCounts(ctx context.Context) (api, backend map[string]int, err error) {
	if api, err = c.providerAPIRequests(ctx); err != nil {
		return nil, nil, err
	}
	s, err := c.sandboxState(ctx)
	if err != nil {
		return nil, nil, err
	}
	argo, err := c.Argo.Requests(ctx)
	if err != nil {
		return nil, nil, err
	}
	backend = s.Requests
	for k, v := range argo {
		backend[k] = v
	}
	return api, backend, nil
}

// delta is what grew from before to after, leaving out what did not.
func delta(before, after map[string]int) map[string]int {
	d := map[string]int{}
	for k, v := range after {
		if n := v - before[k]; n != 0 {
			d[k] = n
		}
	}
	return d
}

// measureSteadyState counts the provider's API requests and the backends'
// requests while nothing changes.
func (c *Cluster) measureSteadyState(ctx context.Context, r *Report) error {
	// With the real Argo CD, a sync's operation can finish just after the
	// application reports Synced and Healthy, which the provider then
	// records once, and a deleted environment's last writes trail its
	// backend objects: the steady state starts when the provider has
	// written nothing for a while.
	settled := time.Now()
	if err := c.Wait(ctx, "the provider to stop writing after Ready", 2*time.Minute, func(ctx context.Context) (bool, string, error) {
		before, err := c.providerAPIRequests(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		select {
		case <-ctx.Done():
			// Wait reports the last status it saw.
			return false, "", nil
		case <-time.After(10 * time.Second):
		}
		after, err := c.providerAPIRequests(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		writes := delta(before, after)
		delete(writes, "GET")
		return len(writes) == 0, fmt.Sprintf("writes in the last 10s: %v", writes), nil
	}); err != nil {
		return err
	}
	c.logf("  settled: no write by the provider for 10s (after %s)", time.Since(settled).Round(time.Second))
	c.logf("measuring the steady state for %s", r.Steady)
	versions0 := c.managedVersions(ctx)
	api0, backend0, err := c.requestCounts(ctx)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(r.Steady):
	}
	api1, backend1, err := c.requestCounts(ctx)
	if err != nil {
		return err
	}
	r.SteadyAPI, r.SteadyBackend = delta(api0, api1), delta(backend0, backend1)
	for _, n := range r.SteadyAPI {
		r.SteadyAPIRequests += n
	}
	for method, n := range r.SteadyAPI {
		if method != "GET" {
			return fmt.Errorf("the provider wrote to the API server in the steady state: %d × %s (all: %v); managed resources changed meanwhile: %s", n, method, r.SteadyAPI, c.changedSince(ctx, versions0))
		}
	}
	for k, n := range r.SteadyBackend {
		if !strings.HasSuffix(k, " GET") {
			return fmt.Errorf("the provider wrote to a backend in the steady state: %d × %s (all: %v)", n, k, r.SteadyBackend)
		}
	}
	c.logf("  Kubernetes API requests by the provider %s; backend requests %s", counts(r.SteadyAPI), counts(r.SteadyBackend))
	return nil
}

// expire waits for the preview environment's TTL: its pipeline and
// application must be deleted from Jenkins and Argo CD, its Ingress by Argo
// CD's cascade, and its DNS record, which it retains, kept in BIND.
func (c *Cluster) expire(ctx context.Context, r *Report, created time.Time) error {
	c.logf("waiting for %s to expire (%s after creation, %s from now)", previewEnv, ShortTTL, time.Until(created.Add(ShortTTL)).Round(time.Second))
	err := c.Wait(ctx, previewEnv+"'s pipeline and application to be deleted", ShortTTL+4*time.Minute, func(ctx context.Context) (bool, string, error) {
		s, err := c.sandboxState(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		left := []string{}
		for job := range s.Jobs {
			if strings.HasSuffix(job, "/"+previewEnv) {
				left = append(left, "job "+job)
			}
		}
		apps, err := c.Argo.Applications(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		for _, app := range apps {
			if strings.HasSuffix(app, "-"+previewEnv) {
				left = append(left, "application "+app)
			}
		}
		return len(left) == 0, fmt.Sprintf("still there: %v", left), nil
	})
	if err != nil {
		return err
	}
	r.Expired = time.Since(created)
	c.logf("  %s expired: its Jenkins job and Argo CD application are gone (%s after creation)", previewEnv, r.Expired.Round(time.Second))
	if err := c.checkDNS(map[string]string{previewEnv: Environments[previewEnv]}, nil); err != nil {
		return fmt.Errorf("the retained DNS record: %w", err)
	}
	c.logf("  its DNS record %s is retained in BIND", Environments[previewEnv])
	if err := c.waitIngressesGone(ctx, previewEnv); err != nil {
		return err
	}
	c.logf("  its Ingress in %s is deleted by Argo CD's cascade", envNamespace(previewEnv))
	table, err := c.environmentTable(ctx, false)
	if err != nil {
		return err
	}
	c.logf("environments:\n%s", table)
	return nil
}

// deleteProject deletes the XR and waits until every managed resource and
// every external object it made is gone (but the retained DNS record).
func (c *Cluster) deleteProject(ctx context.Context, r *Report) error {
	c.logf("deleting the DevOpsProject")
	xr, err := c.Get(ctx, xrAPIVersion, "DevOpsProject", ProjectNamespace, Project)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := c.Kube.Delete(ctx, xr, client.PropagationPolicy("Foreground")); err != nil {
		return err
	}
	// prod has no ttl and no deletionPolicy: deleting the project orphans
	// its job (build history), application (workloads) and DNS record, and
	// the AppProject and repository credentials its application uses.
	orphaned := []string{
		"Argo CD application " + appName("prod"),
		"Argo CD repository " + appProjectName() + " " + c.Argo.Apps.URL + " Successful",
		"Jenkins job teams/" + ProjectNamespace + "/" + Project + "/prod",
	}
	kinds := []struct{ apiVersion, kind string }{
		{"jenkins.devops.freeleaps.io/v1alpha1", "JenkinsPipeline"},
		{"argocd.devops.freeleaps.io/v1alpha1", "ArgoApplication"},
		{"argocd.devops.freeleaps.io/v1alpha1", "ArgoProject"},
		{"argocd.devops.freeleaps.io/v1alpha1", "ArgoRepository"},
		{"dns.devops.freeleaps.io/v1alpha1", "DNSRecord"},
		{"registry.devops.freeleaps.io/v1alpha1", "RegistryRepo"},
		{xrAPIVersion, "DevOpsProject"},
	}
	order := newTeardown()
	err = c.Wait(ctx, "the project's resources to be deleted", 4*time.Minute, func(ctx context.Context) (bool, string, error) {
		left := []string{}
		var seen []unstructured.Unstructured
		for _, k := range kinds {
			items, err := c.List(ctx, k.apiVersion, k.kind, client.InNamespace(ProjectNamespace))
			if err != nil {
				return false, err.Error(), nil
			}
			for _, it := range items {
				left = append(left, k.kind+"/"+it.GetName())
			}
			seen = append(seen, items...)
		}
		order.saw(seen, time.Now())
		s, err := c.sandboxState(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		for job := range s.Jobs {
			left = append(left, "Jenkins job "+job)
		}
		apps, err := c.Argo.Applications(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		for _, app := range apps {
			left = append(left, "Argo CD application "+app)
		}
		repos, err := c.Argo.Repositories(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		for _, r := range repos {
			left = append(left, "Argo CD repository "+r)
		}
		sort.Strings(left)
		return strings.Join(left, "\n") == strings.Join(orphaned, "\n"), fmt.Sprintf("still there: %v, want exactly the orphaned %v", left, orphaned), nil
	})
	if err != nil {
		return err
	}
	if err := order.check(); err != nil {
		return err
	}
	c.logf("  %s", order)
	absent := map[string]string{}
	for env, name := range Environments {
		if env != previewEnv && env != "prod" {
			absent[env] = name
		}
	}
	if err := c.checkDNS(map[string]string{previewEnv: Environments[previewEnv], "prod": Environments["prod"]}, absent); err != nil {
		return err
	}
	if _, err := c.Argo.Project(ctx, appProjectName()); err != nil {
		return fmt.Errorf("the orphaned application's AppProject: %w", err)
	}
	app, err := c.Argo.Application(ctx, argocdserver.Namespace, appName("prod"))
	if err != nil || app == nil {
		return fmt.Errorf("the orphaned application %s-prod: %v", Project, err)
	}
	if sync, _, _ := unstructured.NestedString(app.Object, "status", "sync", "status"); sync != "Synced" {
		return fmt.Errorf("the orphaned application %s-prod is %q, want it still Synced from its repository", Project, sync)
	}
	// The applications deleted took their Ingresses (and staging's
	// Certificate) with them; the orphaned one keeps its own.
	if err := c.waitIngressesGone(ctx, "staging", deployEnv, previewEnv); err != nil {
		return err
	}
	if err := c.checkIngressKept(ctx, "prod", r.ingressUIDs["prod"]); err != nil {
		return err
	}
	r.Deleted = time.Since(t0)
	c.logf("  everything is deleted (%s) but what is orphaned: prod's Jenkins job, Argo CD application (still Synced), Ingress and DNS record %s, their AppProject and repository; and the retained record %s", r.Deleted.Round(100*time.Millisecond), Environments["prod"], Environments[previewEnv])
	c.logf("  staging's and %s's Ingresses (and staging's Certificate) are deleted by Argo CD's cascade", deployEnv)
	return nil
}

// waitProjectReady waits for the DevOpsProject's Ready condition.
func (c *Cluster) waitProjectReady(ctx context.Context, what string, timeout time.Duration) error {
	return c.waitReady(ctx, ProjectNamespace, Project, what, timeout)
}

// recreateProject creates the deleted project again with prod only, as a
// user who deleted it by mistake would: prod's orphaned Jenkins job, Argo
// CD application and DNS record are taken back by the new managed
// resources (their names are stable, and so their owner markers match),
// and the project becomes Ready without a hand on any backend. Then it is
// deleted again, orphaning prod again.
func (c *Cluster) recreateProject(ctx context.Context, r *Report) error {
	c.logf("creating the deleted DevOpsProject again, with prod only")
	xr := c.project()
	envs, _, _ := unstructured.NestedSlice(xr.Object, "spec", "environments")
	if err := unstructured.SetNestedSlice(xr.Object, envs[:1], "spec", "environments"); err != nil {
		return err
	}
	before, err := c.Argo.Application(ctx, argocdserver.Namespace, appName("prod"))
	if err != nil || before == nil {
		return fmt.Errorf("the orphaned application %s-prod: %v", Project, err)
	}
	team, err := c.teamClient(ctx)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := team.Create(ctx, xr); err != nil {
		return err
	}
	// Crossplane's circuit breaker for this XR name, opened by the first
	// project's deletion, drops the new XR's events until its cooldown
	// ends, and nothing requeues an XR never reconciled: touch gives
	// Crossplane an event once the breaker closes.
	defer c.touch(ctx, xr)()
	if err := c.waitProjectReady(ctx, "the re-created DevOpsProject to be Ready", 4*time.Minute); err != nil {
		return err
	}
	r.Recreated = time.Since(t0)
	after, err := c.Argo.Application(ctx, argocdserver.Namespace, appName("prod"))
	if err != nil || after == nil || after.GetUID() != before.GetUID() {
		return fmt.Errorf("prod's application must be the orphaned one, taken back (uid %s), got %v, %v", before.GetUID(), after, err)
	}
	if err := c.checkIngressKept(ctx, "prod", r.ingressUIDs["prod"]); err != nil {
		return err
	}
	c.logf("  Ready after %s: prod's orphaned job, application (same object, its Ingress untouched) and DNS record taken back", r.Recreated.Round(100*time.Millisecond))
	if err := c.Kube.Delete(ctx, xr, client.PropagationPolicy("Foreground")); err != nil {
		return err
	}
	return c.Wait(ctx, "the re-created DevOpsProject to be deleted", 3*time.Minute, func(ctx context.Context) (bool, string, error) {
		items, err := c.List(ctx, xrAPIVersion, "DevOpsProject", client.InNamespace(ProjectNamespace))
		if err != nil {
			return false, err.Error(), nil
		}
		return len(items) == 0, fmt.Sprintf("%d left", len(items)), nil
	})
}

// touch sets an annotation on obj every 20s until stopped, as a user
// editing it would: an XR created again under a name whose circuit
// breaker is open gets an event once the breaker closes.
func (c *Cluster) touch(ctx context.Context, obj client.Object) (stop func()) {
	tick := time.NewTicker(20 * time.Second)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case t := <-tick.C:
				p := &unstructured.Unstructured{}
				p.SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
				p.SetNamespace(obj.GetNamespace())
				p.SetName(obj.GetName())
				patch := fmt.Sprintf(`{"metadata":{"annotations":{"e2e.devops.freeleaps.io/touched":%q}}}`, t.Format(time.RFC3339))
				_ = c.Kube.Patch(ctx, p, client.RawPatch(types.MergePatchType, []byte(patch)))
			}
		}
	}()
	return func() {
		tick.Stop()
		close(done)
	}
}

// eventStream counts the lifecycle events on the exchange.
type eventStream struct {
	conn *amqp.Connection
	mu   sync.Mutex
	seen map[string]int
	// ids counts each event id, by "what kind/namespace/name".
	ids map[string]map[string]int
}

func (c *Cluster) watchEvents() (*eventStream, error) {
	conn, err := amqp.Dial(c.RabbitMQ.URL)
	if err != nil {
		return nil, err
	}
	ch, err := conn.Channel()
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	if err := ch.ExchangeDeclare("devops.events", "topic", true, false, false, false, nil); err != nil {
		_ = conn.Close()
		return nil, err
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err == nil {
		err = ch.QueueBind(q.Name, "#", "devops.events", false, nil)
	}
	var msgs <-chan amqp.Delivery
	if err == nil {
		msgs, err = ch.Consume(q.Name, "e2e", true, true, false, false, nil)
	}
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	s := &eventStream{conn: conn, seen: map[string]int{}, ids: map[string]map[string]int{}}
	go func() {
		for m := range msgs {
			var ev struct {
				ID   string `json:"id"`
				Type string `json:"type"`
				Data struct {
					Kind, Namespace, Name, Message string
				} `json:"data"`
			}
			if json.Unmarshal(m.Body, &ev) != nil || ev.Type == "" {
				continue
			}
			what := ev.Type[strings.LastIndex(ev.Type, ".")+1:]
			if what == "failed" {
				// A failure is worth reading in the log, not only counting.
				c.logf("  event: %s %s failed: %s", ev.Data.Kind, ev.Data.Name, ev.Data.Message)
			}
			key := what + " " + ev.Data.Kind + "/" + ev.Data.Namespace + "/" + ev.Data.Name
			s.mu.Lock()
			s.seen[what]++
			if s.ids[key] == nil {
				s.ids[key] = map[string]int{}
			}
			s.ids[key][ev.ID]++
			s.mu.Unlock()
		}
	}()
	return s, nil
}

func (s *eventStream) counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.seen {
		out[k] = v
	}
	return out
}

func (s *eventStream) close() { _ = s.conn.Close() }

// Summary renders the report for people.
func (r *Report) Summary() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) {
		_, _ = fmt.Fprintf(w, "%s\t"+format+"\n", append([]any{k}, args...)...)
	}
	mib := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
	row("DevOpsProject created → Ready", "%s", r.Ready.Round(100*time.Millisecond))
	row("last backend object ready → Ready", "environments p50 %.1fs %s; project %s", r.Readiness.P50().Seconds(), r.Readiness.GapList(), r.Readiness.XRGap)
	row("steady state, "+r.Steady.String(), "Kubernetes API requests by the provider %s; backend requests %s", counts(r.SteadyAPI), counts(r.SteadyBackend))
	row("deploy request → build queued", "%s (%s)", r.DeployQueued.Round(100*time.Millisecond), r.Build)
	short := r.Revision
	if len(short) > 12 {
		short = short[:12]
	}
	row("deploy request → DeployRun Succeeded", "%s (the build's commit %s synced, Healthy)", r.Deployed.Round(100*time.Millisecond), short)
	row("legacy heartbeats (UI's queue)", "%s", r.Legacy)
	if r.Trace != "" {
		row("the deployment's trace (Jaeger)", "%d spans, request → phases → calls", strings.Count(r.Trace, "\n"))
	}
	row("Ingresses (Argo CD's, per environment)", "%d with host, class, TLS secret and issuer as asked; address %s (played ingress controller)", len(r.ingressUIDs), IngressAddress)
	row("preview expired", "%s after creation (TTL %s); its Ingress deleted by Argo CD's cascade", r.Expired.Round(time.Second), ShortTTL)
	row("DevOpsProject deleted → all gone", "%s (but what is orphaned: prod's application keeps its Ingress)", r.Deleted.Round(100*time.Millisecond))
	row("re-created with prod → Ready", "%s (prod's orphaned job, application and record taken back)", r.Recreated.Round(100*time.Millisecond))
	row("events on the stream", "%s; %d sent again by a new leader with their first id", counts(r.Events), r.EventsResent)
	if r.Upgrade != "" {
		row("upgrade", "%s", r.Upgrade)
		row("broken upgrade", "%s", r.Rollback)
	}
	if r.Crash != "" {
		row("crash mid-create", "%s", r.Crash)
	}
	for _, f := range r.Failovers {
		row("failover", "%s", f)
	}
	row("provider memory", "RSS %s, peak %s (the scenario's)", mib(r.Provider.RSS), mib(r.Provider.Peak))
	row("function memory", "RSS %s, peak %s (the scenario's)", mib(r.Function.RSS), mib(r.Function.Peak))
	if p := r.Previews; p != nil {
		d := func(x time.Duration) time.Duration { return x.Round(100 * time.Millisecond) }
		row("pull request opened → preview Ready", "%s (its head built, synced by its DeployRun, reported on Gitea)", d(p.Opened))
		row("new commit → deployed", "%s (status and the one comment updated)", d(p.Pushed))
		row("label taken off → cleaned up", "%s (job, application, record, workload gone)", d(p.Unlabelled))
		row("labelled again → preview Ready", "%s (made anew, job included)", d(p.Relabelled))
		row("merged → cleaned up", "%s", d(p.Merged))
	}
	_ = w.Flush()
	return b.String()
}

// counts prints a tally as "a 1, b 2", sorted; "none" when empty.
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(out, ", ")
}
