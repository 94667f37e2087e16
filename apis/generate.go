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

// Code generation for the provider's APIs. `make generate` builds the pinned
// generators into the tool cache and runs `go generate ./apis/...` with them on
// PATH; the outputs are committed and CI checks they are current.

// Remove existing CRDs so that renamed kinds leave nothing stale behind.
//go:generate rm -rf ../package/provider/crds

// Deepcopy methods and CRD manifests.
//go:generate controller-gen object:headerFile=../hack/boilerplate.go.txt paths=./... crd:crdVersions=v1 output:artifacts:config=../package/provider/crds

// The JenkinsPipeline CRD, embedded by the declarative package: a build file
// read from Git is held to source.build's schema, defaults and CEL rules.
//go:generate cp ../package/provider/crds/jenkins.devops.freeleaps.io_jenkinspipelines.yaml ../internal/clients/jenkins/declarative/crd/jenkinspipelines.yaml

// crossplane-runtime method sets (resource.Managed and friends).
//go:generate env GOFLAGS=-tags=generate angryjet generate-methodsets --header-file=../hack/boilerplate.go.txt ./...

package apis
