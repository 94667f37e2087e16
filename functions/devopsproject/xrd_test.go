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
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/jsonpath"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/freeleaps/provider-devops/internal/testing/controlplane"
)

func TestMain(m *testing.M) { controlplane.Main(m) }

func readYAML(t *testing.T, path ...string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{controlplane.RepoRoot()}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	if err := yaml.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func version(t *testing.T, xrd map[string]any) map[string]any {
	t.Helper()
	return xrd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
}

func TestXRDSchemasMatch(t *testing.T) {
	v2 := readYAML(t, "package", "configuration", "xrd.yaml")
	legacy := readYAML(t, "package", "configuration", "xrd-legacy.yaml")
	if diff := cmp.Diff(version(t, v2)["schema"], version(t, legacy)["schema"]); diff != "" {
		t.Errorf("the legacy XRD must offer the same schema as the v2 one -v2 +legacy:\n%s", diff)
	}
}

// TestXRDSchemaRejectsBadInput installs the CRD Crossplane makes from the
// v2 XRD (its names, scope and schema) in a real API server and checks that
// bad input is refused there, with the field named.
func TestXRDSchemaRejectsBadInput(t *testing.T) {
	env := controlplane.Shared(t)
	c := env.Client
	ctx := context.Background()
	xrd := readYAML(t, "package", "configuration", "xrd.yaml")
	raw, _ := json.Marshal(version(t, xrd)["schema"].(map[string]any)["openAPIV3Schema"])
	schema := &apiextensionsv1.JSONSchemaProps{}
	controlplane.Must(t, json.Unmarshal(raw, schema))
	// The printer columns too: the API server checks their JSONPaths.
	var columns []apiextensionsv1.CustomResourceColumnDefinition
	rawColumns, _ := json.Marshal(version(t, xrd)["additionalPrinterColumns"])
	controlplane.Must(t, json.Unmarshal(rawColumns, &columns))
	// Crossplane adds its own fields to the XR's spec; allow them here.
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "devopsprojects.platform.freeleaps.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "platform.freeleaps.io", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "DevOpsProject", ListKind: "DevOpsProjectList", Plural: "devopsprojects", Singular: "devopsproject"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1alpha1", Served: true, Storage: true,
				Schema:                   &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schema},
				Subresources:             &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: columns,
			}},
		},
	}
	controlplane.Must(t, c.Create(ctx, crd))
	controlplane.Eventually(t, "CRD established", func() bool {
		if err := c.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
			return false
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	})
	controlplane.Must(t, c.Create(ctx, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "team-shop"}}}))

	var n int
	apply := func(mut func(spec map[string]any)) error {
		x := &unstructured.Unstructured{Object: readYAML(t, "examples", "devopsproject", "xr.yaml")}
		n++
		x.SetName(x.GetName() + "-" + strings.Repeat("x", n))
		mut(x.Object["spec"].(map[string]any))
		var err error
		controlplane.Eventually(t, "API server answers", func() bool {
			err = c.Create(ctx, x)
			return err == nil || !strings.Contains(err.Error(), "no matches for kind")
		})
		return err
	}
	envs := func(s map[string]any) []any { return s["environments"].([]any) }
	envAt := func(s map[string]any, i int) map[string]any { return envs(s)[i].(map[string]any) }

	if err := apply(func(map[string]any) {}); err != nil {
		t.Fatalf("the example must be accepted: %v", err)
	}
	// Ingress on with a Helm source and an issuer, one environment on
	// Kustomize without TLS: accepted.
	if err := apply(func(s map[string]any) {
		s["source"] = map[string]any{"type": "Helm"}
		s["ingress"] = map[string]any{"enabled": true, "className": "nginx", "issuer": map[string]any{"kind": "ClusterIssuer", "name": "letsencrypt"}}
		envAt(s, 2)["sourceType"] = "Kustomize"
		envAt(s, 2)["ingress"] = map[string]any{"tls": false, "annotations": map[string]any{"example.com/a": "b"}}
	}); err != nil {
		t.Fatalf("a valid ingress must be accepted: %v", err)
	}
	// The declared-build example: accepted.
	build := readYAML(t, "examples", "devopsproject", "xr-build.yaml")["spec"].(map[string]any)
	if err := apply(func(s map[string]any) {
		s["pipeline"] = build["pipeline"]
		envAt(s, 1)["pipeline"] = build["environments"].([]any)[1].(map[string]any)["pipeline"]
	}); err != nil {
		t.Fatalf("the declared-build example must be accepted: %v", err)
	}
	// The build-file example: accepted.
	file := readYAML(t, "examples", "devopsproject", "xr-build-file.yaml")["spec"].(map[string]any)
	if err := apply(func(s map[string]any) {
		s["git"], s["pipeline"] = file["git"], file["pipeline"]
		envAt(s, 1)["pipeline"] = file["environments"].([]any)[1].(map[string]any)["pipeline"]
	}); err != nil {
		t.Fatalf("the build-file example must be accepted: %v", err)
	}
	// The previews example: accepted.
	previews := readYAML(t, "examples", "devopsproject", "xr-previews.yaml")["spec"].(map[string]any)["previews"]
	// With previews on, pr-42 would be a preview's name.
	if err := apply(func(s map[string]any) { s["previews"], envAt(s, 2)["name"] = previews, "review-42" }); err != nil {
		t.Fatalf("the previews example must be accepted: %v", err)
	}
	withPreviews := func(mut func(pr, template map[string]any)) func(map[string]any) {
		return func(s map[string]any) {
			tmpl := map[string]any{"domain": "previews.shop.example.com"}
			pr := map[string]any{"repository": "team-shop/shop", "template": tmpl}
			mut(pr, tmpl)
			s["previews"] = map[string]any{"pullRequests": pr}
			envAt(s, 2)["name"] = "review-42"
		}
	}
	withBuild := func(stages ...any) func(map[string]any) {
		return func(s map[string]any) { s["pipeline"] = map[string]any{"build": map[string]any{"stages": stages}} }
	}
	cases := map[string]struct {
		mut  func(spec map[string]any)
		want string
	}{
		"BuildStageTwoActions": {withBuild(map[string]any{"name": "x", "sh": []any{"true"}, "deploy": map[string]any{}}), `a stage sets exactly one of checkout, sh, image and deploy`},
		"BuildStageName":       {withBuild(map[string]any{"name": "it's", "sh": []any{"true"}}), `spec.pipeline.build.stages[0].name`},
		"BuildImageTag":        {withBuild(map[string]any{"name": "i", "image": map[string]any{"tag": "$(reboot)"}}), `spec.pipeline.build.stages[0].image.tag`},
		"EnvBuildNoStages": {func(s map[string]any) {
			envAt(s, 0)["pipeline"] = map[string]any{"build": map[string]any{"stages": []any{}}}
		}, `spec.environments[0].pipeline.build.stages`},
		"BuildFileAndBuild": {func(s map[string]any) {
			s["pipeline"] = map[string]any{"buildFile": ".devops/pipeline.yaml", "build": map[string]any{"stages": []any{map[string]any{"name": "t", "sh": []any{"true"}}}}}
		}, `pipeline.buildFile is read from spec.git over https`},
		"BuildFileSSH": {func(s map[string]any) {
			s["git"].(map[string]any)["url"] = "ssh://git@git.example.com/team/shop.git"
			s["pipeline"] = map[string]any{"buildFile": ".devops/pipeline.yaml"}
		}, `pipeline.buildFile is read from spec.git over https`},
		"BuildFileUp": {func(s map[string]any) { s["pipeline"] = map[string]any{"buildFile": "a/../../b"} }, `buildFile must stay inside the repository`},
		"ReservedParameter": {func(s map[string]any) {
			s["pipeline"] = map[string]any{"parameters": []any{map[string]any{"name": "SKIP"}, map[string]any{"name": "REVISION"}}}
		}, `ENVIRONMENT and REVISION are the parameters every job already has`},
		"ChoiceWithoutChoices": {func(s map[string]any) {
			s["pipeline"] = map[string]any{"parameters": []any{map[string]any{"name": "TARGET", "type": "choice"}}}
		}, `a choice parameter needs choices`},
		"DuplicateParameter": {func(s map[string]any) {
			s["pipeline"] = map[string]any{"parameters": []any{map[string]any{"name": "A"}, map[string]any{"name": "A"}}}
		}, `spec.pipeline.parameters[1]: Duplicate value`},
		"EnvReservedParameter": {func(s map[string]any) {
			envAt(s, 1)["pipeline"] = map[string]any{"parameters": []any{map[string]any{"name": "ENVIRONMENT"}}}
		}, `spec.environments[1].pipeline.parameters: Invalid value`},
		"TriggerCron": {func(s map[string]any) { s["pipeline"] = map[string]any{"triggers": map[string]any{"cron": "daily"}} }, `spec.pipeline.triggers.cron`},
		"RegistrySecretName": {func(s map[string]any) {
			s["registry"].(map[string]any)["credentialsSecretRef"] = map[string]any{"name": "Push_Secret"}
		}, `spec.registry.credentialsSecretRef.name`},
		"DuplicateEnvironment": {func(s map[string]any) { envAt(s, 1)["name"] = "prod" }, `spec.environments[1]: Duplicate value`},
		"BothConfigs": {func(s map[string]any) {
			s["providerConfigName"] = "default"
			s["providerConfigRef"] = map[string]any{"kind": "ClusterProviderConfig", "name": "default"}
		}, `set either providerConfigRef or providerConfigName, not both`},
		"ConfigKind":        {func(s map[string]any) { s["providerConfigRef"] = map[string]any{"kind": "Secret", "name": "x"} }, `spec.providerConfigRef.kind: Unsupported value: "Secret"`},
		"ClusterPattern":    {func(s map[string]any) { envAt(s, 0)["cluster"] = "https://*" }, `spec.environments[0].cluster`},
		"NameNotDNSLabel":   {func(s map[string]any) { envAt(s, 0)["name"] = "Prod_1" }, `spec.environments[0].name`},
		"DomainOutsideZone": {func(s map[string]any) { envAt(s, 0)["domain"] = "shop.example.org" }, `every environments[].domain must be inside dns.zone`},
		"TTLTooShort":       {func(s map[string]any) { envAt(s, 2)["ttl"] = "30s" }, `spec.environments[2].ttl: Invalid value: "30s": ttl must be at least 1m`},
		"TTLNotDuration":    {func(s map[string]any) { envAt(s, 2)["ttl"] = "3 days" }, `spec.environments[2].ttl`},
		"GitURLHTTP":        {func(s map[string]any) { s["git"].(map[string]any)["url"] = "http://git.example.com/a.git" }, `spec.git.url`},
		"GitURLPassword": {func(s map[string]any) {
			s["git"].(map[string]any)["url"] = "https://ci:hunter2@git.example.com/a.git"
		}, `spec.git.url`},
		"GitSSHURLPassword": {func(s map[string]any) {
			s["git"].(map[string]any)["url"] = "ssh://git:hunter2@git.example.com/a.git"
		}, `spec.git.url`},
		"BuildCheckoutURLPassword": {withBuild(map[string]any{"name": "c", "checkout": map[string]any{"url": "https://ci:hunter2@git.example.com/a.git"}}), `spec.pipeline.build.stages[0].checkout.url`},
		"RetainUnknown":            {func(s map[string]any) { envAt(s, 2)["retain"] = []any{"Namespace"} }, `spec.environments[2].retain[0]: Unsupported value: "Namespace"`},
		"NoEnvironments":           {func(s map[string]any) { s["environments"] = []any{} }, `spec.environments`},
		"IngressOnDirectory": {func(s map[string]any) {
			s["ingress"] = map[string]any{"enabled": true, "tls": false}
		}, `an environment with ingress on needs a Helm or Kustomize source`},
		"EnvIngressOnDirectory": {func(s map[string]any) {
			s["source"] = map[string]any{"type": "Helm"}
			envAt(s, 2)["sourceType"] = "Directory"
			envAt(s, 2)["ingress"] = map[string]any{"enabled": true, "tls": false}
		}, `an environment with ingress on needs a Helm or Kustomize source`},
		"TLSWithoutIssuer": {func(s map[string]any) {
			s["source"] = map[string]any{"type": "Helm"}
			s["ingress"] = map[string]any{"enabled": true}
		}, `an environment with ingress and TLS on needs ingress.issuer`},
		"IssuerKind": {func(s map[string]any) {
			s["ingress"] = map[string]any{"issuer": map[string]any{"kind": "Vault", "name": "x"}}
		}, `spec.ingress.issuer.kind: Unsupported value: "Vault"`},
		"IssuerAsAnnotation": {func(s map[string]any) {
			envAt(s, 0)["ingress"] = map[string]any{"annotations": map[string]any{"cert-manager.io/cluster-issuer": "x"}}
		}, `name the issuer in ingress.issuer`},
		"SourceType": {func(s map[string]any) { s["source"] = map[string]any{"type": "Jsonnet"} }, `spec.source.type: Unsupported value: "Jsonnet"`},
		// What the function refuses, the API server refuses first: a
		// project the function cannot compose never gets stored.
		"AnnotationKey": {func(s map[string]any) {
			envAt(s, 0)["ingress"] = map[string]any{"annotations": map[string]any{"foo bar": "x"}}
		}, `annotation keys are Kubernetes qualified names`},
		"CertManagerAnnotation": {func(s map[string]any) {
			s["ingress"] = map[string]any{"annotations": map[string]any{"cert-manager.io/issuer-kind": "ClusterIssuer"}}
		}, `cert-manager's annotations are the platform's to set`},
		"IssuerName": {func(s map[string]any) {
			s["ingress"] = map[string]any{"issuer": map[string]any{"kind": "Issuer", "name": "a..b"}}
		}, `spec.ingress.issuer.name`},
		"ClassName":                {func(s map[string]any) { s["ingress"] = map[string]any{"className": "a..b"} }, `spec.ingress.className`},
		"ApplicationName":          {func(s map[string]any) { envAt(s, 0)["applicationName"] = "Shop_Prod" }, `spec.environments[0].applicationName`},
		"AdoptExistingKind":        {func(s map[string]any) { s["adoptExisting"] = map[string]any{"pipelines": "yes"} }, `spec.adoptExisting.pipelines`},
		"PreviewRepositoryGit":     {withPreviews(func(pr, _ map[string]any) { pr["repository"] = "team-shop/shop.git" }), `spec.previews.pullRequests.repository`},
		"PreviewRepositoryURL":     {withPreviews(func(pr, _ map[string]any) { pr["repository"] = "https://git.example.com/a/b" }), `spec.previews.pullRequests.repository`},
		"PreviewMax":               {withPreviews(func(pr, _ map[string]any) { pr["max"] = 21 }), `spec.previews.pullRequests.max`},
		"PreviewForkAuthor":        {withPreviews(func(pr, _ map[string]any) { pr["forkAuthors"] = []any{"bad user"} }), `spec.previews.pullRequests.forkAuthors[0]`},
		"PreviewNoDomain":          {withPreviews(func(_, tm map[string]any) { delete(tm, "domain") }), `spec.previews.pullRequests.template.domain`},
		"PreviewTTL":               {withPreviews(func(_, tm map[string]any) { tm["ttl"] = "30s" }), `spec.previews.pullRequests.template.ttl`},
		"PreviewRetain":            {withPreviews(func(_, tm map[string]any) { tm["retain"] = []any{"RegistryRepo"} }), `spec.previews.pullRequests.template.retain[0]`},
		"PreviewDomainOutsideZone": {withPreviews(func(_, tm map[string]any) { tm["domain"] = "previews.example.org" }), `previews.pullRequests.template.domain must be inside dns.zone`},
		"PreviewNameTaken": {func(s map[string]any) {
			withPreviews(func(_, _ map[string]any) {})(s)
			envAt(s, 2)["name"] = "pr-42"
		}, `no environments[].name may be pr-<number>`},
		"PreviewNameTakenOtherNumber": {func(s map[string]any) {
			withPreviews(func(_, _ map[string]any) {})(s)
			envAt(s, 2)["name"] = "pr-7"
		}, `no environments[].name may be pr-<number>`},
		"PreviewReservedParameter": {withPreviews(func(_, tm map[string]any) {
			tm["pipeline"] = map[string]any{"parameters": []any{map[string]any{"name": "REVISION", "type": "string"}}}
		}), `spec.previews.pullRequests.template.pipeline.parameters`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := apply(tc.mut)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want the API server to refuse with %q, got %v", tc.want, err)
			}
		})
	}
}

