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

// Package deployrun reconciles DeployRuns: one deployment of one
// environment, from a Jenkins build of a revision through an explicit Argo
// CD sync to what the build produced, to an application Synced at that
// revision and Healthy.
//
// The build goes through the environment's JenkinsPipeline (its
// buildRequest), which queues exactly one build per request across lost
// answers and restarts; the deployment then follows that build in Jenkins
// and syncs the environment's Argo CD application itself, marking the sync
// operation as its own. One deployment of an environment runs at a time:
// later ones wait in Pending, oldest first.
package deployrun

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/clients/httpapi"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
	"github.com/freeleaps/provider-devops/internal/clients/retryafter"
	"github.com/freeleaps/provider-devops/internal/controller/argoaccess"
	"github.com/freeleaps/provider-devops/internal/controller/fairrate"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
)

// Finalizer lets a deployment deleted while it runs abort its build.
const Finalizer = "devops.freeleaps.io/deployrun"

// InfoName is the Argo CD operation info that marks a sync as a
// deployment's own; its value is the DeployRun's namespace/name/uid.
const InfoName = "devops.freeleaps.io/deployrun"

// DefaultKeep is how many finished deployments of each environment are kept.
const DefaultKeep = 10

// Defaults of the phases' timeouts, for objects written before defaulting.
const (
	DefaultPendingTimeout = time.Hour
	DefaultBuildTimeout   = 30 * time.Minute
	DefaultDeployTimeout  = 10 * time.Minute
	DefaultVerifyTimeout  = 10 * time.Minute
)

// Poll is how often a running deployment looks at Jenkins and Argo CD.
const Poll = 5 * time.Second

// MaxWaiting is how many deployments of one environment may wait their
// turn: one more fails at once (a client looping on create must not queue
// builds, and heartbeats, without end).
const MaxWaiting = 16

// cancelGrace bounds how long a deleted deployment tries to abort its build
// before it lets go anyway: an unreachable Jenkins must not keep the
// object, or its namespace, from being deleted.
const cancelGrace = 2 * time.Minute

// Builds is the part of Jenkins a deployment uses.
type Builds interface {
	QueueItem(ctx context.Context, id int64) (*jenkins.QueueItem, error)
	GetBuild(ctx context.Context, path string, number int64) (*jenkins.BuildInfo, error)
	StopBuild(ctx context.Context, path string, number int64) error
	CancelQueueItem(ctx context.Context, id int64) error
	FindBuild(ctx context.Context, path string, params map[string]string, after int64) (string, error)
}

// Syncs is the part of Argo CD a deployment uses.
type Syncs interface {
	Get(ctx context.Context, name string) (*argocd.Application, error)
	SyncWith(ctx context.Context, name, project, revision string, infos []argocd.Info) error
	TerminateOperation(ctx context.Context, name, project string) error
	argoaccess.ProjectGetter
}

// Options configure the controller.
type Options struct {
	// Keep is how many finished deployments of each environment are kept
	// (DefaultKeep when 0).
	Keep int
	// NewBuilds and NewSyncs build the backend clients; nil means the
	// real ones, from the JenkinsPipeline's and the ArgoApplication's
	// ProviderConfigs.
	NewBuilds func(ctx context.Context, p *jenkinsv1alpha1.JenkinsPipeline) (Builds, error)
	// NewSyncs also returns the ProviderConfig's Argo CD tenancy, which
	// the application's AppProject must satisfy before it is synced.
	NewSyncs func(ctx context.Context, a *argov1alpha1.ArgoApplication) (Syncs, *argoaccess.Tenancy, error)
	// Guard is the platform's rule for namespaced configs' connections
	// (nil: the strictest), for the real clients NewBuilds and NewSyncs
	// build when nil.
	Guard *netguard.Guard
	// HTTPCheck, when set, GETs the environment's live URL in Verifying:
	// a 2xx or 3xx answer is needed to succeed; a URL that does not
	// answer on this network is not checked. Off by default: the URL's
	// name and address are the tenant's to choose, so a check is a
	// request from the provider's network to wherever they point.
	HTTPCheck *http.Client
	// Live reads the API server uncached (the manager's API reader); nil:
	// the client.
	Live client.Reader
	// Indexed is true when the client reads a cache with EnvironmentIndex,
	// which Setup registers.
	Indexed bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Log receives what cannot be done now and is retried.
	Log logging.Logger
}

// Setup adds the DeployRun controller to mgr.
func Setup(mgr manager.Manager, o controller.Options, opts Options) error {
	if opts.Log == nil {
		opts.Log = o.Logger.WithValues("controller", "deployrun")
	}
	if opts.Live == nil {
		opts.Live = mgr.GetAPIReader()
	}
	// Deployments are looked up by environment (whose turn, which to
	// wake) through an index, not by listing the namespace.
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &v1alpha1.DeployRun{}, EnvironmentIndex, func(o client.Object) []string {
		d, ok := o.(*v1alpha1.DeployRun)
		if !ok {
			return nil
		}
		return []string{environmentKey(d.Spec.Project, d.Spec.Environment)}
	}); err != nil {
		return errors.Wrap(err, "cannot index DeployRuns by environment")
	}
	opts.Indexed = true
	r := NewReconciler(mgr.GetClient(), mgr.GetEventRecorderFor("deployrun"), opts) //nolint:staticcheck // the same events API as the managed resources' (crossplane-runtime's recorder).
	// A change of an environment's pipeline (its build request handled)
	// or application (its sync) wakes the deployments of that environment
	// at once instead of at the next poll.
	wake := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
		return r.running(ctx, o.GetNamespace(), o.GetLabels()[contract.LabelProject], o.GetLabels()[contract.LabelEnvironment])
	})
	return ctrl.ControllerManagedBy(mgr).
		Named("deployrun").
		WithOptions(o.ForControllerRuntime()).
		For(&v1alpha1.DeployRun{}).
		Watches(&jenkinsv1alpha1.JenkinsPipeline{}, wake).
		Watches(&argov1alpha1.ArgoApplication{}, wake).
		// Its calls go to the tenant's backends: one namespace's slow
		// servers may hold at most its share of the workers.
		Complete(fairrate.Limit("deployrun", r, o.GlobalRateLimiter))
}

// reconcileTimeout bounds one reconcile: a few backend calls, each
// bounded by its client's own timeout.
const reconcileTimeout = 2 * time.Minute

// Reconciler moves DeployRuns through their phases.
type Reconciler struct {
	kube client.Client
	// live reads the API server, not the cache: whose turn it is must not
	// be decided on a list that misses a deployment created a moment ago.
	live   client.Reader
	record record.EventRecorder
	log    logging.Logger
	o      Options
}

