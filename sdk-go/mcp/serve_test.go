package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// freshServed empties what the plugin serves for one test and restores it
// afterwards.
func freshServed(t *testing.T) {
	t.Helper()
	fresh(t)
	r, tm, p, c, v := resources, templates, prompts, completions, toolViews
	resources, templates, prompts, completions, toolViews = nil, nil, nil, map[completionKey]func(string, map[string]string) ([]string, error){}, nil
	t.Cleanup(func() { resources, templates, prompts, completions, toolViews = r, tm, p, c, v })
}

func kindOf(err error) ErrorKind {
	kind, _ := classify(err)
	return kind
}

func TestNothingDeclaredServesNothing(t *testing.T) {
	freshServed(t)
	if _, err := readResource("x://a"); kindOf(err) != kindNotFound {
		t.Errorf("read of an unknown URI: %v", err)
	}
	if _, err := getPrompt("p", nil); kindOf(err) != kindNotFound {
		t.Errorf("an unknown prompt: %v", err)
	}
	if values, total, err := complete(false, "p", "a", "", nil); values != nil || total != 0 || err != nil {
		t.Errorf("complete with nothing registered: %v %d %v", values, total, err)
	}
}

func TestResourcesTemplatesAndViewsAreRead(t *testing.T) {
	freshServed(t)
	AddTextResource(ResourceDef{URI: "notes://readme", Name: "readme", MIMEType: "text/plain"}, "hello")
	AddResource(ResourceDef{URI: "notes://logo", Name: "logo", MIMEType: "image/png"}, func(string) ([]Contents, error) {
		return []Contents{{Blob: []byte{0x89, 'P'}}}, nil
	})
	AddResourceTemplate(ResourceTemplate{URITemplate: "notes://note/{id}/{+rest}", Name: "note"},
		func(uri string, vars map[string]string) ([]Contents, error) {
			if vars["id"] == "0" {
				return nil, NotFound("no note 0")
			}
			return []Contents{{Text: vars["id"] + "|" + vars["rest"] + "|" + uri}}, nil
		})
	AddView(View{URI: "ui://notes/board", Name: "board", HTML: "<p>board</p>"})
	AddTool(Tool{Name: "show", Description: "Shows.", View: "ui://notes/board", ViewOnly: true},
		func(struct{}) (string, error) { return "ok", nil })

	parts, err := readResource("notes://readme")
	if err != nil || len(parts) != 1 || fmt.Sprint(parts[0]) != fmt.Sprint(Contents{URI: "notes://readme", MIMEType: "text/plain", Text: "hello"}) {
		t.Errorf("readme: %+v %v", parts, err)
	}
	if parts, err = readResource("notes://logo"); err != nil || string(parts[0].Blob) != "\x89P" || parts[0].MIMEType != "image/png" {
		t.Errorf("logo: %+v %v", parts, err)
	}
	if parts, err = readResource("notes://note/7/a/b"); err != nil || parts[0].Text != "7|a/b|notes://note/7/a/b" {
		t.Errorf("template: %+v %v", parts, err)
	}
	if _, err = readResource("notes://note/0/x"); kindOf(err) != kindNotFound || err.Error() != "no note 0" {
		t.Errorf("a handler's NotFound: %v", err)
	}
	if parts, err = readResource("ui://notes/board"); err != nil || parts[0].MIMEType != ViewMIMEType || parts[0].Text != "<p>board</p>" {
		t.Errorf("view: %+v %v", parts, err)
	}
	if len(toolViews) != 1 || toolViews[0] != (toolView{"show", "ui://notes/board", false}) {
		t.Errorf("tool views: %+v", toolViews)
	}
}

func TestTemplatesMatchOneSegmentOrAnyText(t *testing.T) {
	for _, c := range []struct{ template, uri, want string }{
		{"test://template/{id}/data", "test://template/123/data", "map[id:123]"},
		{"test://template/{id}/data", "test://template/1/2/data", "no"},
		{"test://template/{id}/data", "test://template//data", "no"},
		{"file:///{+path}", "file:///a/b/c.txt", "map[path:a/b/c.txt]"},
		{"x://{a}-{b}", "x://1-2-3", "map[a:1 b:2-3]"},
		{"x://fixed", "x://fixed", "map[]"},
		{"x://fixed", "x://other", "no"},
	} {
		vars, ok := MatchTemplate(c.template, c.uri)
		got := "no"
		if ok {
			got = fmt.Sprint(vars)
		}
		if got != c.want {
			t.Errorf("MatchTemplate(%q, %q) = %s, want %s", c.template, c.uri, got, c.want)
		}
	}
}

