//go:build wasip1

// The only file that touches the generated bindings of the `plugin-full`
// world: the `tools`, `resources`, `prompts` and `completions` exports over
// the registries, and the host and client imports.

package mcp

import (
	"errors"
	"io/fs"
	"syscall"

	completionExports "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/internal/export_mcp_wasm_host_plugin_completions"
	promptExports "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/internal/export_mcp_wasm_host_plugin_prompts"
	resourceExports "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/internal/export_mcp_wasm_host_plugin_resources"
	exports "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/internal/export_mcp_wasm_host_plugin_tools"
	client "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_client"
	witCompletions "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_completions"
	witErrors "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_errors"
	host "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_host"
	witPrompts "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_prompts"
	witResources "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_resources"
	wit "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/mcp_wasm_host_plugin_types"
	// The //go:wasmexport functions of the world; they call exports.
	_ "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit/wit_exports"
	witTypes "go.bytecodealliance.org/pkg/wit/types"
)

func init() {
	exports.List = listToolsExport
	exports.Call = callToolExport
	resourceExports.List = listResourcesExport
	resourceExports.Templates = listTemplatesExport
	resourceExports.Views = listViewsExport
	resourceExports.Read = readResourceExport
	promptExports.List = listPromptsExport
	promptExports.Get = getPromptExport
	completionExports.Do = completeExport
}

func listResourcesExport() []witResources.ResourceDefinition {
	out := make([]witResources.ResourceDefinition, 0, len(resources))
	for _, r := range resources {
		d := witResources.ResourceDefinition{
			Uri:         utf8Text(r.def.URI),
			Name:        utf8Text(r.def.Name),
			Title:       optString(r.def.Title),
			Description: optString(r.def.Description),
			MimeType:    optString(r.def.MIMEType),
			Annotations: annotations(r.def.Annotations),
			Icons:       icons(r.def.Icons),
		}
		if r.def.Size > 0 {
			d.Size = witTypes.Some(r.def.Size)
		}
		if r.view != nil {
			d.View = witTypes.Some(viewSettings(r.view))
		}
		out = append(out, d)
	}
	return out
}

func viewSettings(v *View) witResources.ViewSettings {
	s := witResources.ViewSettings{Domain: optString(v.Domain), PrefersBorder: optHint(v.PrefersBorder)}
	if c := v.CSP; c != nil {
		s.Csp = witTypes.Some(witResources.ViewCsp{
			ConnectDomains: c.ConnectDomains, ResourceDomains: c.ResourceDomains,
			FrameDomains: c.FrameDomains, BaseUriDomains: c.BaseURIDomains,
		})
	}
	if p := v.Permissions; p != nil {
		s.Permissions = witTypes.Some(witResources.ViewPermissions{
			Camera: p.Camera, Microphone: p.Microphone, Geolocation: p.Geolocation, ClipboardWrite: p.ClipboardWrite,
		})
	}
	return s
}

func listTemplatesExport() []witResources.ResourceTemplate {
	out := make([]witResources.ResourceTemplate, 0, len(templates))
	for _, t := range templates {
		out = append(out, witResources.ResourceTemplate{
			UriTemplate: utf8Text(t.def.URITemplate),
			Name:        utf8Text(t.def.Name),
			Title:       optString(t.def.Title),
			Description: optString(t.def.Description),
			MimeType:    optString(t.def.MIMEType),
			Annotations: annotations(t.def.Annotations),
			Icons:       icons(t.def.Icons),
		})
	}
	return out
}

func listViewsExport() []witResources.ToolView {
	out := make([]witResources.ToolView, 0, len(toolViews))
	for _, v := range toolViews {
		out = append(out, witResources.ToolView{Tool: v.tool, ResourceUri: utf8Text(v.uri), ModelVisible: v.modelVisible})
	}
	return out
}

func readResourceExport(uri string) witTypes.Result[[]witResources.ResourceContents, witResources.ServeError] {
	parts, err := readResource(uri)
	if err != nil {
		return witTypes.Err[[]witResources.ResourceContents](serveError(err))
	}
	out := make([]witResources.ResourceContents, 0, len(parts))
	for _, p := range parts {
		body := wit.MakeResourceBodyText(utf8Text(p.Text))
		if p.Blob != nil {
			body = wit.MakeResourceBodyBlob(p.Blob)
		}
		out = append(out, witResources.ResourceContents{Uri: utf8Text(p.URI), MimeType: optString(p.MIMEType), Body: body})
	}
	return witTypes.Ok[[]witResources.ResourceContents, witResources.ServeError](out)
}

