// Package jenkinspipeline reconciles JenkinsPipeline managed resources against Jenkins.
package jenkinspipeline

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

// Kind describes the JenkinsPipeline kind to the shared controller setup.
var Kind = mrcontroller.Kind[*v1alpha1.JenkinsPipeline]{
	GroupKind:        v1alpha1.JenkinsPipelineGroupKind,
	GroupVersionKind: v1alpha1.JenkinsPipelineGroupVersionKind,
	New:              func() *v1alpha1.JenkinsPipeline { return &v1alpha1.JenkinsPipeline{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.JenkinsPipelineList{} },
}

// SetupGated adds the JenkinsPipeline controller once its CRD is established. Until the
// Jenkins client lands, its connector reports that the backend is not implemented.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return mrcontroller.SetupGated(mgr, o, Kind, mrcontroller.UnimplementedConnector[*v1alpha1.JenkinsPipeline](mgr.GetClient(), mrcontroller.Backend[pcv1alpha1.JenkinsConfig]{
		Name:        "Jenkins",
		Section:     "jenkins",
		Pick:        func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.JenkinsConfig { return s.Jenkins },
		Credentials: func(s *pcv1alpha1.JenkinsConfig) pcv1alpha1.Credentials { return s.Credentials },
	}))
}
