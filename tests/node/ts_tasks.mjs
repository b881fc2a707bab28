// The official TypeScript tasks client (@modelcontextprotocol/ext-tasks 0.2.2 over @modelcontextprotocol/client
// 2.4.0) driving a failwell server's task tools on 2026-07-28, driven by tests/test_ts_tasks.py: one transport
// (streamable HTTP, stateless, or stdio) and a script of steps.
//
// A 2026-07-28 tasks session needs `rawDispatch` and `v2RequestFraming` (the SDK Client's own request path rejects
// the V2 task wire shapes). `rawDispatch` here is the host's request coordinator the package asks for: it owns its
// request ids ("ext-tasks-N", never a number the Client uses) and matches their responses, sending each framed
// request through the SDK's own transport (which sets the 2026 headers, Mcp-Name among them, from the body, and the
// bearer token) and taking those responses off the transport before the Client sees them. `v2RequestFraming` is
// the protocol version, clientInfo and capabilities the Client was made with.
//
// Usage: node ts_tasks.mjs '<json>' with {transport, server, steps}: `server` is {url, token} over HTTP or
// {command, args, env, log} over stdio (its stderr goes to `log`). Each step is {label, name, arguments,
// answers?, cancelAfterMs?, again?}: call the tool through the session, on the package's own result codec;
// `answers` are the form values the elicitation handler gives, by field; `cancelAfterMs` cancels the execution
// through the client after that long; `again` makes a second callTool with the same arguments while the first is
// still owned by the session; `decline` makes the elicitation handler decline; `handoff` persists the task's
// reference, releases it and resumes it from the reference. A step {label, peek: <earlier label>} has another
// caller (HTTP only: `server.otherToken`) read and cancel that step's task, and read an id that does not exist.
// Prints one JSON object: what the session saw, step by step, and the wire it sent.
// The Python test asserts on it; this file asserts nothing.
import { closeSync, openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  DispatchError,
  createApplicationInputHandler,
  createTaskSessionFromClient,
} from '@modelcontextprotocol/ext-tasks/client';

const MODERN = '2026-07-28';
const ENVELOPE = 'dev.failwell/error';
const REQUEST_TIMEOUT_MS = 30_000;
const options = JSON.parse(process.argv[2]);

function transportFor(target) {
  if (options.transport === 'http') {
    const headers = { Authorization: `Bearer ${target.token}` };
    return new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers } });
  }
  const stderr = openSync(target.log, 'a');
  const transport = new StdioClientTransport({ command: target.command, args: target.args, env: target.env, stderr });
  transport.stderrFd = stderr;
  return transport;
}

/** The host's raw request coordinator over `transport` (which the connected Client also uses). */
function rawCoordinator(transport, wire) {
  const pending = new Map();
  let sent = 0;
  const forClient = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const ours = message && !('method' in message) && pending.has(message.id);
    if (!ours) {
      forClient?.(message, extra);
      return;
    }
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    waiting.settle(
      message.error !== undefined
        ? { kind: 'error', error: message.error }
        : { kind: 'result', result: message.result },
    );
  };
  return async function rawDispatch(request, dispatch = {}) {
    sent += 1;
    const id = `ext-tasks-${sent}`;
    const message = { jsonrpc: '2.0', id, ...request };
    const seen = { method: request.method, name: request.params?.name, taskId: request.params?.taskId };
    if (request.method === 'tasks/update') seen.inputResponses = Object.keys(request.params.inputResponses ?? {});
    wire.push(seen);
    const timeoutMs = dispatch.context?.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    const response = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(() => reject(new DispatchError(`no answer within ${timeoutMs} ms`))), timeoutMs);
      const onAbort = () => finish(() => reject(dispatch.signal.reason ?? new DOMException('aborted', 'AbortError')));
      function finish(then) {
        clearTimeout(timer);
        dispatch.signal?.removeEventListener('abort', onAbort);
        pending.delete(id);
        then();
      }
      if (dispatch.signal?.aborted) return onAbort();
      dispatch.signal?.addEventListener('abort', onAbort, { once: true });
      pending.set(id, { settle: (answer) => finish(() => resolve(answer)) });
      const sendOptions = dispatch.signal === undefined ? {} : { requestSignal: dispatch.signal };
      transport.send(message, sendOptions).catch((error) => finish(() => reject(new DispatchError('send failed', false, { cause: error }))));
    });
    if (response.kind === 'error') seen.error = response.error.code;
    else seen.answered = response.result?.resultType === 'task' ? 'task' : (response.result?.status ?? response.result?.resultType);
    return response;
  };
}

function resultSeen(result) {
  return {
    resultType: result.resultType,
    isError: result.isError === true,
    text: (result.content ?? []).filter((block) => block.type === 'text').map((block) => block.text).join('\n'),
    structuredContent: result.structuredContent,
    envelope: result._meta?.[ENVELOPE],
  };
}

function errorSeen(error) {
  return {
    type: error?.constructor?.name,
    name: error?.name,
    message: String(error?.message ?? error),
    code: error?.code,
    data: error?.data,
    cause: error?.cause === undefined ? undefined : String(error.cause?.message ?? error.cause),
  };
}

function outcomeSeen(outcome) {
  if (outcome.status === 'completed') return { status: 'completed', result: resultSeen(outcome.result) };
  if (outcome.status === 'failed') return { status: 'failed', error: errorSeen(outcome.error) };
  return { status: outcome.status };
}

async function settledError(promise) {
  try {
    return { answered: await promise };
  } catch (error) {
    return { error: errorSeen(error) };
  }
}

