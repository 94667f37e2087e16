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

package main

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/function-sdk-go/resource"
)

// checkEnvironments refuses what the platform bounds, before anything is
// composed: a ttl on a protected environment (it would schedule that
// environment's deletion), and, for a project on a ClusterProviderConfig
// (the platform's credentials), a destination outside the Composition
// input's destinationNamespaces and destinationClusters. The provider
// checks the AppProject against the ClusterProviderConfig's own tenancy
// again; this check says it on the DevOpsProject, naming the field.
func (p *project) checkEnvironments() error {
	envs := p.spec.Environments
	if pr := p.spec.Previews.PullRequests; pr != nil {
		// The longest-named preview, whether or not its pull request is
		// open: refused now, not when the pull requests' numbers grow.
		e := pr.environment(maxPreviewNumber)
		e.preview = &preview{number: maxPreviewNumber}
		envs = append(slices.Clip(envs), e)
	}
	for i, e := range envs {
		f := fmt.Sprintf("spec.environments[%d]", i)
		if e.preview != nil {
			f = previewsPath + ".template (pr-<number>)"
		}
		if e.TTL != "" && p.in.protected[e.Name] {
			return fieldErr(f+".ttl", "environment %q is protected (the Composition's input.protectedEnvironments) and never expires: remove its ttl", e.Name)
		}
		if p.config.Kind != KindClusterProviderConfig {
			continue
		}
		cluster, ns := p.destination(e)
		if dnsLabel.MatchString(ns) && !matchGlobs(p.in.destinationNamespaces, p.tenant, ns) {
			return fieldErr(f+".namespace", "%q is not a namespace this project may deploy to through %s %s: the Composition's input.destinationNamespaces allows %s",
				ns, p.config.Kind, p.config.Name, quoteGlobs(p.in.destinationNamespaces, p.tenant))
		}
		if !dnsLabel.MatchString(ns) {
			// Only a default name can be wrong: the XRD checks the field.
			return fieldErr(f+".namespace", "the default destination %q is not a namespace name (a DNS label: lower case letters, digits and '-', at most 63): name the environment's namespace", ns)
		}
		if !matchGlobs(p.in.destinationClusters, p.tenant, cluster) {
			return fieldErr(f+".cluster", "%q is not a cluster this project may deploy to through %s %s: the Composition's input.destinationClusters allows %s",
				cluster, p.config.Kind, p.config.Name, quoteGlobs(p.in.destinationClusters, p.tenant))
		}
	}
	return nil
}

// matchGlobs is true when one shell glob of globs, "{namespace}" standing
// for tenant, matches s, "*" matching "/" too (cluster URLs). A value that
// is itself a glob matches only "*" or the same glob written out: it would
// widen the AppProject, not name one place.
func matchGlobs(globs []string, tenant, s string) bool {
	const sep = "\x00"
	isGlob := strings.ContainsAny(s, "*?[")
	for _, g := range globs {
		g = strings.ReplaceAll(g, "{namespace}", tenant)
		if isGlob {
			if g == "*" || g == s {
				return true
			}
			continue
		}
		if ok, _ := path.Match(strings.ReplaceAll(g, "/", sep), strings.ReplaceAll(s, "/", sep)); ok {
			return true
		}
	}
	return false
}

// quoteGlobs lists globs for a message, "{namespace}" expanded.
func quoteGlobs(globs []string, tenant string) string {
	q := make([]string, len(globs))
	for i, g := range globs {
		q[i] = fmt.Sprintf("%q", strings.ReplaceAll(g, "{namespace}", tenant))
	}
	return strings.Join(q, ", ")
}

// keep takes from the observed composed resources what a default would
// otherwise decide anew for an existing project: the config (when the
// spec names none, a project keeps the one its resources use, so a
// manifest applied again without providerConfigName, or a Composition
// whose default changed, never moves it to other credentials), and each
// environment's destination namespace and Jenkins folder when the spec
// names none (a default that changed would move a running application,
// and Argo CD would prune it from where it runs), and the names of its
// AppProject and applications. Naming them in the spec is how a project
// moves.
func (p *project) keep(observed map[resource.Name]*structpb.Struct) {
	if p.spec.ProviderConfigRef == nil && p.spec.ProviderConfigName == "" {
		for _, n := range []resource.Name{nameArgoProject, nameRegistry} {
			ref := pbAt(observed[n], "spec", "providerConfigRef").GetStructValue()
			kind, name := pbAt(ref, "kind").GetStringValue(), pbAt(ref, "name").GetStringValue()
			if r := (ConfigRef{Kind: kind, Name: name}); r.validate("") == nil {
				p.config = r
				break
			}
		}
	}
	// The Argo CD names too: a project composed before they gained the
	// namespace keeps its AppProject and applications, never recreated
	// under the new names.
	p.keptProject = pbAt(observed[nameArgoProject], "metadata", "annotations", meta.AnnotationKeyExternalName).GetStringValue()
	p.keptNamespace, p.keptFolder, p.keptApp, p.keptRegistry = map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	p.registryURL = pbAt(observed[nameRegistry], "status", "atProvider", "url").GetStringValue()
	for _, e := range p.spec.Environments {
		for _, st := range pbAt(observed[namePipeline(e.Name)], "spec", "forProvider", "source", "build", "stages").GetListValue().GetValues() {
			if h := pbAt(st.GetStructValue(), "image", "registry").GetStringValue(); h != "" {
				p.keptRegistry[e.Name] = h
				break
			}
		}
		if n := pbAt(observed[nameApp(e.Name)], "metadata", "annotations", meta.AnnotationKeyExternalName).GetStringValue(); n != "" {
			p.keptApp[e.Name] = n
		}
		if ns := pbAt(observed[nameApp(e.Name)], "spec", "forProvider", "destination", "namespace").GetStringValue(); ns != "" && e.Namespace == "" {
			p.keptNamespace[e.Name] = ns
		}
		if f := pbAt(observed[namePipeline(e.Name)], "spec", "forProvider", "folder").GetStringValue(); f != "" && p.spec.Pipeline.Folder == "" {
			p.keptFolder[e.Name] = f
		}
	}
}
