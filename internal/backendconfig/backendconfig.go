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

// Package backendconfig resolves the ProviderConfig or
// ClusterProviderConfig a managed resource references into what its
// backend client needs: the section, the credentials, TLS and the
// platform's guard for a tenant's connections. It is the one place that
// enforces that a namespaced ProviderConfig only reads Secrets from its
// own namespace, and never the provider's environment or files. (It is
// not crossplane-runtime's providerconfig package, the usage-tracking
// reconciler internal/controller/config runs.)
package backendconfig

import (
	"context"
	"os"
	"path"
	"strings"

	"github.com/spf13/afero"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/netguard"
)

const (
	errNoRef            = "spec.providerConfigRef is not set"
	errFmtUnknownKind   = "spec.providerConfigRef.kind %q is not supported: use ProviderConfig or ClusterProviderConfig"
	errFmtGetPC         = "cannot get ProviderConfig %q in namespace %q"
	errFmtGetCPC        = "cannot get ClusterProviderConfig %q"
	errFmtPCNotFound    = "ProviderConfig %q not found in namespace %q"
	errFmtCPCNotFound   = "ClusterProviderConfig %q not found"
	errFmtCPCNotAllowed = "ClusterProviderConfig %q may not be used from namespace %q: it is not in the config's spec.allowedNamespaces (%s); the platform team adds it there, or use a ProviderConfig in this namespace"
	errFmtMissingSecNS  = "%s: credentials.secretRef.namespace is required in a ClusterProviderConfig"
	errFmtForeignSecret = "%s: a ProviderConfig may only read Secrets in its own namespace %q, not %q" //nolint:gosec // a message, not a credential
	errFmtGetSecret     = "%s: cannot get credentials Secret %s/%s"                                    //nolint:gosec // a message, not a credential
	errFmtSecretMissing = "%s: credentials Secret %s/%s not found"                                     //nolint:gosec // a message, not a credential
	errFmtSecretNoKey   = "%s: credentials Secret %s/%s has no key %q"
	errFmtEmptyCreds    = "%s: credentials are empty"
	errFmtUnknownSource = "%s: credentials source %q is not supported"
	errFmtEnvUnset      = "%s: environment variable %q of the provider is not set"
	errFmtReadFs        = "%s: cannot read credentials file %q"
	errFmtTenantSource  = "%s: a namespaced ProviderConfig takes credentials only from a Secret in its own namespace (or None), not from source %s: Environment and Filesystem read the provider's own environment and files and are allowed only in a ClusterProviderConfig"
)

// Config is a resolved ProviderConfig or ClusterProviderConfig.
type Config struct {
	// Spec of the config.
	Spec v1alpha1.ProviderConfigSpec
	// Kind and Name identify the config in messages.
	Kind, Name string
	// Namespace of a ProviderConfig; empty for a ClusterProviderConfig.
	Namespace string
	// guard checks a namespaced config's connections (Resolver.Guard).
	guard *netguard.Guard
}

// String names the config for messages, e.g. ProviderConfig team-a/default.
func (c *Config) String() string {
	if c.Namespace == "" {
		return c.Kind + " " + c.Name
	}
	return c.Kind + " " + c.Namespace + "/" + c.Name
}

// Resolve returns the config mr references. A namespaced ProviderConfig is
// looked up in mr's own namespace only.
func Resolve(ctx context.Context, kube client.Reader, mr resource.ModernManaged) (*Config, error) {
	ref := mr.GetProviderConfigReference()
	if ref == nil || ref.Name == "" {
		return nil, errors.New(errNoRef)
	}
	switch ref.Kind {
	case v1alpha1.ProviderConfigKind:
		pc := &v1alpha1.ProviderConfig{}
		if err := kube.Get(ctx, types.NamespacedName{Namespace: mr.GetNamespace(), Name: ref.Name}, pc); err != nil {
			if kerrors.IsNotFound(err) {
				return nil, unconfigured{errors.Errorf(errFmtPCNotFound, ref.Name, mr.GetNamespace())}
			}
			return nil, errors.Wrapf(err, errFmtGetPC, ref.Name, mr.GetNamespace())
		}
		return &Config{Spec: pc.Spec, Kind: ref.Kind, Name: ref.Name, Namespace: mr.GetNamespace()}, nil
	case v1alpha1.ClusterProviderConfigKind:
		cpc := &v1alpha1.ClusterProviderConfig{}
		if err := kube.Get(ctx, types.NamespacedName{Name: ref.Name}, cpc); err != nil {
			if kerrors.IsNotFound(err) {
				return nil, unconfigured{errors.Errorf(errFmtCPCNotFound, ref.Name)}
			}
			return nil, errors.Wrapf(err, errFmtGetCPC, ref.Name)
		}
		if !NamespaceAllowed(cpc.Spec.AllowedNamespaces, mr.GetNamespace()) {
			allowed := strings.Join(cpc.Spec.AllowedNamespaces, ", ")
			if allowed == "" {
				allowed = "empty: no namespace"
			}
			return nil, unconfigured{errors.Errorf(errFmtCPCNotAllowed, ref.Name, mr.GetNamespace(), allowed)}
		}
		return &Config{Spec: cpc.Spec, Kind: ref.Kind, Name: ref.Name}, nil
	default:
		return nil, errors.Errorf(errFmtUnknownKind, ref.Kind)
	}
}

