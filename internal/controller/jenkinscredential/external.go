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

package jenkinscredential

import (
	"context"
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/freeleaps/provider-devops/apis/jenkins/v1alpha1"
	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
	"github.com/freeleaps/provider-devops/internal/controller/mrcontroller"
)

const (
	errGet          = "cannot observe the Jenkins credential"
	errCreate       = "cannot create the Jenkins credential"
	errUpdate       = "cannot update the Jenkins credential"
	errDelete       = "cannot delete the Jenkins credential"
	errRecord       = "the Jenkins credential was written, but its secret hash could not be recorded in status: the next reconcile writes it again"
	errFmtNoFolder  = "folder %q (spec.forProvider.folder) does not exist in Jenkins, or is not a folder: create it first (a JenkinsPipeline in it creates it)"
	errFmtTaken     = "a credential with id %q exists in folder %q and is not managed by this resource: it was left untouched; set spec.forProvider.adoptExisting to take it over, or choose another id"
	errFmtNotOwned  = "Jenkins credential %q in folder %q is managed by JenkinsCredential %s, not by this resource: it was left untouched; choose another id or folder"
	errFmtNotAdopts = "Jenkins credential %q in folder %q exists and no JenkinsCredential manages it: it was left untouched; set spec.forProvider.adoptExisting to take it over (its values are replaced by the Secret's), or choose another id"
)

type external struct {
	client Client
	kube   client.Client
	// key is the HMAC key of this resource's secret hash (HashKey).
	key []byte
	// want and hash are what Observe read from the Secret, for Create and
	// Update to write and record.
	want *jenkins.Credential
	hash string
}

// Observe reads the credential (Jenkins shows no secret) and the Secret,
// and compares the managed fields and the hash of the Secret's values with
// the hash recorded when they were last written.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.JenkinsCredential) (managed.ExternalObservation, error) {
	id, folder := meta.GetExternalName(cr), cr.Spec.ForProvider.Folder
	got, err := e.client.GetCredential(ctx, folder, id)
	if jenkins.IsNotFound(err) {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGet)
	}
	if got.Owner != Owner(cr) && mrcontroller.MayWrite(cr) {
		switch {
		case meta.WasDeleted(cr):
			// Never ours: let the resource go and leave the credential.
			return managed.ExternalObservation{ResourceExists: false}, nil
		case got.Owner != "":
			return managed.ExternalObservation{}, errors.Errorf(errFmtNotOwned, id, folder, got.Owner)
		case !cr.Spec.ForProvider.AdoptExisting:
			return managed.ExternalObservation{}, errors.Errorf(errFmtNotAdopts, id, folder)
		}
		// Adopted: Update writes the owner line and the Secret's values.
	}
	cr.Status.AtProvider.URL = e.client.CredentialURL(folder, id)
	if meta.WasDeleted(cr) {
		// Deletion needs no values: the Secret may be gone already.
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
	}
	if err := e.desired(ctx, cr); err != nil {
		return managed.ExternalObservation{}, err
	}
	cr.SetConditions(xpv2.Available())
	diff := Compare(*got, *e.want, cr.Status.AtProvider.SecretHash, e.hash)
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: diff == "", Diff: diff}, nil
}

func (e *external) desired(ctx context.Context, cr *v1alpha1.JenkinsCredential) error {
	want, err := Desired(ctx, e.kube, cr)
	if err != nil {
		return err
	}
	e.want, e.hash = &want, Hash(e.key, want)
	return nil
}

// Compare reports how the credential in Jenkins differs from the one
// wanted, without any value but the type and the file name: the reconciler
// logs it. recorded is the hash of the values last written, hash that of
// the Secret's values now.
func Compare(got, want jenkins.Credential, recorded, hash string) string {
	var d []string
	if got.Type != want.Type {
		d = append(d, fmt.Sprintf("type: %s, want %s", got.Type, want.Type))
	}
	if got.Owner != want.Owner {
		d = append(d, "owner line: missing")
	}
	if got.Description != want.Description {
		d = append(d, "description differs")
	}
	if got.Username != want.Username {
		d = append(d, "username differs from the Secret's")
	}
	if got.FileName != want.FileName {
		d = append(d, fmt.Sprintf("fileName: %q, want %q", got.FileName, want.FileName))
	}
	if recorded != hash {
		d = append(d, "secret values: the Secret's differ from those last written (status.atProvider.secretHash)")
	}
	if len(d) == 0 {
		return ""
	}
	return strings.Join(d, "\n") + "\n"
}

// Create adds the credential to the folder's store and records the hash of
// the values written.
func (e *external) Create(ctx context.Context, cr *v1alpha1.JenkinsCredential) (managed.ExternalCreation, error) {
	cr.SetConditions(xpv2.Creating())
	if e.want == nil {
		if err := e.desired(ctx, cr); err != nil {
			return managed.ExternalCreation{}, err
		}
	}
	folder := cr.Spec.ForProvider.Folder
	err := e.client.CreateCredential(ctx, folder, *e.want)
	switch {
	case jenkins.IsNotFound(err):
		return managed.ExternalCreation{}, errors.Errorf(errFmtNoFolder, folder)
	case jenkins.IsConflict(err):
		// Created meanwhile by someone else (Observe found nothing).
		return managed.ExternalCreation{}, errors.Errorf(errFmtTaken, e.want.ID, folder)
	case err != nil:
		return managed.ExternalCreation{}, errors.Wrap(err, errCreate)
	}
	// The reconciler reverts status changes made in Create: record the
	// hash now, or the next reconcile would write the values again.
	return managed.ExternalCreation{}, e.record(ctx, cr, e.hash)
}

// Update replaces the credential, secrets included: Jenkins cannot say
// which of them differ.
func (e *external) Update(ctx context.Context, cr *v1alpha1.JenkinsCredential) (managed.ExternalUpdate, error) {
	if e.want == nil {
		if err := e.desired(ctx, cr); err != nil {
			return managed.ExternalUpdate{}, err
		}
	}
	if err := e.client.UpdateCredential(ctx, cr.Spec.ForProvider.Folder, *e.want); err != nil {
		return managed.ExternalUpdate{}, errors.Wrap(err, errUpdate)
	}
	// The reconciler writes status after Update.
	cr.Status.AtProvider.SecretHash = e.hash
	return managed.ExternalUpdate{}, nil
}

// Delete removes the credential.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.JenkinsCredential) (managed.ExternalDelete, error) {
	cr.SetConditions(xpv2.Deleting())
	err := e.client.DeleteCredential(ctx, cr.Spec.ForProvider.Folder, meta.GetExternalName(cr))
	return managed.ExternalDelete{}, errors.Wrap(err, errDelete)
}

// Disconnect has nothing to release: the HTTP transport is shared.
func (e *external) Disconnect(_ context.Context) error { return nil }

// record patches status.atProvider.secretHash at once.
func (e *external) record(ctx context.Context, cr *v1alpha1.JenkinsCredential, hash string) error {
	p := cr.DeepCopy()
	orig := p.DeepCopy()
	p.Status.AtProvider.SecretHash = hash
	if err := e.kube.Status().Patch(ctx, p, client.MergeFrom(orig)); err != nil {
		return errors.Wrap(err, errRecord)
	}
	cr.Status.AtProvider.SecretHash = hash
	cr.SetResourceVersion(p.GetResourceVersion())
	return nil
}
