import { ClientCore } from '../client-core.js';
import type { UploadResponse } from '../wire/index.js';

/**
 * Uploads and downloads of stored files (template archives).
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class FilesCalls extends ClientCore {
  /** Uploads a template archive (`application/x-tar` or `application/zip`); `created` is false when the same bytes were uploaded before. */
  async uploadFile(data: Uint8Array, contentType = 'application/x-tar'): Promise<{ readonly id: string; readonly created: boolean }> {
    const answer = await this.requestBytes('POST', '/files', { body: data, contentType });
    return { id: (JSON.parse(answer.body.toString('utf8')) as UploadResponse).hash, created: answer.status === 201 };
  }

  /** Downloads a file as stored (a tar), or converted to zip. */
  async downloadFile(id: string, format?: 'zip'): Promise<Buffer> {
    return (await this.requestBytes('GET', `/files/${encodeURIComponent(id)}`, { query: { format } })).body;
  }
}
