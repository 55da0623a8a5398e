/** Transport-level diagnostics the evidence cannot hold (a refused POST, a dropped frame): MCPX_CONFORM_DEBUG=1. */
export function debug(message: string): void {
  if (process.env.MCPX_CONFORM_DEBUG) process.stderr.write(`mcpx-conform[debug]: ${message}\n`);
}