// unconfigured is an error saying the resource has no usable config: its
// ProviderConfig or credentials Secret does not exist, or its
// ClusterProviderConfig does not serve its namespace.
type unconfigured struct{ error }

func (u unconfigured) Unwrap() error { return u.error }

// IsUnconfigured is true for an error saying the resource has no usable
// config (not a failed read): what a namespace being deleted, whose Secrets
// and ProviderConfigs go with it, or a namespace the platform removed from
// a ClusterProviderConfig, leaves its resources with.
func IsUnconfigured(err error) bool {
	var u unconfigured
	return errors.As(err, &u)
}

// NamespaceAllowed is true when ns matches one of the globs. A cluster-scoped
// resource (ns "") is the platform's and always allowed.
func NamespaceAllowed(globs []string, ns string) bool {
	if ns == "" {
		return true
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, ns); ok {
			return true
		}
	}
	return false
}

// Credentials reads the credentials described by cr. section names the
// config section (e.g. "spec.jenkins") in messages. The returned bytes are
// secret: never log, record or wrap them into an error.
func (c *Config) Credentials(ctx context.Context, kube client.Reader, section string, cr v1alpha1.Credentials) ([]byte, error) {
	where := c.String() + " " + section
	var (
		data []byte
		err  error
	)
	switch cr.Source {
	case xpv2.CredentialsSourceSecret, "":
		data, err = c.secret(ctx, kube, where, cr.SecretRef)
	case xpv2.CredentialsSourceEnvironment, xpv2.CredentialsSourceFilesystem:
		// The API server refuses these in a ProviderConfig already; this
		// holds for objects stored before that rule, or written around it.
		if c.Namespace != "" {
			return nil, errors.Errorf(errFmtTenantSource, where, cr.Source)
		}
		if cr.Source == xpv2.CredentialsSourceEnvironment {
			data, err = env(where, cr.Env)
		} else {
			data, err = file(ctx, where, cr.Fs)
		}
	case xpv2.CredentialsSourceNone:
		return nil, nil
	default:
		return nil, errors.Errorf(errFmtUnknownSource, where, cr.Source)
	}
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errors.Errorf(errFmtEmptyCreds, where)
	}
	return data, nil
}

func (c *Config) secret(ctx context.Context, kube client.Reader, where string, ref *v1alpha1.SecretKeySelector) ([]byte, error) {
	if ref == nil {
		return nil, errors.Errorf("%s: credentials.secretRef is required when source is Secret", where)
	}
	ns := ref.Namespace
	switch {
	case c.Namespace == "" && ns == "":
		return nil, errors.Errorf(errFmtMissingSecNS, where)
	case c.Namespace != "" && ns == "":
		ns = c.Namespace
	case c.Namespace != "" && ns != c.Namespace:
		return nil, errors.Errorf(errFmtForeignSecret, where, c.Namespace, ns)
	}
	s := &corev1.Secret{}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: ref.Name}, s); err != nil {
		if kerrors.IsNotFound(err) {
			return nil, unconfigured{errors.Errorf(errFmtSecretMissing, where, ns, ref.Name)}
		}
		return nil, errors.Wrapf(err, errFmtGetSecret, where, ns, ref.Name)
	}
	v, ok := s.Data[ref.Key]
	if !ok {
		return nil, errors.Errorf(errFmtSecretNoKey, where, ns, ref.Name, ref.Key)
	}
	return v, nil
}

func env(where string, sel *xpv2.EnvSelector) ([]byte, error) {
	if sel == nil {
		return nil, errors.Errorf("%s: credentials.env is required when source is Environment", where)
	}
	v, ok := os.LookupEnv(sel.Name)
	if !ok {
		return nil, errors.Errorf(errFmtEnvUnset, where, sel.Name)
	}
	return []byte(v), nil
}

func file(ctx context.Context, where string, sel *xpv2.FsSelector) ([]byte, error) {
	if sel == nil {
		return nil, errors.Errorf("%s: credentials.fs is required when source is Filesystem", where)
	}
	data, err := resource.ExtractFs(ctx, afero.NewOsFs(), xpv2.CommonCredentialSelectors{Fs: sel})
	// The library's error may quote the path but never the content.
	return data, errors.Wrapf(err, errFmtReadFs, where, sel.Path)
}