func listPromptsExport() []witPrompts.PromptDefinition {
	out := make([]witPrompts.PromptDefinition, 0, len(prompts))
	for _, p := range prompts {
		d := witPrompts.PromptDefinition{
			Name:        p.def.Name,
			Title:       optString(p.def.Title),
			Description: optString(p.def.Description),
			Icons:       icons(p.def.Icons),
		}
		for _, a := range p.def.Arguments {
			d.Arguments = append(d.Arguments, witPrompts.PromptArgument{
				Name: utf8Text(a.Name), Title: optString(a.Title), Description: optString(a.Description), Required: a.Required,
			})
		}
		out = append(out, d)
	}
	return out
}

func getPromptExport(name string, arguments []witTypes.Tuple2[string, string]) witTypes.Result[witPrompts.PromptResult, witPrompts.ServeError] {
	args := make(map[string]string, len(arguments))
	for _, a := range arguments {
		args[a.F0] = a.F1
	}
	result, err := getPrompt(name, args)
	if err != nil {
		return witTypes.Err[witPrompts.PromptResult](serveError(err))
	}
	out := witPrompts.PromptResult{Description: optString(result.Description)}
	for _, m := range result.Messages {
		out.Messages = append(out.Messages, witPrompts.PromptMessage{Role: role(m.Role), Content: contentBlock(m.Content)})
	}
	return witTypes.Ok[witPrompts.PromptResult, witPrompts.ServeError](out)
}

func completeExport(request witCompletions.CompletionRequest) witTypes.Result[witCompletions.Completion, witCompletions.ServeError] {
	context := make(map[string]string, len(request.Context))
	for _, c := range request.Context {
		context[c.F0] = c.F1
	}
	template := request.Target.Tag() == witCompletions.CompletionTargetResourceTemplate
	target := ""
	if template {
		target = request.Target.ResourceTemplate()
	} else {
		target = request.Target.Prompt()
	}
	values, total, err := complete(template, target, request.Argument, request.Value, context)
	if err != nil {
		return witTypes.Err[witCompletions.Completion](serveError(err))
	}
	out := witCompletions.Completion{Values: make([]string, 0, len(values)), HasMore: total > len(values)}
	for _, v := range values {
		out.Values = append(out.Values, utf8Text(v))
	}
	if total > 0 {
		out.Total = witTypes.Some(uint32(total))
	}
	return witTypes.Ok[witCompletions.Completion, witCompletions.ServeError](out)
}

func serveError(err error) witErrors.ServeError {
	kind, message := classify(err)
	message = utf8Text(message)
	switch kind {
	case kindNotFound:
		return witErrors.MakeServeErrorNotFound(message)
	case KindInvalidArguments:
		return witErrors.MakeServeErrorInvalidArguments(message)
	case KindDenied:
		return witErrors.MakeServeErrorDenied(message)
	}
	return witErrors.MakeServeErrorFailed(message)
}

func listToolsExport() []wit.ToolDefinition {
	defs := listTools()
	out := make([]wit.ToolDefinition, len(defs))
	for i, d := range defs {
		out[i] = wit.ToolDefinition{
			Name:         d.Name,
			Title:        optString(d.Title),
			Description:  utf8Text(d.Description),
			InputSchema:  d.inputSchema,
			OutputSchema: optString(d.outputSchema),
			Annotations: wit.ToolAnnotations{
				Title:           optString(d.Title),
				ReadOnlyHint:    optHint(d.ReadOnly),
				DestructiveHint: optHint(d.Destructive),
				IdempotentHint:  optHint(d.Idempotent),
				OpenWorldHint:   optHint(d.OpenWorld),
			},
			Icons:       icons(d.Icons),
			TaskSupport: taskSupport(d.TaskSupport),
		}
	}
	return out
}

