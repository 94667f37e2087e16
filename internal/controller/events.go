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

package controller

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/events/lifecycle"
)

// SetupLifecycleEvents adds w (its heartbeats) and has it watch each
// managed-resource kind once the kind's CRD is established. A watch that
// cannot be set up stops the provider, like a controller that cannot.
func SetupLifecycleEvents(mgr ctrl.Manager, o controller.Options, w *lifecycle.Watcher) error {
	// Only the kinds' descriptions are used here, never their connectors.
	for _, k := range Kinds(Config{}) {
		o.Gate.Register(func() {
			if err := w.Watch(mgr, k.Events()); err != nil {
				panic(errors.Wrapf(err, "cannot watch %s for lifecycle events", k.GVK().Kind))
			}
		}, k.GVK())
	}
	return mgr.Add(w)
}
