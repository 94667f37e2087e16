package bind

import (
	"testing"

	"github.com/miekg/dns"
)

func TestSmoke(t *testing.T) {
	s := Start(t)
	s.NSUpdate(t, "update add www.example.test. 300 A 192.0.2.7")
	if v := s.Values("www.example.test.", dns.TypeA); len(v) != 1 || v[0] != "192.0.2.7" {
		t.Fatalf("got %v", v)
	}
}
