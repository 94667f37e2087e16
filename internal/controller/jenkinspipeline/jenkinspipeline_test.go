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

package jenkinspipeline_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins/declarative"
	"github.com/freeleaps/provider-devops/internal/controller/jenkinspipeline"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
	fake "github.com/freeleaps/provider-devops/internal/testing/jenkins"
)

const (
	user  = "crossplane"
	token = "11f0-jenkins-token-never-printed"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

func TestJenkinsPipelineLifecycle(t *testing.T) {
	env := controlplane.Shared(t)
	srv := fake.New(user, token)
	defer srv.Close()
	c := env.Client
	ctx := context.Background()

	ns := "jenkins-lifecycle"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns},
		StringData: map[string]string{"credentials": `{"username": "` + user + `", "token": "` + token + `"}`}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		Jenkins: &pcv1alpha1.JenkinsConfig{URL: srv.URL, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "jenkins", Key: "credentials"}}},
	}}))

	logs := &controlplane.Logs{}
	controlplane.StartManagerLogging(t, env, 2*time.Second, logs, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, jenkinspipeline.Descriptor, jenkinspipeline.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil))
	})

	cr := newPipeline(ns, "shop-alpha", "team/shop", "alpha")
	cr.Spec.ForProvider.BuildRequest = "r1"
	controlplane.Must(t, c.Create(ctx, cr))
	const path = "team/shop/alpha"

	// Created in its folders, Ready, and the requested build queued once.
	controlplane.Eventually(t, "job created, Ready and Synced, r1 queued", func() bool {
		return get(t, c, cr) && ready(cr) && srv.Exists(path) && cr.Status.AtProvider.HandledBuildRequest == "r1" && srv.Queued(path) == 1
	})
	if got := meta.GetExternalName(cr); got != path {
		t.Errorf("external name: got %q, want %q", got, path)
	}
	if got := cr.Status.AtProvider.CreatedFolders; strings.Join(got, ",") != "team,team/shop" {
		t.Errorf("createdFolders: got %v", got)
	}
	if want := srv.URL + "/job/team/job/shop/job/alpha/"; cr.Status.AtProvider.URL != want {
		t.Errorf("url: got %q, want %q", cr.Status.AtProvider.URL, want)
	}

	// The build runs and finishes; status shows it.
	srv.RunQueue()
	srv.Finish(path, "SUCCESS")
	controlplane.Eventually(t, "last build in status", func() bool {
		b := get(t, c, cr) && cr.Status.AtProvider.LastBuild != nil
		return b && cr.Status.AtProvider.LastBuild.Number == 1 && cr.Status.AtProvider.LastBuild.Result == "SUCCESS" && !cr.Status.AtProvider.InQueue
	})

	// Drift made in Jenkins is corrected on a later poll, and only the
	// managed fields change: what a person configured beside them (matrix
	// authorization, a build discarder, no concurrent builds) survives.
	cfg, _ := srv.Config(path)
	theirs := `<hudson.security.AuthorizationMatrixProperty><permission>USER:hudson.model.Item.Build:alice</permission></hudson.security.AuthorizationMatrixProperty>` +
		`<jenkins.model.BuildDiscarderProperty><strategy class="hudson.tasks.LogRotator"><numToKeep>10</numToKeep></strategy></jenkins.model.BuildDiscarderProperty>` +
		`<org.jenkinsci.plugins.workflow.job.properties.DisableConcurrentBuildsJobProperty><abortPrevious>false</abortPrevious></org.jenkinsci.plugins.workflow.job.properties.DisableConcurrentBuildsJobProperty>`
	edited := strings.Replace(cfg, "https://git.example.com/team/shop.git", "https://evil.example.com/x.git", 1)
	if strings.Contains(edited, "<properties/>") {
		edited = strings.Replace(edited, "<properties/>", "<properties>"+theirs+"</properties>", 1)
	} else {
		edited = strings.Replace(edited, "<properties>", "<properties>"+theirs, 1)
	}
	srv.SetConfig(path, edited)
	controlplane.Eventually(t, "drift corrected", func() bool {
		cfg, _ := srv.Config(path)
		p, err := jenkins.Parse([]byte(cfg))
		return err == nil && p.SCM.URL == "https://git.example.com/team/shop.git"
	})
	if cfg, _ := srv.Config(path); !strings.Contains(cfg, "USER:hudson.model.Item.Build:alice") || !strings.Contains(cfg, "<numToKeep>10</numToKeep>") || !strings.Contains(cfg, "DisableConcurrentBuildsJobProperty") {
		t.Errorf("the drift correction dropped what it does not manage:\n%s", cfg)
	}

	t.Run("SteadyState", func(t *testing.T) {
		controlplane.Eventually(t, "settled", func() bool { return get(t, c, cr) && synced(cr) })
		time.Sleep(3 * time.Second)
		get(t, c, cr)
		rv := cr.GetResourceVersion()
		srv.ResetCounts()
		time.Sleep(7 * time.Second) // at least two polls at 2s ±10%
		get(t, c, cr)
		configReads, statusReads := 0, 0
		for _, r := range srv.Requests() {
			switch {
			case strings.HasSuffix(r, "/config.xml/"), strings.HasSuffix(r, "/config.xml"):
				configReads++
			case strings.HasSuffix(r, "/api/json"):
				statusReads++
			}
		}
		writes := srv.Count(http.MethodPost)
		t.Logf("steady state over 7s (poll 2s): %d polls, %d config.xml reads + %d status reads, %d external writes, resourceVersion %s -> %s",
			configReads, configReads, statusReads, writes, rv, cr.GetResourceVersion())
		if configReads < 1 || configReads > 5 || statusReads != configReads {
			t.Errorf("want one config.xml read and one status read per poll, got %d and %d: %v", configReads, statusReads, srv.Requests())
		}
		if srv.Count(http.MethodGet) != configReads+statusReads || writes != 0 {
			t.Errorf("want no other request in steady state: %v", srv.Requests())
		}
		if cr.GetResourceVersion() != rv {
			t.Errorf("the resource was written to Kubernetes in steady state: resourceVersion %s -> %s", rv, cr.GetResourceVersion())
		}
	})

	t.Run("BuildRequestQueuesExactlyOnce", func(t *testing.T) {
		// The first attempt fails (Jenkins answers 503); the request is
		// kept pending, retried, and queued exactly once.
		srv.FailNext(1, http.StatusServiceUnavailable, 0)
		patchSpec(t, c, cr, func(p *v1alpha1.JenkinsPipeline) { p.Spec.ForProvider.BuildRequest = "r2" })
		controlplane.Eventually(t, "r2 handled", func() bool { return get(t, c, cr) && cr.Status.AtProvider.HandledBuildRequest == "r2" })
		time.Sleep(5 * time.Second) // a few more polls must not queue it again
		if n := srv.Queued(path) + len(srv.Builds(path)); n != 2 {
			t.Errorf("want exactly one more build for r2 (2 in all), got %d", n)
		}
	})

	t.Run("LostAnswerBuildsOnce", func(t *testing.T) {
		// Jenkins queues the build but the answer is lost (a timeout, a
		// reset): the retry finds it in the queue and queues nothing.
		// Then the answer is lost before Jenkins queued anything: the
		// retry finds nothing and queues it, once.
		count := func() int { return srv.Queued(path) + len(srv.Builds(path)) }
		for _, tc := range []struct {
			req    string
			queued bool
		}{{"r3", true}, {"r4", false}} {
			srv.RunQueue()
			before := count()
			srv.LoseNextBuildAnswer(tc.queued)
			patchSpec(t, c, cr, func(p *v1alpha1.JenkinsPipeline) { p.Spec.ForProvider.BuildRequest = tc.req })
			controlplane.Eventually(t, tc.req+" confirmed", func() bool {
				return get(t, c, cr) && cr.Status.AtProvider.HandledBuildRequest == tc.req && cr.Status.AtProvider.UnconfirmedBuild == nil && count() > before
			})
			time.Sleep(5 * time.Second) // a few more polls must not queue it again
			if n := count() - before; n != 1 {
				t.Errorf("%s (answer lost %s queueing): want exactly one build, got %d", tc.req, map[bool]string{true: "after", false: "before"}[tc.queued], n)
			}
		}
	})

	t.Run("RetryAfterHonoured", func(t *testing.T) {
		// Jenkins answers 429 and asks for 4s: nobody calls it sooner, the
		// resource says why, and it is reconciled again after the wait
		// (mrcontroller.MinRetryAfter at least), and recovers.
		srv.FailNext(1, http.StatusTooManyRequests, 4)
		controlplane.Eventually(t, "the 429 was served", func() bool { return srv.PendingFailures() == 0 })
		controlplane.Eventually(t, "the wait reported", func() bool {
			return get(t, c, cr) && strings.Contains(cr.GetCondition(xpv2.TypeSynced).Message, "Jenkins is rate limiting (429); retry after 4s")
		})
		controlplane.EventuallyWithin(t, 3*mrcontroller.MinRetryAfter, "Synced again after the wait", func() bool { return get(t, c, cr) && synced(cr) })
		// The client saw the 429 after the server sent it, so its hold ends
		// no earlier than 4s after that: nothing may arrive in between.
		served := srv.LastFailureAt()
		if early := srv.RequestsBetween(served.Add(time.Millisecond), served.Add(3900*time.Millisecond)); len(early) != 0 {
			t.Errorf("Jenkins was called within its Retry-After: %v", early)
		}
	})

	t.Run("ForeignJobRefused", func(t *testing.T) {
		foreign := strings.Replace(cfgOf(t, srv, path), jenkins.OwnerLine(ns+"/shop-alpha"), "Hand-made.", 1)
		srv.SetConfig("other/foreign", foreign)
		other := newPipeline(ns, "foreign", "other", "foreign")
		controlplane.Must(t, c.Create(ctx, other))
		controlplane.Eventually(t, "conflict reported", func() bool {
			return get(t, c, other) && other.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionFalse &&
				strings.Contains(other.GetCondition(xpv2.TypeSynced).Message, `Jenkins job "other/foreign" exists and no JenkinsPipeline manages it: it was left untouched`)
		})
		if got := cfgOf(t, srv, "other/foreign"); got != foreign {
			t.Error("the foreign job was modified")
		}
		controlplane.Must(t, c.Delete(ctx, other))
		controlplane.Eventually(t, "foreign resource gone", func() bool { return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(other), other)) })
		if !srv.Exists("other/foreign") {
			t.Error("deleting a resource that never owned the job deleted it")
		}
	})

	t.Run("ObserveOnlyWatchesForeignJob", func(t *testing.T) {
		watcher := newPipeline(ns, "watcher", "other", "foreign")
		watcher.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
		controlplane.Must(t, c.Create(ctx, watcher))
		controlplane.Eventually(t, "observe-only resource Ready", func() bool {
			return get(t, c, watcher) && ready(watcher) && watcher.Status.AtProvider.URL != ""
		})
		before := cfgOf(t, srv, "other/foreign")
		controlplane.Must(t, c.Delete(ctx, watcher))
		controlplane.Eventually(t, "watcher gone", func() bool { return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(watcher), watcher)) })
		if got := cfgOf(t, srv, "other/foreign"); got != before {
			t.Error("an Observe-only resource changed or deleted the job")
		}
	})

	t.Run("MarkerEditedAwayLetsGo", func(t *testing.T) {
		// A job this resource created, whose ownership line someone then
		// edited out of the description in Jenkins: deleting the resource
		// can no longer prove the job is its own, so it lets go (the
		// finalizer goes) and leaves the job, instead of waiting forever
		// or deleting a job that may now be someone else's.
		gamma := newPipeline(ns, "shop-gamma", "other", "gamma")
		controlplane.Must(t, c.Create(ctx, gamma))
		controlplane.Eventually(t, "gamma Ready", func() bool { return get(t, c, gamma) && ready(gamma) })
		edited := strings.Replace(cfgOf(t, srv, "other/gamma"), jenkins.OwnerLine(ns+"/shop-gamma"), "Now run by hand.", 1)
		if edited == cfgOf(t, srv, "other/gamma") {
			t.Fatal("the ownership line was not found in the job's description")
		}
		srv.SetConfig("other/gamma", edited)
		controlplane.Must(t, c.Delete(ctx, gamma))
		controlplane.Eventually(t, "the resource gone", func() bool { return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(gamma), gamma)) })
		if got := cfgOf(t, srv, "other/gamma"); got != edited {
			t.Errorf("the job whose ownership could not be verified was changed or deleted:\n%s", got)
		}
	})

	t.Run("AdoptUnownedJobKeepsBuilds", func(t *testing.T) {
		// A job with a build that no resource owns (as the Kopf operator
		// left it): made here, its owner line edited away, its resource
		// deleted (which lets go of it).
		const delta = "other/delta"
		made := newPipeline(ns, "shop-delta", "other", "delta")
		made.Spec.ForProvider.BuildRequest = "d1"
		controlplane.Must(t, c.Create(ctx, made))
		controlplane.Eventually(t, "delta made and its build queued", func() bool {
			return get(t, c, made) && ready(made) && srv.Queued(delta) == 1
		})
		srv.RunQueue()
		srv.Finish(delta, "SUCCESS")
		unowned := strings.Replace(cfgOf(t, srv, delta), jenkins.OwnerLine(ns+"/shop-delta"), "Made by the operator.", 1)
		srv.SetConfig(delta, unowned)
		controlplane.Must(t, c.Delete(ctx, made))
		controlplane.Eventually(t, "the maker gone", func() bool { return kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(made), made)) })
		if !srv.Exists(delta) || len(srv.Builds(delta)) != 1 {
			t.Fatalf("the unowned job with its build must remain: exists %v, builds %d", srv.Exists(delta), len(srv.Builds(delta)))
		}

		// Without adoptExisting it is refused; with it, taken over in place.
		adopter := newPipeline(ns, "shop-delta2", "other", "delta")
		controlplane.Must(t, c.Create(ctx, adopter))
		controlplane.Eventually(t, "refused without adoptExisting", func() bool {
			return get(t, c, adopter) && strings.Contains(adopter.GetCondition(xpv2.TypeSynced).Message, "Set spec.forProvider.adoptExisting: true")
		})
		patchSpec(t, c, adopter, func(p *v1alpha1.JenkinsPipeline) { p.Spec.ForProvider.AdoptExisting = true })
		controlplane.Eventually(t, "adopted and Ready", func() bool {
			return get(t, c, adopter) && ready(adopter) && strings.Contains(cfgOf(t, srv, delta), jenkins.OwnerLine(ns+"/shop-delta2"))
		})
		if got := srv.Created()[delta]; got != 1 {
			t.Errorf("the job was created %d times, want once (adoption must not recreate it)", got)
		}
		if b := srv.Builds(delta); len(b) != 1 || b[0].Result != "SUCCESS" {
			t.Errorf("the adopted job lost its builds: %v", b)
		}
		if d := srv.Deleted()[delta]; d != 0 {
			t.Errorf("the job was deleted %d times during adoption", d)
		}
	})

	t.Run("PausedIsLeftAlone", func(t *testing.T) {
		patchSpec(t, c, cr, func(p *v1alpha1.JenkinsPipeline) {
			meta.AddAnnotations(p, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"})
		})
		controlplane.Eventually(t, "paused", func() bool {
			return get(t, c, cr) && cr.GetCondition(xpv2.TypeSynced).Reason == xpv2.ReasonReconcilePaused
		})
		patchSpec(t, c, cr, func(p *v1alpha1.JenkinsPipeline) { p.Spec.ForProvider.Description = "changed while paused" })
		time.Sleep(5 * time.Second)
		if p, _ := jenkins.Parse([]byte(cfgOf(t, srv, path))); p.Description == "changed while paused" {
			t.Error("a paused resource was reconciled")
		}
		patchSpec(t, c, cr, func(p *v1alpha1.JenkinsPipeline) { delete(p.Annotations, meta.AnnotationKeyReconciliationPaused) })
		controlplane.Eventually(t, "applied after unpausing", func() bool {
			p, err := jenkins.Parse([]byte(cfgOf(t, srv, path)))
			return err == nil && p.Description == "changed while paused"
		})
	})

	t.Run("PathIsImmutable", func(t *testing.T) {
		// The controller writes the object too: a conflict is retried,
		// the refusal is what is tested.
		var err error
		for range 20 {
			get(t, c, cr)
			cr.Spec.ForProvider.Folder = "team/elsewhere"
			if err = c.Update(ctx, cr); !kerrors.IsConflict(err) {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), "folder and name are immutable") {
			t.Errorf("moving the job must be refused by the API server, got %v", err)
		}
	})

	// Deleting the resource deletes the job and the folders it created.
	get(t, c, cr)
	controlplane.Must(t, c.Delete(ctx, cr))
	controlplane.Eventually(t, "job and its folders deleted", func() bool {
		return !srv.Exists(path) && !srv.Exists("team") && kerrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cr), &v1alpha1.JenkinsPipeline{}))
	})

	// No event and no log line carries the token.
	events := &corev1.EventList{}
	controlplane.Must(t, c.List(ctx, events, client.InNamespace(ns)))
	for _, e := range events.Items {
		if strings.Contains(e.Message, token) {
			t.Errorf("event leaks the token: %s", e.Message)
		}
	}
	if logs.Len() == 0 {
		t.Error("no controller logs were captured: the leak check would prove nothing")
	}
	if strings.Contains(logs.String(), token) {
		t.Error("the controller logs leak the token")
	}
}

