//! sdk-rust-relay: a minimal sampling pass-through written on rmcp, the official Rust MCP SDK.
//!
//! It serves the downstream client on its own stdin/stdout, launches the upstream server from its argv as a stdio
//! child, relays tools/list and tools/call, and relays the upstream's sampling/createMessage to the downstream client
//! and the answer (or error) back. Everything goes through rmcp's typed API, the way a relay author would write it,
//! so whatever reaches either end is what rmcp lets through (docs/real-relays.md, "What the official SDKs do to
//! sampling").
//!
//! Usage: sdk-rust-relay -- UPSTREAM_COMMAND [ARGS...]


#![allow(deprecated)] // sampling is deprecated in rmcp 3 (SEP-2577), and carrying it is this relay's whole job

use anyhow::{bail, Context};
use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, ClientConfig, CreateMessageRequestParams,
        CreateMessageResult, InitializeRequestParams, InitializeResult, ListToolsResult,
        PaginatedRequestParams, ServerCapabilities, ServerConfig, ServerPeerInfo,
    },
    service::{
        ClientInitializeError, ClientLifecycleMode, ClientServiceExt, Peer, RequestContext, RunningService,
        ServiceError,
    },
    transport::{stdio, TokioChildProcess},
    ClientHandler, ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt,
};
use tokio::{process::Command, sync::OnceCell};

/// The upstream side: an rmcp client whose only own behaviour is to hand sampling to the downstream client.
struct UpstreamSide {
    /// What the downstream client declared: the relay declares the same upstream (capabilities, version, info).
    declared: ClientConfig,
    downstream: Peer<RoleServer>,
}

impl ClientHandler for UpstreamSide {
    fn get_info(&self) -> ClientConfig {
        self.declared.clone()
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.downstream.create_message(params).await.map_err(error_data)
    }
}

/// An error of the other side passes on as it came (code, message, data); a local failure is an internal error.
fn error_data(error: ServiceError) -> ErrorData {
    match error {
        ServiceError::McpError(data) => data,
        other => ErrorData::internal_error(other.to_string(), None),
    }
}

/// What the upstream answered to initialize, handed to the downstream client as it is.
fn as_initialize_result(info: &ServerPeerInfo) -> InitializeResult {
    let mut result = InitializeResult::new(info.capabilities.clone())
        .with_protocol_version(info.protocol_version.clone())
        .with_server_info(info.server_info.clone().unwrap_or_default());
    result.instructions = info.instructions.clone();
    result.meta = info.meta.clone();
    result
}

/// The downstream side: an rmcp server that opens the upstream on the first request and forwards to it.
struct Relay {
    argv: Vec<String>,
    upstream: OnceCell<RunningService<RoleClient, UpstreamSide>>,
}

impl Relay {
    /// The upstream client, opened once: with `initialize` at the client's version for a legacy client, with
    /// `server/discover` (falling back to initialize) for a 2026-07-28 client, which sends no initialize.
    async fn upstream(
        &self,
        declared: ClientConfig,
        downstream: Peer<RoleServer>,
    ) -> Result<&Peer<RoleClient>, ErrorData> {
        let service = self
            .upstream
            .get_or_try_init(|| async {
                let mut command = Command::new(&self.argv[0]);
                command.args(&self.argv[1..]);
                let child = TokioChildProcess::new(command)
                    .map_err(|e| ErrorData::internal_error(format!("upstream: {e}"), None))?;
                let version = declared.protocol_version.clone();
                let side = UpstreamSide { declared, downstream };
                let opened = if version.has_initialize() {
                    side.serve(child).await
                } else {
                    // rmcp's own way to reach either kind of server: server/discover, else initialize.
                    let lifecycle = ClientLifecycleMode::Auto {
                        preferred_versions: vec![version],
                        legacy_version: None,
                    };
                    side.serve_with_lifecycle(child, lifecycle).await
                };
                opened.map_err(|e| match e {
                    // The upstream's refusal (say -32022 for a version it does not speak) passes on as it came.
                    ClientInitializeError::JsonRpcError(data) => data,
                    other => ErrorData::internal_error(format!("upstream: {other}"), None),
                })
            })
            .await?;
        Ok(service.peer())
    }

    /// The upstream of a request that came without initialize (2026-07-28): declared from the request's metadata.
    async fn upstream_for(&self, context: &RequestContext<RoleServer>) -> Result<&Peer<RoleClient>, ErrorData> {
        let declared = match context.peer.peer_info() {
            Some(info) => (*info).clone(),
            None => {
                let version = context.protocol_version().unwrap_or_default();
                let capabilities = context.client_capabilities().unwrap_or_default();
                let info = context.client_info().unwrap_or_default();
                InitializeRequestParams::new(capabilities, info).with_protocol_version(version)
            }
        };
        self.upstream(declared, context.peer.clone()).await
    }
}

impl ServerHandler for Relay {
    fn get_info(&self) -> ServerConfig {
        match self.upstream.get().and_then(|service| service.peer_info()) {
            Some(info) => as_initialize_result(&info),
            None => ServerConfig::new(ServerCapabilities::builder().enable_tools().build()),
        }
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let upstream = self.upstream(request, context.peer.clone()).await?;
        upstream
            .peer_info()
            .map(|info| as_initialize_result(&info))
            .ok_or_else(|| ErrorData::internal_error("upstream sent no initialize result", None))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let upstream = self.upstream_for(&context).await?;
        upstream.list_tools(request).await.map_err(error_data)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let upstream = self.upstream_for(&context).await?;
        // call_tool_once hands back an input_required result as it is, for the downstream client to answer.
        upstream.call_tool_once(request).await.map_err(error_data)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let argv: Vec<String> = std::env::args().skip(1).skip_while(|arg| arg == "--").collect();
    if argv.is_empty() {
        bail!("usage: sdk-rust-relay -- UPSTREAM_COMMAND [ARGS...]");
    }
    let relay = Relay { argv, upstream: OnceCell::new() };
    let service = relay.serve(stdio()).await.context("serving the downstream client")?;
    service.waiting().await.context("downstream session")?;
    Ok(())
}
