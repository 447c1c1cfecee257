// What the template version pages share: loading a version with its template and its files, and
// the tree the files are picked from.
import { useEffect, useState } from 'react';
import type { Response as WireResponse, Template, TemplateVersion } from '../../sdk/wire/index.js';
import { api, ApiError, apiUrl, SIGNED_OUT } from '../api.js';
import { useSession } from '../session.js';
import { readTemplateArchive, type TemplateArchive } from '../template-archive.js';

/**
 * Sends a request whose body or answer is bytes (a template archive), with the API's errors as
 * ApiError. Kept here rather than in api.ts so that only the pages that use files load it.
 */
async function fileRequest(method: string, path: string, body?: Uint8Array): Promise<globalThis.Response> {
  let response: globalThis.Response;
  try {
    response = await fetch(apiUrl(path), {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/x-tar' },
      ...(body === undefined ? {} : { body: new Blob([body as Uint8Array<ArrayBuffer>]) }),
    });
  } catch {
    throw new ApiError(0, { message: 'The server could not be reached.', detail: 'Check your connection and that the deployment is up.' });
  }
  if (!response.ok) {
    let answer: Partial<WireResponse>;
    try {
      answer = JSON.parse(await response.text()) as WireResponse;
    } catch {
      answer = { message: `The server answered ${response.status} ${response.statusText}.` };
    }
    if (response.status === 401) window.dispatchEvent(new Event(SIGNED_OUT));
    throw new ApiError(response.status, answer);
  }
  return response;
}

/** Downloads a stored file (a template version's archive) as it is stored. */
export async function downloadFile(id: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fileRequest('GET', `/files/${encodeURIComponent(id)}`)).arrayBuffer());
}

/** Uploads a tar archive and gives the id it is stored under. */
export async function uploadTar(tar: Uint8Array): Promise<string> {
  return ((await (await fileRequest('POST', '/files', tar)).json()) as { hash: string }).hash;
}

/** A version, its template, and (once read, or why not) its files. */
export interface LoadedVersion {
  readonly organization: string;
  readonly template: Template;
  readonly version: TemplateVersion;
  readonly archive: TemplateArchive | undefined;
  readonly archiveError: unknown;
}

/** Loads the version `versionName` of the template `templateName` in the user's organization, then reads its archive. */
export function useTemplateVersion(templateName: string, versionName: string): { data: LoadedVersion | undefined; error: unknown } {
  const { user } = useSession();
  const organization = user.organization_ids[0] ?? 'default';
  const [data, setData] = useState<LoadedVersion>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let current = true;
    setData(undefined);
    setError(undefined);
    const base = `/organizations/${encodeURIComponent(organization)}/templates/${encodeURIComponent(templateName)}`;
    void (async () => {
      try {
        const [template, version] = await Promise.all([
          api<Template>('GET', base),
          api<TemplateVersion>('GET', `${base}/versions/${encodeURIComponent(versionName)}`),
        ]);
        if (!current) return;
        // The details show while the files download and are read.
        setData({ organization, template, version, archive: undefined, archiveError: undefined });
        try {
          const archive = await readTemplateArchive(await downloadFile(version.job.file_id));
          if (current) setData({ organization, template, version, archive, archiveError: undefined });
        } catch (failure) {
          if (current) setData({ organization, template, version, archive: undefined, archiveError: failure });
        }
      } catch (failure) {
        if (current) setError(failure);
      }
    })();
    return () => {
      current = false;
    };
  }, [organization, templateName, versionName]);
  return { data, error };
}

interface Directory {
  readonly name: string;
  readonly directories: Map<string, Directory>;
  readonly files: string[];
}

function treeOf(paths: readonly string[]): Directory {
  const root: Directory = { name: '', directories: new Map(), files: [] };
  for (const path of paths) {
    const parts = path.split('/');
    let directory = root;
    for (const part of parts.slice(0, -1)) {
      let next = directory.directories.get(part);
      if (!next) {
        next = { name: part, directories: new Map(), files: [] };
        directory.directories.set(part, next);
      }
      directory = next;
    }
    directory.files.push(path);
  }
  return root;
}

/** The files as a tree of directories; each file is a button that selects it. */
export function FileTree({
  paths,
  selected,
  onSelect,
}: {
  paths: readonly string[];
  selected: string | undefined;
  onSelect: (path: string) => void;
}) {
  return (
    <nav className="file-tree" aria-label="Files">
      {paths.length === 0 ? (
        <p className="muted">No files.</p>
      ) : (
        <DirectoryList directory={treeOf(paths)} selected={selected} onSelect={onSelect} />
      )}
    </nav>
  );
}

function DirectoryList({
  directory,
  selected,
  onSelect,
}: {
  directory: Directory;
  selected: string | undefined;
  onSelect: (path: string) => void;
}) {
  const directories = [...directory.directories.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <ul>
      {directories.map((child) => (
        <li key={`dir:${child.name}`}>
          <span className="file-tree-directory">{child.name}/</span>
          <DirectoryList directory={child} selected={selected} onSelect={onSelect} />
        </li>
      ))}
      {[...directory.files].sort().map((path) => (
        <li key={path}>
          <button
            type="button"
            className="file-tree-file"
            aria-current={path === selected ? 'true' : undefined}
            data-path={path}
            onClick={() => onSelect(path)}
          >
            {path.split('/').pop()}
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The path to open first: the main configuration file if there is one, else the first file. */
export function firstFile(paths: readonly string[]): string | undefined {
  const preferred = ['main.tf', 'template.yaml', 'template.yml', 'echo.json', 'README.md'];
  return preferred.find((path) => paths.includes(path)) ?? paths[0];
}