// NewReconciler returns a reconciler.
func NewReconciler(kube client.Client, rec record.EventRecorder, o Options) *Reconciler {
	if o.Keep <= 0 {
		o.Keep = DefaultKeep
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = logging.NewNopLogger()
	}
	if o.NewBuilds == nil {
		gate, transports := retryafter.New(nil), httpapi.NewTransports()
		o.NewBuilds = func(ctx context.Context, p *jenkinsv1alpha1.JenkinsPipeline) (Builds, error) {
			cfg, err := jenkinspipeline.ClientConfig(ctx, kube, o.Guard, p)
			if err != nil {
				return nil, err
			}
			cfg.RetryAfter, cfg.Transports = gate, transports
			return jenkins.New(cfg)
		}
	}
	if o.NewSyncs == nil {
		c := argoaccess.NewConnector(kube, o.Guard, argoaccess.Real)
		o.NewSyncs = func(ctx context.Context, a *argov1alpha1.ArgoApplication) (Syncs, *argoaccess.Tenancy, error) {
			conn, err := c.Connect(ctx, a)
			if err != nil {
				return nil, nil, err
			}
			return conn.Client, conn.Tenancy, nil
		}
	}
	if o.Live == nil {
		o.Live = kube
	}
	return &Reconciler{kube: kube, live: o.Live, record: rec, log: o.Log, o: o}
}

// EnvironmentIndex is the cache's index of DeployRuns by project and
// environment (environmentKey).
const EnvironmentIndex = "devops.freeleaps.io/deployrun-environment"

func environmentKey(project, env string) string { return project + "/" + env }

// inEnvironment lists the DeployRuns of project's environment env in ns.
// c is the manager's cache, which has EnvironmentIndex; any other reader
// (the API server) lists the namespace.
func inEnvironment(ctx context.Context, c client.Reader, indexed bool, ns, project, env string) ([]v1alpha1.DeployRun, error) {
	l := &v1alpha1.DeployRunList{}
	opts := []client.ListOption{client.InNamespace(ns)}
	if indexed {
		opts = append(opts, client.MatchingFields{EnvironmentIndex: environmentKey(project, env)})
	}
	if err := c.List(ctx, l, opts...); err != nil {
		return nil, errors.Wrap(err, "cannot list DeployRuns")
	}
	out := l.Items[:0]
	for _, d := range l.Items {
		if d.Spec.Project == project && d.Spec.Environment == env {
			out = append(out, d)
		}
	}
	return out, nil
}

// running returns requests for the deployments of an environment that are
// not final.
func (r *Reconciler) running(ctx context.Context, ns, project, env string) []reconcile.Request {
	if project == "" || env == "" {
		return nil
	}
	l, err := inEnvironment(ctx, r.kube, r.o.Indexed, ns, project, env)
	if err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, d := range l {
		if !d.Status.Phase.Final() {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: d.Namespace, Name: d.Name}})
		}
	}
	return out
}

// env is what a deployment works with: its environment's pipeline and
// application.
type env struct {
	pipeline *jenkinsv1alpha1.JenkinsPipeline
	app      *argov1alpha1.ArgoApplication
}

// Reconcile moves one DeployRun on.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, reconcileTimeout)
	defer cancel()
	res, err := r.reconcile(ctx, req)
	if err != nil {
		r.log.Debug("Cannot reconcile the DeployRun", "request", req, "error", err)
	}
	return res, err
}

func (r *Reconciler) reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	d := &v1alpha1.DeployRun{}
	if err := r.kube.Get(ctx, req.NamespacedName, d); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if meta.WasDeleted(d) {
		return r.cancel(ctx, d)
	}
	if d.Status.Phase.Final() {
		// Nothing left to abort: a finished deployment holds nothing (its
		// namespace's deletion must not wait for the provider).
		return reconcile.Result{}, r.finish(ctx, d)
	}
	if !controllerutil.ContainsFinalizer(d, Finalizer) {
		orig := d.DeepCopy()
		controllerutil.AddFinalizer(d, Finalizer)
		if err := r.kube.Patch(ctx, d, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
			return reconcile.Result{}, errors.Wrap(err, "cannot add the finalizer")
		}
	}
	orig := d.DeepCopy()
	res, err := r.step(ctx, d)
	if err != nil && !d.Status.Phase.Final() {
		// Say what keeps the deployment from going on; it is retried with
		// back-off.
		r.note(d, "retrying: "+truncateMsg(err.Error()))
	}
	if !equalStatus(orig, d) {
		if uerr := r.kube.Status().Update(ctx, d); uerr != nil {
			return reconcile.Result{}, errors.Wrap(uerr, "cannot update status")
		}
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	if d.Status.Phase.Final() {
		return reconcile.Result{}, r.finish(ctx, d)
	}
	if err := r.recordOn(ctx, d); err != nil {
		return reconcile.Result{}, err
	}
	return res, nil
}

// finish records a final deployment on its pipeline, lets the object go
// and prunes the environment's history.
func (r *Reconciler) finish(ctx context.Context, d *v1alpha1.DeployRun) error {
	if err := r.recordOn(ctx, d); err != nil {
		return err
	}
	if err := r.release(ctx, d); err != nil {
		return err
	}
	return r.prune(ctx, d)
}

// release removes the finalizer.
func (r *Reconciler) release(ctx context.Context, d *v1alpha1.DeployRun) error {
	if !controllerutil.ContainsFinalizer(d, Finalizer) {
		return nil
	}
	orig := d.DeepCopy()
	controllerutil.RemoveFinalizer(d, Finalizer)
	return errors.Wrap(client.IgnoreNotFound(r.kube.Patch(ctx, d, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))), "cannot remove the finalizer")
}

func equalStatus(a, b *v1alpha1.DeployRun) bool {
	return equality.Semantic.DeepEqual(a.Status, b.Status)
}

// step does what the deployment's phase asks and returns when to look
// again. A problem that a retry can solve is an error (back-off); one that
// cannot is a failed deployment.
func (r *Reconciler) step(ctx context.Context, d *v1alpha1.DeployRun) (reconcile.Result, error) {
	if d.Status.Phase == "" {
		r.enter(d, v1alpha1.DeployPending, "waiting for its turn and its environment")
	}
	if late, timeout := r.overdue(d); late {
		r.fail(d, fmt.Sprintf("timed out after %s (spec.timeouts.%s)%s", timeout, strings.ToLower(string(d.Status.Phase)), waitingOn(d)))
		return reconcile.Result{}, nil
	}
	e, msg, err := r.environment(ctx, d)
	if err != nil {
		return reconcile.Result{}, err
	}
	if msg != "" {
		r.fail(d, msg)
		return reconcile.Result{}, nil
	}
	switch d.Status.Phase {
	case v1alpha1.DeployPending:
		return r.pending(ctx, d, e)
	case v1alpha1.DeployBuilding:
		return r.building(ctx, d, e)
	case v1alpha1.DeployDeploying:
		return r.deploying(ctx, d, e)
	case v1alpha1.DeployVerifying:
		return r.verifying(ctx, d, e)
	}
	return reconcile.Result{}, nil
}

// waitingOn says what a timed-out phase was waiting for.
func waitingOn(d *v1alpha1.DeployRun) string {
	if d.Status.Message == "" {
		return ""
	}
	return ": " + d.Status.Message
}

