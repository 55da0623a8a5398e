"""A minimal sampling pass-through on the official MCP Python SDK (`mcp`, pinned in requirements.txt).

    python relay.py UPSTREAM_COMMAND [ARG...]

Downstream: a low-level `Server` on stdio. Upstream: a `ClientSession` over stdio to the command on argv, opened at
the first request that needs it (as a relay that starts before its upstream is reachable does). tools/list and
tools/call go up; the upstream's sampling/createMessage comes down to the client that made the call; its result or
error goes back up. Nothing is validated or rewritten here: whatever changes on the way is the SDK's doing (the table
"What the official SDKs do to sampling" in docs/real-relays.md, with file:line).
"""

import sys

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError


class Upstream:
    """The one upstream session, held open by a task of its own (anyio context managers stay in the task that opened them)."""

    def __init__(self, argv: list[str], tasks: anyio.abc.TaskGroup) -> None:
        self.argv = argv
        self.tasks = tasks
        self.session: ClientSession | None = None
        self.error: BaseException | None = None
        self.ready: anyio.Event | None = None
        # The downstream session of the latest tools/call: the upstream asks for sampling while that call is open.
        self.downstream = None

    async def get(self) -> ClientSession:
        if self.ready is None:
            self.ready = anyio.Event()
            self.tasks.start_soon(self._hold)
        await self.ready.wait()
        if self.session is None:
            # The SDK's own words for why the upstream is not there (an initialize refused, a process that died).
            raise MCPError(code=types.INTERNAL_ERROR, message=f"upstream unavailable: {self.error}")
        return self.session

    async def _hold(self) -> None:
        assert self.ready is not None
        params = StdioServerParameters(command=self.argv[0], args=self.argv[1:])
        try:
            async with stdio_client(params) as (read, write):
                # A sampling callback makes the SDK declare `sampling` upstream (client/session.py _build_capabilities).
                async with ClientSession(read, write, sampling_callback=self.sample) as session:
                    # initialize(), as the SDK's ClientSession is documented to be opened: it offers the SDK's newest
                    # handshake version (2025-11-25); a 2026-07-28-only upstream refuses it with -32022.
                    await session.initialize()
                    self.session = session
                    self.ready.set()
                    await anyio.sleep_forever()
        except BaseException as error:  # noqa: BLE001 - kept to answer the downstream with it
            self.error = error
            self.ready.set()
            if isinstance(error, anyio.get_cancelled_exc_class()):
                raise

    async def sample(self, context, params: types.CreateMessageRequestParams):
        """The upstream's sampling/createMessage, sent on to the downstream client as the SDK parsed it."""
        if self.downstream is None:
            return types.ErrorData(code=types.INTERNAL_ERROR, message="no downstream client to ask")
        # send_request (not create_message, which rebuilds the params from named arguments and loses their `_meta`):
        # the parsed request goes out whole. The widest result model keeps array content and tool_use blocks.
        request = types.CreateMessageRequest(params=params)
        try:
            return await self.downstream.send_request(request, types.CreateMessageResultWithTools)
        except MCPError as error:
            # The downstream's error object goes up as it came (code, message, data).
            return error.error
        except Exception as error:  # a result the SDK's model refused, no back channel, ...
            return types.ErrorData(code=types.INTERNAL_ERROR, message=f"relay: {type(error).__name__}: {error}")


async def main(argv: list[str]) -> None:
    async with anyio.create_task_group() as tasks:
        upstream = Upstream(argv, tasks)

        async def list_tools(ctx, params):
            return await (await upstream.get()).list_tools()

        async def call_tool(ctx, params: types.CallToolRequestParams):
            session = await upstream.get()
            upstream.downstream = ctx.session
            return await session.call_tool(params.name, params.arguments)

        server = Server("mcpx-conform-sdk-python-relay", on_list_tools=list_tools, on_call_tool=call_tool)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
        tasks.cancel_scope.cancel()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: relay.py UPSTREAM_COMMAND [ARG...]")
    anyio.run(main, sys.argv[1:])
