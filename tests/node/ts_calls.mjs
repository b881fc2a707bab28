// The official TypeScript v2 client (@modelcontextprotocol/client) lists the tools and prompts of a generated
// failwell server over stdio and makes the calls it is given, driven by tests/test_names.py.
//
// Usage: node ts_calls.mjs '<json>' where the JSON names {server: {command, args, env, log}, calls: [{name,
// arguments}], prompts: [{name, arguments}]}. The client validates each structuredContent against the tool's
// listed outputSchema (ajv), so a schema that does not say what the server sends fails the call.
// Prints one JSON object: what it saw. The Python test asserts on it; this file asserts nothing.
import { closeSync, openSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const ENVELOPE = 'dev.failwell/error';
const options = JSON.parse(process.argv[2]);

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
    return { error: { type: error?.constructor?.name, code: error?.code, message: String(error?.message ?? error) } };
  }
}

async function main() {
  const target = options.server;
  const stderr = openSync(target.log, 'a');
  const transport = new StdioClientTransport({ command: target.command, args: target.args, env: target.env, stderr });
  const client = new Client({ name: 'failwell-ts-v2', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const out = {};
  out.tools = (await client.listTools()).tools;
  out.prompts = (await client.listPrompts()).prompts;
  out.calls = [];
  for (const call of options.calls ?? []) {
    out.calls.push(await outcome(client.callTool({ name: call.name, arguments: call.arguments })));
  }
  out.promptResults = [];
  for (const prompt of options.prompts ?? []) {
    const got = await outcome(client.getPrompt({ name: prompt.name, arguments: prompt.arguments }).then((r) => ({
      content: r.messages.map((m) => ({ type: 'text', text: m.content.text })),
    })));
    out.promptResults.push(got);
  }
  await client.close();
  closeSync(stderr);
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