// environment finds the deployment's pipeline and application, or says why
// it cannot deploy there (msg).
func (r *Reconciler) environment(ctx context.Context, d *v1alpha1.DeployRun) (*env, string, error) {
	sel := []client.ListOption{client.InNamespace(d.Namespace), client.MatchingLabels{contract.LabelProject: d.Spec.Project, contract.LabelEnvironment: d.Spec.Environment}}
	where := fmt.Sprintf("labelled %s=%s, %s=%s in namespace %s", contract.LabelProject, d.Spec.Project, contract.LabelEnvironment, d.Spec.Environment, d.Namespace)
	pl := &jenkinsv1alpha1.JenkinsPipelineList{}
	if err := r.kube.List(ctx, pl, sel...); err != nil {
		return nil, "", errors.Wrap(err, "cannot list JenkinsPipelines")
	}
	al := &argov1alpha1.ArgoApplicationList{}
	if err := r.kube.List(ctx, al, sel...); err != nil {
		return nil, "", errors.Wrap(err, "cannot list ArgoApplications")
	}
	p, msg := one(pl.Items, "JenkinsPipeline", where)
	if msg != "" {
		return nil, "unknown project or environment: " + msg + ": check spec.project and spec.environment", nil
	}
	a, msg := one(al.Items, "ArgoApplication", where)
	if msg != "" && len(al.Items) > 0 {
		return nil, msg + ": a deployment syncs one", nil
	}
	// No ArgoApplication: a pipeline that deploys by itself, whose build
	// is the whole deployment.
	return &env{pipeline: p, app: a}, "", nil
}

// one returns the one live object of items, or says why there is not one.
func one[T any, P interface {
	*T
	client.Object
}](items []T, kind, where string) (P, string) {
	var live []P
	for i := range items {
		o := P(&items[i])
		if o.GetDeletionTimestamp() == nil {
			live = append(live, o)
		}
	}
	switch len(live) {
	case 1:
		return live[0], ""
	case 0:
		return nil, fmt.Sprintf("no %s is %s", kind, where)
	}
	return nil, fmt.Sprintf("%d %ss are %s", len(live), kind, where)
}

