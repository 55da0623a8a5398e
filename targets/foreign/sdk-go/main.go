// sdk-go-relay: a minimal, faithful sampling pass-through written on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), stdio at both ends.
//
//	sdk-go-relay COMMAND [ARGS...]
//
// It launches COMMAND as its upstream MCP server (an SDK client over the command's stdin/stdout), offers that
// server's tools to its own downstream client (an SDK server on this process's stdin/stdout), and forwards every
// tools/call. Sampling travels back the way each era carries it, and the relay adds nothing of its own:
//   - legacy eras: the upstream's sampling/createMessage request reaches the client handler below, which asks the
//     downstream client the same question on the downstream session and returns its answer or its error;
//   - 2026-07-28: the upstream's input_required result (inputRequests, requestState) is returned to the downstream
//     as the tool's result, and the downstream's retry (inputResponses, requestState) goes upstream as the next call.
//
// Everything the SDK does on the way (its typed models, the capabilities it declares, the codes it sends) is the
// SDK's, on purpose: this program measures the SDK, so it keeps no logic of its own beyond the wiring.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// downstream is the one stdio session this relay serves, set once the server side is connected.
var downstream atomic.Pointer[mcp.ServerSession]

// askDownstream puts the upstream's sampling request to the downstream client (legacy eras).
func askDownstream(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	ss := downstream.Load()
	if ss == nil {
		return nil, errors.New("sdk-go-relay: no downstream session yet")
	}
	return ss.CreateMessageWithTools(ctx, req.Params)
}

// forwardCall relays one tools/call upstream, with the 2026-07-28 retry fields as the downstream sent them.
func forwardCall(upstream *mcp.ClientSession) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return upstream.CallTool(ctx, &mcp.CallToolParams{
			Meta:           req.Params.Meta,
			Name:           req.Params.Name,
			Arguments:      req.Params.Arguments,
			InputResponses: req.Params.InputResponses,
			RequestState:   req.Params.RequestState,
		})
	}
}

func run(ctx context.Context, argv []string) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-go-relay", Version: "1"}, &mcp.ClientOptions{
		CreateMessageWithToolsHandler: askDownstream,
		// Off so that an upstream's input_required reaches the downstream instead of being answered here.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	upstream, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.CommandContext(ctx, argv[0], argv[1:]...)}, nil)
	if err != nil {
		return fmt.Errorf("connecting to the upstream %q: %w", argv[0], err)
	}
	defer upstream.Close()

	server := mcp.NewServer(&mcp.Implementation{Name: "sdk-go-relay", Version: "1"}, nil)
	for tool, err := range upstream.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing the upstream's tools: %w", err)
		}
		server.AddTool(tool, forwardCall(upstream))
	}
	ss, err := server.Connect(ctx, &mcp.StdioTransport{}, nil)
	if err != nil {
		return fmt.Errorf("serving stdio: %w", err)
	}
	downstream.Store(ss)
	return ss.Wait()
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sdk-go-relay COMMAND [ARGS...]")
		os.Exit(2)
	}
	log.SetFlags(0)
	if err := run(context.Background(), os.Args[1:]); err != nil {
		log.Fatalf("sdk-go-relay: %v", err)
	}
}
