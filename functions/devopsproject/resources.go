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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/crossplane/function-sdk-go/errors"
	"github.com/crossplane/function-sdk-go/resource"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/apis/contract"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
)

// Kinds the function composes.
const (
	KindPipeline = "JenkinsPipeline"
	KindApp      = "ArgoApplication"
	KindDNS      = "DNSRecord"
	KindRegistry = "RegistryRepo"
	KindProject  = "ArgoProject"
	KindRepo     = "ArgoRepository"
	KindCred     = "JenkinsCredential"
)

// Composition-resource names: stable, so Crossplane keeps matching the same
// resources across runs.
const (
	nameRegistry     = resource.Name("registry")
	nameArgoProject  = resource.Name("argo-project")
	nameArgoRepo     = resource.Name("argo-repository")
	nameJenkinsCred  = resource.Name("jenkins-credential")
	nameRegistryCred = resource.Name("registry-credential")
)

func namePipeline(env string) resource.Name { return resource.Name(env + "-pipeline") }
func nameApp(env string) resource.Name      { return resource.Name(env + "-app") }
func nameDNS(env string) resource.Name      { return resource.Name(env + "-dns") }

// nameOf is the composition-resource name of an environment's kind.
func nameOf(env, kind string) resource.Name {
	switch kind {
	case KindPipeline:
		return namePipeline(env)
	case KindApp:
		return nameApp(env)
	default:
		return nameDNS(env)
	}
}

// keepPolicies are the management policies of a retained resource at
// expiry: everything but Delete, so deleting it orphans the external object.
var keepPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize} //nolint:gochecknoglobals // read-only, copied where used

// project carries what every composed resource needs.
type project struct {
	name      string // the XR's name
	namespace string // where the MRs go; "" lets Crossplane use the XR's
	tenant    string // the namespace the MRs end up in, always set
	spec      *ProjectSpec
	in        *settings
	// config is the ProviderConfig or ClusterProviderConfig every
	// managed resource uses.
	config ConfigRef
	// kept are the defaults an existing project already has (keep): the
	// destination namespace and the Jenkins folder of each environment,
	// by name.
	keptNamespace, keptFolder map[string]string
	// keptProject and keptApp (by environment) are the Argo CD names an
	// existing project's resources already have.
	keptProject string
	keptApp     map[string]string
	// registryURL is where the project's RegistryRepo reports its images
	// (host/repository), once observed; keptRegistry, by environment, the
	// registry host an existing job's image stage already pushes to.
	registryURL  string
	keptRegistry map[string]string
	// stable names the project across its lifetimes: the XR's name, or a
	// legacy XR's claim name. Composed resources are named
	// "<stable>.<resource>", so a project deleted and created again gets
	// resources of the same names, which the owner markers its orphaned
	// objects carry (namespace/name) accept.
	stable string
}

// composedName is the name of a new composed resource: "<stable>.<name>";
// a dot cannot appear in resource names, so two projects' names never
// meet. "" (a generated name) when it would be too long.
func (p *project) composedName(name resource.Name) string {
	n := p.stable + "." + string(name)
	if p.stable == "" || len(n) > 253 {
		return ""
	}
	return n
}

// argoProjectName is the Argo CD AppProject of the project:
// "<namespace>.<name>". No namespace holds a dot, so two teams' names
// never meet ("team" + "a-shop" and "team-a" + "shop" stay apart, as
// they did not under the older "<namespace>-<name>", which a project
// composed before keeps).
func (p *project) argoProjectName() string {
	if p.keptProject != "" {
		return p.keptProject
	}
	return p.tenant + "." + p.name
}

// releaseName is a Helm environment's release: "<name>-<env>", cut to
// Helm's 53 characters.
func (p *project) releaseName(env string) string {
	n := p.name + "-" + env
	if len(n) > 53 {
		n = strings.TrimRight(n[:53], "-.")
	}
	return n
}

