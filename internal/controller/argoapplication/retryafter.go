package argoapplication

import (
	"context"

	"github.com/freeleaps/provider-devops/internal/clients/argocd"
)

// noting passes every call through and reports its error, so a Retry-After
// from any request holds further calls to that Argo CD.
type noting struct {
	Client
	note func(error)
}

func (n noting) Get(ctx context.Context, name string) (*argocd.Application, error) {
	a, err := n.Client.Get(ctx, name)
	n.note(err)
	return a, err
}

func (n noting) Create(ctx context.Context, app *argocd.Application) (*argocd.Application, error) {
	a, err := n.Client.Create(ctx, app)
	n.note(err)
	return a, err
}

func (n noting) Update(ctx context.Context, app *argocd.Application) (*argocd.Application, error) {
	a, err := n.Client.Update(ctx, app)
	n.note(err)
	return a, err
}

func (n noting) Delete(ctx context.Context, name string, cascade bool) error {
	err := n.Client.Delete(ctx, name, cascade)
	n.note(err)
	return err
}
