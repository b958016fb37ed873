package main

import (
	"context"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
)

// appendedPrompt is the run's context builder with --append-system-prompt
// added: a system message after the leading system messages (the agent's
// system prompt and context blocks), before the conversation, so that it
// reads as the end of the system prompt on every provider.
type appendedPrompt struct {
	engine.ContextBuilder
	text string
}

// withAppendedPrompt wraps cb when text is given.
func withAppendedPrompt(cb engine.ContextBuilder, text string) engine.ContextBuilder {
	if text == "" {
		return cb
	}
	return &appendedPrompt{ContextBuilder: cb, text: text}
}

// Build builds the context and inserts the text.
func (p *appendedPrompt) Build(ctx context.Context, run engine.RunInfo) ([]llm.Message, error) {
	msgs, err := p.ContextBuilder.Build(ctx, run)
	if err != nil {
		return nil, err
	}
	i := 0
	for i < len(msgs) && msgs[i].Role == llm.RoleSystem {
		i++
	}
	out := make([]llm.Message, 0, len(msgs)+1)
	out = append(out, msgs[:i]...)
	out = append(out, llm.Message{Role: llm.RoleSystem, Content: p.text, Name: "append_system_prompt"})
	return append(out, msgs[i:]...), nil
}
