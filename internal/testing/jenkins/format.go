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
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// A bean is an object as Jenkins' Stapler exports it to api/json: its
// _class and its @Exported properties. Which properties a response holds is
// not the bean's choice but the pruner's (?depth= or ?tree=), so beans are
// built whole and cut when written.
type bean struct {
	// class is the Java class. Empty when Jenkins writes no _class: Stapler
	// (ClassAttributeBehaviour.IF_NEEDED) leaves it out where the declared
	// type already names the class, as for HealthReport.
	class string
	props []prop
}

type prop struct {
	name string
	// vis is @Exported(visibility): at ?depth=0 a property shows on the
	// top-level object when vis >= 1, one object down when vis >= 2, and so
	// on. 1 unless the class says otherwise.
	vis int
	// inline properties (@Exported(inline=true)) do not count as a level.
	inline bool
	// value is nil, a bool, int, int64, string, *bean, []any, or a
	// func() any computed only when written (runs link to runs, jobs to
	// queue items and back: built eagerly they would never end).
	value any
}

func newBean(class string) *bean { return &bean{class: class} }

// set adds a property of the default visibility.
func (b *bean) set(name string, value any) *bean { return b.with(name, 1, value) }

// with adds a property of the given visibility.
func (b *bean) with(name string, vis int, value any) *bean {
	b.props = append(b.props, prop{name: name, vis: vis, value: value})
	return b
}

// inline adds an @Exported(inline=true) property.
func (b *bean) inline(name string, value any) *bean {
	b.props = append(b.props, prop{name: name, vis: 1, inline: true, value: value})
	return b
}

// A pruner decides, as Stapler's TreePruner does, which properties are
// written and how their values are cut in turn.
type pruner interface {
	// accept returns the pruner for the property's value, or nil to leave
	// the property out.
	accept(p prop) pruner
	// bounds limits the elements written of a list value ({M,N} in a tree).
	bounds() (lo, hi int)
}

// byDepth is Stapler's TreePruner.ByDepth, used without ?tree=: Jenkins
// starts it at 1-depth.
type byDepth int

func (n byDepth) accept(p prop) pruner {
	switch {
	case p.vis < int(n):
		return nil
	case p.inline:
		return n
	default:
		return n + 1
	}
}

func (byDepth) bounds() (int, int) { return 0, math.MaxInt }

// tree is Stapler's NamedPathPruner, from ?tree=a,b[c,d]{0,10}: the named
// properties at each level, whatever their visibility. "*" names all.
type tree struct {
	children map[string]*tree
	lo, hi   int
}

func (t *tree) accept(p prop) pruner {
	c, ok := t.children[p.name]
	if !ok {
		c, ok = t.children["*"]
	}
	if !ok {
		return nil
	}
	return c
}

func (t *tree) bounds() (int, int) { return t.lo, t.hi }

// parseTree parses a ?tree= spec with NamedPathPruner's grammar: names are
// not trimmed, so "a, b" names " b".
func parseTree(spec string) (*tree, error) {
	p := &treeParser{s: spec}
	t := &tree{children: map[string]*tree{}, hi: math.MaxInt}
	if err := p.list(t); err != nil {
		return nil, err
	}
	if p.pos != len(p.s) {
		return nil, fmt.Errorf("expected EOF at %d", p.pos)
	}
	return t, nil
}

type treeParser struct {
	s   string
	pos int
}

func (p *treeParser) list(t *tree) error {
	for {
		if err := p.node(t); err != nil {
			return err
		}
		if !p.accept(',') {
			return nil
		}
	}
}

func (p *treeParser) node(t *tree) error {
	end := p.pos
	for end < len(p.s) && !strings.ContainsRune(",[]{}", rune(p.s[end])) {
		end++
	}
	if end == p.pos {
		return fmt.Errorf("expected name at %d", p.pos)
	}
	sub := &tree{children: map[string]*tree{}, hi: math.MaxInt}
	t.children[p.s[p.pos:end]] = sub
	p.pos = end
	if p.accept('[') {
		if err := p.list(sub); err != nil {
			return err
		}
		if !p.accept(']') {
			return fmt.Errorf("expected ] at %d", p.pos)
		}
	}
	if p.accept('{') {
		if err := p.rangeSpec(sub); err != nil {
			return err
		}
	}
	return nil
}

