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
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// ForgeGitHost is the name Argo CD reaches the forge's repositories by:
// over HTTPS through the git server's proxy, which passes them on to the
// forge, as a forge's TLS-terminating proxy does.
const ForgeGitHost = "forge.example.com"

// The previews' project: team-shop/web, on the platform's
// ClusterProviderConfig, previewing the pull requests of the forge's
// team-shop/web that carry previewLabel.
const (
	PreviewProject = "web"
	previewRepo    = ProjectNamespace + "/" + PreviewProject
	previewLabel   = "preview"
	previewDomain  = "previews.storefront.example.com"
	// previewJobs is the folder of the previews' jobs.
	previewJobs = "teams/" + ProjectNamespace + "/" + PreviewProject + "/"
	// previewManifest is the ConfigMap every preview deploys: its data
	// says which commit it came from.
	previewManifest = "deploy/preview/configmap.yaml"
	previewContext  = "devops/preview"
)

// forgeRoutes maps ForgeGitHost to the forge, when there is one.
func (c *Cluster) forgeRoutes() map[string]string {
	if c.cfg.Forge == nil {
		return nil
	}
	return map[string]string{ForgeGitHost: c.cfg.Forge.URL}
}

// forgeSpec is a config's forge section (indented as a spec field) when
// there is a forge; ref is the backends Secret's reference, unclosed.
func (c *Cluster) forgeSpec(ref string) string {
	if c.cfg.Forge == nil {
		return ""
	}
	return fmt.Sprintf(`  forge:
    url: %s
    credentials: {source: Secret, secretRef: %s, key: forge}}
`, c.reachURL(c.cfg.Forge.URL), ref)
}

// forgeSecret is the forge token's entry of a backends Secret.
func (c *Cluster) forgeSecret() string {
	if c.cfg.Forge == nil {
		return ""
	}
	return fmt.Sprintf("  forge: %q\n", c.cfg.Forge.Token)
}

// PreviewReport is what RunPreviews measured: from each step on the
// forge to what it brings about.
type PreviewReport struct {
	// Opened is from the labelled pull request's opening to its preview
	// Ready with the head deployed and reported success on the forge.
	Opened time.Duration
	// Pushed is from a second commit to it deployed and reported.
	Pushed time.Duration
	// Unlabelled and Merged are from the pull request leaving the list
	// to the preview's resources, job, record and workload gone.
	Unlabelled, Merged time.Duration
	// Relabelled is from the label put back to the preview Ready again.
	Relabelled time.Duration
}

func (r PreviewReport) String() string {
	return fmt.Sprintf("pull request opened → preview Ready and reported %s; new commit → deployed and reported %s; unlabelled → cleaned up %s; labelled again → Ready %s; merged → cleaned up %s",
		r.Opened.Round(100*time.Millisecond), r.Pushed.Round(100*time.Millisecond), r.Unlabelled.Round(100*time.Millisecond),
		r.Relabelled.Round(100*time.Millisecond), r.Merged.Round(100*time.Millisecond))
}