// appName is the Argo CD application of environment env, in Argo CD's
// one namespace: its spec.environments[].applicationName, else the name an
// existing environment already has, else "<namespace>.<name>.<env>" (an
// environment's name holds no dot either).
func (p *project) appName(env string) string {
	if p.spec != nil {
		for _, e := range p.spec.Environments {
			if e.Name == env && e.ApplicationName != "" {
				return e.ApplicationName
			}
		}
	}
	if n := p.keptApp[env]; n != "" {
		return n
	}
	return p.tenant + "." + p.name + "." + env
}

// destination is where an environment deploys: its own namespace and
// cluster, or the defaults. The default namespace is
// "<project>-<environment>", and "<namespace>--<project>-<environment>"
// on a ClusterProviderConfig, whose tenancy keeps each team to its own
// namespace and those named "<namespace>--*" (and two teams' projects of
// one name apart).
func (p *project) destination(e Environment) (cluster, ns string) {
	ns, cluster = e.Namespace, e.Cluster
	switch {
	case ns != "":
	case p.keptNamespace[e.Name] != "":
		ns = p.keptNamespace[e.Name]
	case p.config.Kind == KindClusterProviderConfig:
		ns = p.tenant + "--" + p.stable + "-" + e.Name
	default:
		ns = p.name + "-" + e.Name
	}
	if cluster == "" {
		cluster = "https://kubernetes.default.svc"
	}
	return cluster, ns
}

// argoProject is the AppProject that bounds the project's applications:
// its repository only, exactly its environments' namespaces and clusters,
// and only the cluster-scoped kinds the Composition's input allows.
func (p *project) argoProject(keep bool, orphaned []OrphanedEnvironment) *argov1alpha1.ArgoProject {
	params := argov1alpha1.ArgoProjectParameters{
		Description:              "Applications of DevOpsProject " + p.tenant + "/" + p.name,
		SourceRepos:              []string{p.spec.Git.URL},
		ClusterResourceWhitelist: p.in.clusterResources,
	}
	seen := map[argov1alpha1.ProjectDestination]bool{}
	dest := func(d argov1alpha1.ProjectDestination) {
		if !seen[d] && d.Server != "" && d.Namespace != "" {
			seen[d] = true
			params.Destinations = append(params.Destinations, d)
		}
	}
	for _, e := range p.spec.Environments {
		cluster, ns := p.destination(e)
		dest(argov1alpha1.ProjectDestination{Server: cluster, Namespace: ns})
	}
	// An orphaned environment's application keeps deploying where it did,
	// within the platform's bounds (its status is not proof of anything).
	for _, o := range orphaned {
		if p.config.Kind == KindClusterProviderConfig && (!matchGlobs(p.in.destinationNamespaces, p.tenant, o.Namespace) || !matchGlobs(p.in.destinationClusters, p.tenant, o.Cluster)) {
			continue
		}
		dest(argov1alpha1.ProjectDestination{Server: o.Cluster, Namespace: o.Namespace})
	}
	return &argov1alpha1.ArgoProject{
		TypeMeta: metav1.TypeMeta{APIVersion: argov1alpha1.SchemeGroupVersion.String(), Kind: KindProject},
		// Argo CD refuses to delete an AppProject its applications use: the
		// provider deletes it once the project's applications are gone.
		ObjectMeta: p.meta("", map[string]string{meta.AnnotationKeyExternalName: p.argoProjectName(), contract.AnnotationDeleteAfter: KindApp}),
		Spec:       argov1alpha1.ArgoProjectSpec{ManagedResourceSpec: p.managed(keep), ForProvider: params},
	}
}

// argoRepository registers the project's repository and the credentials
// in spec.git.credentialsSecretRef with Argo CD, for the project's
// AppProject only; nil when the repository is public.
func (p *project) argoRepository(keep bool) *argov1alpha1.ArgoRepository {
	ref := p.spec.Git.CredentialsSecretRef
	if ref == nil {
		return nil
	}
	return &argov1alpha1.ArgoRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: argov1alpha1.SchemeGroupVersion.String(), Kind: KindRepo},
		ObjectMeta: p.meta("", map[string]string{meta.AnnotationKeyExternalName: p.spec.Git.URL}),
		Spec: argov1alpha1.ArgoRepositorySpec{ManagedResourceSpec: p.managed(keep), ForProvider: argov1alpha1.ArgoRepositoryParameters{
			URL: p.spec.Git.URL, Type: argov1alpha1.RepositoryGit, Project: p.argoProjectName(),
			CredentialsSecretRef: &argov1alpha1.RepositorySecretReference{Name: ref.Name},
		}},
	}
}

