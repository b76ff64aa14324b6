// Requests to the MCP client that made the call: sampling (Sample) and
// elicitation (Elicit).

package mcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// Message is one message of a conversation sent for sampling.
type Message struct {
	Role Role
	// Text, Image or Audio blocks; at least one.
	Content []Content
}

// SampleRequest asks the client's model for a completion.
type SampleRequest struct {
	// A user message appended after Messages, when not empty.
	Prompt string
	// The conversation so far; the model answers the last message.
	Messages []Message
	// A system prompt the client may use.
	System string
	// The most tokens to generate; 0 asks for 1000.
	MaxTokens uint32
	// The sampling temperature; nil leaves it to the client.
	Temperature *float64
	// Sequences that stop generation.
	StopSequences []string
	// Model names or families to prefer, in order (such as "claude").
	ModelHints []string
	// How much to prefer a cheap, fast or capable model, from 0 to 1.
	CostPriority, SpeedPriority, IntelligencePriority *float64
}

// Sample asks the client's model for a message (sampling/createMessage)
// and returns its text. The plugin's policy must grant it
// ([plugins.NAME.client] sampling = true) and the client must support
// it; otherwise the error is a *ClientError.
func Sample(req SampleRequest) (string, error) {
	req.Messages = slices.Clone(req.Messages)
	if req.Prompt != "" {
		req.Messages = append(req.Messages, Message{Role: User, Content: []Content{Text{Text: req.Prompt}}})
		req.Prompt = ""
	}
	if len(req.Messages) == 0 {
		return "", Failed("mcp.Sample: no Prompt and no Messages")
	}
	for _, m := range req.Messages {
		for _, c := range m.Content {
			switch c.(type) {
			case Text, Image, Audio:
			default:
				return "", Failed("mcp.Sample: a sampling message holds Text, Image or Audio, not %T", c)
			}
		}
	}
	if req.MaxTokens == 0 {
		req.MaxTokens = 1000
	}
	reply, err := hostSample(req)
	if err != nil {
		return "", err
	}
	var text strings.Builder
	for _, c := range reply {
		if t, ok := c.(Text); ok {
			text.WriteString(t.Text)
		}
	}
	return text.String(), nil
}

// Elicit asks the client's user to fill in a form (elicitation/create)
// whose schema comes from T, a struct of flat fields (strings, numbers,
// booleans, enums, as MCP allows), and returns the answer. ok is false
// when the user declined or cancelled. The plugin's policy must grant it
// ([plugins.NAME.client] elicitation = true) and the client must support
// it; otherwise the error is a *ClientError.
func Elicit[T any](message string) (answer T, ok bool, err error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return answer, false, Failed("mcp.Elicit: the form type %s is not a struct", t)
	}
	s, err := schemaFor(t, input)
	if err != nil {
		return answer, false, Failed("mcp.Elicit: form %s: %v", t, err)
	}
	delete(s, "additionalProperties") // not part of MCP's restricted schema
	accepted, content, err := hostElicit(message, mustJSON(s))
	if err != nil || !accepted {
		return answer, false, err
	}
	if err := json.Unmarshal([]byte(content), &answer); err != nil {
		return answer, false, Failed("the client's answer does not fit %s: %v", t, err)
	}
	return answer, true, nil
}
