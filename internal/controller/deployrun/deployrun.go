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
//
// Each phase has its file: pending.go, build.go, sync.go (the Argo CD
// sync, in Deploying) and verify.go; cancel.go aborts what a deployment
// deleted while it runs has under way, history.go prunes the finished
// ones. A phase reads the deployment, its environment and the backends,
// and returns what it decided as a transition (the phase to enter, the
// message, when to look again, the records it keeps). step applies it,
// and apply is the only writer of the phase, the message and the
// timeline, so that what a phase decides can be tested with fake backends
// alone.
package deployrun

import (
	"context"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
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

// FastPoll is how often it looks while its phase is younger than
// fastFor: what a phase waits for (a queued build to start, a short
// build to end, Argo CD's operation and the health after it) is often
// seconds away, and a 5 s poll added 2–4 s to each deployment.
const (
	FastPoll = time.Second
	fastFor  = 30 * time.Second
)

// MaxWaiting is how many deployments of one environment may wait their
// turn: one more fails at once (a client looping on create must not queue
// builds, and heartbeats, without end).
const MaxWaiting = 16

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
	Refresh(ctx context.Context, name string) error
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
	ages.use(mgr.GetClient(), r.o.Now, mgr.Elected())
	// A change of an environment's pipeline (its build request handled)
	// or application (its sync) wakes the deployments of that environment
	// at once instead of at the next poll.
	wake := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
		return r.running(ctx, o.GetNamespace(), o.GetLabels()[contract.LabelProject], o.GetLabels()[contract.LabelEnvironment])
	})
	return builder.ControllerManagedBy(mgr).
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
	// Its Jenkins and Argo CD requests are counted for its namespace.
	ctx = httpapi.WithLabels(ctx, httpapi.Labels{Namespace: req.Namespace})
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
	tr := traceOf(d)
	ctx = tr.within(ctx, d)
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
		r.apply(d, transition{message: "retrying: " + truncateMsg(err.Error())})
	}
	if !equalStatus(orig, d) {
		tr.pin(d)
		// The new timeline entries keep their nanoseconds until written.
		endedPhases := tr.endedBy(orig, d)
		if uerr := r.kube.Status().Update(ctx, d); uerr != nil {
			return reconcile.Result{}, errors.Wrap(uerr, "cannot update status")
		}
		tr.written(ctx, d, endedPhases)
		if d.Status.Phase.Final() {
			ended(d, string(d.Status.Phase), r.o.Now())
			tr.finished(ctx, d, string(d.Status.Phase), r.o.Now())
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
		r.apply(d, transition{next: v1alpha1.DeployPending, message: "waiting for its turn and its environment"})
	}
	t, err := r.decide(ctx, d)
	if err != nil && t.next == "" && !t.fail && t.message == "" {
		// Retried with back-off: say so, where the person waiting reads,
		// instead of only in the provider's log.
		t.message = "retrying after an error: " + truncateMsg(err.Error())
	}
	r.apply(d, t)
	return reconcile.Result{RequeueAfter: r.lookAgain(d, t.requeue)}, err
}

// lookAgain is when to look again after a decision asking for requeue:
// FastPoll instead of Poll while the phase is young.
func (r *Reconciler) lookAgain(d *v1alpha1.DeployRun, requeue time.Duration) time.Duration {
	if requeue != Poll || d.Status.Phase.Final() {
		return requeue
	}
	for i := len(d.Status.Timeline) - 1; i >= 0; i-- {
		if e := d.Status.Timeline[i]; e.Phase == d.Status.Phase {
			if r.o.Now().Sub(e.At.Time) < fastFor {
				return FastPoll
			}
			break
		}
	}
	return Poll
}

// decide is what the deployment's phase decides at this look: a phase
// overdue or an environment the deployment cannot deploy to fails it
// whatever the phase.
func (r *Reconciler) decide(ctx context.Context, d *v1alpha1.DeployRun) (transition, error) {
	if late, timeout, field := r.overdue(d); late {
		return failed(fmt.Sprintf("timed out after %s (spec.timeouts.%s)%s", timeout, field, waitingOn(d))), nil
	}
	e, msg, err := r.environment(ctx, d)
	if err != nil {
		return transition{}, err
	}
	if msg != "" {
		if renewing(d) {
			return waitingForRenewal(d, msg), nil
		}
		return failed(msg), nil
	}
	if field := missingRecord(d); field != "" {
		return failed(fmt.Sprintf("%s is missing in phase %s: the deployment's record was removed, so it cannot go on; create a new DeployRun", field, d.Status.Phase)), nil
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
	case v1alpha1.DeploySucceeded, v1alpha1.DeployFailed:
		// Final: reconcile does not step it, there is nothing to decide.
	}
	return transition{}, nil
}

