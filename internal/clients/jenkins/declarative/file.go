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

package declarative

import (
	"bytes"
	"context"
	_ "embed" // the JenkinsPipeline CRD
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
)

// MaxFileSize bounds a build file: the CRD's bound of an inline script.
const MaxFileSize = 256 << 10

// crdYAML is the JenkinsPipeline CRD as controller-gen writes it (`make
// generate` copies it here): a build file is held to the very rules the
// API server holds spec.forProvider.source.build to.
//
//go:embed crd/jenkinspipelines.yaml
var crdYAML []byte

// buildSchema is source.build's schema, built once from crdYAML.
type buildSchema struct {
	structural *structuralschema.Structural
	validator  validation.SchemaValidator
	cel        *cel.Validator
}

//nolint:gochecknoglobals // built once from the embedded CRD, read-only after
var (
	schemaOnce sync.Once
	schemaOf   *buildSchema
	schemaErr  error
)

func loadSchema() (*buildSchema, error) {
	schemaOnce.Do(func() { schemaOf, schemaErr = newBuildSchema(crdYAML) })
	return schemaOf, schemaErr
}

func newBuildSchema(crd []byte) (*buildSchema, error) {
	var c apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(crd, &c); err != nil || len(c.Spec.Versions) == 0 || c.Spec.Versions[0].Schema == nil {
		return nil, errors.New("the embedded JenkinsPipeline CRD has no schema")
	}
	s := c.Spec.Versions[0].Schema.OpenAPIV3Schema
	for _, k := range []string{"spec", "forProvider", "source", "build"} {
		p, ok := s.Properties[k]
		if !ok {
			return nil, errors.Errorf("the embedded JenkinsPipeline CRD has no %s", k)
		}
		s = &p
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s, internal, nil); err != nil {
		return nil, errors.Wrap(err, "cannot convert source.build's schema")
	}
	st, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, errors.Wrap(err, "source.build's schema is not structural")
	}
	v, _, err := validation.NewSchemaValidator(internal)
	if err != nil {
		return nil, errors.Wrap(err, "cannot build source.build's validator")
	}
	return &buildSchema{structural: st, validator: v, cel: cel.NewValidator(st, false, celconfig.PerCallLimit)}, nil
}

// maxProblems bounds the problems of a file ParseFile names.
const maxProblems = 10

// ParseFile reads a build file: YAML of the shape of a JenkinsPipeline's
// spec.forProvider.source.build. Unknown fields are refused, what d fills
// in and the CRD's defaults are applied, and it is validated against the
// CRD's schema and CEL rules, as the API server would validate the same
// build inline. The error lists every problem, each at its field path.
func ParseFile(data []byte, d *v1alpha1.BuildFileDefaults) (*v1alpha1.PipelineBuild, error) {
	if len(data) > MaxFileSize {
		return nil, errors.Errorf("the file has %d bytes, more than the %d KiB a build file may have", len(data), MaxFileSize>>10)
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, errors.Wrap(err, "not YAML")
	}
	var b v1alpha1.PipelineBuild
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, errors.Wrap(err, "not a build (the shape of spec.forProvider.source.build)")
	}
	var obj any
	if err := utiljson.Unmarshal(j, &obj); err != nil {
		return nil, errors.Wrap(err, "not a build")
	}
	if _, ok := obj.(map[string]any); !ok {
		return nil, errors.New("not a build: the file must be a YAML mapping (the shape of spec.forProvider.source.build)")
	}
	s, err := loadSchema()
	if err != nil {
		return nil, err
	}
	fill(obj.(map[string]any), d)
	defaulting.Default(obj, s.structural)
	errs := validation.ValidateCustomResource(nil, obj, s.validator)
	if len(errs) == 0 {
		errs, _ = s.cel.Validate(context.Background(), nil, s.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	}
	if len(errs) > 0 {
		// A condition is read, not searched: the first few problems, and
		// how many more.
		msgs := make([]string, 0, maxProblems+1)
		for i, e := range errs {
			if i == maxProblems {
				msgs = append(msgs, fmt.Sprintf("and %d more", len(errs)-maxProblems))
				break
			}
			msgs = append(msgs, e.Error())
		}
		return nil, errors.Errorf("invalid build: %s", strings.Join(msgs, "; "))
	}
	// Decode again, with the defaults the schema filled in.
	j, _ = json.Marshal(obj)
	out := &v1alpha1.PipelineBuild{}
	if err := json.Unmarshal(j, out); err != nil {
		return nil, errors.Wrap(err, "not a build")
	}
	return out, nil
}

// fill sets what d fills in on the stages of a decoded build file.
func fill(build map[string]any, d *v1alpha1.BuildFileDefaults) {
	if d == nil {
		return
	}
	stages, _ := build["stages"].([]any)
	for _, st := range stages {
		stage, _ := st.(map[string]any)
		if c, ok := stage["checkout"].(map[string]any); ok && d.Checkout != nil && c["url"] == nil {
			c["url"] = d.Checkout.URL
			setIfAbsent(c, "branch", d.Checkout.Branch)
			setIfAbsent(c, "credentialsId", d.Checkout.CredentialsID)
		}
		if m, ok := stage["image"].(map[string]any); ok && d.Image != nil {
			setIfAbsent(m, "registry", d.Image.Registry)
			setIfAbsent(m, "repository", d.Image.Repository)
		}
	}
}

func setIfAbsent(m map[string]any, k, v string) {
	if _, ok := m[k]; !ok && v != "" {
		m[k] = v
	}
}