// pending waits for the deployment's turn, checks its request against the
// pipeline, and asks for the build.
func (r *Reconciler) pending(ctx context.Context, d *v1alpha1.DeployRun, e *env) (reconcile.Result, error) {
	ahead, waiting, err := r.ahead(ctx, d)
	if err != nil {
		return reconcile.Result{}, err
	}
	if waiting > MaxWaiting {
		r.fail(d, fmt.Sprintf("%d deployments of environment %s are already waiting (at most %d): wait for them, or delete the ones no longer wanted", waiting-1, d.Spec.Environment, MaxWaiting))
		return reconcile.Result{}, nil
	}
	if ahead != nil {
		r.note(d, fmt.Sprintf("queued behind DeployRun %s (%s) of the same environment: one deployment of an environment runs at a time", ahead.Name, phaseOf(ahead)))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	if e.app == nil && wantsApp(e.pipeline) {
		r.note(d, fmt.Sprintf("waiting for the environment's ArgoApplication: JenkinsPipeline %s is deployed by one (annotation %s), which is not there yet", e.pipeline.Name, contract.AnnotationDeployedBy))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	if msg := checkRequest(d, e.pipeline); msg != "" {
		r.fail(d, msg)
		return reconcile.Result{}, nil
	}
	if err := r.own(ctx, d, e); err != nil {
		return reconcile.Result{}, err
	}
	now := metav1.NewTime(r.o.Now())
	d.Status.StartedAt = &now
	// Request stays empty until the build is asked for (building).
	d.Status.Build = &v1alpha1.DeployBuild{Pipeline: e.pipeline.Name}
	r.enter(d, v1alpha1.DeployBuilding, fmt.Sprintf("asking JenkinsPipeline %s for a build", e.pipeline.Name))
	// The phase is recorded before the build is asked for: the request is
	// a token the pipeline builds once, so asking again after a crash is
	// harmless, and a request never asked for is asked at the next look.
	return reconcile.Result{RequeueAfter: Poll}, nil // the status write wakes it at once
}

// observeOnly is true for a pipeline whose management policies do not let
// the provider change its job (no Update, no "*"): it may name a job that
// another team owns.
func observeOnly(p *jenkinsv1alpha1.JenkinsPipeline) bool {
	pol := p.GetManagementPolicies()
	return len(pol) > 0 && !slices.Contains(pol, xpv2.ManagementActionAll) && !slices.Contains(pol, xpv2.ManagementActionUpdate)
}

// wantsApp is true for a pipeline whose builds an ArgoApplication deploys.
func wantsApp(p *jenkinsv1alpha1.JenkinsPipeline) bool {
	return p.GetAnnotations()[contract.AnnotationDeployedBy] == argov1alpha1.ArgoApplicationKind
}

func phaseOf(d *v1alpha1.DeployRun) v1alpha1.DeployPhase {
	if d.Status.Phase == "" {
		return v1alpha1.DeployPending
	}
	return d.Status.Phase
}

// ahead returns the deployment of the same environment that runs before d
// (the oldest one not final, if it is not d) and d's place among those
// waiting (1: next).
//
// The cache answers while someone is ahead (a waiting deployment looks
// every Poll: the API server is not listed for each); that d's turn has
// come is confirmed from the API server, which has every deployment
// created a moment ago.
func (r *Reconciler) ahead(ctx context.Context, d *v1alpha1.DeployRun) (*v1alpha1.DeployRun, int, error) {
	a, place, err := aheadIn(ctx, r.kube, r.o.Indexed, d)
	if err != nil || a != nil {
		return a, place, err
	}
	return aheadIn(ctx, r.live, false, d)
}

func aheadIn(ctx context.Context, c client.Reader, indexed bool, d *v1alpha1.DeployRun) (*v1alpha1.DeployRun, int, error) {
	l, err := inEnvironment(ctx, c, indexed, d.Namespace, d.Spec.Project, d.Spec.Environment)
	if err != nil {
		return nil, 0, err
	}
	var first, running *v1alpha1.DeployRun
	place := 1
	for i := range l {
		o := &l[i]
		if o.Status.Phase.Final() || o.GetDeletionTimestamp() != nil {
			continue
		}
		// One already past Pending runs, whatever its age.
		if o.UID != d.UID && o.Status.Phase != "" && o.Status.Phase != v1alpha1.DeployPending {
			running = o
			continue
		}
		if o.UID != d.UID && before(o, d) {
			place++
		}
		if first == nil || before(o, first) {
			first = o
		}
	}
	switch {
	case running != nil:
		return running, place, nil
	case first == nil || first.UID == d.UID:
		return nil, place, nil
	}
	return first, place, nil
}

func before(a, b *v1alpha1.DeployRun) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// checkRequest holds the request to what the pipeline declares.
func checkRequest(d *v1alpha1.DeployRun, p *jenkinsv1alpha1.JenkinsPipeline) string {
	if observeOnly(p) {
		return fmt.Sprintf("JenkinsPipeline %s only observes its job (spec.managementPolicies): it builds nothing, so it cannot be deployed", p.Name)
	}
	if p.Spec.ForProvider.Disabled {
		return fmt.Sprintf("JenkinsPipeline %s is disabled (spec.forProvider.disabled): enable it to deploy", p.Name)
	}
	declared := map[string]jenkinsv1alpha1.Parameter{}
	for _, x := range p.Spec.ForProvider.Parameters {
		declared[x.Name] = x
	}
	params := buildParameters(d)
	for _, k := range slices.Sorted(maps.Keys(params)) {
		decl, ok := declared[k]
		if !ok {
			if k == jenkinsv1alpha1.RevisionParameter {
				return fmt.Sprintf("JenkinsPipeline %s declares no %s parameter, so it cannot build a revision: declare it, or leave spec.revision empty", p.Name, k)
			}
			return fmt.Sprintf("JenkinsPipeline %s declares no parameter %q (spec.parameters)", p.Name, k)
		}
		if msg := decl.Check(params[k]); msg != "" {
			return fmt.Sprintf("JenkinsPipeline %s parameter %s: %s", p.Name, k, msg)
		}
	}
	return ""
}

// truncate shortens a value quoted in a message; truncateMsg a backend's
// message.
func truncate(s string) string    { return clip(s, 80) }
func truncateMsg(s string) string { return clip(s, 300) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// buildParameters are the build's parameters: spec.parameters and the
// revision as REVISION.
func buildParameters(d *v1alpha1.DeployRun) map[string]string {
	out := make(map[string]string, len(d.Spec.Parameters)+1)
	for k, v := range d.Spec.Parameters {
		out[k] = v
	}
	if d.Spec.Revision != "" {
		out[jenkinsv1alpha1.RevisionParameter] = d.Spec.Revision
	}
	return out
}

// Token is the buildRequest a deployment sets: unique per object.
func Token(d *v1alpha1.DeployRun) string { return "deployrun-" + string(d.UID) }

// own makes the DevOpsProject that composed the environment an owner of
// the deployment, so the history goes with the project.
func (r *Reconciler) own(ctx context.Context, d *v1alpha1.DeployRun, e *env) error {
	ref := metav1.GetControllerOf(e.pipeline)
	if ref == nil || slices.ContainsFunc(d.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == ref.UID }) {
		return nil
	}
	// Patched on a copy: the answer would overwrite d's status with the
	// stored one, losing what this reconcile recorded (its Pending entry).
	orig, cp := d.DeepCopy(), d.DeepCopy()
	cp.OwnerReferences = append(cp.OwnerReferences, metav1.OwnerReference{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID})
	if err := r.kube.Patch(ctx, cp, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return errors.Wrap(err, "cannot make the DevOpsProject an owner of the DeployRun")
	}
	d.OwnerReferences, d.ResourceVersion = cp.OwnerReferences, cp.ResourceVersion
	return nil
}

// building asks the pipeline for the build, then follows it to its result.
func (r *Reconciler) building(ctx context.Context, d *v1alpha1.DeployRun, e *env) (reconcile.Result, error) {
	b := d.Status.Build
	p := e.pipeline
	if p.Name != b.Pipeline {
		r.fail(d, fmt.Sprintf("the environment's JenkinsPipeline changed from %s to %s during the build", b.Pipeline, p.Name))
		return reconcile.Result{}, nil
	}
	st := p.Status.AtProvider
	if b.Request == "" {
		// Ask once. Another request the pipeline has not handled yet
		// (someone set buildRequest by hand) is never overwritten: it is
		// waited out.
		if pending := p.Spec.ForProvider.BuildRequest; pending != "" && pending != st.HandledBuildRequest && pending != Token(d) {
			r.note(d, fmt.Sprintf("waiting for JenkinsPipeline %s to handle another build request (%s) before asking for this deployment's", p.Name, truncate(pending)))
			return reconcile.Result{RequeueAfter: Poll}, nil
		}
		if p.Spec.ForProvider.BuildRequest != Token(d) {
			if err := r.requestBuild(ctx, d, p); err != nil || d.Status.Phase.Final() {
				return reconcile.Result{}, err
			}
		}
		b.Request, b.Job = Token(d), meta.GetExternalName(p)
		if lb := st.LastBuild; lb != nil {
			b.AfterBuild = lb.Number
		}
		r.note(d, fmt.Sprintf("waiting for JenkinsPipeline %s to queue the build", p.Name))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	if st.HandledBuildRequest != b.Request {
		if p.Spec.ForProvider.BuildRequest != b.Request {
			// The cache may not have seen the request made a moment ago:
			// only the API server's copy decides that it was changed.
			fresh := &jenkinsv1alpha1.JenkinsPipeline{}
			if err := r.live.Get(ctx, client.ObjectKeyFromObject(p), fresh); err != nil {
				return reconcile.Result{}, errors.Wrapf(err, "cannot read JenkinsPipeline %s", p.Name)
			}
			if fresh.Spec.ForProvider.BuildRequest == b.Request || fresh.Status.AtProvider.HandledBuildRequest == b.Request {
				return reconcile.Result{RequeueAfter: time.Second}, nil
			}
			p = fresh
			r.fail(d, fmt.Sprintf("spec.forProvider.buildRequest of JenkinsPipeline %s was changed to %q before it queued this deployment's build: leave it alone during a deployment", p.Name, truncate(p.Spec.ForProvider.BuildRequest)))
			return reconcile.Result{}, nil
		}
		r.note(d, fmt.Sprintf("waiting for JenkinsPipeline %s to queue the build%s", p.Name, syncedNote(p)))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	if u := st.UnconfirmedBuild; u != nil {
		if u.Request == b.Request {
			b.AfterBuild = max(b.AfterBuild, u.AfterBuild)
		}
		r.note(d, fmt.Sprintf("waiting for Jenkins to confirm the build JenkinsPipeline %s asked for", p.Name))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	if b.QueueItem == 0 && b.Number == 0 {
		b.QueueItem, b.Number = st.HandledBuildQueueItem, st.HandledBuildNumber
	}
	jc, err := r.o.NewBuilds(ctx, p)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot reach Jenkins for JenkinsPipeline %s", p.Name)
	}
	path := meta.GetExternalName(p)
	if b.Job != "" && path != b.Job {
		r.fail(d, fmt.Sprintf("JenkinsPipeline %s now names Jenkins job %q, not %q whose build this deployment follows: leave its external name alone during a deployment", p.Name, truncate(path), truncate(b.Job)))
		return reconcile.Result{}, nil
	}
	if b.Number == 0 {
		n, msg, err := r.buildNumber(ctx, jc, d, path)
		if err != nil {
			return reconcile.Result{}, err
		}
		if msg != "" {
			r.fail(d, msg)
			return reconcile.Result{}, nil
		}
		if n == 0 {
			return reconcile.Result{RequeueAfter: Poll}, nil
		}
		b.Number = n
	}
	info, err := jc.GetBuild(ctx, path, b.Number)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot read build #%d of Jenkins job %s", b.Number, path)
	}
	if b.QueueItem != 0 && info.QueueID != 0 && info.QueueID != b.QueueItem {
		r.fail(d, fmt.Sprintf("build #%d of Jenkins job %s came from queue item %d, not %d which JenkinsPipeline %s queued for this deployment: Jenkins has no trace of this deployment's build", b.Number, path, info.QueueID, b.QueueItem, p.Name))
		return reconcile.Result{}, nil
	}
	b.URL = info.URL
	if info.Building || info.Result == "" {
		r.note(d, fmt.Sprintf("build #%d running", b.Number))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	b.Result = info.Result
	if info.Result != "SUCCESS" {
		r.fail(d, fmt.Sprintf("build #%d ended %s: see its console at %sconsole", b.Number, info.Result, withSlash(info.URL)))
		return reconcile.Result{}, nil
	}
	rev, msg := ProducedRevision(info.Description)
	if msg != "" {
		r.fail(d, fmt.Sprintf("build #%d %s", b.Number, msg))
		return reconcile.Result{}, nil
	}
	b.Revision = rev
	if e.app == nil && wantsApp(p) {
		r.fail(d, fmt.Sprintf("build #%d succeeded, but the environment's ArgoApplication went away: nothing deployed it", b.Number))
		return reconcile.Result{}, nil
	}
	if e.app == nil {
		url, err := r.liveURL(ctx, d)
		if err != nil {
			return reconcile.Result{}, err
		}
		d.Status.URL = url
		r.enter(d, v1alpha1.DeploySucceeded, fmt.Sprintf("build #%d succeeded; the environment has no ArgoApplication, so its build is the whole deployment", b.Number))
		return reconcile.Result{}, nil
	}
	d.Status.Sync = &v1alpha1.DeploySync{Application: e.app.Name, Revision: cmp.Or(rev, d.Spec.Revision)}
	r.enter(d, v1alpha1.DeployDeploying, fmt.Sprintf("build #%d succeeded; syncing ArgoApplication %s to %s", b.Number, e.app.Name, revisionName(d.Status.Sync.Revision)))
	return reconcile.Result{RequeueAfter: Poll}, nil // the status write wakes it at once
}

func syncedNote(p *jenkinsv1alpha1.JenkinsPipeline) string {
	for _, c := range p.Status.Conditions {
		if c.Type == "Synced" && c.Status == corev1.ConditionFalse && c.Message != "" {
			return " (it reports: " + truncateMsg(c.Message) + ")"
		}
	}
	return ""
}

func withSlash(u string) string {
	if u == "" || strings.HasSuffix(u, "/") {
		return u
	}
	return u + "/"
}

func revisionName(r string) string {
	if r == "" {
		return "its target revision"
	}
	return r
}

// requestBuild sets the pipeline's buildRequest to the deployment's token,
// with its parameters.
func (r *Reconciler) requestBuild(ctx context.Context, d *v1alpha1.DeployRun, p *jenkinsv1alpha1.JenkinsPipeline) error {
	orig := p.DeepCopy()
	p.Spec.ForProvider.BuildRequest = Token(d)
	p.Spec.ForProvider.BuildParameters = buildParameters(d)
	// Optimistic lock: decided on what was read.
	if err := r.kube.Patch(ctx, p, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		if kerrors.IsInvalid(err) {
			r.fail(d, fmt.Sprintf("JenkinsPipeline %s refused the build request: %v", p.Name, err))
			return nil
		}
		return errors.Wrapf(err, "cannot set spec.forProvider.buildRequest of JenkinsPipeline %s", p.Name)
	}
	r.record.Eventf(d, corev1.EventTypeNormal, "BuildRequested", "Asked JenkinsPipeline %s for a build", p.Name)
	return nil
}

// buildNumber finds the number of the deployment's build: 0 while it waits
// in the queue, or msg when it will never run.
func (r *Reconciler) buildNumber(ctx context.Context, jc Builds, d *v1alpha1.DeployRun, path string) (int64, string, error) {
	b := d.Status.Build
	if b.QueueItem != 0 {
		q, err := jc.QueueItem(ctx, b.QueueItem)
		switch {
		case err == nil && q.Job != path:
			return 0, fmt.Sprintf("Jenkins queue item %d is not of job %s but of %q: it is not this deployment's build", b.QueueItem, path, truncate(q.Job)), nil
		case err == nil && q.Cancelled:
			return 0, fmt.Sprintf("the build was cancelled in Jenkins' queue (item %d)", b.QueueItem), nil
		case err == nil && q.Number == 0:
			r.note(d, "build waiting in Jenkins' queue"+why(q.Why))
			return 0, "", nil
		case err == nil:
			return q.Number, "", nil
		case !jenkins.IsNotFound(err):
			return 0, "", errors.Wrapf(err, "cannot read Jenkins queue item %d", b.QueueItem)
		}
		// Jenkins forgets an item some minutes after it left the queue:
		// look for the build by its parameters.
	}
	where, err := jc.FindBuild(ctx, path, buildParameters(d), b.AfterBuild)
	if err != nil {
		return 0, "", errors.Wrapf(err, "cannot look for the build of Jenkins job %s", path)
	}
	if n, ok := strings.CutPrefix(where, "#"); ok {
		var num int64
		_, _ = fmt.Sscan(n, &num)
		return num, "", nil
	}
	if where == "queue" {
		r.note(d, "build waiting in Jenkins' queue")
		return 0, "", nil
	}
	return 0, fmt.Sprintf("Jenkins has no trace of the build JenkinsPipeline %s queued (queue item %d): it was deleted or never ran", d.Status.Build.Pipeline, b.QueueItem), nil
}

func why(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// ProducedRevision reads the revision a build reports it produced: a line
// "revision=<git ref or commit id>" in its description. msg says why a
// reported one cannot be used.
func ProducedRevision(description string) (rev, msg string) {
	for _, line := range strings.Split(description, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "revision=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if !v1alpha1.IsRevision(v) {
			return "", fmt.Sprintf("reported revision %q in its description, which is not a git ref or commit id", truncate(v))
		}
		return v, ""
	}
	return "", ""
}

// deploying asks Argo CD to sync the application to the revision, once,
// and follows that operation to its end.
func (r *Reconciler) deploying(ctx context.Context, d *v1alpha1.DeployRun, e *env) (reconcile.Result, error) {
	s := d.Status.Sync
	a := e.app
	if a == nil || a.Name != s.Application {
		r.fail(d, fmt.Sprintf("the environment's ArgoApplication %s went away during the deployment", s.Application))
		return reconcile.Result{}, nil
	}
	name := meta.GetExternalName(a)
	if name == "" {
		r.note(d, fmt.Sprintf("waiting for ArgoApplication %s to create its Argo CD application", a.Name))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	ac, tenancy, err := r.o.NewSyncs(ctx, a)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot reach Argo CD for ArgoApplication %s", a.Name)
	}
	app, err := ac.Get(ctx, name)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot read Argo CD application %s", name)
	}
	// Sync only what the environment's ArgoApplication owns.
	if app.Metadata.Labels[contract.LabelOwner] != argoaccess.Owner(a.GetNamespace(), a.GetName()) {
		r.fail(d, fmt.Sprintf("Argo CD application %s is not owned by ArgoApplication %s (label %s): it was not synced", name, a.Name, contract.LabelOwner))
		return reconcile.Result{}, nil
	}
	if app.Spec.Source == nil {
		r.fail(d, fmt.Sprintf("Argo CD application %s has no single source (spec.sources or a source hydrator): a deployment syncs one source", name))
		return reconcile.Result{}, nil
	}
	if s.ExternalName == "" {
		s.ExternalName = name
	}
	if msg := sameApp(s, name, app, a); msg != "" {
		r.fail(d, msg)
		return reconcile.Result{}, nil
	}
	mine := infoValue(d)
	op := app.Status.OperationState
	switch {
	case op != nil && op.Operation.HasInfo(InfoName, mine):
		s.Phase = op.Phase
		switch op.Phase {
		case "Succeeded":
			if op.SyncResult != nil {
				s.SyncedRevision = op.SyncResult.Revision
			}
			r.enter(d, v1alpha1.DeployVerifying, fmt.Sprintf("synced to %s; waiting for Argo CD to report the application Synced and Healthy", short(s.SyncedRevision)))
			return reconcile.Result{RequeueAfter: Poll}, nil // the status write wakes it at once
		case "Error":
			// Argo CD could not run it (a repository fetch that failed,
			// for one): not the sync failing. Asked for again, as a new
			// operation of its own.
			if n := max(1, s.Attempt); n < maxSyncAttempts {
				s.Attempt, s.StartedAt = n+1, nil
				r.note(d, fmt.Sprintf("Argo CD could not run the sync of application %s (attempt %d of %d), asking again: %s", name, n, maxSyncAttempts, truncateMsg(op.Message)))
				return reconcile.Result{RequeueAfter: Poll}, nil
			}
			r.fail(d, fmt.Sprintf("Argo CD could not run the sync of application %s after %d attempts: %s", name, maxSyncAttempts, truncateMsg(op.Message)))
			return reconcile.Result{}, nil
		case "Failed":
			r.fail(d, fmt.Sprintf("Argo CD sync of application %s failed: %s", name, truncateMsg(op.Message)))
			return reconcile.Result{}, nil
		}
		r.note(d, fmt.Sprintf("Argo CD syncing application %s (%s)", name, strings.ToLower(cmp.Or(op.Phase, "Running"))))
		return reconcile.Result{RequeueAfter: Poll}, nil
	case app.Operation.HasInfo(InfoName, mine):
		r.note(d, fmt.Sprintf("Argo CD has the sync of application %s and has not started it yet", name))
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	if s.StartedAt != nil && r.o.Now().Sub(s.StartedAt.Time) < 30*time.Second {
		// Asked moments ago: Argo CD may not show it yet.
		return reconcile.Result{RequeueAfter: Poll}, nil
	}
	rev := s.Revision
	if automated(app) && rev != "" && rev != app.Spec.Source.TargetRevision {
		// Argo CD refuses a sync to another revision than the target of an
		// application that syncs itself: sync to the target and check, in
		// Verifying, that it is the built commit. A ref other than the
		// target cannot be checked that way: refused now, not after the
		// verify timeout.
		if b := d.Status.Build; b == nil || !isCommitID(b.Revision) {
			r.fail(d, fmt.Sprintf("Argo CD application %s syncs itself (automated) to its target revision %q, so it cannot be deployed at %s: deploy %q, have the build report the commit it produced (revision=<sha> in its description), or turn automated sync off", name, app.Spec.Source.TargetRevision, rev, app.Spec.Source.TargetRevision))
			return reconcile.Result{}, nil
		}
		rev = ""
	}
	// The application's AppProject must be the environment's tenant's,
	// as the ArgoApplication's own reconciler requires.
	if err := tenancy.CheckProject(ctx, ac, "the Argo CD application's spec.project", app.Spec.Project); err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "will not sync Argo CD application %s", name)
	}
	now := metav1.NewTime(r.o.Now())
	s.StartedAt = &now
	err = ac.SyncWith(ctx, name, a.Spec.ForProvider.Project, rev, []argocd.Info{{Name: InfoName, Value: mine}})
	switch {
	case argocd.IsOperationInProgress(err):
		s.StartedAt = nil
		r.note(d, fmt.Sprintf("waiting for another operation on Argo CD application %s to end before syncing", name))
		return reconcile.Result{RequeueAfter: Poll}, nil
	case argocd.IsAutoSyncRevision(err), err != nil && isInvalid(err):
		r.fail(d, fmt.Sprintf("Argo CD refused to sync application %s to %s: %v", name, revisionName(rev), err))
		return reconcile.Result{}, nil
	case err != nil:
		s.StartedAt = nil
		return reconcile.Result{}, errors.Wrapf(err, "cannot sync Argo CD application %s", name)
	}
	r.record.Eventf(d, corev1.EventTypeNormal, "SyncRequested", "Asked Argo CD to sync application %s to %s", name, revisionName(rev))
	r.note(d, fmt.Sprintf("Argo CD asked to sync application %s to %s", name, revisionName(rev)))
	return reconcile.Result{RequeueAfter: Poll}, nil
}

func isInvalid(err error) bool { return argocd.IsInvalidArgument(err) }

// sameApp says why app is not the one the deployment started to sync: an
// ArgoApplication pointed at another Argo CD application, or one moved to
// another AppProject than the ArgoApplication names.
func sameApp(s *v1alpha1.DeploySync, name string, app *argocd.Application, a *argov1alpha1.ArgoApplication) string {
	if s.ExternalName != "" && name != s.ExternalName {
		return fmt.Sprintf("ArgoApplication %s now names Argo CD application %q, not %q which this deployment syncs: leave its external name alone during a deployment", a.Name, truncate(name), truncate(s.ExternalName))
	}
	if app.Spec.Project != a.Spec.ForProvider.Project {
		return fmt.Sprintf("Argo CD application %s is in AppProject %q, not %q which ArgoApplication %s names: it was not synced", name, truncate(app.Spec.Project), a.Spec.ForProvider.Project, a.Name)
	}
	return ""
}

// settleAfterSync is how long after its sync ended Argo CD's comparison of
// an application is taken as final: its repo server may resolve the
// target revision from a cache for a while.
const settleAfterSync = time.Minute

// comparedSince is true once Argo CD compared the application again well
// after the deployment's own sync ended: what it reports then is final.
func comparedSince(app *argocd.Application, d *v1alpha1.DeployRun) bool {
	op, at := app.Status.OperationState, app.Status.ReconciledAt
	if op == nil || !op.Operation.HasInfo(InfoName, infoValue(d)) || op.FinishedAt == nil || at == nil {
		return false
	}
	return at.After(op.FinishedAt.Add(settleAfterSync))
}

func automated(app *argocd.Application) bool {
	p := app.Spec.SyncPolicy
	return p != nil && p.Automated != nil && (p.Automated.Enabled == nil || *p.Automated.Enabled)
}

// infoValue marks the deployment's own sync operation: its namespace,
// name, uid and, from the second, the attempt.
func infoValue(d *v1alpha1.DeployRun) string {
	v := d.Namespace + "/" + d.Name + "/" + string(d.UID)
	if s := d.Status.Sync; s != nil && s.Attempt > 1 {
		v += "#" + strconv.Itoa(int(s.Attempt))
	}
	return v
}

// maxSyncAttempts is how many times a sync Argo CD could not run is asked
// for.
const maxSyncAttempts = 3

func short(rev string) string {
	if len(rev) == 40 {
		return rev[:12]
	}
	return revisionName(rev)
}

// verifying waits for Argo CD to report the application Synced at the
// revision deployed and Healthy.
func (r *Reconciler) verifying(ctx context.Context, d *v1alpha1.DeployRun, e *env) (reconcile.Result, error) {
	s := d.Status.Sync
	a := e.app
	if a == nil || a.Name != s.Application {
		r.fail(d, fmt.Sprintf("the environment's ArgoApplication %s went away during the deployment", s.Application))
		return reconcile.Result{}, nil
	}
	name := meta.GetExternalName(a)
	ac, _, err := r.o.NewSyncs(ctx, a)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot reach Argo CD for ArgoApplication %s", a.Name)
	}
	app, err := ac.Get(ctx, name)
	if err != nil {
		return reconcile.Result{}, errors.Wrapf(err, "cannot read Argo CD application %s", name)
	}
	if app.Metadata.Labels[contract.LabelOwner] != argoaccess.Owner(a.GetNamespace(), a.GetName()) || app.Spec.Source == nil {
		r.fail(d, fmt.Sprintf("Argo CD application %s is no longer the one ArgoApplication %s owns: it was not verified", name, a.Name))
		return reconcile.Result{}, nil
	}
	if msg := sameApp(s, name, app, a); msg != "" {
		r.fail(d, msg)
		return reconcile.Result{}, nil
	}
	s.Health = app.Status.Health.Status
	want := s.SyncedRevision
	if b := d.Status.Build; b != nil && isCommitID(b.Revision) && want != "" && !strings.HasPrefix(want, b.Revision) {
		r.fail(d, fmt.Sprintf("Argo CD synced %s, not %s, which the build produced: the application's target revision %q does not point at the build's commit", short(want), short(b.Revision), app.Spec.Source.TargetRevision))
		return reconcile.Result{}, nil
	}
	switch {
	case app.Status.Sync.Revision != want && comparedSince(app, d):
		// Argo CD compares an application with its target revision: one
		// synced to another commit stays OutOfSync at the target's.
		r.fail(d, fmt.Sprintf("Argo CD compares application %s with its target revision %q, now at %s, not with %s which this deployment synced: deploy a revision the target points at, or change the target", name, app.Spec.Source.TargetRevision, short(app.Status.Sync.Revision), short(want)))
		return reconcile.Result{}, nil
	case app.Status.Sync.Revision != want:
		r.note(d, fmt.Sprintf("Argo CD reports application %s at %s, waiting for %s", name, short(app.Status.Sync.Revision), short(want)))
	case app.Status.Sync.Status != "Synced":
		r.note(d, fmt.Sprintf("Argo CD reports application %s %s at %s", name, cmp.Or(app.Status.Sync.Status, "Unknown"), short(want)))
	case app.Status.Health.Status != "Healthy":
		r.note(d, fmt.Sprintf("Argo CD reports application %s %s%s", name, cmp.Or(app.Status.Health.Status, "Unknown"), why(app.Status.Health.Message)))
	default:
		url, err := r.liveURL(ctx, d)
		if err != nil {
			return reconcile.Result{}, err
		}
		d.Status.URL = url
		msg := fmt.Sprintf("deployed %s: Synced and Healthy", short(want))
		if r.o.HTTPCheck != nil && url != "" {
			a := checkURL(ctx, r.o.HTTPCheck, url)
			if a.reachable && !a.ok {
				r.note(d, fmt.Sprintf("Synced and Healthy at %s; waiting for the live URL: %s", short(want), a.msg))
				return reconcile.Result{RequeueAfter: Poll}, nil
			}
			msg += "; " + a.msg
		}
		if url != "" {
			msg += "; live at " + url
		}
		r.enter(d, v1alpha1.DeploySucceeded, msg)
		return reconcile.Result{}, nil
	}
	return reconcile.Result{RequeueAfter: Poll}, nil
}

func isCommitID(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// liveURL is the environment's URL: https:// and the FQDN of its DNS
// record; "" when it has none.
func (r *Reconciler) liveURL(ctx context.Context, d *v1alpha1.DeployRun) (string, error) {
	l := &dnsv1alpha1.DNSRecordList{}
	if err := r.kube.List(ctx, l, client.InNamespace(d.Namespace), client.MatchingLabels{contract.LabelProject: d.Spec.Project, contract.LabelEnvironment: d.Spec.Environment}); err != nil {
		return "", errors.Wrap(err, "cannot list DNSRecords")
	}
	rec, _ := one(l.Items, "DNSRecord", "")
	if rec == nil || rec.Status.AtProvider.FQDN == "" {
		return "", nil
	}
	host := strings.TrimSuffix(rec.Status.AtProvider.FQDN, ".")
	// The composition says whether the name answers with TLS; only the
	// scheme is taken from it (an annotation is the tenant's to edit, the
	// record's FQDN is what the provider observed).
	if rec.GetAnnotations()[contract.AnnotationURL] == "http://"+host {
		return "http://" + host, nil
	}
	return "https://" + host, nil
}

// overdue is true when the deployment has been in its phase longer than
// the phase's timeout.
func (r *Reconciler) overdue(d *v1alpha1.DeployRun) (bool, time.Duration) {
	t := d.Spec.Timeouts
	var limit time.Duration
	switch d.Status.Phase {
	case v1alpha1.DeployPending:
		limit = orDefault(t.Pending, DefaultPendingTimeout)
	case v1alpha1.DeployBuilding:
		limit = orDefault(t.Build, DefaultBuildTimeout)
	case v1alpha1.DeployDeploying:
		limit = orDefault(t.Deploy, DefaultDeployTimeout)
	case v1alpha1.DeployVerifying:
		limit = orDefault(t.Verify, DefaultVerifyTimeout)
	default:
		return false, 0
	}
	since := d.CreationTimestamp.Time
	if n := len(d.Status.Timeline); n > 0 {
		since = d.Status.Timeline[n-1].At.Time
	}
	return r.o.Now().Sub(since) > limit, limit
}

func orDefault(d *metav1.Duration, def time.Duration) time.Duration {
	if d == nil || d.Duration <= 0 {
		return def
	}
	return d.Duration
}

// enter moves the deployment to phase.
func (r *Reconciler) enter(d *v1alpha1.DeployRun, phase v1alpha1.DeployPhase, msg string) {
	now := metav1.NewTime(r.o.Now())
	d.Status.Phase, d.Status.Message = phase, msg
	d.Status.Timeline = append(d.Status.Timeline, v1alpha1.DeployTransition{Phase: phase, At: now, Message: msg})
	if n := len(d.Status.Timeline); n > 16 {
		d.Status.Timeline = d.Status.Timeline[n-16:]
	}
	if phase.Final() {
		d.Status.FinishedAt = &now
	}
	typ := corev1.EventTypeNormal
	if phase == v1alpha1.DeployFailed {
		typ = corev1.EventTypeWarning
	}
	r.record.Event(d, typ, string(phase), msg)
}

// note says what the deployment waits for, within its phase.
func (r *Reconciler) note(d *v1alpha1.DeployRun, msg string) { d.Status.Message = msg }

// fail ends the deployment in Failed, recording the phase it failed in.
func (r *Reconciler) fail(d *v1alpha1.DeployRun, msg string) {
	d.Status.FailedPhase = phaseOf(d)
	r.enter(d, v1alpha1.DeployFailed, fmt.Sprintf("failed in %s: %s", d.Status.FailedPhase, msg))
}

// cancel aborts the build of a deployment deleted while it runs (and its
// Argo CD sync), then lets the object go.
func (r *Reconciler) cancel(ctx context.Context, d *v1alpha1.DeployRun) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(d, Finalizer) {
		return reconcile.Result{}, nil
	}
	err := r.abort(ctx, d)
	if err == nil {
		// No longer the environment's current deployment.
		err = r.recordOn(ctx, d)
	}
	if err != nil && r.o.Now().Sub(d.DeletionTimestamp.Time) < cancelGrace {
		return reconcile.Result{}, err
	}
	if err != nil {
		r.record.Eventf(d, corev1.EventTypeWarning, "CancelFailed", "Gave up aborting the deployment after %s: %v", cancelGrace, err)
	}
	orig := d.DeepCopy()
	controllerutil.RemoveFinalizer(d, Finalizer)
	return reconcile.Result{}, client.IgnoreNotFound(r.kube.Patch(ctx, d, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})))
}