// RunPreviews plays a team's pull request on the forge against a
// DevOpsProject with previews, on the platform's config: it opens a
// labelled pull request, pushes a second commit, takes the label off and
// puts it back, and merges it, asserting each time on the forge (commit
// status, one comment), Jenkins, Argo CD, DNS and Kubernetes.
func (c *Cluster) RunPreviews(ctx context.Context) (PreviewReport, error) {
	var r PreviewReport
	forge := c.cfg.Forge
	if forge == nil {
		return r, errors.New("no forge: Config.Forge is nil")
	}
	if err := c.Apply(ctx, c.platformYAML()); err != nil {
		return r, err
	}
	// As the team's user, whose role grants DevOpsProjects and
	// DeployRuns only (teamClient checks it in the scenario; the examples
	// since left a ProviderConfig's Secret in the namespace).
	team, err := c.asTeam()
	if err != nil {
		return r, err
	}
	if _, err := forge.CreateOrgRepo(ctx, ProjectNamespace, PreviewProject); err != nil {
		return r, fmt.Errorf("the forge's repository %s: %w", previewRepo, err)
	}
	if _, err := forge.CommitFile(ctx, previewRepo, "main", previewManifest, previewConfigMap("main"), "the preview's manifests"); err != nil {
		return r, err
	}
	first, err := forge.CommitFile(ctx, previewRepo, "faster-checkout", previewManifest, previewConfigMap("first"), "a faster checkout")
	if err != nil {
		return r, err
	}
	project := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(previewProjectYAML()), &project.Object); err != nil {
		return r, err
	}
	c.logf("the team's DevOpsProject %s/%s previews the pull requests of %s labelled %q on the forge", ProjectNamespace, PreviewProject, previewRepo, previewLabel)
	if err := team.Create(ctx, project); err != nil {
		return r, fmt.Errorf("the previews' DevOpsProject: %w", err)
	}
	if err := c.waitProject(ctx, PreviewProject); err != nil {
		return r, err
	}

	t0 := time.Now()
	n, err := forge.OpenPullRequest(ctx, previewRepo, "faster-checkout", "main", "A faster checkout")
	if err != nil {
		return r, err
	}
	if err := forge.AddLabel(ctx, previewRepo, n, previewLabel); err != nil {
		return r, err
	}
	env := fmt.Sprintf("pr-%d", n)
	c.logf("opened pull request #%d (head %s), labelled %q: waiting for preview %s", n, short(first), previewLabel, env)
	if err := c.previewDeployed(ctx, env, n, first, "first"); err != nil {
		return r, err
	}
	r.Opened = time.Since(t0)
	c.logf("  preview %s Ready at %s, deployed and reported after %s", env, previewURL(env), r.Opened.Round(100*time.Millisecond))

	t0 = time.Now()
	second, err := forge.CommitFile(ctx, previewRepo, "faster-checkout", previewManifest, previewConfigMap("second"), "review comments")
	if err != nil {
		return r, err
	}
	if err := c.previewDeployed(ctx, env, n, second, "second"); err != nil {
		return r, err
	}
	r.Pushed = time.Since(t0)
	c.logf("  second commit %s deployed and reported after %s", short(second), r.Pushed.Round(100*time.Millisecond))

	t0 = time.Now()
	if err := forge.RemoveLabel(ctx, previewRepo, n, previewLabel); err != nil {
		return r, err
	}
	if err := c.previewGone(ctx, env); err != nil {
		return r, err
	}
	r.Unlabelled = time.Since(t0)
	c.logf("  label taken off: preview %s cleaned up after %s", env, r.Unlabelled.Round(100*time.Millisecond))

	t0 = time.Now()
	if err := forge.AddLabel(ctx, previewRepo, n, previewLabel); err != nil {
		return r, err
	}
	if err := c.previewDeployed(ctx, env, n, second, "second"); err != nil {
		return r, err
	}
	r.Relabelled = time.Since(t0)
	c.logf("  labelled again: preview %s back after %s", env, r.Relabelled.Round(100*time.Millisecond))

	t0 = time.Now()
	if err := forge.MergePullRequest(ctx, previewRepo, n); err != nil {
		return r, err
	}
	if err := c.previewGone(ctx, env); err != nil {
		return r, err
	}
	r.Merged = time.Since(t0)
	c.logf("  merged: preview %s cleaned up after %s", env, r.Merged.Round(100*time.Millisecond))
	if err := c.deleteAndWait(ctx, project); err != nil {
		return r, err
	}
	return r, nil
}

func previewProjectYAML() string {
	return fmt.Sprintf(`
apiVersion: %[1]s
kind: DevOpsProject
metadata: {name: %[2]s, namespace: %[3]s}
spec:
  git: {url: "https://%[4]s/%[5]s.git", branch: main}
  registry: {namespace: %[3]s, name: %[2]s}
  pipeline: {scriptPath: Jenkinsfile}
  dns: {zone: example.com, target: %[6]s., type: CNAME}
  environments:
  - {name: main, domain: storefront.example.com, path: deploy/preview, deletionPolicy: Delete}
  previews:
    pullRequests:
      repository: %[5]s
      labels: [%[7]s]
      max: 2
      template: {domain: %[8]s, ttl: 2h}
`, xrAPIVersion, PreviewProject, ProjectNamespace, ForgeGitHost, previewRepo, IngressAddress, previewLabel, previewDomain)
}

func previewConfigMap(revision string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  revision: " + revision + "\n"
}

// previewURL is where a preview answers: https, as the template's
// ingress (TLS by default) says.
func previewURL(env string) string { return "https://" + env + "." + previewDomain }

func short(sha string) string { return sha[:min(7, len(sha))] }