func newPipeline(ns, name, folder, job string) *v1alpha1.JenkinsPipeline {
	cr := &v1alpha1.JenkinsPipeline{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
	lightweight := true
	def := "false"
	cr.Spec.ForProvider = v1alpha1.JenkinsPipelineParameters{
		Folder: folder, Name: job, Description: "Builds and deploys the shop.",
		Source: v1alpha1.PipelineSource{SCM: &v1alpha1.SCMSource{URL: "https://git.example.com/team/shop.git", Branch: "main", ScriptPath: "Jenkinsfile", CredentialsID: "git-shop", Lightweight: &lightweight}},
		Parameters: []v1alpha1.Parameter{
			{Name: "ENVIRONMENT", Type: v1alpha1.ParameterChoice, Choices: []string{"alpha", "beta"}},
			{Name: "DRY_RUN", Type: v1alpha1.ParameterBoolean, Default: &def},
		},
		Triggers: &v1alpha1.Triggers{PollSCM: "H/5 * * * *"},
	}
	return cr
}

func cfgOf(t *testing.T, srv *fake.Server, path string) string {
	t.Helper()
	cfg, ok := srv.Config(path)
	if !ok {
		t.Fatalf("job %s does not exist", path)
	}
	return cfg
}

func patchSpec(t *testing.T, c client.Client, cr *v1alpha1.JenkinsPipeline, fn func(*v1alpha1.JenkinsPipeline)) {
	t.Helper()
	controlplane.Eventually(t, "spec patched", func() bool {
		if !get(t, c, cr) {
			return false
		}
		fn(cr)
		return c.Update(context.Background(), cr) == nil
	})
}

func ready(cr *v1alpha1.JenkinsPipeline) bool {
	return cr.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue && synced(cr)
}

func synced(cr *v1alpha1.JenkinsPipeline) bool {
	return cr.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
}

func get(t *testing.T, c client.Client, cr *v1alpha1.JenkinsPipeline) bool {
	t.Helper()
	return c.Get(context.Background(), client.ObjectKeyFromObject(cr), cr) == nil
}

// TestJenkinsTenantLimits plays a team whose ProviderConfig pins the root
// folder teams/shop and the credential ids shop-*: every way out of it is
// refused with a message and sends nothing to Jenkins.
func TestJenkinsTenantLimits(t *testing.T) {
	env := controlplane.Shared(t)
	srv := fake.New(user, token)
	defer srv.Close()
	c := env.Client
	ctx := context.Background()

	// The Jenkins administrators made the team's root folder.
	admin, err := jenkins.New(jenkins.Config{URL: srv.URL, Username: user, Token: token})
	controlplane.Must(t, err)
	_, err = admin.Create(ctx, "teams/shop/seed", jenkins.Pipeline{Script: "node {}"})
	controlplane.Must(t, err)

	ns := "jenkins-tenant"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns},
		StringData: map[string]string{"credentials": `{"username": "` + user + `", "token": "` + token + `"}`}}))
	pc := func(name, root string) *pcv1alpha1.ProviderConfig {
		return &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
			Jenkins: &pcv1alpha1.JenkinsConfig{URL: srv.URL, RootFolder: root, AllowedCredentialIDs: []string{"shop-*"},
				Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "jenkins", Key: "credentials"}}},
		}}
	}
	controlplane.Must(t, c.Create(ctx, pc("default", "teams/shop")))
	controlplane.Must(t, c.Create(ctx, pc("missing-root", "teams/missing")))
	controlplane.StartManager(t, env, 2*time.Second, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, jenkinspipeline.Descriptor, jenkinspipeline.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil))
	})
	before := srv.Jobs()

	pipeline := func(name, folder, cred string) *v1alpha1.JenkinsPipeline {
		cr := newPipeline(ns, name, folder, name)
		cr.Spec.ForProvider.Source.SCM.CredentialsID = cred
		return cr
	}
	imported := pipeline("imported", "teams/shop", "shop-git")
	meta.SetExternalName(imported, "admin/deploy-prod")
	dotdot := pipeline("dotdot", "teams/shop", "shop-git")
	meta.SetExternalName(dotdot, "teams/shop/..")
	elsewhere := pipeline("elsewhere", "teams/missing/app", "shop-git")
	elsewhere.Spec.ProviderConfigReference.Name = "missing-root"
	cases := map[string]struct {
		reason string
		cr     *v1alpha1.JenkinsPipeline
		want   string
	}{
		"OtherTeamsFolder": {"another team's folder and its credentials", pipeline("other", "teams/other", "shop-git"),
			`job "teams/other/other" is outside the root folder "teams/shop"`},
		"PrefixTwin": {"a folder whose name only starts like the root", pipeline("twin", "teams/shop2", "shop-git"),
			`is outside the root folder "teams/shop"`},
		"JenkinsRoot": {"the Jenkins root, where global jobs live", pipeline("top", "", "shop-git"),
			`job "top" is outside the root folder`},
		"ExternalName": {"an external name set by hand names the real path", imported,
			`job "admin/deploy-prod" is outside the root folder "teams/shop"`},
		"DotDot": {"a '..' segment that Jenkins URLs resolve to the root folder itself", dotdot,
			`job path "teams/shop/.." has an empty, '.' or '..' segment`},
		"CredentialsID": {"a credential id the team was not given", pipeline("cred", "teams/shop", "prod-admin"),
			`credentials id "prod-admin" in spec.forProvider.source.scm.credentialsId is not allowed (spec.jenkins.allowedCredentialIds: shop-*)`},
		"RootNotCreated": {"the root folder is the administrators' to make", elsewhere,
			`the root folder "teams/missing" does not exist in Jenkins`},
	}
	for name, tc := range cases {
		controlplane.Must(t, c.Create(ctx, tc.cr))
		t.Run(name, func(t *testing.T) {
			controlplane.Eventually(t, tc.reason+": refused", func() bool {
				return get(t, c, tc.cr) && strings.Contains(tc.cr.GetCondition(xpv2.TypeSynced).Message, tc.want)
			})
		})
	}

	ok := pipeline("app", "teams/shop/app", "shop-git")
	controlplane.Must(t, c.Create(ctx, ok))
	controlplane.Eventually(t, "a pipeline below the root with an allowed id is Ready", func() bool { return get(t, c, ok) && ready(ok) })
	if got := ok.Status.AtProvider.CreatedFolders; strings.Join(got, ",") != "teams/shop/app" {
		t.Errorf("only folders below the root are created, got %v", got)
	}
	after := append(before, "teams/shop/app/app")
	sort.Strings(after)
	if got, want := strings.Join(srv.Jobs(), ","), strings.Join(after, ","); got != want {
		t.Errorf("the refused pipelines reached Jenkins: jobs %s, want %s", got, want)
	}
	if srv.Exists("teams/missing") {
		t.Error("the provider created a root folder")
	}

	// Refused resources can always be deleted: they are let go untouched.
	for _, tc := range cases {
		controlplane.Must(t, c.Delete(ctx, tc.cr))
	}
	controlplane.Eventually(t, "refused resources deleted", func() bool {
		l := &v1alpha1.JenkinsPipelineList{}
		return c.List(ctx, l, client.InNamespace(ns)) == nil && len(l.Items) == 1
	})
	if got := strings.Join(srv.Jobs(), ","); !strings.Contains(got, "teams/shop/seed") {
		t.Errorf("deleting refused resources touched Jenkins: %s", got)
	}
}

