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
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/freeleaps/provider-devops/internal/events"
	"github.com/freeleaps/provider-devops/internal/testing/argocdserver"
	"github.com/freeleaps/provider-devops/internal/testing/jaeger"
	"github.com/freeleaps/provider-devops/internal/testing/sandbox"
)

// deploy publishes a DevOpsReconcile deploy request, as the replaced
// operator's UI does (with its deployment id), and follows it: the build the
// request asks for commits a new revision of the environment's ConfigMap on
// the branch the application tracks, the DeployRun syncs that commit and
// verifies it, and the UI's queue gets the deployment's heartbeats.
func (c *Cluster) deploy(ctx context.Context, r *Report, ui *legacyUI) error {
	c.logf("publishing a deploy request for %s/%s at revision %s, deployment id %s", Project, deployEnv, revision, DeploymentID)
	sent, err := c.publishDeploy(ctx)
	if err != nil {
		return err
	}
	// What the deployment says is looked at from the request on, while
	// the scenario plays Jenkins' executor.
	said := c.watchDeployRun(ctx, sent)
	if err := c.Wait(ctx, "the requested build to be queued", 2*time.Minute, func(ctx context.Context) (bool, string, error) {
		s, err := c.sandboxState(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		j := s.Jobs[deployJob]
		return j.Queued > 0 || len(j.Builds) > 0, fmt.Sprintf("%s: %+v", deployJob, j), nil
	}); err != nil {
		return err
	}
	if err := c.failover(ctx, r, "the deployment"); err != nil {
		return err
	}
	build, err := c.waitBuild(ctx, r, sent)
	if err != nil {
		return err
	}
	if err := c.checkCommit(build, r); err != nil {
		return err
	}
	c.logf("  %s (REVISION=%s): committed %s on %s, reported on its description", r.Build, revision, r.Revision, appBranch)
	// The provider reports the build on the pipeline too.
	err = c.Wait(ctx, "the JenkinsPipeline to report the build", time.Minute, func(ctx context.Context) (bool, string, error) {
		ps, err := c.List(ctx, "jenkins.devops.freeleaps.io/v1alpha1", "JenkinsPipeline", client.InNamespace(ProjectNamespace),
			client.MatchingLabels{"devops.freeleaps.io/project": Project, "devops.freeleaps.io/environment": deployEnv})
		if err != nil || len(ps) != 1 {
			return false, fmt.Sprintf("%d pipelines (%v)", len(ps), err), nil
		}
		result, _, _ := unstructured.NestedString(ps[0].Object, "status", "atProvider", "lastBuild", "result")
		return result == "SUCCESS", "lastBuild.result=" + result, nil
	})
	if err != nil {
		return err
	}
	run, err := c.waitDeployRun(ctx, r, sent, said)
	if err != nil {
		return err
	}
	if err := c.checkDeployed(ctx, run, build, r.Revision); err != nil {
		return err
	}
	if err := c.checkTrace(ctx, r); err != nil {
		return err
	}
	// Whoever led, one request made one build.
	s, err := c.sandboxState(ctx)
	if err != nil {
		return err
	}
	if j := s.Jobs[deployJob]; len(j.Builds) != 1 || j.Queued != 0 {
		return fmt.Errorf("%s has %d builds and %d queued after one deploy request, want 1 and 0: %+v", deployJob, len(j.Builds), j.Queued, j)
	}
	if r.History, err = c.deployRunTable(ctx); err != nil {
		return err
	}
	c.logf("deployments (kubectl get deployruns -n %s):\n%s", ProjectNamespace, r.History)
	url, _, _ := unstructured.NestedString(run.Object, "status", "url")
	return ui.checkDeployment(ctx, c, r, sent, url)
}

// publishDeploy sends the deploy request as the CI user, with publisher
// confirms, under its own name, to the queue of its own the provider
// reads (the platform's ClusterProviderConfig names it), and returns when
// it was sent.
func (c *Cluster) publishDeploy(ctx context.Context) (time.Time, error) {
	admin, err := amqp.Dial(c.RabbitMQ.URL)
	if err != nil {
		return time.Time{}, err
	}
	defer func() { _ = admin.Close() }()
	lane := events.LaneQueue("devops.deploy-requests", DeployUser)
	if err := c.Wait(ctx, "the provider reading "+lane, 2*time.Minute, func(context.Context) (bool, string, error) {
		ch, err := admin.Channel()
		if err != nil {
			return false, "", err
		}
		defer func() { _ = ch.Close() }()
		q, err := ch.QueueDeclarePassive(lane, true, false, false, false, nil)
		if err != nil {
			return false, err.Error(), nil
		}
		return q.Consumers > 0, fmt.Sprintf("%d consumers", q.Consumers), nil
	}); err != nil {
		return time.Time{}, err
	}
	conn, err := amqp.Dial(c.DeployerAMQP)
	if err != nil {
		return time.Time{}, err
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		return time.Time{}, err
	}
	if err := ch.Confirm(false); err != nil {
		return time.Time{}, err
	}
	sent := time.Now()
	// The request continues the requester's trace, as a CI system
	// exporting its own would send it.
	c.deployTrace, c.deploySpan = randomHex(16), randomHex(8)
	body, _ := json.Marshal(map[string]string{"id": DeploymentID, "project": Project, "environment": deployEnv, "namespace": ProjectNamespace,
		"revision": revision, "requestedAt": sent.UTC().Format(time.RFC3339Nano)})
	conf, err := ch.PublishWithDeferredConfirmWithContext(ctx, "devops.deploy", events.LanePrefix+DeployUser+"."+Project+"."+deployEnv, true, false,
		amqp.Publishing{ContentType: "application/json", MessageId: "deploy-shop-dev-1", UserId: DeployUser, DeliveryMode: amqp.Persistent, Body: body,
			Headers: amqp.Table{"traceparent": "00-" + c.deployTrace + "-" + c.deploySpan + "-01"}})
	if err != nil {
		return time.Time{}, err
	}
	if ok, err := conf.WaitContext(ctx); err != nil || !ok {
		return time.Time{}, fmt.Errorf("the broker did not confirm the deploy request (%v)", err)
	}
	return sent, nil
}

// waitBuild waits for the requested build to be queued, run and succeed in
// (the fake) Jenkins, and returns it.
func (c *Cluster) waitBuild(ctx context.Context, r *Report, sent time.Time) (sandbox.Build, error) {
	var found sandbox.Build
	queued := false
	err := c.Wait(ctx, "the requested build to run and succeed", 2*time.Minute, func(ctx context.Context) (bool, string, error) {
		s, err := c.sandboxState(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		for job, j := range s.Jobs {
			if j.Queued > 0 && !queued {
				queued, r.DeployQueued = true, time.Since(sent)
				c.logf("  build queued in Jenkins for %s after %s", job, r.DeployQueued.Round(100*time.Millisecond))
			}
			for _, b := range j.Builds {
				if b.Params["REVISION"] != revision {
					continue
				}
				if !queued {
					queued, r.DeployQueued = true, time.Since(sent)
				}
				r.Build = fmt.Sprintf("%s #%d %s", job, b.Number, b.Result)
				switch b.Result {
				case "SUCCESS":
					found = b
					return true, "", nil
				case "":
				default:
					return false, "", fmt.Errorf("build %s: description %q (the sandbox's log says why)", r.Build, b.Description)
				}
			}
		}
		return false, fmt.Sprintf("jobs %v", s.Jobs), nil
	})
	return found, err
}

// checkCommit requires the build to report, as "revision=<commit id>" on its
// description, the commit the branch the application tracks now points at.
func (c *Cluster) checkCommit(b sandbox.Build, r *Report) error {
	var reported string
	for _, line := range strings.Split(b.Description, "\n") {
		if v, ok := strings.CutPrefix(line, "revision="); ok {
			reported = v
		}
	}
	if len(reported) != 40 {
		return fmt.Errorf("build %s reports no full commit id on its description (%q), want a line revision=<40 hex digits>", r.Build, b.Description)
	}
	out, err := exec.Command("git", "--git-dir="+c.Argo.Apps.Bare, "rev-parse", "refs/heads/"+appBranch).Output()
	if err != nil {
		return fmt.Errorf("cannot read branch %s of the GitOps repository: %w", appBranch, err)
	}
	if head := strings.TrimSpace(string(out)); head != reported {
		return fmt.Errorf("build %s reports revision %s, but branch %s of the GitOps repository is at %s", r.Build, reported, appBranch, head)
	}
	r.Revision = reported
	return nil
}

// deploySaid is every message a deployment showed, with when it was
// first seen: the timeline keeps phases only, and a wait inside a phase
// (another operation, a retried error) is what a slow deployment needs
// told.
type deploySaid struct {
	mu   sync.Mutex
	seen []string
	done chan struct{}
}

// watchDeployRun looks at the request's DeployRun every second, from the
// request until it ends or ctx does.
func (c *Cluster) watchDeployRun(ctx context.Context, sent time.Time) *deploySaid {
	d := &deploySaid{done: make(chan struct{})}
	go func() {
		defer close(d.done)
		last := ""
		for ; ctx.Err() == nil && time.Since(sent) < 5*time.Minute; time.Sleep(time.Second) {
			runs, err := c.List(ctx, "devops.freeleaps.io/v1alpha1", "DeployRun", client.InNamespace(ProjectNamespace),
				client.MatchingLabels{"devops.freeleaps.io/project": Project, "devops.freeleaps.io/environment": deployEnv})
			if err != nil || len(runs) != 1 {
				continue
			}
			phase, _, _ := unstructured.NestedString(runs[0].Object, "status", "phase")
			msg, _, _ := unstructured.NestedString(runs[0].Object, "status", "message")
			if m := phase + ": " + msg; m != last && phase != "" {
				last = m
				d.mu.Lock()
				d.seen = append(d.seen, fmt.Sprintf("+%.1fs %s", time.Since(sent).Seconds(), m))
				d.mu.Unlock()
			}
			if phase == "Succeeded" || phase == "Failed" {
				return
			}
		}
	}()
	return d
}

// waitDeployRun waits for the request's DeployRun to succeed, and records
// how long it took (to when it entered Succeeded, which its
// status.phaseStartedAt keeps to the microsecond) and its timeline.
func (c *Cluster) waitDeployRun(ctx context.Context, r *Report, sent time.Time, said *deploySaid) (*unstructured.Unstructured, error) {
	var run *unstructured.Unstructured
	err := c.Wait(ctx, "the DeployRun to succeed", 3*time.Minute, func(ctx context.Context) (bool, string, error) {
		runs, err := c.List(ctx, "devops.freeleaps.io/v1alpha1", "DeployRun", client.InNamespace(ProjectNamespace),
			client.MatchingLabels{"devops.freeleaps.io/project": Project, "devops.freeleaps.io/environment": deployEnv})
		if err != nil || len(runs) != 1 {
			return false, fmt.Sprintf("%d DeployRuns (%v)", len(runs), err), nil
		}
		phase, _, _ := unstructured.NestedString(runs[0].Object, "status", "phase")
		msg, _, _ := unstructured.NestedString(runs[0].Object, "status", "message")
		if phase == "Failed" {
			return false, "", fmt.Errorf("DeployRun %s failed: %s", runs[0].GetName(), msg)
		}
		if phase != "Succeeded" {
			return false, phase + ": " + msg, nil
		}
		run = &runs[0]
		return true, "", nil
	})
	if err != nil {
		return nil, err
	}
	r.Deployed = time.Since(sent)
	if v, _, _ := unstructured.NestedString(run.Object, "status", "phaseStartedAt"); v != "" {
		if at, err := time.Parse(time.RFC3339Nano, v); err == nil && at.After(sent) {
			r.Deployed = at.Sub(sent)
		}
	}
	tl, _, _ := unstructured.NestedSlice(run.Object, "status", "timeline")
	start := run.GetCreationTimestamp().Time
	for _, x := range tl {
		m, _ := x.(map[string]any)
		at, _ := time.Parse(time.RFC3339, fmt.Sprint(m["at"]))
		r.Timeline = append(r.Timeline, fmt.Sprintf("+%s %s: %s", at.Sub(start).Round(time.Second), m["phase"], m["message"]))
	}
	c.logf("  DeployRun %s Succeeded after %s:", run.GetName(), r.Deployed.Round(100*time.Millisecond))
	for _, l := range r.Timeline {
		c.logf("    %s", l)
	}
	c.logf("  where its time went (whole seconds, as Kubernetes and Argo CD keep them): %s", deploymentParts(run))
	c.logf("  its events: %s", c.eventsOf(ctx, run))
	c.logf("  what it said while it ran (since the request, looked at every second):")
	select {
	case <-said.done:
	case <-time.After(5 * time.Second):
	}
	said.mu.Lock()
	for _, l := range said.seen {
		c.logf("    %s", l)
	}
	said.mu.Unlock()
	return run, nil
}

// deploymentParts splits a finished deployment's time by who spent it:
// Jenkins (queue and build), Argo CD (before and during its operation)
// and the provider (between them and after).
func deploymentParts(run *unstructured.Unstructured) string {
	at := func(path ...string) time.Time {
		v, _, _ := unstructured.NestedString(run.Object, path...)
		t, _ := time.Parse(time.RFC3339, v)
		return t
	}
	parts := []struct {
		what     string
		from, to time.Time
	}{
		{"asked → build started (Jenkins' queue)", at("status", "startedAt"), at("status", "build", "startedAt")},
		{"build", at("status", "build", "startedAt"), at("status", "build", "finishedAt")},
		{"build ended → sync asked (ours)", at("status", "build", "finishedAt"), at("status", "sync", "startedAt")},
		{"sync asked → operation started (Argo CD)", at("status", "sync", "startedAt"), at("status", "sync", "operationStartedAt")},
		{"operation (Argo CD)", at("status", "sync", "operationStartedAt"), at("status", "sync", "operationFinishedAt")},
		{"operation ended → Succeeded (ours: Healthy seen, written)", at("status", "sync", "operationFinishedAt"), at("status", "finishedAt")},
	}
	out := make([]string, 0, len(parts)+1)
	for _, p := range parts {
		d := "-"
		if !p.from.IsZero() && !p.to.IsZero() {
			d = p.to.Sub(p.from).String()
		}
		out = append(out, p.what+" "+d)
	}
	// A sync Argo CD could not run is asked for again: the attempts say
	// whether the time went there.
	attempt, _, _ := unstructured.NestedInt64(run.Object, "status", "sync", "attempt")
	out = append(out, fmt.Sprintf("sync attempts %d", max(1, attempt)))
	return strings.Join(out, "; ")
}

// checkDeployed requires the deployment to have taken the build's commit
// all the way: the DeployRun's build and sync name it, Argo CD reports the
// application Synced at it and Healthy, and the ConfigMap it changed is in
// the cluster with the build's number.
func (c *Cluster) checkDeployed(ctx context.Context, run *unstructured.Unstructured, b sandbox.Build, sha string) error {
	str := func(path ...string) string {
		v, _, _ := unstructured.NestedString(run.Object, path...)
		return v
	}
	for _, f := range []struct{ what, got, want string }{
		{"status.build.revision", str("status", "build", "revision"), sha},
		{"status.sync.syncedRevision", str("status", "sync", "syncedRevision"), sha},
		{"status.url", str("status", "url"), envURL(deployEnv)},
	} {
		if f.got != f.want {
			return fmt.Errorf("DeployRun %s has %s %q, want %q", run.GetName(), f.what, f.got, f.want)
		}
	}
	name := appName(deployEnv)
	app, err := c.Argo.Application(ctx, argocdserver.Namespace, name)
	if err != nil || app == nil {
		return fmt.Errorf("application %s not in Argo CD (%v)", name, err)
	}
	rev, _, _ := unstructured.NestedString(app.Object, "status", "sync", "revision")
	sync, _, _ := unstructured.NestedString(app.Object, "status", "sync", "status")
	health, _, _ := unstructured.NestedString(app.Object, "status", "health", "status")
	if rev != sha || sync != "Synced" || health != "Healthy" {
		return fmt.Errorf("Argo CD reports application %s %s and %s at %s, want Synced and Healthy at %s", name, sync, health, rev, sha)
	}
	ns, _, _ := unstructured.NestedString(app.Object, "spec", "destination", "namespace")
	cm := &corev1.ConfigMap{}
	if err := c.Kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: Project}, cm); err != nil {
		return fmt.Errorf("the deployed ConfigMap %s/%s: %w", ns, Project, err)
	}
	want := map[string]string{"environment": deployEnv, "build": strconv.Itoa(b.Number), "sourceRevision": revision}
	for k, v := range want {
		if cm.Data[k] != v {
			return fmt.Errorf("ConfigMap %s/%s has data %v, want %v: the build's commit is not what runs", ns, Project, cm.Data, want)
		}
	}
	c.logf("  Argo CD reports %s Synced and Healthy at %s; ConfigMap %s/%s has build %q from %s", name, sha[:12], ns, Project, cm.Data["build"], revision)
	return nil
}