// transition is what a phase decided at one look: the phase to enter (or
// none), the message that says why or what the deployment waits for, and
// when to look again. It also carries the status records the phase keeps
// (the build's, the sync's): they are written whatever the phase decided,
// even when it then met an error, so that the next look starts from what
// this one learned.
type transition struct {
	// next is the phase to enter; "" stays in the current one.
	next v1alpha1.DeployPhase
	// message is the new phase's message or, staying, what the
	// deployment waits for; "" leaves the message as it is.
	message string
	// fail ends the deployment in Failed, message saying why.
	fail bool
	// requeue is when to look again; 0 waits for a change (or, after an
	// error, for the back-off).
	requeue time.Duration
	// startedAt is when the deployment left Pending.
	startedAt *metav1.Time
	// build and sync, when set, replace the build's and the sync's
	// records.
	build *v1alpha1.DeployBuild
	sync  *v1alpha1.DeploySync
	// url, when set, is the environment's live URL ("": it has none).
	url *string
}

// failed ends the deployment in Failed: msg says why.
func failed(msg string) transition { return transition{fail: true, message: msg} }

// waiting stays in the phase, saying what for, and looks again after Poll.
func waiting(msg string) transition { return transition{message: msg, requeue: Poll} }

// apply writes a transition into d's status. It is the only writer of the
// phase, the message and the timeline: the phases read d and return what
// they decided.
func (r *Reconciler) apply(d *v1alpha1.DeployRun, t transition) {
	if t.startedAt != nil {
		d.Status.StartedAt = t.startedAt
	}
	if t.build != nil {
		d.Status.Build = t.build
	}
	if t.sync != nil {
		d.Status.Sync = t.sync
	}
	if t.url != nil {
		d.Status.URL = *t.url
	}
	switch {
	case t.fail:
		r.fail(d, t.message)
	case t.next != "":
		r.enter(d, t.next, t.message)
	case t.message != "":
		d.Status.Message = t.message
	}
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

// missingRecord names the status record the deployment's phase works on
// when it is missing: the phase that set it ran, so only a hand edit of
// the status removes it.
func missingRecord(d *v1alpha1.DeployRun) string {
	switch d.Status.Phase {
	case v1alpha1.DeployBuilding:
		if d.Status.Build == nil {
			return "status.build"
		}
	case v1alpha1.DeployDeploying, v1alpha1.DeployVerifying:
		if d.Status.Sync == nil {
			return "status.sync"
		}
	case v1alpha1.DeployPending, v1alpha1.DeploySucceeded, v1alpha1.DeployFailed:
		// Pending has no record yet; a final deployment is not stepped.
	}
	return ""
}

// overdue is true when the deployment has been in its phase longer than
// the phase's timeout, limit; field names that timeout in spec.timeouts.
func (r *Reconciler) overdue(d *v1alpha1.DeployRun) (late bool, limit time.Duration, field string) {
	t := d.Spec.Timeouts
	switch d.Status.Phase {
	case v1alpha1.DeployPending:
		limit, field = orDefault(t.Pending, DefaultPendingTimeout), "pending"
	case v1alpha1.DeployBuilding:
		limit, field = orDefault(t.Build, DefaultBuildTimeout), "build"
	case v1alpha1.DeployDeploying:
		limit, field = orDefault(t.Deploy, DefaultDeployTimeout), "deploy"
	case v1alpha1.DeployVerifying:
		limit, field = orDefault(t.Verify, DefaultVerifyTimeout), "verify"
	case v1alpha1.DeploySucceeded, v1alpha1.DeployFailed:
		return false, 0, "" // over: nothing left to time out
	default:
		return false, 0, "" // a phase this provider does not know: not timed
	}
	since := d.CreationTimestamp.Time
	if n := len(d.Status.Timeline); n > 0 {
		since = d.Status.Timeline[n-1].At.Time
	}
	return r.o.Now().Sub(since) > limit, limit, field
}

func orDefault(d *metav1.Duration, def time.Duration) time.Duration {
	if d == nil || d.Duration <= 0 {
		return def
	}
	return d.Duration
}

// enter moves the deployment to phase.
func (r *Reconciler) enter(d *v1alpha1.DeployRun, phase v1alpha1.DeployPhase, msg string) {
	at := r.o.Now()
	now := metav1.NewTime(at)
	d.Status.Phase, d.Status.Message = phase, msg
	started := metav1.NewMicroTime(at)
	d.Status.PhaseStartedAt = &started
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

// fail ends the deployment in Failed, recording the phase it failed in.
func (r *Reconciler) fail(d *v1alpha1.DeployRun, msg string) {
	d.Status.FailedPhase = phaseOf(d)
	r.enter(d, v1alpha1.DeployFailed, fmt.Sprintf("failed in %s: %s", d.Status.FailedPhase, msg))
}