func (p *project) meta(env string, annotations map[string]string) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Namespace: p.namespace, Labels: map[string]string{contract.LabelProject: p.name}, Annotations: annotations}
	if env != "" {
		m.Labels[contract.LabelEnvironment] = env
	}
	return m
}

func (p *project) managed(keep bool) xpv2.ManagedResourceSpec {
	s := xpv2.ManagedResourceSpec{ProviderConfigReference: &xpv2.ProviderConfigReference{Kind: p.config.Kind, Name: p.config.Name}}
	if keep {
		s.ManagementPolicies = keepPolicies
	}
	return s
}

func (p *project) registry() *registryv1alpha1.RegistryRepo {
	r := p.spec.Registry
	vis := r.Visibility
	if vis == "" {
		vis = p.in.registryVisibility
	}
	return &registryv1alpha1.RegistryRepo{
		TypeMeta:   metav1.TypeMeta{APIVersion: registryv1alpha1.SchemeGroupVersion.String(), Kind: KindRegistry},
		ObjectMeta: p.meta("", nil),
		// The images outlive the project unless its spec says Delete.
		Spec: registryv1alpha1.RegistryRepoSpec{ManagedResourceSpec: p.managed(r.DeletionPolicy != PolicyDelete), ForProvider: registryv1alpha1.RegistryRepoParameters{
			Namespace: r.Namespace, Name: r.Name, Visibility: registryv1alpha1.Visibility(vis),
			Description: "Images of " + p.name + " (DevOpsProject)",
			// Opting in to deleting the repository opts in to its images.
			DeleteImages:  r.DeletionPolicy == PolicyDelete,
			AdoptExisting: r.AdoptExisting || p.spec.AdoptExisting.Registry,
		}},
	}
}

// pipelineFolder is the Jenkins folder of an environment's pipeline; env
// "" the folder new pipelines get.
func (p *project) pipelineFolder(env string) string {
	switch {
	case p.spec.Pipeline.Folder != "":
		return p.spec.Pipeline.Folder
	case p.keptFolder[env] != "":
		return p.keptFolder[env]
	case p.in.pipelineFolder != "" && p.config.Kind == KindClusterProviderConfig:
		return strings.NewReplacer("{namespace}", p.tenant, "{project}", p.stable).Replace(p.in.pipelineFolder)
	default:
		// Two teams' projects of one name on one Jenkins never share
		// a folder (Jenkins folder names hold no "/").
		return p.tenant + "/" + p.name
	}
}

// checkoutCredentialsID is the Jenkins credential the pipelines check out
// with: spec.git.jenkinsCredentialsId, or else the one composed from
// spec.git.credentialsSecretRef, "<namespace>--<project>-git" (what the
// shipped ClusterProviderConfig's allowedCredentialIds "{namespace}--*"
// lets a team name; a credential lives in its folder's store, so another
// team's id of that spelling is never the same credential), or none.
func (p *project) checkoutCredentialsID() string {
	g := p.spec.Git
	switch {
	case g.JenkinsCredentialsID != "":
		return g.JenkinsCredentialsID
	case g.CredentialsSecretRef != nil:
		return p.credentialsID("git")
	default:
		return ""
	}
}

// registryCredentialsID is the Jenkins credential an image stage without
// its own pushes with: the one composed from
// spec.registry.credentialsSecretRef, "<namespace>--<project>-registry"
// (spelled as the checkout's, for the same reasons), or none.
func (p *project) registryCredentialsID() string {
	if p.spec.Registry.CredentialsSecretRef == nil {
		return ""
	}
	return p.credentialsID("registry")
}