// The cases the host and every SDK share (tests/uri-templates.json in the
// repository).
func TestTemplatesMatchAsTheSharedCasesSay(t *testing.T) {
	data, err := os.ReadFile("../../tests/uri-templates.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Cases []struct {
			Template string             `json:"template"`
			URI      string             `json:"uri"`
			Vars     *map[string]string `json:"vars"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus.Cases) < 20 {
		t.Fatalf("%d cases", len(corpus.Cases))
	}
	for _, c := range corpus.Cases {
		vars, ok := MatchTemplate(c.Template, c.URI)
		if ok != (c.Vars != nil) || (ok && !reflect.DeepEqual(vars, *c.Vars)) {
			t.Errorf("MatchTemplate(%q, %q) = %v, %v; want %v", c.Template, c.URI, vars, ok, c.Vars)
		}
	}
}

func TestAPromptChecksItsRequiredArgumentsAndRecoversAPanic(t *testing.T) {
	freshServed(t)
	AddPrompt(Prompt{Name: "review", Arguments: []PromptArgument{{Name: "code", Required: true}, {Name: "focus"}}},
		func(args map[string]string) (PromptResult, error) {
			if args["focus"] == "panic" {
				panic("boom")
			}
			return PromptResult{Messages: []PromptMessage{UserText("Review " + args["code"])}}, nil
		})
	got, err := getPrompt("review", map[string]string{"code": "x := 1"})
	if err != nil || got.Messages[0].Content != (Text{Text: "Review x := 1"}) {
		t.Errorf("review: %+v %v", got, err)
	}
	if _, err = getPrompt("review", map[string]string{}); kindOf(err) != KindInvalidArguments || !strings.Contains(err.Error(), `"code"`) {
		t.Errorf("a missing argument: %v", err)
	}
	if _, err = getPrompt("review", map[string]string{"code": "", "focus": "panic"}); kindOf(err) != KindFailed || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a panic: %v", err)
	}
	if msg := panicOf(func() { AddPrompt(Prompt{Name: "review"}, nil) }); !strings.Contains(msg, "already added") {
		t.Errorf("a repeated prompt: %q", msg)
	}
	if msg := panicOf(func() { AddPrompt(Prompt{Name: "bad name"}, nil) }); !strings.Contains(msg, "1 to 128") {
		t.Errorf("a bad prompt name: %q", msg)
	}
}

func TestCompletionsAreTruncatedToTheMostSent(t *testing.T) {
	freshServed(t)
	AddPromptCompletion("review", "focus", func(value string, context map[string]string) ([]string, error) {
		out := make([]string, 150)
		for i := range out {
			out[i] = fmt.Sprintf("%s%d%s", value, i, context["code"])
		}
		return out, nil
	})
	AddTemplateCompletion("notes://note/{id}", "id", func(string, map[string]string) ([]string, error) {
		return nil, errors.New("no index")
	})
	values, total, err := complete(false, "review", "focus", "f", map[string]string{"code": "!"})
	if err != nil || len(values) != MaxCompletions || values[0] != "f0!" || total != 150 {
		t.Errorf("complete: %d values from %q, total %d, %v", len(values), values[0], total, err)
	}
	if _, _, err = complete(true, "notes://note/{id}", "id", "", nil); err == nil || kindOf(err) != KindFailed {
		t.Errorf("a failing completion: %v", err)
	}
	if values, _, _ = complete(true, "review", "focus", "", nil); values != nil {
		t.Errorf("a prompt's completion answered for a template: %v", values)
	}
}

func TestResourceDeclarationMistakesPanic(t *testing.T) {
	freshServed(t)
	AddTextResource(ResourceDef{URI: "x://a", Name: "a"}, "1")
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { AddTextResource(ResourceDef{URI: "x://a", Name: "a"}, "2") }, "already added"},
		{func() { AddTextResource(ResourceDef{URI: "relative", Name: "r"}, "") }, "absolute"},
		{func() { AddTextResource(ResourceDef{URI: "x://b"}, "") }, "name is empty"},
		{func() { AddView(View{URI: "https://x/v", Name: "v"}) }, "ui://"},
	} {
		if msg := panicOf(c.f); !strings.Contains(msg, c.want) {
			t.Errorf("panic %q, want %q", msg, c.want)
		}
	}
}