// TestXRDBuildSchemaMatchesJenkinsPipeline: the XRD's pipeline.build and
// environments[].pipeline.build are the JenkinsPipeline CRD's
// source.build (which controller-gen makes from the type the function
// composes with), but for what the project fills in: a checkout's url and
// an image's registry and repository are optional, and a checkout's branch
// has no default (spec.git.branch is). Descriptions aside.
// spec.pipeline.parameters and triggers (and environments[].pipeline's)
// are the CRD's forProvider's, the
// parameters with one more rule refusing ENVIRONMENT and REVISION.
// hack/xrd-build-schema.py writes them.
func TestXRDBuildSchemaMatchesJenkinsPipeline(t *testing.T) {
	at := func(m any, path ...string) any {
		for _, k := range path {
			mm, ok := m.(map[string]any)
			if !ok {
				t.Fatalf("no %s in the schema", strings.Join(path, "."))
			}
			m = mm[k]
		}
		return m
	}
	var strip func(any) any
	strip = func(n any) any {
		m, ok := n.(map[string]any)
		if !ok {
			return n
		}
		out := map[string]any{}
		for k, v := range m {
			switch k {
			case "description":
			case "properties":
				props := map[string]any{}
				for pk, pv := range v.(map[string]any) {
					props[pk] = strip(pv)
				}
				out[k] = props
			case "items", "additionalProperties":
				out[k] = strip(v)
			default:
				out[k] = v
			}
		}
		return out
	}
	crd := readYAML(t, "package", "provider", "crds", "jenkins.devops.freeleaps.io_jenkinspipelines.yaml")
	want := strip(at(version(t, crd)["schema"], "openAPIV3Schema", "properties", "spec", "properties", "forProvider", "properties", "source", "properties", "build")).(map[string]any)
	stage := at(want, "properties", "stages", "items", "properties").(map[string]any)
	delete(stage["checkout"].(map[string]any), "required")
	delete(at(stage, "checkout", "properties", "branch").(map[string]any), "default")
	delete(stage["image"].(map[string]any), "required")

	forProvider := at(version(t, crd)["schema"], "openAPIV3Schema", "properties", "spec", "properties", "forProvider", "properties")
	wantParams := strip(at(forProvider, "parameters")).(map[string]any)
	wantParams["x-kubernetes-validations"] = []any{map[string]any{
		"rule":    "self.all(p, !(p.name in ['ENVIRONMENT', 'REVISION']))",
		"message": "ENVIRONMENT and REVISION are the parameters every job already has; name yours otherwise",
	}}
	wantTriggers := strip(at(forProvider, "triggers"))

	for _, file := range []string{"xrd.yaml", "xrd-legacy.yaml"} {
		spec := at(version(t, readYAML(t, "package", "configuration", file))["schema"], "openAPIV3Schema", "properties", "spec", "properties")
		// spec.pipeline.parameters and triggers are the CRD's
		// forProvider.parameters and triggers; the parameters refuse the
		// two the function sets.
		for where, w := range map[string]struct{ want, got any }{
			"spec.pipeline.parameters":                {wantParams, at(spec, "pipeline", "properties", "parameters")},
			"spec.pipeline.triggers":                  {wantTriggers, at(spec, "pipeline", "properties", "triggers")},
			"spec.environments[].pipeline.parameters": {wantParams, at(spec, "environments", "items", "properties", "pipeline", "properties", "parameters")},
			"spec.environments[].pipeline.triggers":   {wantTriggers, at(spec, "environments", "items", "properties", "pipeline", "properties", "triggers")},
		} {
			if diff := cmp.Diff(w.want, strip(w.got)); diff != "" {
				t.Errorf("%s %s differs from the JenkinsPipeline CRD's (run hack/xrd-build-schema.py): -crd +xrd:\n%s", file, where, diff)
			}
		}
		for where, got := range map[string]any{
			"spec.pipeline.build":                at(spec, "pipeline", "properties", "build"),
			"spec.environments[].pipeline.build": at(spec, "environments", "items", "properties", "pipeline", "properties", "build"),
		} {
			if diff := cmp.Diff(want, strip(got)); diff != "" {
				t.Errorf("%s %s differs from the JenkinsPipeline CRD's source.build (run hack/xrd-build-schema.py): -crd +xrd:\n%s", file, where, diff)
			}
		}
	}
}