// credentialsID is the id of the project's composed credential for use.
func (p *project) credentialsID(use string) string { return p.tenant + "--" + p.name + "-" + use }

// jenkinsCredential puts the repository's credentials from
// spec.git.credentialsSecretRef into the store of the pipelines' folder,
// for their checkout: an SSH key (key sshPrivateKey, the user from the
// URL, else git) for an SSH URL, else a username and password (keys
// username and password) — the keys Argo CD reads from the same Secret.
// nil when the repository is public or spec.git.jenkinsCredentialsId
// names a credential someone else manages.
func (p *project) jenkinsCredential(keep bool) *jenkinsv1alpha1.JenkinsCredential {
	g := p.spec.Git
	if g.CredentialsSecretRef == nil || g.JenkinsCredentialsID != "" {
		return nil
	}
	c := p.folderCredential(p.checkoutCredentialsID(), g.CredentialsSecretRef.Name, "Checks out the repository of "+p.name+" (DevOpsProject).", keep)
	if user, ssh := sshUser(g.URL); ssh {
		f := &c.Spec.ForProvider
		f.Type, f.Username, f.SecretRef.PrivateKeyKey = jenkinsv1alpha1.CredentialSSHPrivateKey, user, "sshPrivateKey"
	}
	return c
}

// registryCredential puts the username and password of
// spec.registry.credentialsSecretRef into the store of the pipelines'
// folder, for their image stages; nil without that Secret.
func (p *project) registryCredential(keep bool) *jenkinsv1alpha1.JenkinsCredential {
	r := p.spec.Registry.CredentialsSecretRef
	if r == nil {
		return nil
	}
	return p.folderCredential(p.registryCredentialsID(), r.Name, "Pushes the images of "+p.name+" (DevOpsProject).", keep)
}

// folderCredential is a username/password credential with id, from the
// Secret named secret in the project's namespace, in the store of the
// pipelines' folder (the provider sends it only if the Secret carries the
// Jenkins-credential opt-in label).
func (p *project) folderCredential(id, secret, description string, keep bool) *jenkinsv1alpha1.JenkinsCredential {
	return &jenkinsv1alpha1.JenkinsCredential{
		TypeMeta:   metav1.TypeMeta{APIVersion: jenkinsv1alpha1.SchemeGroupVersion.String(), Kind: KindCred},
		ObjectMeta: p.meta("", nil),
		Spec: jenkinsv1alpha1.JenkinsCredentialSpec{ManagedResourceSpec: p.managed(keep), ForProvider: jenkinsv1alpha1.JenkinsCredentialParameters{
			Folder: p.pipelineFolder(""), ID: id, Type: jenkinsv1alpha1.CredentialUsernamePassword,
			Description: description,
			SecretRef:   jenkinsv1alpha1.CredentialSecretRef{Name: secret},
		}},
	}
}

// sshUser is the user of an SSH repository URL (ssh://user@host/path or
// user@host:path; "git" when it names none), and whether it is one.
func sshUser(u string) (string, bool) {
	rest, isSSH := strings.CutPrefix(u, "ssh://")
	if !isSSH && (strings.Contains(u, "://") || !strings.Contains(u, "@")) {
		return "", false
	}
	if user, _, ok := strings.Cut(rest, "@"); ok && user != "" && !strings.ContainsAny(user, "/:") {
		return user, true
	}
	return "git", true
}

// envParameter is the parameter every job gets naming its environment.
const envParameter = "ENVIRONMENT"

// declaredParameters are a copy of an environment's declared parameters:
// its own when it sets any (even none), else spec.pipeline.parameters.
func (p *project) declaredParameters(e Environment) []jenkinsv1alpha1.Parameter {
	declared := p.spec.Pipeline.Parameters
	if e.Pipeline != nil && e.Pipeline.Parameters != nil {
		declared = e.Pipeline.Parameters
	}
	out := make([]jenkinsv1alpha1.Parameter, 0, len(declared))
	for _, d := range declared {
		out = append(out, *d.DeepCopy())
	}
	return out
}