func (r *Reconciler) abort(ctx context.Context, d *v1alpha1.DeployRun) error {
	if d.Status.Phase.Final() {
		return nil
	}
	e, msg, err := r.environment(ctx, d)
	if err != nil || msg != "" {
		return err // nothing of an unknown environment to abort
	}
	switch d.Status.Phase {
	case v1alpha1.DeployBuilding:
		b := d.Status.Build
		p := e.pipeline
		if b.Request == "" || p.Status.AtProvider.HandledBuildRequest != b.Request {
			if p.Spec.ForProvider.BuildRequest != Token(d) {
				return nil // never asked, or someone else's request now
			}
			// Not queued yet: withdraw the request.
			orig := p.DeepCopy()
			p.Spec.ForProvider.BuildRequest = ""
			if err := r.kube.Patch(ctx, p, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
				return errors.Wrapf(err, "cannot withdraw the build request from JenkinsPipeline %s", p.Name)
			}
			return nil
		}
		// The pipeline handled this deployment's request: its build is the
		// one the pipeline recorded. An observe-only pipeline builds
		// nothing, and its job may be anyone's: its status (the tenant's to
		// write) never makes a cancel act on it.
		if observeOnly(p) {
			return nil
		}
		jc, err := r.o.NewBuilds(ctx, p)
		if err != nil {
			return err
		}
		// Only ever the pipeline's own job (its ProviderConfig allowed
		// it): the numbers in status are the tenant's to write, and queue
		// ids are global to a Jenkins.
		path := meta.GetExternalName(p)
		if b.Job != "" && b.Job != path {
			return nil // pointed at another job meanwhile: nothing of ours there
		}
		n, id := b.Number, b.QueueItem
		if n == 0 && id == 0 {
			n, id = p.Status.AtProvider.HandledBuildNumber, p.Status.AtProvider.HandledBuildQueueItem
		}
		if n == 0 && id != 0 {
			q, err := jc.QueueItem(ctx, id)
			if err != nil && !jenkins.IsNotFound(err) {
				return err
			}
			if err == nil && q.Job != path {
				return nil // another job's item: never cancelled from here
			}
			if err == nil && q.Number == 0 {
				return jc.CancelQueueItem(ctx, id)
			}
			if err == nil {
				n = q.Number
			}
		}
		if n != 0 {
			err := jc.StopBuild(ctx, path, n)
			if err == nil {
				r.record.Eventf(d, corev1.EventTypeNormal, "Cancelled", "Aborted build #%d", n)
			}
			if jenkins.IsNotFound(err) {
				return nil
			}
			return err
		}
	case v1alpha1.DeployDeploying:
		if e.app == nil {
			return nil
		}
		ac, _, err := r.o.NewSyncs(ctx, e.app)
		if err != nil {
			return err
		}
		name := meta.GetExternalName(e.app)
		app, err := ac.Get(ctx, name)
		if err != nil {
			return err
		}
		if op := app.Status.OperationState; op != nil && op.Operation.HasInfo(InfoName, infoValue(d)) && op.Phase == "Running" {
			return ac.TerminateOperation(ctx, name, e.app.Spec.ForProvider.Project)
		}
		if app.Operation.HasInfo(InfoName, infoValue(d)) {
			// Asked for, not started: Argo CD terminates only a running
			// operation. Look again (with back-off) until it runs.
			return errors.Errorf("Argo CD has not started this deployment's sync of application %s yet: it is terminated once it starts", name)
		}
	}
	return nil
}

