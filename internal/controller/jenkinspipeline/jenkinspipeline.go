// Package jenkinspipeline reconciles JenkinsPipeline managed resources against Jenkins.
package jenkinspipeline

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	pcv1alpha1 "github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
	"github.com/freeleaps/provider-devops/internal/providerconfig"
)

// errNotImplemented is what a JenkinsPipeline says in its Synced condition until the Jenkins
// client is part of the provider: it never pretends to have reconciled.
const errNotImplemented = "the Jenkins backend is not implemented in this provider version: the JenkinsPipeline was not reconciled"

// Kind describes the JenkinsPipeline kind to the shared controller setup.
var Kind = mrcontroller.Kind[*v1alpha1.JenkinsPipeline]{
	GroupKind:        v1alpha1.JenkinsPipelineGroupKind,
	GroupVersionKind: v1alpha1.JenkinsPipelineGroupVersionKind,
	New:              func() *v1alpha1.JenkinsPipeline { return &v1alpha1.JenkinsPipeline{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.JenkinsPipelineList{} },
}

// SetupGated adds the JenkinsPipeline controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return mrcontroller.SetupGated(mgr, o, Kind, NewConnector(mgr.GetClient()))
}

// NewConnector returns the connector the JenkinsPipeline controller uses.
func NewConnector(kube client.Client) managed.TypedExternalConnector[*v1alpha1.JenkinsPipeline] {
	return &connector{kube: kube, usage: resource.NewProviderConfigUsageTracker(kube, &pcv1alpha1.ProviderConfigUsage{})}
}

type connector struct {
	kube  client.Client
	usage providerconfig.Tracker
}

// Connect resolves the ProviderConfig and its jenkins section and reads the
// credentials, so configuration mistakes are reported now.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.JenkinsPipeline) (managed.TypedExternalClient[*v1alpha1.JenkinsPipeline], error) {
	pc, section, err := providerconfig.Section(ctx, c.kube, c.usage, cr, "jenkins", func(s *pcv1alpha1.ProviderConfigSpec) *pcv1alpha1.JenkinsConfig { return s.Jenkins })
	if err != nil {
		return nil, err
	}
	if _, err := pc.Credentials(ctx, c.kube, "spec.jenkins.credentials", section.Credentials); err != nil {
		return nil, err
	}
	return nil, errors.New(errNotImplemented)
}
