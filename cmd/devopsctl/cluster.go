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

package main

import (
	"context"
	"fmt"
	"io"
	"os"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/migrate"
)

// fieldManager owns the fields devopsctl applies: a later run updates
// them, and a person's own edits under another manager conflict instead
// of being overwritten silently.
const fieldManager = "devopsctl"

// devopsProjects is this project's DevOpsProject resource.
var devopsProjects = schema.GroupVersionResource{Group: "platform.freeleaps.io", Version: "v1alpha1", Resource: "devopsprojects"} //nolint:gochecknoglobals // read-only

// read returns the operator's objects from the files, or else from the
// cluster.
func read(ctx context.Context, f *migrateFlags, e env, c dynamic.Interface, gv schema.GroupVersion) ([]*unstructured.Unstructured, error) {
	if len(f.files) == 0 {
		return readCluster(ctx, c, gv, f.namespace, e.stderr)
	}
	var out []*unstructured.Unstructured
	for _, name := range f.files {
		r := e.stdin
		// kingpin hands "-f -" over as "".
		if name != "-" && name != "" {
			fh, err := os.Open(name)
			if err != nil {
				return nil, errors.Wrap(err, "cannot read the operator's objects")
			}
			defer fh.Close()
			r = fh
		}
		objs, err := migrate.Read(r)
		if err != nil {
			return nil, errors.Wrapf(err, "cannot read %s", name)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// readCluster lists every operator kind in namespace ("" for all). A
// kind the cluster does not serve is skipped, and said so.
func readCluster(ctx context.Context, c dynamic.Interface, gv schema.GroupVersion, namespace string, stderr io.Writer) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, k := range migrate.Kinds() {
		gvr := gv.WithResource(k.Resource)
		l, err := c.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
		if kerrors.IsNotFound(err) {
			fmt.Fprintf(stderr, "the cluster serves no %s (%s): none read\n", k.Kind, gvr.GroupResource())
			continue
		}
		if err != nil {
			return nil, errors.Wrapf(err, "cannot list %s", gvr.GroupResource())
		}
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out, nil
}

// apply creates or updates each DevOpsProject with server-side apply.
// Nothing is forced: a field another manager owns is a conflict, reported,
// and that project is left as it was.
func apply(ctx context.Context, c dynamic.Interface, res migrate.Result, stdout io.Writer) error {
	var failed int
	for _, p := range res.Projects {
		u, err := p.Unstructured()
		if err != nil {
			return err
		}
		b, err := u.MarshalJSON()
		if err != nil {
			return errors.Wrap(err, "cannot write the DevOpsProject")
		}
		_, err = c.Resource(devopsProjects).Namespace(p.Metadata.Namespace).Patch(ctx, p.Metadata.Name, types.ApplyPatchType, b, metav1.PatchOptions{FieldManager: fieldManager})
		if err != nil {
			failed++
			fmt.Fprintf(stdout, "DevOpsProject %s/%s: not applied: %v\n", p.Metadata.Namespace, p.Metadata.Name, err)
			continue
		}
		fmt.Fprintf(stdout, "DevOpsProject %s/%s: applied\n", p.Metadata.Namespace, p.Metadata.Name)
	}
	if failed > 0 {
		return errors.Errorf("%d of %d DevOpsProjects were not applied", failed, len(res.Projects))
	}
	return nil
}
