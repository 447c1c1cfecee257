import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';

/** A message as the receiver got it. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly data: string;
  readonly auth: string | undefined;
}

/**
 * A small SMTP server on a loopback port that accepts every message, so tests can read what the
 * daemon really sent over the wire.
 */
export class SmtpReceiver {
  readonly messages: ReceivedMail[] = [];
  #waiters: Array<() => void> = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<SmtpReceiver> {
    const receiver: SmtpReceiver = new SmtpReceiver(createServer((socket) => receiver.#serve(socket)));
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    return receiver;
  }

  get hostPort(): string {
    const { port } = this.server.address() as AddressInfo;
    return `127.0.0.1:${port}`;
  }

  /** Resolves with the n-th message (1-based) once it has arrived, or fails after `timeoutMs`. */
  async waitForMessage(count: number, timeoutMs = 5000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count) {
      if (Date.now() > deadline) throw new Error(`no mail number ${count} arrived within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.messages[count - 1] as ReceivedMail;
  }

  async close(): Promise<void> {
    this.server.close();
    await once(this.server, 'close');
  }

  #serve(socket: import('node:net').Socket): void {
    let buffer = '';
    let inData = false;
    let from = '';
    let to: string[] = [];
    let data: string[] = [];
    let auth: string | undefined;
    socket.setEncoding('utf8');
    socket.write('220 test-smtp ready\r\n');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            this.messages.push({ from, to, data: data.join('\n'), auth });
            for (const wake of this.#waiters.splice(0)) wake();
            socket.write('250 queued\r\n');
          } else {
            data.push(line.startsWith('..') ? line.slice(1) : line);
          }
          continue;
        }
        const verb = line.split(' ')[0]?.toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-test-smtp\r\n250 AUTH PLAIN\r\n');
        else if (verb === 'AUTH') {
          auth = Buffer.from(line.split(' ')[2] ?? '', 'base64').toString('utf8');
          socket.write('235 ok\r\n');
        } else if (verb === 'MAIL') {
          from = /<(.*)>/.exec(line)?.[1] ?? '';
          to = [];
          data = [];
          socket.write('250 ok\r\n');
        } else if (verb === 'RCPT') {
          to.push(/<(.*)>/.exec(line)?.[1] ?? '');
          socket.write('250 ok\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
        } else socket.write('500 unknown\r\n');
      }
    });
    socket.on('error', () => undefined);
  }
}