// TestXRDPrinterColumns evaluates each printer column as kubectl does on
// a project with a preview: the API server takes any JSONPath that starts
// with a dot, and kubectl shows <invalid> for one that does not parse.
func TestXRDPrinterColumns(t *testing.T) {
	xr := map[string]any{"status": map[string]any{"environments": []any{
		map[string]any{"name": "prod", "phase": "Ready"},
		map[string]any{"name": "pr-12", "phase": "Provisioning", "pullRequest": map[string]any{"number": 12}},
	}}}
	want := map[string]string{"ENVIRONMENTS": "Ready Provisioning", "PREVIEWS": "pr-12"}
	for _, f := range []string{"xrd.yaml", "xrd-legacy.yaml"} {
		for _, c := range version(t, readYAML(t, "package", "configuration", f))["additionalPrinterColumns"].([]any) {
			col := c.(map[string]any)
			name, path := col["name"].(string), col["jsonPath"].(string)
			jp := jsonpath.New(name)
			if err := jp.Parse("{" + path + "}"); err != nil {
				t.Fatalf("%s: column %s: %v", f, name, err)
			}
			var b strings.Builder
			if err := jp.Execute(&b, xr); err != nil {
				t.Fatalf("%s: column %s: %v", f, name, err)
			}
			if b.String() != want[name] {
				t.Errorf("%s: column %s shows %q, want %q", f, name, b.String(), want[name])
			}
		}
	}
}