// TestDeclaredBuildSchema: the API server refuses a declared build the
// generator could not write safely, naming the rule; a good one is
// accepted.
func TestDeclaredBuildSchema(t *testing.T) {
	env := controlplane.Shared(t)
	c := env.Client
	ctx := context.Background()
	ns := "jenkins-build-schema"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	checkout := v1alpha1.BuildStage{Name: "Checkout", Checkout: &v1alpha1.CheckoutStage{URL: "https://git.example.com/x.git"}}
	script := "node {}"
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.JenkinsPipelineParameters)
		want   string
	}{
		"Good": {reason: "A checkout, a test and an image stage with a branch condition.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Stages = append([]v1alpha1.BuildStage{checkout}, p.Source.Build.Stages[0],
				v1alpha1.BuildStage{Name: "Image", When: &v1alpha1.StageWhen{Branch: "main"}, Image: &v1alpha1.ImageStage{Registry: "harbor.example.com:8443", Repository: "team/shop", Tag: "v-${BUILD_NUMBER}"}})
		}},
		"TwoSources": {reason: "A build and a script.", mod: func(p *v1alpha1.JenkinsPipelineParameters) { p.Source.Script = &script }, want: "set exactly one of source.scm, source.script, source.build or source.buildFile"},
		"FileAndBuild": {reason: "A build and a build file.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.BuildFile = &v1alpha1.BuildFileSource{URL: "https://git.example.com/team/shop.git"}
		}, want: "set exactly one of source.scm, source.script, source.build or source.buildFile"},
		"FileHTTP": {reason: "A build file is read over https only.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source = v1alpha1.PipelineSource{BuildFile: &v1alpha1.BuildFileSource{URL: "http://git.example.com/team/shop.git"}}
		}, want: "source.buildFile.url"},
		"FileURLCredentials": {reason: "Credentials never ride in the URL.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source = v1alpha1.PipelineSource{BuildFile: &v1alpha1.BuildFileSource{URL: "https://bot:token@git.example.com/team/shop.git"}}
		}, want: "source.buildFile.url"},
		"FilePathUp": {reason: "A build file's path stays in the repository.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source = v1alpha1.PipelineSource{BuildFile: &v1alpha1.BuildFileSource{URL: "https://git.example.com/team/shop.git", Path: "a/../../b"}}
		}, want: "path must stay inside the repository"},
		"File": {reason: "A build file with the defaults.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source = v1alpha1.PipelineSource{BuildFile: &v1alpha1.BuildFileSource{URL: "https://git.example.com/team/shop.git", CredentialsSecretRef: &v1alpha1.CredentialSecretRef{Name: "git"}}}
		}},
		"NoStages":   {reason: "A build needs a stage.", mod: func(p *v1alpha1.JenkinsPipelineParameters) { p.Source.Build.Stages = nil }, want: "stages"},
		"TwoActions": {reason: "A stage with sh and deploy.", mod: func(p *v1alpha1.JenkinsPipelineParameters) { p.Source.Build.Stages[0].Deploy = &v1alpha1.DeployStage{} }, want: "exactly one of checkout, sh, image and deploy"},
		"NoAction":   {reason: "A stage with nothing to do.", mod: func(p *v1alpha1.JenkinsPipelineParameters) { p.Source.Build.Stages[0].Sh = nil }, want: "exactly one of checkout, sh, image and deploy"},
		"StageName":  {reason: "A stage name with a quote.", mod: func(p *v1alpha1.JenkinsPipelineParameters) { p.Source.Build.Stages[0].Name = "it's" }, want: "stages[0].name"},
		"EnvName": {reason: "An environment name that is not a name.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Environment = map[string]string{"A B": "x"}
		}, want: "environment variable names"},
		"TwoAgents": {reason: "A label and an image.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Agent = &v1alpha1.BuildAgent{Label: "x", DockerImage: "y"}
		}, want: "at most one of agent.label and agent.dockerImage"},
		"WhenAlone": {reason: "A branch condition without a checkout.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Stages[0].When = &v1alpha1.StageWhen{Branch: "main"}
		}, want: "add a checkout stage"},
		"ShellTag": {reason: "A tag the shell would run.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Stages[0] = v1alpha1.BuildStage{Name: "I", Image: &v1alpha1.ImageStage{Registry: "r", Repository: "a", Tag: "$(reboot)"}}
		}, want: "tag"},
		"DockerfileUp": {reason: "A Dockerfile outside the workspace.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Stages[0] = v1alpha1.BuildStage{Name: "I", Image: &v1alpha1.ImageStage{Registry: "r", Repository: "a", Dockerfile: "x/../../etc/passwd"}}
		}, want: "stages[0].image.dockerfile"},
		"ContextUp": {reason: "A context ending in '..'.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Stages[0] = v1alpha1.BuildStage{Name: "I", Image: &v1alpha1.ImageStage{Registry: "r", Repository: "a", Context: "app/.."}}
		}, want: "stages[0].image.context"},
		"ContextAbsolute": {reason: "An absolute context.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Stages[0] = v1alpha1.BuildStage{Name: "I", Image: &v1alpha1.ImageStage{Registry: "r", Repository: "a", Context: "/etc"}}
		}, want: "stages[0].image.context"},
		"DotsInNames": {reason: "'.', '..x' and '.docker/' are inside the workspace.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Stages[0] = v1alpha1.BuildStage{Name: "I", Image: &v1alpha1.ImageStage{Registry: "r", Repository: "a", Context: ".", Dockerfile: ".docker/..x/Dockerfile"}}
		}},
		"Timeout": {reason: "A timeout of more than a week.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Options = &v1alpha1.BuildOptions{TimeoutMinutes: 20000}
		}, want: "timeoutMinutes"},
		"DeployJob": {reason: "A deploy job path climbing up.", mod: func(p *v1alpha1.JenkinsPipelineParameters) {
			p.Source.Build.Stages[0] = v1alpha1.BuildStage{Name: "D", Deploy: &v1alpha1.DeployStage{Job: "../x"}}
		}, want: "deploy.job"},
	}
	n := 0
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n++
			cr := newPipeline(ns, fmt.Sprintf("build-%d", n), "team/shop", fmt.Sprintf("build-%d", n))
			cr.Spec.ForProvider.Source = v1alpha1.PipelineSource{Build: &v1alpha1.PipelineBuild{Stages: []v1alpha1.BuildStage{{Name: "Test", Sh: []string{"make test"}}}}}
			tc.mod(&cr.Spec.ForProvider)
			err := c.Create(ctx, cr)
			if tc.want == "" {
				if err != nil {
					t.Errorf("%s\nmust be accepted, got %v", tc.reason, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s\nwant a refusal containing %q, got %v", tc.reason, tc.want, err)
			}
			// The same build in a build file is refused by the same
			// rule, the rules being the CRD's own.
			if b := cr.Spec.ForProvider.Source.Build; b != nil && cr.Spec.ForProvider.Source.Script == nil && cr.Spec.ForProvider.Source.BuildFile == nil {
				file, _ := yaml.Marshal(b)
				if _, perr := declarative.ParseFile(file, nil); perr == nil || !strings.Contains(perr.Error(), tc.want) {
					t.Errorf("%s\nwant the build as a file refused with %q, got %v", tc.reason, tc.want, perr)
				}
			}
		})
	}
}

