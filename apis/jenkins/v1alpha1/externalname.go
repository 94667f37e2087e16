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

package v1alpha1

// DefaultExternalName is the external name the provider gives a
// JenkinsPipeline that has none: the job's path, its folder and its name
// (the resource's own when spec.forProvider.name is empty). The
// DevOpsProject function composes pipelines with it, so the provider need
// not write it before the create.
func (mg *JenkinsPipeline) DefaultExternalName() string {
	name := mg.Spec.ForProvider.Name
	if name == "" {
		name = mg.GetName()
	}
	if f := mg.Spec.ForProvider.Folder; f != "" {
		return f + "/" + name
	}
	return name
}

// DefaultExternalName is the external name the provider gives a
// JenkinsCredential that has none: its id, the resource's name when
// spec.forProvider.id is empty.
func (mg *JenkinsCredential) DefaultExternalName() string {
	if id := mg.Spec.ForProvider.ID; id != "" {
		return id
	}
	return mg.GetName()
}