// prune deletes the oldest finished deployments of d's environment beyond
// the number kept.
func (r *Reconciler) prune(ctx context.Context, d *v1alpha1.DeployRun) error {
	l := &v1alpha1.DeployRunList{}
	if err := r.kube.List(ctx, l, client.InNamespace(d.Namespace)); err != nil {
		return errors.Wrap(err, "cannot list DeployRuns")
	}
	// done is d's environment's history. stray are the deployments that
	// never started and belong to no project (an unknown environment, a
	// typo): they have no environment's history to go with, so the
	// namespace keeps the newest Keep of them.
	var done, stray []*v1alpha1.DeployRun
	for i := range l.Items {
		o := &l.Items[i]
		if o.UID == d.UID {
			// The cache may not have seen d's last status yet.
			o = d
		}
		if !o.Status.Phase.Final() || o.DeletionTimestamp != nil {
			continue
		}
		if o.Spec.Project == d.Spec.Project && o.Spec.Environment == d.Spec.Environment {
			done = append(done, o)
		}
		if o.Status.StartedAt == nil && len(o.OwnerReferences) == 0 {
			stray = append(stray, o)
		}
	}
	if err := r.deleteOldest(ctx, done); err != nil {
		return err
	}
	return r.deleteOldest(ctx, stray)
}

