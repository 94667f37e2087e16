package rabbitmq

import (
	"net"
	"strings"
	"testing"
	"time"
)

func TestStartStopStart(t *testing.T) {
	b := Start(t)
	dial := func() error {
		c, err := net.DialTimeout("tcp", strings.TrimSuffix(strings.TrimPrefix(b.URL, "amqp://guest:guest@"), "/"), time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err
	}
	if err := dial(); err != nil {
		t.Fatalf("node is not listening: %v", err)
	}
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	if dial() == nil {
		t.Fatal("node still listening after Stop")
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	if err := dial(); err != nil {
		t.Fatalf("node is not listening after restart: %v", err)
	}
}