// TestDeclaredBuildSteadyState: a job written from a declared build is
// polled without writes, also after Jenkins ran its script and saved
// config.xml with the properties its options declare; a change to the
// build is written once.
func TestDeclaredBuildSteadyState(t *testing.T) {
	env := controlplane.Shared(t)
	srv := fake.New(user, token)
	defer srv.Close()
	c := env.Client
	ctx := context.Background()
	ns := "jenkins-build-steady"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns},
		StringData: map[string]string{"credentials": `{"username": "` + user + `", "token": "` + token + `"}`}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		Jenkins: &pcv1alpha1.JenkinsConfig{URL: srv.URL, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "jenkins", Key: "credentials"}}},
	}}))
	controlplane.StartManager(t, env, 2*time.Second, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, jenkinspipeline.Descriptor, jenkinspipeline.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil))
	})

	cr := newPipeline(ns, "shop-build", "team/shop", "build")
	cr.Spec.ForProvider.Source = v1alpha1.PipelineSource{Build: &v1alpha1.PipelineBuild{
		Environment: map[string]string{"B": "2", "A": "1", "C": "3"},
		Options:     &v1alpha1.BuildOptions{KeepBuilds: 10, DisableConcurrentBuilds: true},
		Stages:      []v1alpha1.BuildStage{{Name: "Test", Sh: []string{"make test"}}},
	}}
	controlplane.Must(t, c.Create(ctx, cr))
	const path = "team/shop/build"
	controlplane.Eventually(t, "job created, Ready and Synced", func() bool {
		return get(t, c, cr) && ready(cr) && srv.Exists(path)
	})
	script, err := declarative.Script(*cr.Spec.ForProvider.Source.Build)
	controlplane.Must(t, err)
	if p, err := jenkins.Parse([]byte(cfgOf(t, srv, path))); err != nil || p.Script != script {
		t.Fatalf("the job's script is not the generated one (%v):\n%s", err, cfgOf(t, srv, path))
	}

	// Jenkins ran the script: it saved the job in XML 1.1 with the
	// properties the options declare.
	cfg := strings.Replace(cfgOf(t, srv, path), "<?xml version='1.0' encoding='UTF-8'?>", "<?xml version='1.1' encoding='UTF-8'?>", 1)
	cfg = strings.Replace(cfg, "<properties>", "<properties><jenkins.model.BuildDiscarderProperty><strategy class=\"hudson.tasks.LogRotator\"><numToKeep>10</numToKeep></strategy></jenkins.model.BuildDiscarderProperty><org.jenkinsci.plugins.workflow.job.properties.DisableConcurrentBuildsJobProperty/>", 1)
	srv.SetConfig(path, cfg)
	srv.ResetCounts()
	time.Sleep(7 * time.Second) // at least two polls at 2s ±10%
	if n := srv.Count(http.MethodPost); n != 0 {
		t.Errorf("want no writes while the build is unchanged, got %d: %v", n, srv.Requests())
	}
	if get(t, c, cr); !ready(cr) {
		t.Errorf("want Ready and Synced in steady state: %v", cr.Status.Conditions)
	}

	// A changed build is written, once, and keeps what the run added.
	patchSpec(t, c, cr, func(p *v1alpha1.JenkinsPipeline) {
		p.Spec.ForProvider.Source.Build.Stages[0].Sh = []string{"make test", "make lint"}
	})
	controlplane.Eventually(t, "the changed build written", func() bool {
		p, err := jenkins.Parse([]byte(cfgOf(t, srv, path)))
		return err == nil && strings.Contains(p.Script, "sh 'make lint'")
	})
	if got := cfgOf(t, srv, path); !strings.Contains(got, "BuildDiscarderProperty") || !strings.Contains(got, "DisableConcurrentBuildsJobProperty") {
		t.Errorf("the update dropped the properties the script's run wrote:\n%s", got)
	}
}

