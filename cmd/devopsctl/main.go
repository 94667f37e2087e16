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

// Command devopsctl is the user's tool for provider-devops. Its migrate
// command carries the Kopf operator's objects over to DevOpsProjects that
// adopt what the operator made (docs/migration.md).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/alecthomas/kingpin/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/freeleaps/provider-devops/internal/migrate"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, connect: connect})
	stop()
	os.Exit(code)
}

// env is what run reaches outside itself, so tests can replace it.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// connect returns a dynamic client for the kubeconfig (path, context;
	// "" for the defaults kubectl uses).
	connect func(kubeconfig, context string) (dynamic.Interface, error)
}

// migrateFlags are the migrate command's flags.
type migrateFlags struct {
	files          []string
	kubeconfig     string
	context        string
	namespace      string
	allNamespaces  bool
	group, version string
	providerConfig string
	apply          bool
}

func run(ctx context.Context, args []string, e env) int {
	app := kingpin.New("devopsctl", "Tools for provider-devops.").UsageWriter(e.stderr).ErrorWriter(e.stderr).Terminate(nil)
	m := app.Command("migrate", "Carry the Kopf operator's objects over to DevOpsProjects that adopt what it made. Dry run by default: prints the DevOpsProjects (stdout) and a report per operator object (stderr).")
	f := &migrateFlags{}
	m.Flag("filename", "Read the operator's objects from this file (kubectl get -o yaml output, a List or multi-document YAML; - for stdin) instead of the cluster. Repeatable.").Short('f').StringsVar(&f.files)
	m.Flag("kubeconfig", "The kubeconfig to read from and apply to; default as kubectl ($KUBECONFIG, ~/.kube/config).").StringVar(&f.kubeconfig)
	m.Flag("context", "The kubeconfig context; default its current one.").StringVar(&f.context)
	m.Flag("namespace", "Read the operator's objects of this namespace only (from the cluster).").Short('n').StringVar(&f.namespace)
	m.Flag("all-namespaces", "Read the operator's objects of every namespace (from the cluster).").Short('A').BoolVar(&f.allNamespaces)
	m.Flag("group", "The operator's API group.").Default("freeleaps.com").StringVar(&f.group)
	m.Flag("version", "The operator's API version.").Default("v1alpha1").StringVar(&f.version)
	m.Flag("provider-config", "The config the DevOpsProjects name, Kind/name (ClusterProviderConfig/platform, ProviderConfig/default); default: the Composition's.").StringVar(&f.providerConfig)
	m.Flag("apply", "Create the DevOpsProjects through the kubeconfig (server-side apply, field manager "+fieldManager+") instead of printing them.").BoolVar(&f.apply)
	cmd, err := app.Parse(args)
	if err != nil {
		fmt.Fprintf(e.stderr, "devopsctl: %v\n", err)
		return 2
	}
	if cmd != m.FullCommand() {
		return 2
	}
	if err := runMigrate(ctx, f, e); err != nil {
		fmt.Fprintf(e.stderr, "devopsctl migrate: %v\n", err)
		return 1
	}
	return 0
}

// connect is the dynamic client of a kubeconfig, loaded as kubectl does.
func connect(kubeconfig, context string) (dynamic.Interface, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, errors.Wrap(err, "cannot load the kubeconfig")
	}
	cfg.UserAgent = fieldManager
	return dynamic.NewForConfig(cfg)
}

// providerConfig parses --provider-config.
func providerConfig(s string) (*migrate.ConfigRef, error) {
	if s == "" {
		// No reference: the Composition's default.
		return nil, nil
	}
	kind, name, ok := strings.Cut(s, "/")
	if !ok || (kind != "ClusterProviderConfig" && kind != "ProviderConfig") || name == "" {
		return nil, errors.Errorf("--provider-config %q must be ClusterProviderConfig/<name> or ProviderConfig/<name>", s)
	}
	return &migrate.ConfigRef{Kind: kind, Name: name}, nil
}

// validate checks the flags that go together.
func (f *migrateFlags) validate() error {
	fromCluster := f.namespace != "" || f.allNamespaces
	switch {
	case len(f.files) > 0 && fromCluster:
		return errors.New("--namespace and --all-namespaces select what is read from the cluster; with --filename, export only the namespaces to migrate")
	case len(f.files) == 0 && !fromCluster:
		return errors.New("say what to migrate: --namespace NAME or --all-namespaces (read from the cluster), or --filename FILE")
	}
	return nil
}

func runMigrate(ctx context.Context, f *migrateFlags, e env) error {
	pc, err := providerConfig(f.providerConfig)
	if err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	gv := schema.GroupVersion{Group: f.group, Version: f.version}
	var client dynamic.Interface
	if len(f.files) == 0 || f.apply {
		if client, err = e.connect(f.kubeconfig, f.context); err != nil {
			return err
		}
	}
	objs, err := read(ctx, f, e, client, gv)
	if err != nil {
		return err
	}
	if objs, err = migrate.Operator(objs, gv); err != nil {
		return err
	}
	res := migrate.Translate(objs, migrate.Options{ProviderConfig: pc})
	if f.apply {
		err = apply(ctx, client, res, e.stdout)
		fmt.Fprint(e.stderr, res.Report.String())
		return err
	}
	y, err := res.YAML()
	if err != nil {
		return err
	}
	if _, err := e.stdout.Write(y); err != nil {
		return errors.Wrap(err, "cannot write the DevOpsProjects")
	}
	fmt.Fprint(e.stderr, res.Report.String())
	return nil
}