// rangeSpec reads {N}, {N,}, {,M} or {N,M} after the brace.
func (p *treeParser) rangeSpec(t *tree) error {
	num := func() (int, bool) {
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		n, err := strconv.Atoi(p.s[start:p.pos])
		return n, err == nil
	}
	if p.accept(',') {
		hi, ok := num()
		if !ok || !p.accept('}') {
			return fmt.Errorf("expected number} at %d", p.pos)
		}
		t.lo, t.hi = 0, hi
		return nil
	}
	lo, ok := num()
	if !ok {
		return fmt.Errorf("expected number at %d", p.pos)
	}
	switch {
	case p.accept('}'):
		t.lo, t.hi = lo, lo+1
		return nil
	case !p.accept(','):
		return fmt.Errorf("expected , at %d", p.pos)
	case p.accept('}'):
		t.lo, t.hi = lo, math.MaxInt
		return nil
	}
	hi, ok := num()
	if !ok || !p.accept('}') {
		return fmt.Errorf("expected number} at %d", p.pos)
	}
	t.lo, t.hi = lo, hi
	return nil
}

func (p *treeParser) accept(c byte) bool {
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// maxNesting stops a ?depth= large enough to follow the links between jobs
// and their queue items around forever.
const maxNesting = 64

// writeBean answers api/json as Jenkins' Api.doJson does: ?tree= when
// given, else ?depth= (default 0); a malformed one is a ServletException,
// so a 500.
func writeBean(w http.ResponseWriter, r *http.Request, b *bean) {
	var pr pruner
	q := r.URL.Query()
	if spec, ok := q["tree"]; ok {
		t, err := parseTree(spec[0])
		if err != nil {
			errorPage(w, http.StatusInternalServerError, "javax.servlet.ServletException: Malformed tree expression: java.lang.IllegalArgumentException: "+err.Error())
			return
		}
		pr = t
	} else {
		depth := 0
		if d := q.Get("depth"); d != "" {
			n, err := strconv.Atoi(d)
			if err != nil {
				errorPage(w, http.StatusInternalServerError, "javax.servlet.ServletException: Depth parameter must be a number")
				return
			}
			depth = n
		}
		pr = byDepth(1 - depth)
	}
	var buf bytes.Buffer
	writeValue(&buf, b, pr, 0)
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(buf.Bytes())
}

func writeValue(buf *bytes.Buffer, v any, pr pruner, nesting int) {
	if f, ok := v.(func() any); ok {
		v = f()
	}
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case *bean:
		if v == nil || nesting > maxNesting {
			buf.WriteString("null")
			return
		}
		buf.WriteByte('{')
		first := true
		sep := func() {
			if !first {
				buf.WriteByte(',')
			}
			first = false
		}
		if v.class != "" {
			sep()
			buf.WriteString(`"_class":`)
			writeScalar(buf, v.class)
		}
		for _, p := range v.props {
			child := pr.accept(p)
			if child == nil {
				continue
			}
			sep()
			writeScalar(buf, p.name)
			buf.WriteByte(':')
			writeValue(buf, p.value, child, nesting+1)
		}
		buf.WriteByte('}')
	case []any:
		lo, hi := pr.bounds()
		buf.WriteByte('[')
		n := 0
		for i, e := range v {
			if i < lo || i >= hi {
				continue
			}
			if n > 0 {
				buf.WriteByte(',')
			}
			n++
			writeValue(buf, e, pr, nesting+1)
		}
		buf.WriteByte(']')
	default:
		writeScalar(buf, v)
	}
}

func writeScalar(buf *bytes.Buffer, v any) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	buf.Truncate(buf.Len() - 1) // Encode's newline
}

// latin1 is what Jetty puts on the wire for a header value: each character
// above U+00FF (Jenkins' messages quote names with ‘ ’) becomes a space,
// the rest one ISO-8859-1 byte each.
func latin1(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r > 0xff || r == '\r' || r == '\n':
			b = append(b, ' ')
		default:
			b = append(b, byte(r))
		}
	}
	return string(b)
}

// xError answers a hudson.model.Failure as error.jelly does: 400 with the
// message in X-Error.
func xError(w http.ResponseWriter, msg string) {
	w.Header().Set("X-Error", latin1(msg))
	errorPage(w, http.StatusBadRequest, msg)
}