// waitProject waits for a DevOpsProject of the team's namespace to be
// Ready.
func (c *Cluster) waitProject(ctx context.Context, name string) error {
	return c.Wait(ctx, "DevOpsProject "+ProjectNamespace+"/"+name+" to be Ready", 5*time.Minute, func(ctx context.Context) (bool, string, error) {
		xr, err := c.Get(ctx, xrAPIVersion, "DevOpsProject", ProjectNamespace, name)
		if err != nil {
			return false, err.Error(), nil
		}
		st, reason, msg := Condition(xr, "Ready")
		_, _, envs := Condition(xr, "Environments")
		return st == "True", reason + ": " + msg + "; " + envs, nil
	})
}

// previewDeployed waits until preview env of pull request n is Ready with
// head deployed by its DeployRun, and the forge shows it: a success
// status on head with the preview's URL, and one comment saying so. Then
// it checks the job built head, Argo CD synced it (the ConfigMap says
// revision), and DNS answers for the preview's host.
func (c *Cluster) previewDeployed(ctx context.Context, env string, n int64, head, revision string) error {
	forge := c.cfg.Forge
	err := c.waitTimeline(ctx, fmt.Sprintf("preview %s to deploy %s and report it", env, short(head)), 5*time.Minute, func(ctx context.Context) (bool, string, error) {
		xr, err := c.Get(ctx, xrAPIVersion, "DevOpsProject", ProjectNamespace, PreviewProject)
		if err != nil {
			return false, err.Error(), nil
		}
		st := envEntry(xr, env)
		if st == nil {
			_, _, msg := Condition(xr, "Environments")
			return false, "no " + env + " in status.environments; Environments: " + msg, nil
		}
		if st["phase"] != "Ready" {
			return false, fmt.Sprintf("%s is %v: %s", env, st["phase"], c.previewResources(ctx, env)), nil
		}
		runs, err := c.List(ctx, "devops.freeleaps.io/v1alpha1", "DeployRun", client.InNamespace(ProjectNamespace),
			client.MatchingLabels{"devops.freeleaps.io/project": PreviewProject, "devops.freeleaps.io/environment": env})
		if err != nil {
			return false, err.Error(), nil
		}
		phase := "none"
		for _, d := range runs {
			if rev, _, _ := unstructured.NestedString(d.Object, "spec", "revision"); rev == head {
				phase, _, _ = unstructured.NestedString(d.Object, "status", "phase")
				if msg, _, _ := unstructured.NestedString(d.Object, "status", "message"); msg != "" {
					phase += " (" + msg + ")"
				}
			}
		}
		if !strings.HasPrefix(phase, "Succeeded") {
			return false, "DeployRun of " + short(head) + ": " + phase, nil
		}
		statuses, err := forge.CommitStatuses(ctx, previewRepo, head)
		if err != nil {
			return false, err.Error(), nil
		}
		var got []string
		ok := false
		for _, s := range statuses {
			got = append(got, s.Context+"="+s.State+" "+s.TargetURL)
			if s.Context == previewContext && s.State == "success" && s.TargetURL == previewURL(env) {
				ok = true
			}
		}
		if !ok {
			return false, fmt.Sprintf("statuses on %s: %v", short(head), got), nil
		}
		comments, err := forge.Comments(ctx, previewRepo, n)
		if err != nil {
			return false, err.Error(), nil
		}
		var ours []string
		for _, cm := range comments {
			if strings.Contains(cm.Body, "provider-devops ForgeRepository") {
				ours = append(ours, cm.Body)
			}
		}
		if len(ours) != 1 || !strings.Contains(ours[0], "Live at "+previewURL(env)) || !strings.Contains(ours[0], short(head)) {
			return false, fmt.Sprintf("%d comments of ours on #%d: %q", len(ours), n, ours), nil
		}
		return true, "", nil
	})
	if err != nil {
		return err
	}
	s, err := c.sandboxState(ctx)
	if err != nil {
		return err
	}
	built := false
	for _, b := range s.Jobs[previewJobs+env].Builds {
		built = built || (b.Params["REVISION"] == head && b.Result == "SUCCESS")
	}
	if !built {
		return fmt.Errorf("job %s%s has no successful build of %s: %+v", previewJobs, env, head, s.Jobs[previewJobs+env])
	}
	ns := ProjectNamespace + "--" + PreviewProject + "-" + env
	cm := &corev1.ConfigMap{}
	if err := c.Kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, cm); err != nil {
		return fmt.Errorf("the preview's workload (ConfigMap %s/web, synced by Argo CD): %w", ns, err)
	}
	if cm.Data["revision"] != revision {
		return fmt.Errorf("ConfigMap %s/web says revision %q, want %q (commit %s)", ns, cm.Data["revision"], revision, short(head))
	}
	return c.checkDNS(map[string]string{env: env + "." + previewDomain}, nil)
}