// triggersOf are a copy of an environment's triggers: its own when it sets
// them, else spec.pipeline.triggers.
func (p *project) triggersOf(e Environment) *jenkinsv1alpha1.Triggers {
	if e.Pipeline != nil && e.Pipeline.Triggers != nil {
		return e.Pipeline.Triggers.DeepCopy()
	}
	return p.spec.Pipeline.Triggers.DeepCopy()
}

func (p *project) pipeline(e Environment, keep bool) *jenkinsv1alpha1.JenkinsPipeline {
	g, folder := p.spec.Git, p.pipelineFolder(e.Name)
	script := p.spec.Pipeline.ScriptPath
	if script == "" {
		script = "Jenkinsfile"
	}
	source := jenkinsv1alpha1.PipelineSource{SCM: &jenkinsv1alpha1.SCMSource{
		URL: g.URL, Branch: p.branchOf(e), ScriptPath: script, CredentialsID: p.checkoutCredentialsID(),
	}}
	if b := p.build(e); b != nil {
		source = jenkinsv1alpha1.PipelineSource{Build: b}
	}
	if f := p.buildFile(e); f != nil {
		source = jenkinsv1alpha1.PipelineSource{BuildFile: f}
	}
	envDefault, headRevision := e.Name, ""
	return &jenkinsv1alpha1.JenkinsPipeline{
		TypeMeta: metav1.TypeMeta{APIVersion: jenkinsv1alpha1.SchemeGroupVersion.String(), Kind: KindPipeline},
		// Its builds are deployed by the environment's ArgoApplication: a
		// DeployRun waits for it rather than take the build alone.
		ObjectMeta: p.meta(e.Name, map[string]string{contract.AnnotationDeployedBy: KindApp}),
		Spec: jenkinsv1alpha1.JenkinsPipelineSpec{ManagedResourceSpec: p.managed(keep), ForProvider: jenkinsv1alpha1.JenkinsPipelineParameters{
			Folder:      folder,
			Name:        e.Name,
			Description: "Builds and deploys " + p.name + " to " + e.Name + ".",
			Source:      source,
			// REVISION is what a deploy request over RabbitMQ sets
			// (internal/events/deployrequest).
			Parameters: append([]jenkinsv1alpha1.Parameter{
				{Name: envParameter, Type: jenkinsv1alpha1.ParameterString, Default: &envDefault, Description: "The environment to deploy to."},
				{Name: jenkinsv1alpha1.RevisionParameter, Type: jenkinsv1alpha1.ParameterString, Default: &headRevision, Description: "The git revision to build; empty builds the head of the branch."},
			}, p.declaredParameters(e)...),
			Triggers:      p.triggersOf(e),
			AdoptExisting: p.spec.AdoptExisting.Pipelines,
		}},
	}
}

// buildFile is the source of an environment's job read from
// spec.pipeline.buildFile in the project's repository, with what the
// project fills in on an inline build as the file's defaults; nil when the
// project has none or the environment declares its own build.
func (p *project) buildFile(e Environment) *jenkinsv1alpha1.BuildFileSource {
	g, path := p.spec.Git, p.spec.Pipeline.BuildFile
	if path == "" || (e.Pipeline != nil && e.Pipeline.Build != nil) {
		return nil
	}
	host, repo := p.registryOf(e)
	f := &jenkinsv1alpha1.BuildFileSource{URL: g.URL, Branch: p.branchOf(e), Path: path, Defaults: &jenkinsv1alpha1.BuildFileDefaults{
		Checkout: &jenkinsv1alpha1.CheckoutStage{URL: g.URL, Branch: p.branchOf(e), CredentialsID: p.checkoutCredentialsID()},
		Image:    &jenkinsv1alpha1.ImageTarget{Registry: host, Repository: repo},
	}}
	if r := g.CredentialsSecretRef; r != nil {
		f.CredentialsSecretRef = &jenkinsv1alpha1.CredentialSecretRef{Name: r.Name}
	}
	return f
}

