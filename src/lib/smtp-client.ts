import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';

/** Where and how to deliver mail. */
export interface SmtpSettings {
  /** `host:port`; the port defaults to 25 (465 with `forceTls`). */
  readonly host: string;
  readonly from: string;
  readonly username?: string;
  readonly password?: string;
  /** TLS from the first byte (SMTPS) instead of STARTTLS when the server offers it. */
  readonly forceTls?: boolean;
  /** Also used as the EHLO name. */
  readonly helloName?: string;
  readonly timeoutMs?: number;
}

/** One plain-text message. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** A failure to deliver, with the server's answer when there was one. */
export class SmtpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SmtpError';
  }
}

interface Reply {
  readonly code: number;
  readonly lines: readonly string[];
}

/**
 * Delivers one message over SMTP: EHLO, STARTTLS when offered, AUTH PLAIN when a user name is set,
 * then MAIL, RCPT and DATA. Written for the handful of mails the daemon sends, not for bulk mail.
 */
export async function sendMail(settings: SmtpSettings, message: MailMessage): Promise<void> {
  const [host, port] = splitHost(settings.host, settings.forceTls ? 465 : 25);
  const timeoutMs = settings.timeoutMs ?? 10_000;
  let conversation = await SmtpConversation.open(
    settings.forceTls ? connectTls({ host, port, servername: host }) : connectTcp({ host, port }),
    timeoutMs,
  );
  try {
    await conversation.expect(220);
    const hello = settings.helloName ?? 'localhost';
    let features = await conversation.command(`EHLO ${hello}`, 250);
    if (!settings.forceTls && features.lines.some((line) => /^STARTTLS\b/i.test(line))) {
      await conversation.command('STARTTLS', 220);
      conversation = await SmtpConversation.open(connectTls({ socket: conversation.socket, servername: host }), timeoutMs);
      features = await conversation.command(`EHLO ${hello}`, 250);
    }
    if (settings.username) {
      const credentials = Buffer.from(`\0${settings.username}\0${settings.password ?? ''}`).toString('base64');
      await conversation.command(`AUTH PLAIN ${credentials}`, 235);
    }
    await conversation.command(`MAIL FROM:<${settings.from}>`, 250);
    await conversation.command(`RCPT TO:<${message.to}>`, [250, 251]);
    await conversation.command('DATA', 354);
    await conversation.command(`${formatMessage(settings.from, message)}\r\n.`, 250);
    await conversation.command('QUIT', 221).catch(() => undefined);
  } finally {
    conversation.socket.destroy();
  }
}

function splitHost(hostPort: string, defaultPort: number): [string, number] {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostPort.trim());
  if (!match?.[1]) throw new SmtpError(`"${hostPort}" is not a host:port`);
  return [match[1].replace(/^\[|\]$/g, ''), match[2] ? Number(match[2]) : defaultPort];
}

function formatMessage(from: string, message: MailMessage): string {
  const headers = [
    `From: ${from}`,
    `To: ${message.to}`,
    `Subject: ${message.subject.replace(/[\r\n]+/g, ' ')}`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  // A line that starts with a dot would otherwise end the DATA section early.
  const body = message.text.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

/** Reads SMTP replies off a socket, one complete (possibly multi-line) reply at a time. */
class SmtpConversation {
  #buffer = '';
  #replies: Reply[] = [];
  #pendingLines: string[] = [];
  #waiter: ((reply: Reply | Error) => void) | undefined;
  #failure: Error | undefined;

  private constructor(
    readonly socket: Socket | TLSSocket,
    private readonly timeoutMs: number,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.#receive(chunk));
    socket.on('error', (error) => this.#fail(new SmtpError(`SMTP connection failed: ${error.message}`)));
    socket.on('close', () => this.#fail(new SmtpError('SMTP server closed the connection')));
  }

  static open(socket: Socket | TLSSocket, timeoutMs: number): Promise<SmtpConversation> {
    const conversation = new SmtpConversation(socket, timeoutMs);
    const ready = 'encrypted' in socket && socket.encrypted ? 'secureConnect' : 'connect';
    if (!socket.connecting && ready === 'connect') return Promise.resolve(conversation);
    return new Promise((resolve, reject) => {
      socket.once(ready, () => resolve(conversation));
      socket.once('error', (error) => reject(new SmtpError(`cannot reach the SMTP server: ${error.message}`)));
    });
  }

  async command(line: string, expected: number | readonly number[]): Promise<Reply> {
    this.socket.write(`${line}\r\n`);
    return this.expect(expected, line.split(' ')[0] ?? line);
  }

  async expect(expected: number | readonly number[], after = 'connecting'): Promise<Reply> {
    const reply = await this.#next();
    const codes = typeof expected === 'number' ? [expected] : expected;
    if (!codes.includes(reply.code)) {
      throw new SmtpError(`SMTP server answered ${reply.code} ${reply.lines.join(' ')} after ${after}`);
    }
    return reply;
  }

  #next(): Promise<Reply> {
    const queued = this.#replies.shift();
    if (queued) return Promise.resolve(queued);
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.#fail(new SmtpError('SMTP server did not answer in time')), this.timeoutMs);
      this.#waiter = (reply) => {
        clearTimeout(timer);
        this.#waiter = undefined;
        if (reply instanceof Error) reject(reply);
        else resolve(reply);
      };
    });
  }

  #receive(chunk: string): void {
    this.#buffer += chunk;
    for (let end = this.#buffer.indexOf('\r\n'); end >= 0; end = this.#buffer.indexOf('\r\n')) {
      const line = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      this.#pendingLines.push(line.slice(4));
      // "250-" continues a reply, "250 " ends it.
      if (line.charAt(3) === '-') continue;
      const reply = { code: Number(line.slice(0, 3)), lines: this.#pendingLines };
      this.#pendingLines = [];
      if (this.#waiter) this.#waiter(reply);
      else this.#replies.push(reply);
    }
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#waiter?.(error);
  }
}