func taskSupport(t TaskSupport) wit.TaskSupport {
	switch t {
	case TaskOptional:
		return wit.TaskSupportOptional
	case TaskRequired:
		return wit.TaskSupportRequired
	}
	return wit.TaskSupportForbidden
}

func icons(in []Icon) []wit.Icon {
	out := make([]wit.Icon, 0, len(in))
	for _, i := range in {
		theme := witTypes.None[wit.IconTheme]()
		switch i.Theme {
		case Light:
			theme = witTypes.Some(wit.IconThemeLight)
		case Dark:
			theme = witTypes.Some(wit.IconThemeDark)
		}
		out = append(out, wit.Icon{Src: utf8Text(i.Src), MimeType: optString(i.MIMEType), Sizes: i.Sizes, Theme: theme})
	}
	return out
}

func callToolExport(name, arguments string) witTypes.Result[wit.CallResult, wit.ToolError] {
	o, err := callTool(name, arguments)
	if err != nil {
		return witTypes.Err[wit.CallResult](toolError(err))
	}
	result := wit.CallResult{
		Content:           make([]wit.ContentBlock, 0, len(o.content)),
		StructuredContent: optString(o.structured),
		IsError:           o.isError,
	}
	for _, c := range o.content {
		if c != nil {
			result.Content = append(result.Content, contentBlock(c))
		}
	}
	return witTypes.Ok[wit.CallResult, wit.ToolError](result)
}

// outsideMounts says whether err is a file operation on a path that no
// preopened directory holds: Go's wasip1 port answers EBADF (it has no
// directory to resolve the path against).
func outsideMounts(err error) bool {
	var path *fs.PathError
	return errors.As(err, &path) && (errors.Is(path.Err, syscall.EBADF) || errors.Is(path.Err, syscall.ENOTCAPABLE))
}

func toolError(err error) wit.ToolError {
	kind, message := classify(err)
	message = utf8Text(message)
	switch kind {
	case KindInvalidArguments:
		return wit.MakeToolErrorInvalidArguments(message)
	case KindDenied:
		return wit.MakeToolErrorDenied(message)
	case kindUnknownTool:
		return wit.MakeToolErrorUnknownTool(message)
	}
	return wit.MakeToolErrorFailed(message)
}

func contentBlock(c Content) wit.ContentBlock {
	switch c := c.(type) {
	case Text:
		return wit.MakeContentBlockText(wit.TextContent{Text: utf8Text(c.Text), Annotations: annotations(c.Annotations)})
	case Image:
		return wit.MakeContentBlockImage(media(c.Data, c.MIMEType, c.Annotations))
	case Audio:
		return wit.MakeContentBlockAudio(media(c.Data, c.MIMEType, c.Annotations))
	case ResourceLink:
		link := wit.ResourceLink{
			Uri:         utf8Text(c.URI),
			Name:        utf8Text(c.Name),
			Title:       optString(c.Title),
			Description: optString(c.Description),
			MimeType:    optString(c.MIMEType),
			Annotations: annotations(c.Annotations),
		}
		if c.Size > 0 {
			link.Size = witTypes.Some(c.Size)
		}
		return wit.MakeContentBlockResourceLink(link)
	case Resource:
		body := wit.MakeResourceBodyText(utf8Text(c.Text))
		if c.Blob != nil {
			body = wit.MakeResourceBodyBlob(c.Blob)
		}
		return wit.MakeContentBlockResource(wit.EmbeddedResource{
			Uri:         utf8Text(c.URI),
			MimeType:    optString(c.MIMEType),
			Body:        body,
			Annotations: annotations(c.Annotations),
		})
	}
	// Content is sealed: every implementation is above.
	panic("mcp: unknown content type")
}

func media(data []byte, mime string, a *Annotations) wit.MediaContent {
	return wit.MediaContent{Data: data, MimeType: utf8Text(mime), Annotations: annotations(a)}
}

func annotations(a *Annotations) witTypes.Option[wit.ContentAnnotations] {
	if a == nil {
		return witTypes.None[wit.ContentAnnotations]()
	}
	out := wit.ContentAnnotations{LastModified: optString(a.LastModified)}
	for _, r := range a.Audience {
		out.Audience = append(out.Audience, role(r))
	}
	if a.Priority != nil {
		out.Priority = witTypes.Some(*a.Priority)
	}
	return witTypes.Some(out)
}

