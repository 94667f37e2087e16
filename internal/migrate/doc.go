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

// Package migrate carries the Kopf operator's objects (DevOpsProject,
// ArgoSetting, JenkinsSetting, ContainerRegistry, GitCredentials,
// DeploymentRecord, IngressResource) over to DevOpsProjects of this
// project that adopt what the operator made in place, and says per
// operator object what was adopted, what changed and what was not carried
// over. It reads and writes no cluster itself: cmd/devopsctl does.
//
// The operator's schemas were never published; the shapes read here are
// the ones docs/migration.md states, field names accepted in snake_case
// (the operator's Python models) and camelCase.
package migrate