/** Another caller's session reads and cancels a task of an earlier step, and a task id that does not exist. */
async function peekStep(other, step, earlier) {
  const taskId = earlier.find((each) => each.label === step.peek).taskId;
  return {
    label: step.label,
    get: await settledError(other.task(taskId).snapshot().then((task) => task.status)),
    cancel: await settledError(other.cancelTask(taskId).then(() => 'acked')),
    unknown: await settledError(other.task('no-such-task-id').snapshot().then((task) => task.status)),
  };
}

async function runStep(session, step, asked) {
  const seen = { label: step.label };
  let execution;
  try {
    execution = await session.callTool(step.name, step.arguments);
  } catch (error) {
    seen.callError = errorSeen(error);
    seen.asked = asked.splice(0);
    return seen;
  }
  seen.kind = execution.kind;
  seen.taskId = execution.handle?.taskId;
  if (execution.kind === 'immediate') {
    seen.outcome = outcomeSeen(await execution.result());
    seen.asked = asked.splice(0);
    return seen;
  }
  if (step.handoff) {
    // Persist the task's reference, release it, and resume it from the reference (as a restarted client would).
    let reference;
    await execution.handoff((persisted) => {
      reference = JSON.parse(JSON.stringify(persisted));
    });
    seen.reference = { generation: reference.generation, originalOperation: reference.originalOperation };
    const released = execution;
    try {
      execution = await session.resumeTask(reference);
      seen.resumedAtOnce = true;
    } catch (error) {
      // The session lets the handed-off task go when its local result settles, a few ticks after handoff().
      seen.resumedAtOnce = errorSeen(error).type;
      await released.result().catch(() => undefined);
      await sleep(0);
      execution = await session.resumeTask(reference);
    }
    seen.resumedTaskId = execution.handle?.taskId;
  }
  if (step.again) {
    try {
      const second = await session.callTool(step.name, step.arguments);
      seen.again = { kind: second.kind, taskId: second.handle?.taskId };
      await second.detach();
    } catch (error) {
      seen.again = { callError: errorSeen(error) };
    }
  }
  if (step.cancelAfterMs !== undefined) {
    await sleep(step.cancelAfterMs);
    await execution.cancel();
    seen.cancelAcked = true;
  }
  const { outcome, lastTask } = await execution.settle();
  seen.outcome = outcomeSeen(outcome);
  seen.lastTaskStatus = lastTask?.status;
  if (seen.taskId !== undefined) {
    // What the server says of the task now, read through the session's own task controller.
    const deadline = Date.now() + 10_000;
    let snapshot = await session.task(seen.taskId).snapshot();
    while ((snapshot.status === 'working' || snapshot.status === 'input_required') && Date.now() < deadline) {
      await sleep(100);
      snapshot = await session.task(seen.taskId).snapshot();
    }
    seen.serverStatus = snapshot.status;
  }
  seen.asked = asked.splice(0);
  return seen;
}

/** A second client and session over HTTP as another caller (`server.otherToken`). */
async function otherSession(clientInfo, clientCapabilities) {
  const transport = transportFor({ url: options.server.url, token: options.server.otherToken });
  const client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(transport);
  const session = createTaskSessionFromClient(client, {
    endpointId: 'failwell-ts-tasks-other',
    rawDispatch: rawCoordinator(transport, []),
    v2RequestFraming: { protocolVersion: MODERN, clientInfo, clientCapabilities },
  });
  return { client, session };
}

async function main() {
  const out = { transport: options.transport, steps: [], wire: [], errors: [] };
  const clientInfo = { name: 'failwell-ts-tasks', version: '1.0.0' };
  const clientCapabilities = { elicitation: { form: {} } };
  const client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: { pin: MODERN } } });
  const transport = transportFor(options.server);
  await client.connect(transport);
  out.negotiated = client.getNegotiatedProtocolVersion();
  out.era = client.getProtocolEra();
  out.serverExtensions = client.getServerCapabilities()?.extensions;
  const asked = [];
  let answers = {};
  let decline = false;
  const session = createTaskSessionFromClient(client, {
    endpointId: `failwell-ts-tasks-${options.transport}`,
    rawDispatch: rawCoordinator(transport, out.wire),
    v2RequestFraming: { protocolVersion: MODERN, clientInfo, clientCapabilities },
    onInputRequest: createApplicationInputHandler({
      elicitation: async (request, context) => {
        const fields = Object.keys(request.params.requestedSchema?.properties ?? {});
        asked.push({
          message: request.params.message,
          fields,
          scope: context.scope,
          delivery: context.delivery,
          inputId: context.inputId,
          taskId: context.taskId,
        });
        if (decline) return { action: 'decline' };
        return { action: 'accept', content: Object.fromEntries(fields.map((field) => [field, answers[field]])) };
      },
      sampling: async () => {
        throw new Error('this client does not sample');
      },
      roots: async () => ({ roots: [] }),
    }),
    onError: (error) => out.errors.push(errorSeen(error)),
  });
  out.capabilities = session.capabilities;
  let other;
  for (const step of options.steps) {
    if (step.peek !== undefined) {
      other ??= await otherSession(clientInfo, clientCapabilities);
      out.steps.push(await peekStep(other.session, step, out.steps));
      continue;
    }
    answers = step.answers ?? {};
    decline = step.decline === true;
    out.steps.push(await runStep(session, step, asked));
  }
  if (other !== undefined) {
    await other.session.close();
    await other.client.close();
  }
  await session.close();
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