// deleteOldest deletes the oldest of the finished deployments done beyond
// the number kept.
func (r *Reconciler) deleteOldest(ctx context.Context, done []*v1alpha1.DeployRun) error {
	if len(done) <= r.o.Keep {
		return nil
	}
	slices.SortFunc(done, newestFirst)
	for _, o := range done[r.o.Keep:] {
		if err := r.kube.Delete(ctx, o, client.Preconditions{UID: &o.UID}); client.IgnoreNotFound(err) != nil {
			return errors.Wrapf(err, "cannot delete DeployRun %s beyond the history kept", o.Name)
		}
	}
	return nil
}

// newestFirst orders finished deployments newest first. Status times are
// whole seconds, so two deployments of one environment that finished in
// the same second (a failed build right after a success) are told apart by
// when they started, then by the queue's order, which is the order an
// environment's deployments run in.
func newestFirst(a, b *v1alpha1.DeployRun) int {
	if c := finished(b).Compare(finished(a)); c != 0 {
		return c
	}
	if c := started(b).Compare(started(a)); c != 0 {
		return c
	}
	switch {
	case before(b, a):
		return -1
	case before(a, b):
		return 1
	}
	return 0
}

func started(d *v1alpha1.DeployRun) time.Time {
	if d.Status.StartedAt != nil {
		return d.Status.StartedAt.Time
	}
	return d.CreationTimestamp.Time
}

func finished(d *v1alpha1.DeployRun) time.Time {
	if d.Status.FinishedAt != nil {
		return d.Status.FinishedAt.Time
	}
	return d.CreationTimestamp.Time
}
