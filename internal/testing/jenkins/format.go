package jenkins

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strings"
)

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

func wellFormed(b []byte) error {
	d := xml.NewDecoder(strings.NewReader(strings.Replace(string(b), "version='1.1'", "version='1.0'", 1)))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// writeJSON answers api/json, keeping only the top-level fields named in
// ?tree= as Jenkins does, so a client cannot rely on fields it did not ask for.
func writeJSON(w http.ResponseWriter, r *http.Request, v map[string]any) {
	if tree := r.URL.Query().Get("tree"); tree != "" {
		keep := map[string]bool{}
		for _, f := range topLevelFields(tree) {
			keep[f] = true
		}
		for k := range v {
			if !keep[k] && k != "_class" {
				delete(v, k)
			}
		}
	}
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

func topLevelFields(tree string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range tree + "," {
		switch c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				f := tree[start:i]
				if j := strings.IndexAny(f, "[{"); j >= 0 {
					f = f[:j]
				}
				out = append(out, strings.TrimSpace(f))
				start = i + 1
			}
		}
	}
	return out
}

// xError answers 400 with the message in X-Error, as createItem does.
func xError(w http.ResponseWriter, msg string) {
	w.Header().Set("X-Error", msg)
	errorPage(w, http.StatusBadRequest, msg)
}

func errorPage(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html;charset=utf-8")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "<html><head><title>Error %d</title></head><body><h2>HTTP ERROR %d %s</h2></body></html>", status, status, xmlEscape(msg))
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// parameterDefinitions lists a job's parameters as api/json shows them.
func parameterDefinitions(config string) []map[string]any {
	var doc struct {
		Properties struct {
			Params *struct {
				Defs struct {
					Items []struct {
						XMLName xml.Name
						Name    string `xml:"name"`
						Default string `xml:"defaultValue"`
					} `xml:",any"`
				} `xml:"parameterDefinitions"`
			} `xml:"hudson.model.ParametersDefinitionProperty"`
		} `xml:"properties"`
	}
	d := xml.NewDecoder(strings.NewReader(strings.Replace(config, "version='1.1'", "version='1.0'", 1)))
	if d.Decode(&doc) != nil || doc.Properties.Params == nil {
		return nil
	}
	var out []map[string]any
	for _, p := range doc.Properties.Params.Defs.Items {
		t := strings.TrimPrefix(p.XMLName.Local, "hudson.model.")
		out = append(out, map[string]any{"_class": p.XMLName.Local, "name": p.Name, "type": t, "defaultParameterValue": map[string]any{"name": p.Name, "value": p.Default}})
	}
	return out
}
