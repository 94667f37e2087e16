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

// Code generation for the function's input type: deepcopy and its CRD
// (package/function/input), run by `make generate`.

//go:generate rm -rf ../../../package/function/input
//go:generate controller-gen object:headerFile=../../../hack/boilerplate.go.txt paths=./... crd:crdVersions=v1 output:artifacts:config=../../../package/function/input

package input
