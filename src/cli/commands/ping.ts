import { openAgentStream } from '../../sdk/agent-streams.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { resolveWorkspaceAgent } from '../workspace-agent-ref.js';

/** `cove ping`: round trips to a workspace agent through the relay. */
export const pingCommand: CommandSpec = {
  name: 'ping',
  summary: 'Measure the round trip to a workspace agent',
  description: 'Sends small messages to the agent through the deployment and times each echo.',
  arguments: [{ name: 'workspace', description: 'WORKSPACE, OWNER/WORKSPACE, or either followed by .AGENT', required: true }],
  options: [
    { flags: '-n, --num <count>', description: 'How many pings to send', default: '5' },
    { flags: '--interval <ms>', description: 'Milliseconds between pings', default: '1000' },
  ],
  examples: ['cove ping dev', 'cove ping dev -n 1 -o json'],
  async run(context, [workspaceText = ''], options) {
    const count = Number(options['num']);
    const interval = Number(options['interval']);
    if (!Number.isInteger(count) || count < 1)
      throw new CliError(`-n "${String(options['num'])}" is not a count.`, { hint: 'Give a whole number of pings, e.g. -n 3.' });
    if (!Number.isFinite(interval) || interval < 0)
      throw new CliError(`--interval "${String(options['interval'])}" is not a number of milliseconds.`);
    const client = await context.client();
    const { agent, label } = await resolveWorkspaceAgent(client, workspaceText, { io: context.io });
    const { stream } = await openAgentStream(client, agent.id, { service: 'echo' });
    const times: number[] = [];
    try {
      for (let sequence = 1; sequence <= count; sequence++) {
        const started = process.hrtime.bigint();
        const payload = Buffer.from(`ping ${sequence}`);
        await new Promise<void>((resolve, reject) => {
          let received = 0;
          const onData = (chunk: Buffer): void => {
            received += chunk.length;
            if (received < payload.length) return;
            stream.off('data', onData);
            stream.off('close', onClose);
            resolve();
          };
          const onClose = (): void => reject(new CliError('The agent closed the connection.'));
          stream.on('data', onData);
          stream.once('close', onClose);
          stream.write(payload);
        });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        times.push(ms);
        context.say(`pong from ${label}.${agent.name} via the deployment relay: time=${ms.toFixed(1)}ms`);
        if (sequence < count && interval > 0) await new Promise((resolve) => setTimeout(resolve, interval));
      }
    } finally {
      stream.destroy();
    }
    const summary = {
      workspace: label,
      agent: agent.name,
      pings: times.length,
      min_ms: Math.min(...times),
      avg_ms: times.reduce((a, b) => a + b, 0) / times.length,
      max_ms: Math.max(...times),
    };
    if (context.json) printJson(context.io, summary);
    else
      context.say(
        `${summary.pings} pings: min ${summary.min_ms.toFixed(1)}ms, avg ${summary.avg_ms.toFixed(1)}ms, max ${summary.max_ms.toFixed(1)}ms`,
      );
    return 0;
  },
};