// previewGone waits until preview env is out of the project's status and
// its resources, job, DNS record and workload are gone.
func (c *Cluster) previewGone(ctx context.Context, env string) error {
	ns := ProjectNamespace + "--" + PreviewProject + "-" + env
	return c.waitTimeline(ctx, "preview "+env+" to be cleaned up", 5*time.Minute, func(ctx context.Context) (bool, string, error) {
		xr, err := c.Get(ctx, xrAPIVersion, "DevOpsProject", ProjectNamespace, PreviewProject)
		if err != nil {
			return false, err.Error(), nil
		}
		if st := envEntry(xr, env); st != nil {
			return false, fmt.Sprintf("%s still in status: %v", env, st), nil
		}
		for _, k := range mrKinds {
			items, err := c.List(ctx, k[0], k[1], client.InNamespace(ProjectNamespace),
				client.MatchingLabels{"devops.freeleaps.io/project": PreviewProject, "devops.freeleaps.io/environment": env})
			if err != nil {
				return false, err.Error(), nil
			}
			if len(items) > 0 {
				return false, fmt.Sprintf("%d %s of %s left", len(items), k[1], env), nil
			}
		}
		s, err := c.sandboxState(ctx)
		if err != nil {
			return false, err.Error(), nil
		}
		if _, ok := s.Jobs[previewJobs+env]; ok {
			return false, "job " + previewJobs + env + " still in Jenkins", nil
		}
		if v := c.BIND.Values(env+"."+previewDomain+".", dns.TypeCNAME); len(v) != 0 {
			return false, fmt.Sprintf("BIND still answers %v", v), nil
		}
		err = c.Kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &corev1.ConfigMap{})
		if !kerrors.IsNotFound(err) {
			return false, fmt.Sprintf("ConfigMap %s/web: %v", ns, err), nil
		}
		return true, "", nil
	})
}

// envEntry is the status.environments entry of env, nil when none.
func envEntry(xr *unstructured.Unstructured, env string) map[string]any {
	envs, _, _ := unstructured.NestedSlice(xr.Object, "status", "environments")
	for _, e := range envs {
		if m, ok := e.(map[string]any); ok && m["name"] == env {
			return m
		}
	}
	return nil
}

// waitTimeline is Wait that logs, once done, each status it saw and when:
// where a preview's time went.
func (c *Cluster) waitTimeline(ctx context.Context, what string, timeout time.Duration, check func(context.Context) (bool, string, error)) error {
	t0 := time.Now()
	var lines []string
	last := ""
	err := c.Wait(ctx, what, timeout, func(ctx context.Context) (bool, string, error) {
		done, status, err := check(ctx)
		if status != last && status != "" && len(lines) < 40 {
			lines = append(lines, fmt.Sprintf("    +%5.1fs %s", time.Since(t0).Seconds(), status))
			last = status
		}
		return done, status, err
	})
	if err == nil {
		c.logf("  %s: done after %.1fs; on the way:\n%s", what, time.Since(t0).Seconds(), strings.Join(lines, "\n"))
	}
	return err
}

// previewResources says how preview env's managed resources stand: each
// kind's Ready and, when not Synced, why.
func (c *Cluster) previewResources(ctx context.Context, env string) string {
	var out []string
	for _, k := range mrKinds {
		items, err := c.List(ctx, k[0], k[1], client.InNamespace(ProjectNamespace),
			client.MatchingLabels{"devops.freeleaps.io/project": PreviewProject, "devops.freeleaps.io/environment": env})
		if err != nil {
			return err.Error()
		}
		for i := range items {
			ready, _, rmsg := Condition(&items[i], "Ready")
			synced, _, smsg := Condition(&items[i], "Synced")
			st := k[1] + " Ready=" + ready
			if ready != "True" && rmsg != "" {
				st += " (" + clipText(rmsg, 100) + ")"
			}
			if synced == "False" {
				st += " Synced=False (" + clipText(smsg, 160) + ")"
			}
			out = append(out, st)
		}
	}
	if len(out) == 0 {
		return "no resources yet"
	}
	return strings.Join(out, "; ")
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
