// Resources, resource templates, interactive views, prompts and completions
// (WIT 0.2.1, world `plugin-full`): declaring them and serving them. A
// plugin that declares none serves empty lists.

package mcp

import (
	"fmt"
	"strings"
)

// ViewMIMEType is the MIME type of an interactive view (MCP Apps).
const ViewMIMEType = "text/html;profile=mcp-app"

// MaxCompletions is the most values a completion sends; the rest set
// has-more.
const MaxCompletions = 100

// ResourceDef describes a resource the plugin lists. (Resource is the
// content block that embeds one.)
type ResourceDef struct {
	// An absolute URI (at most 2048 bytes), unique within the plugin; put
	// the plugin's name in it ("regex://syntax").
	URI string
	// A programmatic name.
	Name string
	// A human-readable name for display.
	Title string
	// What it is, for the model and the user.
	Description string
	// Its MIME type, e.g. "text/markdown"; "" for unset.
	MIMEType string
	// Its size in bytes; 0 for unset.
	Size uint64
	// Hints for the client; nil for none.
	Annotations *Annotations
	// Icons clients may show (at most 8).
	Icons []Icon
}

// Contents is one part of a resource's contents: Text, or Blob when it is
// not nil. URI and MIMEType default to the resource's.
type Contents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

// ResourceTemplate describes a family of resources whose URIs follow
// URITemplate: "{name}" matches one path segment, "{+name}" any text.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	// The MIME type of every resource it names; "" for unset.
	MIMEType    string
	Annotations *Annotations
	Icons       []Icon
}

// ViewCSP lists the origins an interactive view may reach (MCP Apps
// _meta.ui.csp).
type ViewCSP struct {
	ConnectDomains  []string
	ResourceDomains []string
	FrameDomains    []string
	BaseURIDomains  []string
}

// ViewPermissions lists the browser permissions an interactive view asks
// for.
type ViewPermissions struct {
	Camera         bool
	Microphone     bool
	Geolocation    bool
	ClipboardWrite bool
}

// View describes an interactive view (MCP Apps): a ui:// resource of MIME
// type ViewMIMEType whose text is an HTML document. A tool shows its
// results in it through Tool.View.
type View struct {
	// A ui:// URI, unique within the plugin.
	URI         string
	Name        string
	Title       string
	Description string
	// The HTML document.
	HTML string
	// Origins it may reach; nil for none.
	CSP *ViewCSP
	// Permissions it asks for; nil for none.
	Permissions *ViewPermissions
	// A dedicated origin for it; "" for none.
	Domain string
	// Whether the client should draw a border around it.
	PrefersBorder Hint
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string
	Title       string
	Description string
	// The host refuses a request without it before the plugin runs.
	Required bool
}

// Prompt describes a prompt template.
type Prompt struct {
	// 1 to 128 of A-Z a-z 0-9 _ . - , unique within the plugin.
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Icons       []Icon
}

// PromptMessage is one message of a prompt: who speaks and one content
// block (Text, Image, Audio, Resource or ResourceLink).
type PromptMessage struct {
	Role    Role
	Content Content
}

// PromptResult is a prompt with its arguments filled in.
type PromptResult struct {
	// A description of this result; "" for none.
	Description string
	Messages    []PromptMessage
}

// UserText is a message of text from the user.
func UserText(text string) PromptMessage {
	return PromptMessage{Role: User, Content: Text{Text: text}}
}

type servedResource struct {
	def  ResourceDef
	view *View
	read func(uri string) ([]Contents, error)
}

type servedTemplate struct {
	def  ResourceTemplate
	read func(uri string, vars map[string]string) ([]Contents, error)
}

type servedPrompt struct {
	def Prompt
	get func(args map[string]string) (PromptResult, error)
}

type completionKey struct {
	template bool
	target   string
	argument string
}

type toolView struct {
	tool, uri    string
	modelVisible bool
}

// What the plugin serves beside its tools, in the order it was added.
var (
	resources   []*servedResource
	templates   []*servedTemplate
	prompts     []*servedPrompt
	completions = map[completionKey]func(value string, context map[string]string) ([]string, error){}
	toolViews   []toolView
)

// NotFound fails a resource read or a prompt as `not-found`: the URI or
// name names nothing. (A tool that returns it fails as `failed`.)
func NotFound(format string, args ...any) error {
	return &ToolError{kindNotFound, fmt.Errorf(format, args...)}
}

func addResource(r ResourceDef, view *View, read func(uri string) ([]Contents, error)) {
	fail := func(why string) { panic(fmt.Sprintf("mcp.AddResource(%q): %s", r.URI, why)) }
	if i := strings.Index(r.URI, ":"); i <= 0 || len(r.URI) > 2048 {
		fail("the URI must be absolute, at most 2048 bytes")
	}
	if r.Name == "" {
		fail("the name is empty")
	}
	for _, s := range resources {
		if s.def.URI == r.URI {
			fail("a resource of that URI was already added")
		}
	}
	resources = append(resources, &servedResource{def: r, view: view, read: read})
}

// AddResource declares the resource r, whose contents read returns (at
// least one part). Call it from an init function; it panics when the
// resource cannot be served (no name, a URI that is not absolute or was
// already added).
func AddResource(r ResourceDef, read func(uri string) ([]Contents, error)) {
	addResource(r, nil, read)
}

// AddTextResource declares the resource r whose contents are text.
func AddTextResource(r ResourceDef, text string) {
	addResource(r, nil, func(string) ([]Contents, error) { return []Contents{{Text: text}}, nil })
}

