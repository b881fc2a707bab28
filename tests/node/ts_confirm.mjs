// The official TypeScript v2 client (@modelcontextprotocol/client) answering a failwell tool's confirmation
// (`confirm:`), driven by tests/test_ts_confirm.py: one transport (stdio or streamable HTTP) and one protocol era.
// On 2026-07-28 the client's input_required driver answers the question through the `elicitation/create` handler
// and retries; on a 2025-era session the server asks over its back-channel and the same handler answers.
//
// Usage: node ts_confirm.mjs '<json>' with {era, transport, server, calls, asks?}: `server` is {url, token?} over
// HTTP or {command, args, env, log} over stdio (its stderr goes to `log`); `calls` lists {name, arguments, answer}
// (a tool) or {prompt, arguments, answers} (a prompt), `answer` being the ElicitResult the handler gives, or
// `answers` one per question asked in turn (the last one again after that). With `asks`, the client declares
// sampling and roots too and answers them (a model's fixed text, one root), as a handler's `asks:` need.
// Prints one JSON object: what the handlers were asked and what each call produced. The Python test asserts on
// it; this file asserts nothing.
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
  const out = { era: options.era, asked: [], sampled: [], rooted: 0, calls: [] };
  const versionNegotiation = options.era === '2026-07-28' ? { mode: { pin: options.era } } : { mode: 'legacy' };
  const capabilities = options.asks
    ? { elicitation: { form: {} }, sampling: {}, roots: { listChanged: false } }
    : { elicitation: { form: {} } };
  const client = new Client({ name: 'failwell-ts-confirm', version: '1.0.0' }, { capabilities, versionNegotiation });
  let answers = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    out.asked.push({ message: request.params.message, schema: request.params.requestedSchema });
    return answers.length > 1 ? answers.shift() : answers[0];
  });
  if (options.asks) {
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const first = request.params.messages[0]?.content;
      out.sampled.push({ text: first?.text, maxTokens: request.params.maxTokens });
      return { role: 'assistant', content: { type: 'text', text: 'Three notes.' }, model: 'm', stopReason: 'endTurn' };
    });
    client.setRequestHandler('roots/list', async () => {
      out.rooted += 1;
      return { roots: [{ uri: 'file:///home/ada/notes', name: 'notes' }] };
    });
  }
  const transport = transportFor(options.server);
  await client.connect(transport);
  out.negotiated = client.getNegotiatedProtocolVersion();
  for (const call of options.calls) {
    answers = [...(call.answers ?? [call.answer])];
    try {
      if (call.prompt !== undefined) {
        const result = await client.getPrompt({ name: call.prompt, arguments: call.arguments });
        out.calls.push({ messages: result.messages });
        continue;
      }
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
