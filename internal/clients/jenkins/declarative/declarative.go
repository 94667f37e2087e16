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

// Package declarative writes the Declarative Pipeline script of a build
// declared in a JenkinsPipeline's spec.forProvider.source.build.
//
// Every value a user sets reaches the script only as a single-quoted
// Groovy string literal (Literal), so no value can end a string, open a
// block or call a step. Values a shell command needs (the image stage's
// registry, repository, Dockerfile and context) reach the shell as
// environment variables it expands inside double quotes, never as shell
// text; only the image tag is shell text, held to letters, digits, '.',
// '_', '-' and ${NAME} references, which is what lets it name the build.
//
// The script declares no parameters {} and no triggers {}: Jenkins writes
// those into the job's config.xml whenever the script runs, and the
// provider manages the same properties from spec.forProvider.parameters
// and triggers, so the two would overwrite each other forever. The
// options it declares (timeout, buildDiscarder, disableConcurrentBuilds)
// either live only in the run or become job properties the provider does
// not manage, and leaves alone when it corrects drift.
package declarative

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
)

// BranchVariable is the environment variable a stage's when.branch
// compares: the branch the build's first checkout stage checks out.
const BranchVariable = "CHECKOUT_BRANCH"

// Header is the script's first line.
const Header = "// Written by provider-devops from the JenkinsPipeline's spec.forProvider.source.build; changes made in Jenkins are overwritten."

// The patterns the CRD schema holds these fields to; checked again here
// because the shell reads the tag as text and Groovy reads an environment
// name as a name.
var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	imageTag   = regexp.MustCompile(`^([A-Za-z0-9_.-]|\$\{[A-Za-z_][A-Za-z0-9_]*\})+$`)
)

// Defaults the CRD schema applies, applied again for objects made before
// (or without) the API server.
const (
	defaultBranch     = "main"
	defaultTag        = "${BUILD_NUMBER}"
	defaultDockerfile = "Dockerfile"
	defaultContext    = "."
)

// Script returns the Declarative Pipeline script of b. The same b always
// gives the same text (the environment is written sorted by name), so the
// job's script compares equal to what was written until b changes.
func Script(b v1alpha1.PipelineBuild) (string, error) {
	if len(b.Stages) == 0 {
		return "", errors.New("the build has no stages")
	}
	w := &writer{}
	w.line(Header)
	w.open("pipeline")
	writeAgent(w, b.Agent)
	if err := writeEnvironment(w, b); err != nil {
		return "", err
	}
	writeOptions(w, b.Options)
	w.open("stages")
	for i, s := range b.Stages {
		if err := writeStage(w, s); err != nil {
			return "", errors.Wrapf(err, "stage %d (%q)", i, s.Name)
		}
	}
	w.close()
	writePost(w, b.Post)
	w.close()
	return w.String(), nil
}

func writeAgent(w *writer, a *v1alpha1.BuildAgent) {
	switch {
	case a != nil && a.Label != "":
		w.line("agent { label " + Literal(a.Label) + " }")
	case a != nil && a.DockerImage != "":
		w.line("agent { docker { image " + Literal(a.DockerImage) + " } }")
	default:
		w.line("agent any")
	}
}

func writeEnvironment(w *writer, b v1alpha1.PipelineBuild) error {
	env := make(map[string]string, len(b.Environment)+1)
	if branch, ok := checkoutBranch(b); ok {
		env[BranchVariable] = branch
	}
	for k, v := range b.Environment {
		env[k] = v
	}
	if len(env) == 0 {
		return nil
	}
	names := make([]string, 0, len(env))
	for k := range env {
		if !identifier.MatchString(k) {
			return errors.Errorf("environment variable name %q is not letters, digits and '_' (not starting with a digit)", k)
		}
		names = append(names, k)
	}
	sort.Strings(names)
	w.open("environment")
	for _, k := range names {
		w.line(k + " = " + Literal(env[k]))
	}
	w.close()
	return nil
}

// checkoutBranch is the branch of the first checkout stage, when a stage
// has a when.branch to compare with it.
func checkoutBranch(b v1alpha1.PipelineBuild) (string, bool) {
	when := false
	for _, s := range b.Stages {
		when = when || s.When != nil
	}
	if !when {
		return "", false
	}
	for _, s := range b.Stages {
		if s.Checkout != nil {
			return orDefault(s.Checkout.Branch, defaultBranch), true
		}
	}
	return "", false
}

func writeOptions(w *writer, o *v1alpha1.BuildOptions) {
	if o == nil || (o.TimeoutMinutes == 0 && o.KeepBuilds == 0 && !o.DisableConcurrentBuilds) {
		return
	}
	w.open("options")
	if o.TimeoutMinutes > 0 {
		w.line("timeout(time: " + strconv.Itoa(int(o.TimeoutMinutes)) + ", unit: 'MINUTES')")
	}
	if o.KeepBuilds > 0 {
		w.line("buildDiscarder(logRotator(numToKeepStr: " + Literal(strconv.Itoa(int(o.KeepBuilds))) + "))")
	}
	if o.DisableConcurrentBuilds {
		w.line("disableConcurrentBuilds()")
	}
	w.close()
}