// deployRunTable is what `kubectl get deployruns` prints for the project's
// namespace: the API server's table of them, with the columns the CRD
// declares (those of -o wide left out).
func (c *Cluster) deployRunTable(ctx context.Context) (string, error) {
	hc, err := rest.HTTPClientFor(c.REST)
	if err != nil {
		return "", err
	}
	url := strings.TrimSuffix(c.REST.Host, "/") + "/apis/devops.freeleaps.io/v1alpha1/namespaces/" + ProjectNamespace + "/deployruns"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s as a table: %s", url, resp.Status)
	}
	t := &metav1.Table{}
	if err := json.NewDecoder(resp.Body).Decode(t); err != nil {
		return "", err
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	var cols []int
	var head []string
	for i, col := range t.ColumnDefinitions {
		if col.Priority == 0 {
			cols = append(cols, i)
			head = append(head, strings.ToUpper(col.Name))
		}
	}
	_, _ = fmt.Fprintln(w, strings.Join(head, "\t"))
	for _, row := range t.Rows {
		cells := make([]string, 0, len(cols))
		for _, i := range cols {
			cells = append(cells, cell(t.ColumnDefinitions[i], row.Cells[i]))
		}
		_, _ = fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	_ = w.Flush()
	return b.String(), nil
}

// cell prints a table cell as kubectl does: a date as an age.
func cell(col metav1.TableColumnDefinition, v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok && col.Type == "date" {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return duration.HumanDuration(time.Since(t))
		}
	}
	return fmt.Sprint(v)
}

