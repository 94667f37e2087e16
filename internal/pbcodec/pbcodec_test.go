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

package pbcodec_test

import (
	"testing"

	protectionv1beta1 "github.com/crossplane/crossplane/apis/v2/protection/v1beta1"

	argov1alpha1 "github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	dnsv1alpha1 "github.com/freeleaps/provider-devops/apis/dns/v1alpha1"
	jenkinsv1alpha1 "github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	registryv1alpha1 "github.com/freeleaps/provider-devops/apis/registry/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/pbcodec/pbcodectest"
)

// kinds are the API objects the composition function writes and reads.
var kinds = map[string]func() any{
	"JenkinsPipeline": func() any { return &jenkinsv1alpha1.JenkinsPipeline{} },
	"ArgoApplication": func() any { return &argov1alpha1.ArgoApplication{} },
	"ArgoProject":     func() any { return &argov1alpha1.ArgoProject{} },
	"ArgoRepository":  func() any { return &argov1alpha1.ArgoRepository{} },
	"DNSRecord":       func() any { return &dnsv1alpha1.DNSRecord{} },
	"RegistryRepo":    func() any { return &registryv1alpha1.RegistryRepo{} },
	"Usage":           func() any { return &protectionv1beta1.Usage{} },
}

func TestEncodeLikeConverter(t *testing.T) {
	for name, newObj := range kinds {
		t.Run(name, func(t *testing.T) { pbcodectest.CheckEncode(t, name, newObj, 200) })
	}
}

func TestDecodeLikeJSON(t *testing.T) {
	for name, newObj := range kinds {
		t.Run(name, func(t *testing.T) { pbcodectest.CheckDecode(t, name, newObj, 300) })
	}
}
