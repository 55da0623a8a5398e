package conform;

import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;

/**
 * A minimal sampling pass-through written on the official Java SDK (io.modelcontextprotocol.sdk:mcp), the way a relay
 * author would write one with its typed API: an MCP server on stdin/stdout for the answerer, an MCP client of the
 * upstream command named by argv. tools/list and tools/call go up; the upstream's sampling/createMessage goes down
 * through the exchange of the tool call in flight, and its result or error comes back. Whatever the SDK's models keep,
 * drop or rewrite on the way is the SDK's doing, not this file's: it adds no check and no deadline of its own.
 */
public final class Relay {

	public static void main(String[] argv) throws Exception {
		if (argv.length == 0) {
			System.err.println("usage: java -jar sdk-java-relay.jar UPSTREAM_COMMAND [ARG...]");
			System.exit(2);
		}
		McpJsonMapper json = McpJsonDefaults.getMapper();
		// The downstream session's exchange: the only way the SDK lets a server send a request to its client.
		AtomicReference<McpAsyncServerExchange> downstream = new AtomicReference<>();

		ServerParameters upstreamCommand = ServerParameters.builder(argv[0])
			.args(Arrays.asList(argv).subList(1, argv.length))
			.build();
		McpAsyncClient upstream = McpClient.async(new StdioClientTransport(upstreamCommand, json))
			.clientInfo(new McpSchema.Implementation("sdk-java-relay", "1.0.0"))
			.capabilities(McpSchema.ClientCapabilities.builder().sampling().build())
			.sampling(request -> {
				McpAsyncServerExchange exchange = downstream.get();
				if (exchange == null)
					return Mono.error(McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR)
						.message("no downstream session to ask yet")
						.build());
				return exchange.createMessage(request);
			})
			.build();
		upstream.initialize().block(Duration.ofSeconds(30));
		List<McpSchema.Tool> tools = upstream.listTools().block(Duration.ofSeconds(30)).tools();

		List<AsyncToolSpecification> relayed = tools.stream()
			.map(tool -> AsyncToolSpecification.builder().tool(tool).callHandler((exchange, call) -> {
				downstream.set(exchange);
				return upstream.callTool(call);
			}).build())
			.toList();

		CountDownLatch stdinClosed = new CountDownLatch(1);
		McpAsyncServer server = McpServer.async(new StdioServerTransportProvider(json, untilEof(System.in, stdinClosed),
				System.out))
			.serverInfo("sdk-java-relay", "1.0.0")
			.capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
			// A pass-through leaves the upstream's tools as they are: their names and inputs are the upstream's to judge.
			.strictToolNameValidation(false)
			.validateToolInputs(false)
			.tools(relayed)
			.build();

		stdinClosed.await();
		server.close();
		upstream.close();
		System.exit(0);
	}

	/** System.in that counts `closed` down at end of input: the relay ends when its client goes away. */
	private static InputStream untilEof(InputStream in, CountDownLatch closed) {
		return new FilterInputStream(in) {
			@Override
			public int read() throws IOException {
				int b = super.read();
				if (b < 0)
					closed.countDown();
				return b;
			}

			@Override
			public int read(byte[] buffer, int offset, int length) throws IOException {
				int n = super.read(buffer, offset, length);
				if (n < 0)
					closed.countDown();
				return n;
			}
		};
	}

}
