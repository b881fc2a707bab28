// The official TypeScript v2 client (@modelcontextprotocol/client) answering a failwell tool's confirmation
// (`confirm:`), driven by tests/test_ts_confirm.py: one transport (stdio or streamable HTTP) and one protocol era.
// On 2026-07-28 the client's input_required driver answers the question through the `elicitation/create` handler
// and retries; on a 2025-era session the server asks over its back-channel and the same handler answers.
//
// Usage: node ts_confirm.mjs '<json>' with {era, transport, server, calls}: `server` is {url, token?} over HTTP
// or {command, args, env, log} over stdio (its stderr goes to `log`); `calls` lists {arguments, answer}, the
// answer being the ElicitResult the handler gives. Prints one JSON object: what the handler was asked and what
// each call produced. The Python test asserts on it; this file asserts nothing.
import { closeSync, openSync } from 'node:fs';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const options = JSON.parse(process.argv[2]);

function transportFor(target) {
  if (options.transport === 'http') {
    const headers = target.token ? { Authorization: `Bearer ${target.token}` } : {};
    return new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers } });
  }
  const stderr = openSync(target.log, 'a');
  const transport = new StdioClientTransport({ command: target.command, args: target.args, env: target.env, stderr });
  transport.stderrFd = stderr;
  return transport;
}

async function main() {
  const out = { era: options.era, asked: [], calls: [] };
  const versionNegotiation = options.era === '2026-07-28' ? { mode: { pin: options.era } } : { mode: 'legacy' };
  const client = new Client(
    { name: 'failwell-ts-confirm', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation },
  );
  let answer = null;
  client.setRequestHandler('elicitation/create', async (request) => {
    out.asked.push({ message: request.params.message, schema: request.params.requestedSchema });
    return answer;
  });
  const transport = transportFor(options.server);
  await client.connect(transport);
  out.negotiated = client.getNegotiatedProtocolVersion();
  for (const call of options.calls) {
    answer = call.answer;
    try {
      const result = await client.callTool({ name: call.name, arguments: call.arguments });
      out.calls.push({
        isError: result.isError === true,
        text: (result.content ?? []).filter((block) => block.type === 'text').map((block) => block.text).join('\n'),
        structuredContent: result.structuredContent,
        envelope: result._meta?.['dev.failwell/error'],
      });
    } catch (error) {
      out.calls.push({ error: { protocol: error instanceof ProtocolError, code: error?.code, message: String(error?.message ?? error) } });
    }
  }
  await client.close();
  if (transport.stderrFd !== undefined) closeSync(transport.stderrFd);
  return out;
}

main().then(
  (out) => {
    process.stdout.write(`${JSON.stringify(out)}\n`);
    process.exit(0);
  },
  (error) => {
    process.stdout.write(`${JSON.stringify({ fatal: String(error?.stack ?? error) })}\n`);
    process.exit(1);
  },
);
