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

package jenkins

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// Elements of a Pipeline job's config.xml the provider manages; Merge
// replaces these and keeps every other element as Jenkins stored it.
const (
	elemDescription          = "description"
	elemDisabled             = "disabled"
	elemDefinition           = "definition"
	elemProperties           = "properties"
	elemTriggers             = "triggers"
	propParameters           = "hudson.model.ParametersDefinitionProperty"
	elemParameterDefinitions = "parameterDefinitions"
	propTriggers             = "org.jenkinsci.plugins.workflow.job.properties.PipelineTriggersJobProperty"
	triggerTimer             = "hudson.triggers.TimerTrigger"
	triggerSCM               = "hudson.triggers.SCMTrigger"
	triggerReverse           = "jenkins.triggers.ReverseBuildTrigger"
	rootFlowDefition         = "flow-definition"
)

// Merge returns observed, the config.xml Jenkins serves for the job, with
// the elements p manages replaced: description, disabled, the pipeline
// definition, the parameters property and the timer, SCM-polling and
// upstream (reverse build) triggers. Everything else — the authorization matrix, the build
// discarder, disableConcurrentBuilds, other triggers, plugins' properties
// and their attributes — is written back unchanged, so a drift correction
// changes only what the resource manages.
func Merge(observed []byte, p Pipeline) ([]byte, error) {
	rendered, err := Render(p)
	if err != nil {
		return nil, err
	}
	want, err := parseTree(rendered)
	if err != nil {
		return nil, err
	}
	have, err := parseTree(observed)
	if err != nil {
		return nil, errors.Wrap(err, "cannot parse the job's config.xml")
	}
	if have.Name.Local != rootFlowDefition {
		return nil, errors.Errorf("the job's config.xml is a <%s>, not a Pipeline job's <%s>", have.Name.Local, rootFlowDefition)
	}
	for _, name := range []string{elemDescription, elemDisabled, elemDefinition} {
		have.set(name, want.child(name))
	}
	props, wantProps := have.ensure(elemProperties), want.child(elemProperties)
	if p.SharedParameters {
		mergeParameters(props, wantProps.child(propParameters))
	} else {
		props.set(propParameters, wantProps.child(propParameters))
	}

	wantTriggers := wantProps.child(propTriggers)
	switch tp := props.child(propTriggers); {
	case tp == nil:
		props.set(propTriggers, wantTriggers)
	default:
		triggers, wt := tp.ensure(elemTriggers), wantTriggers.child(elemTriggers)
		for _, name := range []string{triggerTimer, triggerSCM, triggerReverse} {
			triggers.set(name, wt.child(name))
		}
		if wantTriggers == nil && !triggers.hasElements() && len(tp.elements()) == 1 {
			// Only our triggers were in it: drop the property with them.
			props.set(propTriggers, nil)
		}
	}

	var buf bytes.Buffer
	buf.WriteString(xmlDecl)
	enc := xml.NewEncoder(&buf)
	if err := have.encode(enc); err != nil {
		return nil, errors.Wrap(err, "cannot write the job's config.xml")
	}
	if err := enc.Flush(); err != nil {
		return nil, errors.Wrap(err, "cannot write the job's config.xml")
	}
	return buf.Bytes(), nil
}

// mergeParameters writes the parameter definitions of want into props'
// parameters property by name: a definition of the same name is replaced
// where it stands, a new one appended; the others (a script's own) are
// kept as Jenkins stored them.
func mergeParameters(props, want *node) {
	if want == nil {
		return
	}
	have := props.child(propParameters)
	if have == nil {
		props.set(propParameters, want)
		return
	}
	defs := have.ensure(elemParameterDefinitions)
	for _, d := range want.child(elemParameterDefinitions).elements() {
		name := text(d.child("name"))
		replaced := false
		for i, k := range defs.Kids {
			if c, ok := k.(*node); ok && text(c.child("name")) == name {
				defs.Kids[i], replaced = d, true
				break
			}
		}
		if !replaced {
			defs.Kids = append(defs.Kids, d)
		}
	}
}

// text is the character data of n.
func text(n *node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	for _, k := range n.Kids {
		if c, ok := k.(xml.CharData); ok {
			b.Write(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// node is an XML element kept whole: its attributes and its children in
// order (elements, character data, comments).
type node struct {
	Name xml.Name
	Attr []xml.Attr
	Kids []any
}

func parseTree(data []byte) (*node, error) {
	dec := xml.NewDecoder(bytes.NewReader(asXML10(data)))
	var stack []*node
	var root *node
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{Name: t.Name, Attr: t.Copy().Attr}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				parent.Kids = append(parent.Kids, n)
			} else if root == nil {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, errors.New("unbalanced XML")
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Kids = append(stack[len(stack)-1].Kids, t.Copy())
			}
		case xml.Comment:
			if len(stack) > 0 {
				stack[len(stack)-1].Kids = append(stack[len(stack)-1].Kids, t.Copy())
			}
		}
	}
	if root == nil {
		return nil, errors.New("empty XML document")
	}
	return root, nil
}

// child is n's first child element called local; nil when n is nil or has
// none.
func (n *node) child(local string) *node {
	if n == nil {
		return nil
	}
	for _, k := range n.Kids {
		if c, ok := k.(*node); ok && c.Name.Local == local {
			return c
		}
	}
	return nil
}

// set replaces n's child element called local with repl, appends repl when
// there is none, and removes the child when repl is nil.
func (n *node) set(local string, repl *node) {
	for i, k := range n.Kids {
		if c, ok := k.(*node); ok && c.Name.Local == local {
			if repl == nil {
				n.Kids = append(n.Kids[:i], n.Kids[i+1:]...)
			} else {
				n.Kids[i] = repl
			}
			return
		}
	}
	if repl != nil {
		n.Kids = append(n.Kids, repl)
	}
}

// ensure returns n's child element called local, adding an empty one.
func (n *node) ensure(local string) *node {
	if c := n.child(local); c != nil {
		return c
	}
	c := &node{Name: xml.Name{Local: local}}
	n.Kids = append(n.Kids, c)
	return c
}

func (n *node) elements() []*node {
	var out []*node
	for _, k := range n.Kids {
		if c, ok := k.(*node); ok {
			out = append(out, c)
		}
	}
	return out
}

func (n *node) hasElements() bool { return len(n.elements()) > 0 }

func (n *node) encode(enc *xml.Encoder) error {
	start := xml.StartElement{Name: n.Name, Attr: n.Attr}
	if err := enc.EncodeToken(start); err != nil {
		return err
	}
	for _, k := range n.Kids {
		var err error
		switch t := k.(type) {
		case *node:
			err = t.encode(enc)
		case xml.CharData:
			err = enc.EncodeToken(t)
		case xml.Comment:
			err = enc.EncodeToken(t)
		}
		if err != nil {
			return err
		}
	}
	return enc.EncodeToken(start.End())
}
