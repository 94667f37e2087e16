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

package jenkinspipeline

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/contract"
	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/gitfile"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins/declarative"
)

const errFmtKept = "spec.forProvider.source.buildFile: %s; the job keeps the pipeline of the last good file"

// BuildFiles reads the file of spec.forProvider.source.buildFile: a
// gitfile.Reader, guarded for tenants.
type BuildFiles interface {
	Read(ctx context.Context, r gitfile.Request) (gitfile.File, error)
}

// buildFile is a resource's build file as read this reconcile: the build
// it declares and its commit, or why it cannot be used.
type buildFile struct {
	build  *v1alpha1.PipelineBuild
	commit string
	err    error
	// refused is set when the ProviderConfig's limits refuse the file's
	// build: the job's kept script may then name what the platform has
	// since withdrawn (a credential id, a job outside the root folder),
	// so no requested build runs on it.
	refused bool
}

// errFmtBuildFileNotOptedIn says a build file's Secret has not consented
// to being sent to the repository's server, which the resource's author
// chooses, and who must label it.
const errFmtBuildFileNotOptedIn = "cannot read %[1]s: credentialsSecretRef: Secret %[3]q in namespace %[2]q has not consented to being sent to the repository's server: " +
	"whoever owns the Secret (someone allowed to read it, not the author of this resource) must label it: " +
	"kubectl label secret -n %[2]s %[3]s %[4]s=%[5]s. Nothing was read; the job keeps its pipeline"

const errFmtBuildFileURLNotListed = "cannot read %[1]s: credentialsSecretRef: Secret %[3]q in namespace %[2]q consents to being sent only to the repositories its annotation %[4]s lists, and this one is not among them: " +
	"whoever owns the Secret may add it. Nothing was read; the job keeps its pipeline"

// readBuildFile reads, parses and checks cr's build file. Every problem
// is in the returned err, worded for the resource's condition: where the
// file is and what is wrong with it. Credentials never appear in it.
func (e *external) readBuildFile(ctx context.Context, cr *v1alpha1.JenkinsPipeline) buildFile {
	src := cr.Spec.ForProvider.Source.BuildFile
	branch, path := orDefault(src.Branch, "main"), orDefault(src.Path, ".devops/pipeline.yaml")
	where := fmt.Sprintf("%s (branch %s of %s)", path, branch, src.URL)
	req := gitfile.Request{URL: src.URL, Branch: branch, Path: path}
	if ref := src.CredentialsSecretRef; ref != nil {
		s := &corev1.Secret{}
		// The resource's own namespace only: there is no namespace field.
		if err := e.kube.Get(ctx, client.ObjectKey{Namespace: cr.GetNamespace(), Name: ref.Name}, s); err != nil {
			if kerrors.IsNotFound(err) {
				return buildFile{err: errors.Errorf("cannot read %s: credentialsSecretRef: no Secret %q in namespace %s", where, ref.Name, cr.GetNamespace())}
			}
			return buildFile{err: errors.Wrapf(err, "cannot read %s: credentialsSecretRef: cannot get the Secret %q", where, ref.Name)}
		}
		if !contract.GitRepositoryConsented(s.GetLabels()) {
			return buildFile{err: errors.Errorf(errFmtBuildFileNotOptedIn, where, cr.GetNamespace(), ref.Name, contract.LabelGitRepository, contract.ValueGitRepository)}
		}
		if !contract.GitRepositoryURLConsented(s.GetAnnotations(), src.URL) {
			return buildFile{err: errors.Errorf(errFmtBuildFileURLNotListed, where, cr.GetNamespace(), ref.Name, contract.AnnotationGitRepositoryURLs)}
		}
		for _, k := range []string{orDefault(ref.UsernameKey, "username"), orDefault(ref.PasswordKey, "password")} {
			if len(s.Data[k]) == 0 {
				return buildFile{err: errors.Errorf("cannot read %s: credentialsSecretRef: Secret %q has no key %q (or it is empty)", where, ref.Name, k)}
			}
		}
		req.Username = string(s.Data[orDefault(ref.UsernameKey, "username")])
		req.Password = string(s.Data[orDefault(ref.PasswordKey, "password")])
	}
	f, err := e.files.Read(ctx, req)
	if err != nil {
		return buildFile{err: errors.Errorf("cannot read %s: %v", where, err)}
	}
	b, err := declarative.ParseFile(f.Content, src.Defaults)
	if err != nil {
		return buildFile{commit: f.Commit, err: errors.Errorf("%s at commit %.12s: %v", where, f.Commit, err)}
	}
	eff := withBuild(cr, b)
	if e.limits != nil {
		if err := allowed(eff, e.limits); err != nil {
			// The file's fields are the build's: name them as it does.
			msg := strings.ReplaceAll(err.Error(), "spec.forProvider.source.build.", "")
			return buildFile{commit: f.Commit, refused: true, err: errors.Errorf("%s at commit %.12s is refused by the ProviderConfig: %s", where, f.Commit, msg)}
		}
	}
	if _, err := declarative.Script(*b); err != nil {
		return buildFile{commit: f.Commit, err: errors.Errorf("%s at commit %.12s: %v", where, f.Commit, err)}
	}
	return buildFile{build: b, commit: f.Commit}
}

// withBuild is cr with its build file's build in place of the file.
func withBuild(cr *v1alpha1.JenkinsPipeline, b *v1alpha1.PipelineBuild) *v1alpha1.JenkinsPipeline {
	out := cr.DeepCopy()
	out.Spec.ForProvider.Source.BuildFile = nil
	out.Spec.ForProvider.Source.Build = b
	return out
}

// desired is the pipeline cr asks for. With a build file, it is the
// file's build; while the file is unusable, every other managed field as
// cr says and the script (or checkout) the job has now: the last good
// pipeline is kept, never cleared nor half-written. Without a job (nil
// observed) an unusable file is an error: nothing is created from it.
func (e *external) desired(cr *v1alpha1.JenkinsPipeline, observed *jenkins.Pipeline) (jenkins.Pipeline, error) {
	if cr.Spec.ForProvider.Source.BuildFile == nil {
		return Desired(cr)
	}
	if e.file.err == nil && e.file.build != nil {
		return Desired(withBuild(cr, e.file.build))
	}
	err := e.file.err
	if err == nil {
		err = errors.New("not read")
	}
	if observed == nil {
		return jenkins.Pipeline{}, errors.Errorf("spec.forProvider.source.buildFile: %v; the job is created once the file is a valid build", err)
	}
	keep := cr.DeepCopy()
	keep.Spec.ForProvider.Source.BuildFile = nil
	empty := ""
	keep.Spec.ForProvider.Source.Script = &empty
	want, derr := Desired(keep)
	if derr != nil {
		return jenkins.Pipeline{}, derr
	}
	want.Script, want.SCM = observed.Script, observed.SCM
	return want, nil
}

// fileErr is why the build file is not applied, for Update to return once
// it has corrected the other fields: the resource is not Synced.
func (e *external) fileErr(cr *v1alpha1.JenkinsPipeline) error {
	if cr.Spec.ForProvider.Source.BuildFile == nil || e.file.err == nil {
		return nil
	}
	return errors.Errorf(errFmtKept, e.file.err)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
