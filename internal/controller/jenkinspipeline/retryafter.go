package jenkinspipeline

import (
	"context"

	"github.com/freeleaps/provider-devops/internal/clients/jenkins"
)

// noting passes every call through and reports its error, so a Retry-After
// from any request holds further calls to that Jenkins.
type noting struct {
	Client
	note func(error)
}

func (n noting) Get(ctx context.Context, path string) (*jenkins.Job, error) {
	j, err := n.Client.Get(ctx, path)
	n.note(err)
	return j, err
}

func (n noting) Create(ctx context.Context, path string, p jenkins.Pipeline) ([]string, error) {
	f, err := n.Client.Create(ctx, path, p)
	n.note(err)
	return f, err
}

func (n noting) Update(ctx context.Context, path string, p jenkins.Pipeline) error {
	err := n.Client.Update(ctx, path, p)
	n.note(err)
	return err
}

func (n noting) Delete(ctx context.Context, path string, folders []string) error {
	err := n.Client.Delete(ctx, path, folders)
	n.note(err)
	return err
}

func (n noting) Build(ctx context.Context, path string) (int64, error) {
	id, err := n.Client.Build(ctx, path)
	n.note(err)
	return id, err
}