func writeStage(w *writer, s v1alpha1.BuildStage) error {
	w.open("stage(" + Literal(s.Name) + ")")
	if s.When != nil {
		w.line("when { environment name: " + Literal(BranchVariable) + ", value: " + Literal(s.When.Branch) + " }")
	}
	w.open("steps")
	switch {
	case s.Checkout != nil:
		writeCheckout(w, *s.Checkout)
	case len(s.Sh) > 0:
		writeSh(w, s.Sh)
	case s.Image != nil:
		if err := writeImage(w, *s.Image); err != nil {
			return err
		}
	case s.Deploy != nil:
		writeDeploy(w, *s.Deploy)
	default:
		return errors.New("the stage sets none of checkout, sh, image and deploy")
	}
	w.close()
	w.close()
	return nil
}

func writeCheckout(w *writer, c v1alpha1.CheckoutStage) {
	args := "url: " + Literal(c.URL) + ", branch: " + Literal(orDefault(c.Branch, defaultBranch))
	if c.CredentialsID != "" {
		args += ", credentialsId: " + Literal(c.CredentialsID)
	}
	w.line("git " + args)
	// A deploy request names the revision to build in the job's REVISION
	// parameter (v1alpha1.RevisionParameter), which sh sees as a
	// variable: check it out when set, else build the branch's head.
	w.line("sh " + Literal(`if [ -n "${`+v1alpha1.RevisionParameter+`:-}" ]; then git checkout --detach "$`+v1alpha1.RevisionParameter+`"; fi`))
}

func writeSh(w *writer, cmds []string) {
	for _, c := range cmds {
		w.line("sh " + Literal(c))
	}
}

// writeImage logs in (when a credential is named), builds and pushes. The
// registry password reaches docker on stdin from a variable Jenkins masks
// in the log; it is never part of the script.
func writeImage(w *writer, m v1alpha1.ImageStage) error {
	tag := orDefault(m.Tag, defaultTag)
	if !imageTag.MatchString(tag) {
		return errors.Errorf("image tag %q is not letters, digits, '.', '_', '-' and ${NAME} references", tag)
	}
	ref := `"$IMAGE_REGISTRY/$IMAGE_REPOSITORY:` + tag + `"`
	w.open("withEnv([" + strings.Join([]string{
		Literal("IMAGE_REGISTRY=" + m.Registry),
		Literal("IMAGE_REPOSITORY=" + m.Repository),
		Literal("IMAGE_DOCKERFILE=" + orDefault(m.Dockerfile, defaultDockerfile)),
		Literal("IMAGE_CONTEXT=" + orDefault(m.Context, defaultContext)),
	}, ", ") + "])")
	if m.CredentialsID != "" {
		w.open("withCredentials([usernamePassword(credentialsId: " + Literal(m.CredentialsID) + ", usernameVariable: 'REGISTRY_USER', passwordVariable: 'REGISTRY_PASSWORD')])")
		w.line("sh " + Literal(`printf '%s' "$REGISTRY_PASSWORD" | docker login --username "$REGISTRY_USER" --password-stdin "$IMAGE_REGISTRY"`))
		w.close()
	}
	w.line("sh " + Literal(`docker build --file "$IMAGE_DOCKERFILE" --tag `+ref+` "$IMAGE_CONTEXT"`))
	w.line("sh " + Literal(`docker push `+ref))
	w.close()
	return nil
}

func writeDeploy(w *writer, d v1alpha1.DeployStage) {
	if d.Job == "" {
		w.line("echo 'Deploy: the image is pushed; Argo CD deploys it.'")
		return
	}
	// A leading "/" makes Jenkins read the path from its root, as the
	// provider's job paths are, not from the calling job's folder.
	w.line("build job: " + Literal("/"+d.Job) + ", wait: true, propagate: true")
}

func writePost(w *writer, p *v1alpha1.BuildPost) {
	if p == nil || len(p.Always)+len(p.Success)+len(p.Failure) == 0 {
		return
	}
	w.open("post")
	for _, c := range []struct {
		name string
		cmds []string
	}{{"always", p.Always}, {"success", p.Success}, {"failure", p.Failure}} {
		if len(c.cmds) == 0 {
			continue
		}
		w.open(c.name)
		writeSh(w, c.cmds)
		w.close()
	}
	w.close()
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// writer indents the script two spaces a block. A strings.Builder never
// fails a write.
type writer struct {
	strings.Builder
	depth int
}

func (w *writer) line(s string) {
	_, _ = w.WriteString(strings.Repeat("  ", w.depth) + s + "\n")
}

func (w *writer) open(s string) {
	w.line(s + " {")
	w.depth++
}

func (w *writer) close() {
	w.depth--
	w.line("}")
}