// TestJenkinsfileParametersSteadyState: a Jenkinsfile that declares its
// own parameters {} makes Jenkins rewrite the job's parameters property at
// every run (simulated here as Jenkins saves it). The provider manages only
// the parameters the resource declares, by name: a run that keeps them (in
// any order, beside its own) causes no write at all, and a run that drops
// them causes one write that adds them back and keeps the script's — never
// a write per poll.
func TestJenkinsfileParametersSteadyState(t *testing.T) {
	env := controlplane.Shared(t)
	srv := fake.New(user, token)
	defer srv.Close()
	c := env.Client
	ctx := context.Background()
	ns := "jenkins-jenkinsfile-params"
	controlplane.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	controlplane.Must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "jenkins", Namespace: ns},
		StringData: map[string]string{"credentials": `{"username": "` + user + `", "token": "` + token + `"}`}}))
	controlplane.Must(t, c.Create(ctx, &pcv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}, Spec: pcv1alpha1.ProviderConfigSpec{
		Jenkins: &pcv1alpha1.JenkinsConfig{URL: srv.URL, Credentials: pcv1alpha1.Credentials{Source: xpv2.CredentialsSourceSecret, SecretRef: &pcv1alpha1.SecretKeySelector{Name: "jenkins", Key: "credentials"}}},
	}}))
	controlplane.StartManager(t, env, 2*time.Second, func(mgr ctrl.Manager, o controller.Options) error {
		return mrcontroller.Setup(mgr, o, jenkinspipeline.Descriptor, jenkinspipeline.NewConnector(mgr.GetClient(), controlplane.TenantGuard(), nil))
	})

	// A Jenkinsfile job with ENVIRONMENT (choice alpha, beta) and DRY_RUN.
	cr := newPipeline(ns, "shop-params", "team/shop", "params")
	controlplane.Must(t, c.Create(ctx, cr))
	const path = "team/shop/params"
	controlplane.Eventually(t, "job created, Ready and Synced", func() bool {
		return get(t, c, cr) && ready(cr) && srv.Exists(path)
	})
	property := regexp.MustCompile(`(?s)<hudson\.model\.ParametersDefinitionProperty>.*</hudson\.model\.ParametersDefinitionProperty>`)
	foo := `<hudson.model.BooleanParameterDefinition><name>FOO</name><description>the Jenkinsfile's own</description><defaultValue>true</defaultValue></hudson.model.BooleanParameterDefinition>`
	dryRun := `<hudson.model.BooleanParameterDefinition><name>DRY_RUN</name><defaultValue>false</defaultValue></hudson.model.BooleanParameterDefinition>`
	environment := `<hudson.model.ChoiceParameterDefinition><name>ENVIRONMENT</name><choices class="java.util.Arrays$ArrayList"><a class="string-array"><string>alpha</string><string>beta</string></a></choices></hudson.model.ChoiceParameterDefinition>`
	// run saves the job as Jenkins does after a run of a Jenkinsfile whose
	// parameters {} declares defs, in that order.
	run := func(defs ...string) {
		t.Helper()
		cfg := cfgOf(t, srv, path)
		if !property.MatchString(cfg) {
			t.Fatalf("the job has no parameters property:\n%s", cfg)
		}
		cfg = property.ReplaceAllLiteralString(cfg, "<hudson.model.ParametersDefinitionProperty><parameterDefinitions>"+strings.Join(defs, "")+"</parameterDefinitions></hudson.model.ParametersDefinitionProperty>")
		srv.SetConfig(path, strings.Replace(cfg, "<?xml version='1.0' encoding='UTF-8'?>", "<?xml version='1.1' encoding='UTF-8'?>", 1))
		srv.ResetCounts()
	}

	// The Jenkinsfile declares the resource's parameters too, in its own
	// order, and one of its own: nothing to correct.
	run(foo, dryRun, environment)
	time.Sleep(7 * time.Second) // at least two polls at 2s ±10%
	if n := srv.Count(http.MethodPost); n != 0 {
		t.Errorf("want no writes after a run that kept the declared parameters, got %d: %v", n, srv.Requests())
	}
	if get(t, c, cr); !ready(cr) {
		t.Errorf("want Ready and Synced: %v", cr.Status.Conditions)
	}

	// The Jenkinsfile declares only its own: the declared ones are added
	// back once, beside it, and then left alone.
	run(foo)
	controlplane.Eventually(t, "the declared parameters written back", func() bool {
		p, err := jenkins.Parse([]byte(cfgOf(t, srv, path)))
		return err == nil && len(p.Parameters) == 3
	})
	if p, err := jenkins.Parse([]byte(cfgOf(t, srv, path))); err != nil || !slices.ContainsFunc(p.Parameters, func(prm jenkins.Parameter) bool {
		return cmp.Equal(prm, jenkins.Parameter{Name: "FOO", Type: jenkins.ParamBoolean, Default: "true", Description: "the Jenkinsfile's own"})
	}) {
		t.Errorf("the correction dropped or changed the Jenkinsfile's own parameter (%v):\n%s", err, cfgOf(t, srv, path))
	}
	time.Sleep(500 * time.Millisecond)
	srv.ResetCounts()
	time.Sleep(7 * time.Second)
	if n := srv.Count(http.MethodPost); n != 0 {
		t.Errorf("want no writes once the declared parameters are back, got %d: %v", n, srv.Requests())
	}
}