func errorPage(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html;charset=utf-8")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "<html><head><title>Error %d</title></head><body><h2>HTTP ERROR %d %s</h2></body></html>", status, status, xmlEscape(msg))
}

// page answers the HTML page Jenkins renders at an object's URL: clients
// land there after following the redirects of doDelete, enable, disable
// and createItem?mode=, and must not take it for api/json.
func page(w http.ResponseWriter, title string) {
	w.Header().Set("Content-Type", "text/html;charset=utf-8")
	_, _ = fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>%s [Jenkins]</title></head><body><h1>%s</h1></body></html>", xmlEscape(title), xmlEscape(title))
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// rewrite stores config.xml the way Jenkins saves it, so clients must
// compare meaning, not bytes.
func rewrite(config string) string {
	r := strings.NewReplacer(
		"<?xml version='1.0' encoding='UTF-8'?>", "<?xml version='1.1' encoding='UTF-8'?>",
		`plugin="workflow-job"`, `plugin="workflow-job@1436.vfa_244484591f"`,
		`plugin="workflow-cps"`, `plugin="workflow-cps@3969.vdc9d3a_efcc6a_"`,
		`plugin="git"`, `plugin="git@5.2.2"`,
		"<actions></actions>", "<actions/>",
	)
	return r.Replace(config)
}

// decoder reads a config.xml. Go's parser only knows XML 1.0, and Jenkins
// writes 1.1; the replacement keeps every offset.
func decoder(config string) *xml.Decoder {
	r := strings.NewReplacer("version='1.1'", "version='1.0'", `version="1.1"`, `version="1.0"`)
	return xml.NewDecoder(strings.NewReader(r.Replace(config)))
}

// parseConfig checks a config.xml is well-formed and returns its root
// element's name, which names the item's class (XStream's alias).
func parseConfig(config string) (string, error) {
	d := decoder(config)
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if root == "" {
				return "", fmt.Errorf("no root element")
			}
			return root, nil
		}
		if err != nil {
			return "", err
		}
		if s, ok := tok.(xml.StartElement); ok && root == "" {
			root = s.Name.Local
			if s.Name.Space != "" {
				root = s.Name.Space + ":" + root
			}
		}
	}
}

// element locates a direct child of the root element named name: the byte
// offsets of the whole element and of its text, and the root's closing tag.
type element struct {
	found              bool
	start, end         int // the element, <name>...</name>
	textStart, textEnd int
	rootEnd            int // offset of </root>
}

func findElement(config, name string) element {
	d := decoder(config)
	var e element
	depth := 0
	for {
		off := int(d.InputOffset())
		tok, err := d.Token()
		if err != nil {
			return e
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 && t.Name.Local == name && !e.found {
				e.found, e.start, e.textStart = true, off, int(d.InputOffset())
			}
		case xml.EndElement:
			if depth == 2 && t.Name.Local == name && e.found && e.end == 0 {
				e.textEnd, e.end = off, int(d.InputOffset())
			}
			if depth == 1 {
				e.rootEnd = off
			}
			depth--
		}
	}
}

// topText returns the text of a direct child of the root element, and
// whether there is one.
func topText(config, name string) (string, bool) {
	e := findElement(config, name)
	if !e.found || e.end == 0 {
		return "", false
	}
	var s string
	if err := xml.Unmarshal([]byte("<x>"+config[e.textStart:e.textEnd]+"</x>"), &s); err != nil {
		return config[e.textStart:e.textEnd], true
	}
	return s, true
}

// setTop sets the text of a direct child of the root element, adding the
// element before the root's end when missing, as XStream writes every
// field when Jenkins saves an item.
func setTop(config, name, text string) string {
	e := findElement(config, name)
	el := "<" + name + ">" + xmlEscape(text) + "</" + name + ">"
	switch {
	case e.found && e.end > 0:
		return config[:e.start] + el + config[e.end:]
	case e.rootEnd > 0:
		return config[:e.rootEnd] + "  " + el + "\n" + config[e.rootEnd:]
	default:
		return config
	}
}

// property is one element of the job's <properties>: its class and, for
// hudson.model.ParametersDefinitionProperty, the parameter definitions.
type property struct {
	class  string
	params []paramDef
}