// checkTrace reads the deployment's trace back from Jaeger, when the
// provider sends it one: the request's span continuing the requester's
// traceparent, the deployment under it, its phases and calls in order.
func (c *Cluster) checkTrace(ctx context.Context, r *Report) error {
	if c.cfg.JaegerQuery == "" {
		return nil
	}
	var spans []jaeger.Span
	var request string
	err := c.Wait(ctx, "the deployment's trace in Jaeger", time.Minute, func(ctx context.Context) (bool, string, error) {
		var err error
		if spans, err = jaeger.Trace(ctx, c.cfg.JaegerQuery, c.deployTrace); err != nil {
			return false, err.Error(), nil
		}
		request = ""
		for _, s := range spans {
			if s.Name == "deploy request" && s.ParentID == c.deploySpan {
				request = s.SpanID
			}
		}
		return request != "" && jaeger.DeploymentRoot(spans, request) != nil, fmt.Sprintf("%d spans, request span %q", len(spans), request), nil
	})
	if err != nil {
		return err
	}
	drawn, problems := jaeger.CheckDeployment(spans, request)
	r.Trace = drawn
	c.logf("the deployment's trace %s (Jaeger):\n%s", c.deployTrace, drawn)
	if len(problems) > 0 {
		return fmt.Errorf("the deployment's trace: %s", strings.Join(problems, "; "))
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// eventsOf lists the events recorded on obj, oldest first, as
// "REASON: message".
func (c *Cluster) eventsOf(ctx context.Context, obj client.Object) string {
	l := &corev1.EventList{}
	if err := c.Kube.List(ctx, l, client.InNamespace(obj.GetNamespace())); err != nil {
		return err.Error()
	}
	var out []string
	for _, e := range l.Items {
		if e.InvolvedObject.UID == obj.GetUID() {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	return strings.Join(out, "; ")
}