// buildOf is an environment's declared build, its own or the project's;
// nil for a Jenkinsfile.
func (p *project) buildOf(e Environment) *jenkinsv1alpha1.PipelineBuild {
	if e.Pipeline != nil && e.Pipeline.Build != nil {
		return e.Pipeline.Build
	}
	return p.spec.Pipeline.Build
}

// build is an environment's declared build with what the project fills in:
// a checkout stage without url checks out the project's repository (its
// branch and Jenkins credential), an image stage without registry or
// repository pushes to the project's RegistryRepo, and one without a
// credential pushes with spec.registry.credentialsSecretRef's.
func (p *project) build(e Environment) *jenkinsv1alpha1.PipelineBuild {
	b := p.buildOf(e)
	if b == nil {
		return nil
	}
	out := b.DeepCopy()
	host, repo := p.registryOf(e)
	for i := range out.Stages {
		if c := out.Stages[i].Checkout; c != nil && c.URL == "" {
			c.URL = p.spec.Git.URL
			if c.Branch == "" {
				c.Branch = p.branchOf(e)
			}
			if c.CredentialsID == "" {
				c.CredentialsID = p.checkoutCredentialsID()
			}
		}
		if m := out.Stages[i].Image; m != nil {
			if m.Registry == "" {
				m.Registry = host
			}
			if m.Repository == "" {
				m.Repository = repo
			}
			if m.CredentialsID == "" {
				m.CredentialsID = p.registryCredentialsID()
			}
		}
	}
	return out
}

// registryOf is the host and repository of the project's RegistryRepo: the
// repository is spec.registry's, the host the one the RegistryRepo reports
// (status.atProvider.url), else the one the environment's job already
// pushes to; "" until either is known.
func (p *project) registryOf(e Environment) (host, repo string) {
	repo = p.spec.Registry.Namespace + "/" + p.spec.Registry.Name
	if h, r, ok := strings.Cut(p.registryURL, "/"); ok && h != "" {
		return h, r
	}
	return p.keptRegistry[e.Name], repo
}

// waitsForRegistry is true when an environment's build pushes to the
// project's RegistryRepo whose host is not known yet: its job is not
// composed until it is, rather than with an image stage that cannot push.
func (p *project) waitsForRegistry(e Environment) bool {
	b := p.buildOf(e)
	if b == nil {
		return false
	}
	host, _ := p.registryOf(e)
	for _, s := range b.Stages {
		if s.Image != nil && s.Image.Registry == "" && host == "" {
			return true
		}
	}
	return false
}

// url is where an environment answers: https:// with TLS, else http://.
func (p *project) url(e Environment) string {
	return ingressOf(p.spec.Ingress, e.Ingress).scheme() + host(e)
}

// source is an environment's Argo CD source: with ingress on and a host
// to hand (h, see gateHosts), the host and TLS are handed to the
// manifests, as Helm values or Kustomize patches (validated: a Directory
// source with ingress is refused).
func (p *project) source(e Environment, h string) (argov1alpha1.ApplicationSource, error) {
	path := e.Path
	if path == "" {
		path = "deploy/" + e.Name
	}
	src := argov1alpha1.ApplicationSource{RepoURL: p.spec.Git.URL, Path: path, TargetRevision: p.branchOf(e)}
	if sourceTypeOf(p.spec.Source, e) == SourceHelm {
		// Argo CD names the release after the application unless told:
		// "<name>-<env>", as before applications gained the namespace, so
		// charts keep naming their objects as they did (a dot there would
		// make invalid Service names).
		src.Helm = &argov1alpha1.HelmSource{ReleaseName: p.releaseName(e.Name)}
	}
	in := ingressOf(p.spec.Ingress, e.Ingress)
	if !in.enabled || h == "" {
		return src, nil
	}
	switch sourceTypeOf(p.spec.Source, e) {
	case SourceHelm:
		v, err := p.helmValues(e, in, h)
		if err != nil {
			return src, err
		}
		src.Helm.Values = v
	case SourceKustomize:
		patches, err := p.kustomizePatches(e, in, h)
		if err != nil {
			return src, err
		}
		src.Kustomize = &argov1alpha1.KustomizeSource{Patches: patches}
	}
	return src, nil
}

