package board

import (
	"context"
	"encoding/json"
	"fmt"
)

func (t *Tools) documentRead(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		File string `json:"file"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	return t.p.ReadDocument(ctx, a.File)
}

func (t *Tools) documentWrite(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Content *string `json:"content"`
		File    string  `json:"file"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if a.Content == nil {
		return "", fmt.Errorf("%w: content is required", errArgs)
	}
	if err := t.p.WriteDocument(ctx, who, a.File, *a.Content); err != nil {
		return "", err
	}
	return "written", nil
}

func (t *Tools) documentAppend(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Content string `json:"content"`
		File    string `json:"file"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if err := required("content", a.Content); err != nil {
		return "", err
	}
	if err := t.p.AppendDocument(ctx, who, a.File, a.Content); err != nil {
		return "", err
	}
	return "appended", nil
}

func (t *Tools) documentList(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct{}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	files, err := t.p.ListDocuments(ctx)
	if err != nil {
		return "", err
	}
	return jsonText(nonNil(files))
}

func (t *Tools) documentCreate(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		File    string `json:"file"`
		Content string `json:"content"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if err := required("file", a.File); err != nil {
		return "", err
	}
	if err := t.p.CreateDocument(ctx, who, a.File, a.Content); err != nil {
		return "", err
	}
	return "created", nil
}

func (t *Tools) documentDelete(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		File string `json:"file"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if err := required("file", a.File); err != nil {
		return "", err
	}
	if err := t.p.DeleteDocument(ctx, who, a.File); err != nil {
		return "", err
	}
	return "deleted", nil
}

// SuggestMessage is the channel message of a document suggestion.
func SuggestMessage(owner, file, suggestion, reason string) string {
	if owner == "" {
		owner = System
	}
	msg := "@" + owner + " [DOC_SUGGEST]"
	if file != "" {
		msg += " in " + file
	}
	msg += "\n" + suggestion
	if reason != "" {
		msg += "\nReason: " + reason
	}
	return msg
}

func (t *Tools) documentSuggest(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Suggestion string `json:"suggestion"`
		File       string `json:"file"`
		Reason     string `json:"reason"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if err := required("suggestion", a.Suggestion); err != nil {
		return "", err
	}
	if a.File != "" {
		if _, err := cleanDocPath(a.File); err != nil {
			return "", err
		}
	}
	owner, err := t.p.DocumentOwner(ctx)
	if err != nil {
		return "", err
	}
	if _, err := t.p.Append(ctx, who, SuggestMessage(owner, a.File, a.Suggestion, a.Reason)); err != nil {
		return "", err
	}
	if owner == "" {
		owner = System
	}
	return "Suggestion sent to @" + owner, nil
}