// AddView declares the interactive view v; a tool names it in Tool.View.
func AddView(v View) {
	if !strings.HasPrefix(v.URI, "ui://") {
		panic(fmt.Sprintf("mcp.AddView(%q): an interactive view's URI starts with ui://", v.URI))
	}
	html := v.HTML
	addResource(ResourceDef{URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description, MIMEType: ViewMIMEType},
		&v, func(string) ([]Contents, error) { return []Contents{{Text: html}}, nil })
}

// AddResourceTemplate declares the template t; a read of a URI it matches
// calls read with the URI and its variables.
func AddResourceTemplate(t ResourceTemplate, read func(uri string, vars map[string]string) ([]Contents, error)) {
	for _, s := range templates {
		if s.def.URITemplate == t.URITemplate {
			panic(fmt.Sprintf("mcp.AddResourceTemplate(%q): already added", t.URITemplate))
		}
	}
	templates = append(templates, &servedTemplate{def: t, read: read})
}

// AddPrompt declares the prompt p; get fills it in from its arguments
// (every required one is present). It panics on a bad or repeated name.
func AddPrompt(p Prompt, get func(args map[string]string) (PromptResult, error)) {
	if !validName(p.Name) {
		panic(fmt.Sprintf("mcp.AddPrompt(%q): a prompt name is 1 to 128 of A-Z a-z 0-9 _ . -", p.Name))
	}
	for _, s := range prompts {
		if s.def.Name == p.Name {
			panic(fmt.Sprintf("mcp.AddPrompt(%q): a prompt of that name was already added", p.Name))
		}
	}
	prompts = append(prompts, &servedPrompt{def: p, get: get})
}

// AddPromptCompletion declares the suggestions for the argument of the
// prompt: complete gets what the user has typed so far and the other
// arguments, and returns values, best first (at most MaxCompletions are
// sent).
func AddPromptCompletion(prompt, argument string, complete func(value string, context map[string]string) ([]string, error)) {
	completions[completionKey{false, prompt, argument}] = complete
}

// AddTemplateCompletion declares the suggestions for the variable of the
// resource template uriTemplate.
func AddTemplateCompletion(uriTemplate, variable string, complete func(value string, context map[string]string) ([]string, error)) {
	completions[completionKey{true, uriTemplate, variable}] = complete
}

// recovered turns a handler's panic into a `failed` error.
func recovered(err *error) {
	if p := recover(); p != nil {
		*err = Failed("panic: %v (%s)", p, panicSite())
	}
}

// readResource reads uri: a listed resource, else the first template that
// matches it.
func readResource(uri string) (parts []Contents, err error) {
	defer recovered(&err)
	mime := ""
	var read func() ([]Contents, error)
	for _, r := range resources {
		if r.def.URI == uri {
			mime = r.def.MIMEType
			read = func() ([]Contents, error) { return r.read(uri) }
			break
		}
	}
	for _, t := range templates {
		if read != nil {
			break
		}
		if vars, ok := MatchTemplate(t.def.URITemplate, uri); ok {
			mime = t.def.MIMEType
			read = func() ([]Contents, error) { return t.read(uri, vars) }
		}
	}
	if read == nil {
		return nil, NotFound("no resource has the URI %q", uri)
	}
	if parts, err = read(); err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, Failed("resource %q: the handler returned no contents", uri)
	}
	for i := range parts {
		if parts[i].URI == "" {
			parts[i].URI = uri
		}
		if parts[i].MIMEType == "" {
			parts[i].MIMEType = mime
		}
	}
	return parts, nil
}

// getPrompt fills in the prompt name.
func getPrompt(name string, args map[string]string) (result PromptResult, err error) {
	defer recovered(&err)
	for _, p := range prompts {
		if p.def.Name != name {
			continue
		}
		for _, a := range p.def.Arguments {
			if _, ok := args[a.Name]; a.Required && !ok {
				return PromptResult{}, InvalidArguments("the argument %q is required", a.Name)
			}
		}
		if result, err = p.get(args); err != nil {
			return PromptResult{}, err
		}
		for _, m := range result.Messages {
			if m.Content == nil {
				return PromptResult{}, Failed("prompt %q: a message has no content", name)
			}
		}
		return result, nil
	}
	return PromptResult{}, NotFound("no prompt is called %q", name)
}

// complete suggests values; nothing registered gives none.
func complete(template bool, target, argument, value string, context map[string]string) (values []string, total int, err error) {
	defer recovered(&err)
	handler := completions[completionKey{template, target, argument}]
	if handler == nil {
		return nil, 0, nil
	}
	if values, err = handler(value, context); err != nil {
		return nil, 0, err
	}
	return values[:min(len(values), MaxCompletions)], len(values), nil
}

// MatchTemplate gives the variables of uri if it matches template:
// "{name}" matches one or more characters other than '/', "{+name}" one or
// more of any; the rest must match exactly.
func MatchTemplate(template, uri string) (map[string]string, bool) {
	vars := map[string]string{}
	return vars, match(template, uri, vars)
}

func match(template, uri string, vars map[string]string) bool {
	open := strings.IndexByte(template, '{')
	end := strings.IndexByte(template[max(open, 0):], '}')
	if open < 0 || end < 0 {
		return template == uri
	}
	end += open
	literal, rest, spec := template[:open], template[end+1:], template[open+1:end]
	tail, ok := strings.CutPrefix(uri, literal)
	if !ok {
		return false
	}
	name, anyText := strings.CutPrefix(spec, "+")
	// Shortest match first, so a later literal decides where a value ends.
	for n := 1; n <= len(tail); n++ {
		value := tail[:n]
		if !anyText && strings.Contains(value, "/") {
			break
		}
		if match(rest, tail[n:], vars) {
			vars[name] = value
			return true
		}
	}
	return false
}
