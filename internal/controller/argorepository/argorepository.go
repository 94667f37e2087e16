// Package argorepository reconciles ArgoRepository managed resources: Argo
// CD repositories and their credentials, scoped to one AppProject, through
// the Argo CD API.
package argorepository

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/freeleaps/provider-devops/apis/argocd/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/argocd"
	"github.com/freeleaps/provider-devops/internal/controller/argoapplication"
	"github.com/freeleaps/provider-devops/internal/controller/lifecycle"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const (
	errFmtGetSecret     = "spec.forProvider.credentialsSecretRef: cannot get Secret %s/%s"
	errFmtSecretMissing = "spec.forProvider.credentialsSecretRef: Secret %s/%s not found"
)

// Kind describes the ArgoRepository kind to the shared controller setup.
// The external name is the repository URL.
var Kind = mrcontroller.Kind[*v1alpha1.ArgoRepository]{
	GroupKind:        v1alpha1.ArgoRepositoryGroupKind,
	GroupVersionKind: v1alpha1.ArgoRepositoryGroupVersionKind,
	New:              func() *v1alpha1.ArgoRepository { return &v1alpha1.ArgoRepository{} },
	NewList:          func() resource.ManagedList { return &v1alpha1.ArgoRepositoryList{} },
	ExternalName:     func(cr *v1alpha1.ArgoRepository) string { return cr.Spec.ForProvider.URL },
}

// Client is the part of the Argo CD API the controller uses.
type Client interface {
	GetRepository(ctx context.Context, repo, project string, refresh bool) (*argocd.Repository, error)
	CreateRepository(ctx context.Context, r *argocd.Repository) error
	UpdateRepository(ctx context.Context, r *argocd.Repository) error
	DeleteRepository(ctx context.Context, repo, project string) error
	argoapplication.ProjectGetter
}

// SetupGated adds the ArgoRepository controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return mrcontroller.SetupGated(mgr, o, Kind, NewConnector(mgr.GetClient(), nil))
}

// NewConnector returns the connector. newClient builds the Argo CD client;
// nil means the real one.
func NewConnector(kube client.Client, newClient func(argocd.Config) (Client, error)) managed.TypedExternalConnector[*v1alpha1.ArgoRepository] {
	return &connector{ArgoConnector: argoapplication.NewArgoConnector(kube, newClient), kube: kube}
}

type connector struct {
	*argoapplication.ArgoConnector[Client]
	kube client.Client
}

// Connect reads the ProviderConfig's argocd section and token.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.ArgoRepository) (managed.TypedExternalClient[*v1alpha1.ArgoRepository], error) {
	conn, err := c.ArgoConnector.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	return &external{client: conn.Client, secrets: secretReader{kube: c.kube}, tenancy: conn.Tenancy, now: time.Now}, nil
}

// secretReader reads a repository's credentials Secret from the resource's
// own namespace, straight from the API server (no cluster-wide cache).
type secretReader struct{ kube client.Reader }

func (r secretReader) Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	s := &corev1.Secret{}
	if err := r.kube.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, s); err != nil {
		if kerrors.IsNotFound(err) {
			return nil, errors.Errorf(errFmtSecretMissing, namespace, name)
		}
		return nil, errors.Wrapf(err, errFmtGetSecret, namespace, name)
	}
	return s, nil
}

// Lifecycle describes ArgoRepositories to the event stream; the URL is the
// repository's, which holds no credential (the schema refuses userinfo in
// https URLs).
var Lifecycle = lifecycle.Kind{
	Name: v1alpha1.ArgoRepositoryKind,
	New:  func() client.Object { return &v1alpha1.ArgoRepository{} },
	URL: func(mg resource.Managed) string {
		if cr, _ := mg.(*v1alpha1.ArgoRepository); cr != nil {
			return cr.Spec.ForProvider.URL
		}
		return ""
	},
}
