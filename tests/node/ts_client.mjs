// The official TypeScript v2 client (@modelcontextprotocol/client) against a generated failwell server,
// driven by tests/test_ts_client.py: one transport (stdio or streamable HTTP), one protocol era
// (2025-11-25: the plain initialize handshake; 2026-07-28: pinned, server/discover and per-request _meta).
//
// Usage: node ts_client.mjs '<json>' where the JSON names {era, transport, server, slow}: `server` is
// the examples/tasks server and `slow` the same server whose handlers sleep until cancelled (for the
// cancellation), each {url, token?} over HTTP or {command, args, env} over stdio, and `log`, the file its
// stderr goes to (this script sends a stdio server's stderr there; an HTTP server's the test does).
// Prints one JSON object: what each step saw. The Python test asserts on it; this file asserts nothing.
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const ENVELOPE = 'dev.failwell/error';
const options = JSON.parse(process.argv[2]);
const era = options.era;

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

async function connect(target) {
  const versionNegotiation = era === '2026-07-28' ? { mode: { pin: era } } : { mode: 'legacy' };
  const client = new Client({ name: 'failwell-ts-v2', version: '1.0.0' }, { capabilities: {}, versionNegotiation });
  const transport = transportFor(target);
  await client.connect(transport);
  // Every message the transport hands the client, from the server, in order.
  const seen = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    seen.push(message);
    deliver?.(message, extra);
  };
  return { client, transport, seen };
}

/** How many times the server's log has said `event` so far. */
function logged(target, event) {
  return readFileSync(target.log, 'utf8').split('\n').filter((line) => line.includes(`"event": "${event}"`)).length;
}

/** Wait (20 ms steps, at most `ms`) until the log says `event` more than `count` times; whether it did. */
async function untilLogged(target, event, count, ms) {
  for (let waited = 0; waited < ms; waited += 20) {
    if (logged(target, event) > count) return true;
    await sleep(20);
  }
  return false;
}

/** The messages seen since index `from`, reduced to what identifies them. */
function since(seen, from) {
  return seen.slice(from).map((message) => ({
    id: message.id,
    method: message.method,
    error: message.error?.code,
    result: message.result === undefined ? undefined : JSON.stringify(message.result).slice(0, 300),
  }));
}

async function close({ client, transport }) {
  await client.close();
  if (transport.stderrFd !== undefined) closeSync(transport.stderrFd);
}

/** What a call produced: its result, or the error it threw (a ProtocolError's code, message and data). */
async function outcome(promise) {
  try {
    const result = await promise;
    return {
      result: {
        isError: result.isError === true,
        text: (result.content ?? []).filter((block) => block.type === 'text').map((block) => block.text).join('\n'),
        structuredContent: result.structuredContent,
        envelope: result._meta?.[ENVELOPE],
      },
    };
  } catch (error) {
    return {
      error: {
        type: error?.constructor?.name,
        protocol: error instanceof ProtocolError,
        code: error?.code,
        message: String(error?.message ?? error),
        data: error?.data,
      },
    };
  }
}

async function main() {
  const out = { era };
  const live = await connect(options.server);
  const { client } = live;
  out.negotiated = { version: client.getNegotiatedProtocolVersion(), era: client.getProtocolEra() };
  const { tools } = await client.listTools();
  out.tools = tools.map((tool) => ({ name: tool.name, hasOutputSchema: tool.outputSchema !== undefined }));
  const get = tools.find((tool) => tool.name === 'tasks_get');

  // Success: the client validates structuredContent against the listed outputSchema itself.
  out.success = await outcome(client.callTool({ name: 'tasks_get', arguments: { ref: 'T-1' } }));
  // The same result against a stricter outputSchema (one more required property): the client must refuse it,
  // which shows the validation above really ran.
  const stricter = {
    ...get,
    outputSchema: {
      ...get.outputSchema,
      properties: { ...get.outputSchema.properties, priority: { type: 'integer' } },
      required: [...(get.outputSchema.required ?? []), 'priority'],
    },
  };
  out.stricter = await outcome(
    client.callTool({ name: 'tasks_get', arguments: { ref: 'T-1' } }, { toolDefinition: stricter }),
  );

  // JSON-RPC errors: an unknown tool, and params that are not a tools/call's (arguments not an object).
  out.unknownTool = await outcome(client.callTool({ name: 'tasks_nope', arguments: {} }));
  const wire = live.seen.length;
  out.badParams = await outcome(client.request({ method: 'tools/call', params: { name: 'tasks_get', arguments: 'T-1' } }));
  out.badParams.wire = since(live.seen, wire);

  // isError results, with failwell's envelope in _meta: a declared failure, and arguments the schema refuses.
  out.declared = await outcome(client.callTool({ name: 'tasks_get', arguments: { ref: 'T-404' } }));
  out.invalid = await outcome(client.callTool({ name: 'tasks_get', arguments: { ref: 'x' } }));
  await close(live);

  // Cancellation: abort a call once its handler runs (the slow server logs it); the handler must stop, and
  // nothing may answer the call afterwards.
  const slow = await connect(options.slow);
  const controller = new AbortController();
  const [started, released] = [logged(options.slow, 'handler started'), logged(options.slow, 'handler released')];
  const before = slow.seen.length;
  const call = outcome(slow.client.callTool({ name: 'tasks_get', arguments: { ref: 'T-1' } }, { signal: controller.signal }));
  out.handlerStarted = await untilLogged(options.slow, 'handler started', started, 15000);
  controller.abort('the test cancels it');
  out.cancelled = await call;
  // Well before the tool's deadline (10 s), which would release the handler too.
  out.handlerReleased = await untilLogged(options.slow, 'handler released', released, 3000);
  await sleep(500);
  out.afterCancel = since(slow.seen, before);
  // The connection still serves requests after the cancellation.
  const after = await outcome(slow.client.listTools().then((listed) => ({ content: [{ type: 'text', text: `${listed.tools.length}` }] })));
  out.toolsAfterCancel = after.result?.text ?? after.error;
  await close(slow);
  return out;
}

/** Content other than text (tests/test_content.py): `options.media` is a server and the calls to make; each result
 * is parsed by the client against its CallToolResult / GetPromptResult schemas (and a tool's structuredContent
 * against its outputSchema), so a block that is not well formed fails here. */
async function mediaMain() {
  const out = { era };
  const live = await connect(options.media);
  const { client } = live;
  await client.listTools();  // the client caches each tool's outputSchema, to validate structuredContent against
  out.calls = [];
  for (const call of options.media.calls) {
    try {
      const result = await client.callTool({ name: call.name, arguments: call.arguments ?? {} });
      out.calls.push({ name: call.name, isError: result.isError === true, content: result.content, structuredContent: result.structuredContent });
    } catch (error) {
      out.calls.push({ name: call.name, error: String(error?.message ?? error) });
    }
  }
  out.prompts = [];
  for (const prompt of options.media.prompts ?? []) {
    try {
      const result = await client.getPrompt({ name: prompt.name, arguments: prompt.arguments ?? {} });
      out.prompts.push({ name: prompt.name, messages: result.messages });
    } catch (error) {
      out.prompts.push({ name: prompt.name, error: String(error?.message ?? error) });
    }
  }
  await close(live);
  return out;
}

(options.media ? mediaMain() : main()).then(
  (out) => {
    process.stdout.write(`${JSON.stringify(out)}\n`);
    process.exit(0);
  },
  (error) => {
    process.stdout.write(`${JSON.stringify({ fatal: String(error?.stack ?? error) })}\n`);
    process.exit(1);
  },
);