// app is an environment's ArgoApplication; h is the host handed to it (see
// gateHosts; "" for none), which the annotation records.
func (p *project) app(e Environment, keep bool, h string) (*argov1alpha1.ArgoApplication, error) {
	src, err := p.source(e, h)
	if err != nil {
		return nil, errors.Wrapf(err, "cannot write the ingress settings of environment %s", e.Name)
	}
	annotations := map[string]string{meta.AnnotationKeyExternalName: p.appName(e.Name)}
	if h != "" {
		annotations[contract.AnnotationIngressHost] = h
	}
	cluster, ns := p.destination(e)
	var syncOptions []string
	if p.in.createNamespace {
		syncOptions = []string{"CreateNamespace=true"}
	}
	policy := &argov1alpha1.SyncPolicy{Automated: &argov1alpha1.Automated{Prune: true, SelfHeal: true}, SyncOptions: syncOptions}
	if e.preview != nil {
		// A preview is deployed by the DeployRun of each head, once its
		// image is built: syncing by itself, it would deploy a new head
		// before its image exists.
		policy.Automated = nil
	}
	// The Argo CD application's name is deterministic, not the generated
	// name of the resource.
	return &argov1alpha1.ArgoApplication{
		TypeMeta:   metav1.TypeMeta{APIVersion: argov1alpha1.SchemeGroupVersion.String(), Kind: KindApp},
		ObjectMeta: p.meta(e.Name, annotations),
		Spec: argov1alpha1.ArgoApplicationSpec{ManagedResourceSpec: p.managed(keep), ForProvider: argov1alpha1.ArgoApplicationParameters{
			Project:       p.argoProjectName(),
			Source:        src,
			Destination:   argov1alpha1.ApplicationDestination{Server: cluster, Namespace: ns},
			SyncPolicy:    policy,
			AdoptExisting: p.spec.AdoptExisting.Applications,
		}},
	}, nil
}

func (p *project) dns(e Environment, keep bool) *dnsv1alpha1.DNSRecord {
	zone := strings.TrimSuffix(strings.ToLower(p.spec.DNS.Zone), ".")
	name := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(e.Domain), "."), zone)
	name = strings.TrimSuffix(name, ".")
	if name == "" {
		name = "@"
	}
	target, typ := dnsTarget(p.spec.DNS, p.in)
	ttl := p.in.dnsRecordTTL
	return &dnsv1alpha1.DNSRecord{
		TypeMeta: metav1.TypeMeta{APIVersion: dnsv1alpha1.SchemeGroupVersion.String(), Kind: KindDNS},
		// The URL the name answers on: a DeployRun reports it live there.
		ObjectMeta: p.meta(e.Name, map[string]string{contract.AnnotationURL: p.url(e)}),
		Spec: dnsv1alpha1.DNSRecordSpec{ManagedResourceSpec: p.managed(keep), ForProvider: dnsv1alpha1.DNSRecordParameters{
			Zone: zone, Name: name, Type: dnsv1alpha1.RecordType(typ), Values: []string{target}, TTL: &ttl,
			AdoptExisting: p.spec.AdoptExisting.DNSRecords,
		}},
	}
}

var apiVersionOf = map[string]string{ //nolint:gochecknoglobals // read-only table
	KindPipeline: jenkinsv1alpha1.SchemeGroupVersion.String(),
	KindApp:      argov1alpha1.SchemeGroupVersion.String(),
	KindDNS:      dnsv1alpha1.SchemeGroupVersion.String(),
	KindRegistry: registryv1alpha1.SchemeGroupVersion.String(),
	KindProject:  argov1alpha1.SchemeGroupVersion.String(),
	KindRepo:     argov1alpha1.SchemeGroupVersion.String(),
	KindCred:     jenkinsv1alpha1.SchemeGroupVersion.String(),
}

func branch(g GitSpec) string {
	if g.Branch == "" {
		return "main"
	}
	return g.Branch
}