func role(r Role) wit.Role {
	if r == Assistant {
		return wit.RoleAssistant
	}
	return wit.RoleUser
}

func hostLog(level Level, message string) {
	host.Log(wit.LogLevel(min(level, Emergency)), utf8Text(message))
}

func hostProgress(progress, total float64, message string) {
	t := witTypes.None[float64]()
	if total > 0 {
		t = witTypes.Some(total)
	}
	host.ReportProgress(progress, t, optString(message))
}

func hostSample(req SampleRequest) ([]Content, error) {
	request := client.CreateMessageRequest{
		SystemPrompt:  optString(req.System),
		MaxTokens:     req.MaxTokens,
		StopSequences: req.StopSequences,
	}
	for _, m := range req.Messages {
		message := client.SamplingMessage{Role: role(m.Role)}
		for _, c := range m.Content {
			message.Content = append(message.Content, samplingContent(c))
		}
		request.Messages = append(request.Messages, message)
	}
	if req.Temperature != nil {
		request.Temperature = witTypes.Some(*req.Temperature)
	}
	if len(req.ModelHints) > 0 || req.CostPriority != nil || req.SpeedPriority != nil || req.IntelligencePriority != nil {
		request.ModelPreferences = witTypes.Some(client.ModelPreferences{
			Hints:                req.ModelHints,
			CostPriority:         optFloat(req.CostPriority),
			SpeedPriority:        optFloat(req.SpeedPriority),
			IntelligencePriority: optFloat(req.IntelligencePriority),
		})
	}
	answer := client.CreateMessage(request)
	if answer.IsErr() {
		return nil, clientError(answer.Err())
	}
	var reply []Content
	for _, c := range answer.Ok().Content {
		switch c.Tag() {
		case client.SamplingContentText:
			reply = append(reply, Text{Text: c.Text()})
		case client.SamplingContentImage:
			reply = append(reply, Image{Data: c.Image().Data, MIMEType: c.Image().MimeType})
		case client.SamplingContentAudio:
			reply = append(reply, Audio{Data: c.Audio().Data, MIMEType: c.Audio().MimeType})
		}
	}
	return reply, nil
}

// samplingContent converts a block Sample has checked to be Text, Image or
// Audio.
func samplingContent(c Content) client.SamplingContent {
	switch c := c.(type) {
	case Image:
		return client.MakeSamplingContentImage(client.Media{Data: c.Data, MimeType: c.MIMEType})
	case Audio:
		return client.MakeSamplingContentAudio(client.Media{Data: c.Data, MimeType: c.MIMEType})
	case Text:
		return client.MakeSamplingContentText(utf8Text(c.Text))
	}
	panic("mcp: Sample let through a block that is not Text, Image or Audio")
}

func hostElicit(message, schema string) (bool, string, error) {
	answer := client.Elicit(utf8Text(message), schema)
	if answer.IsErr() {
		return false, "", clientError(answer.Err())
	}
	result := answer.Ok()
	if result.Action != client.ElicitActionAccept {
		return false, "", nil
	}
	return true, result.Content.SomeOr("{}"), nil
}

func clientError(e client.RequestError) error {
	switch e.Tag() {
	case client.RequestErrorUnsupported:
		return &ClientError{Kind: "unsupported", Message: e.Unsupported()}
	case client.RequestErrorDenied:
		return &ClientError{Kind: "denied", Message: e.Denied()}
	case client.RequestErrorRejected:
		r := e.Rejected()
		return &ClientError{Kind: "rejected", Message: r.Message, Code: r.Code, Data: r.Data.SomeOr("")}
	}
	return &ClientError{Kind: "failed", Message: e.Failed()}
}

func optString(s string) witTypes.Option[string] {
	if s == "" {
		return witTypes.None[string]()
	}
	return witTypes.Some(utf8Text(s))
}

func optFloat(f *float64) witTypes.Option[float64] {
	if f == nil {
		return witTypes.None[float64]()
	}
	return witTypes.Some(*f)
}

func optHint(h Hint) witTypes.Option[bool] {
	switch h {
	case Yes:
		return witTypes.Some(true)
	case No:
		return witTypes.Some(false)
	}
	return witTypes.None[bool]()
}