// paramDef is one parameter definition of a job.
type paramDef struct {
	class       string // hudson.model.StringParameterDefinition...
	name        string
	description *string
	def         string   // the default, as written
	choices     []string // ChoiceParameterDefinition
}

// simpleName is Java's Class.getSimpleName of a class name.
func simpleName(class string) string {
	return class[strings.LastIndexAny(class, ".$")+1:]
}

// valueClass is the class of the values a parameter definition creates.
func (d paramDef) valueClass() string {
	if simpleName(d.class) == "ChoiceParameterDefinition" {
		return "hudson.model.StringParameterValue"
	}
	return strings.TrimSuffix(d.class, "Definition") + "Value"
}

// value converts a submitted or default string the way the definition's
// createValue does: booleans are booleans.
func (d paramDef) value(s string) any {
	if simpleName(d.class) == "BooleanParameterDefinition" {
		return s == "true" || s == "on"
	}
	return s
}

// defaultValue is getDefaultParameterValue: a choice defaults to the first
// choice.
func (d paramDef) defaultValue() any {
	if simpleName(d.class) == "ChoiceParameterDefinition" {
		if len(d.choices) == 0 {
			return nil
		}
		return d.choices[0]
	}
	return d.value(d.def)
}

// properties reads the job's <properties>.
func properties(config string) []property {
	type def struct {
		XMLName     xml.Name
		Name        string  `xml:"name"`
		Description *string `xml:"description"`
		Default     string  `xml:"defaultValue"`
		Choices     struct {
			A       []string `xml:"a>string"`
			Strings []string `xml:"string"`
		} `xml:"choices"`
	}
	var doc struct {
		Properties struct {
			Items []struct {
				XMLName xml.Name
				Defs    struct {
					Items []def `xml:",any"`
				} `xml:"parameterDefinitions"`
			} `xml:",any"`
		} `xml:"properties"`
	}
	if decoder(config).Decode(&doc) != nil {
		return nil
	}
	var out []property
	for _, p := range doc.Properties.Items {
		prop := property{class: p.XMLName.Local}
		if prop.class == "hudson.model.ParametersDefinitionProperty" {
			prop.params = []paramDef{}
			for _, d := range p.Defs.Items {
				prop.params = append(prop.params, paramDef{
					class: d.XMLName.Local, name: d.Name, description: d.Description, def: d.Default,
					choices: append(d.Choices.A, d.Choices.Strings...),
				})
			}
		}
		out = append(out, prop)
	}
	return out
}

// parameterDefinitions lists a job's parameters; nil when the job has no
// ParametersDefinitionProperty (it is not parameterized).
func parameterDefinitions(config string) []paramDef {
	for _, p := range properties(config) {
		if p.params != nil {
			return p.params
		}
	}
	return nil
}

// timeSpan is hudson.Util.getTimeSpanString for spans under a minute (a
// quiet period).
func timeSpan(ms int64) string {
	switch secs := ms / 1000; {
	case secs >= 10:
		return fmt.Sprintf("%d sec", secs)
	case secs >= 1:
		return strconv.FormatFloat(float64(secs)+float64(ms%1000/100)/10, 'f', -1, 64) + " sec"
	case ms >= 100:
		return strconv.FormatFloat(float64(ms/10)/100, 'f', -1, 64) + " sec"
	default:
		return fmt.Sprintf("%d ms", ms)
	}
}

// validName is Jenkins.checkGoodName: "" when name is acceptable, else the
// Failure's message.
func validName(name string) string {
	switch t := javaTrim(name); {
	case name == "":
		return "No name is specified"
	case t == "." || t == "..":
		return "“" + t + "” is not an allowed name"
	}
	for _, c := range name {
		if isISOControl(c) {
			var b strings.Builder
			for _, r := range name {
				if isISOControl(r) {
					fmt.Fprintf(&b, "\\u%d;", r)
				} else {
					b.WriteRune(r)
				}
			}
			return "No control code is allowed: " + b.String()
		}
		if strings.ContainsRune(`?*/\%!@#$^&|<>[]:;`, c) {
			return "‘" + string(c) + "’ is an unsafe character"
		}
	}
	if strings.HasSuffix(javaTrim(name), ".") {
		return "A name cannot end with ‘.’"
	}
	return ""
}

// isISOControl is Java's Character.isISOControl.
func isISOControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }

// javaTrim is Java's String.trim: it drops characters up to U+0020.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}
