// The template editor: a version's files opened in CodeMirror, to change, add, rename and delete,
// then built into a new version of the template and published.
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { CodeEditor } from '../components/code-editor.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorMessage, Loading } from '../components/feedback.js';
import { Link, navigate } from '../router.js';
import {
  ArchiveRefused,
  bytesOf,
  MAX_ARCHIVE_BYTES,
  MAX_ARCHIVE_FILES,
  normalizePath,
  pathProblem,
  textOf,
  writeTemplateArchive,
  type TemplateArchive,
} from '../template-archive.js';
import { BuildPanel } from './template-version-build.js';
import { FileTree, firstFile, useTemplateVersion, type LoadedVersion } from './template-version-files.js';

/** A file as it is being edited: its text when it is text (binary files are kept as they came). */
interface EditedFile {
  readonly path: string;
  readonly mode: number;
  readonly data: Uint8Array;
  readonly text: string | undefined;
}

export function TemplateVersionEditorPage({ template, version }: { template: string; version: string }) {
  const { data, error } = useTemplateVersion(template, version);
  const templatePath = `/templates/${encodeURIComponent(template)}`;
  return (
    <section className="page page-editor">
      <p className="breadcrumb">
        <Link href="/templates">Templates</Link> / <Link href={templatePath}>{template}</Link> /{' '}
        <Link href={`${templatePath}/versions/${encodeURIComponent(version)}`}>{version}</Link> / Edit
      </p>
      {!data ? (
        <Loading error={error} />
      ) : data.archiveError ? (
        <>
          <h1>Edit {template}</h1>
          <ErrorMessage error={data.archiveError} />
        </>
      ) : !data.archive ? (
        <Loading error={undefined}>Reading the files…</Loading>
      ) : (
        <Editor key={data.version.id} loaded={data} archive={data.archive} />
      )}
    </section>
  );
}

const LEAVE_QUESTION = 'Your changes are not published. Leave the editor and lose them?';

/** Warns before the page is left (closed, reloaded, or a link of the page followed) while `dirty` holds. */
function useLeaveWarning(dirty: boolean): { current: boolean } {
  const warn = useRef(dirty);
  warn.current = dirty;
  useEffect(() => {
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (!warn.current) return;
      event.preventDefault();
      event.returnValue = '';
    };
    // Before the router's links see the click (capture on the document runs first).
    const click = (event: MouseEvent) => {
      if (!warn.current || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
      const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
      if (!link || (link.getAttribute('target') ?? '_self') !== '_self') return;
      if (!window.confirm(LEAVE_QUESTION)) {
        event.preventDefault();
        event.stopPropagation();
      }
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, []);
  return warn;
}

function Editor({ loaded, archive }: { loaded: LoadedVersion; archive: TemplateArchive }) {
  const [files, setFiles] = useState<EditedFile[]>(() => archive.files.map((file) => ({ ...file, text: textOf(file.data) })));
  const [selected, setSelected] = useState(() => firstFile(archive.files.map((file) => file.path)));
  // Each change counts up, so a build knows whether the files are still the ones it packed.
  const [revision, setRevision] = useState(0);
  const [dirty, setDirty] = useState(false);
  const warning = useLeaveWarning(dirty);
  const changed = () => {
    setRevision((count) => count + 1);
    setDirty(true);
  };

  const paths = files.map((file) => file.path);
  const file = files.find((candidate) => candidate.path === selected);
  const edit = useCallback((path: string, text: string) => {
    setFiles((current) => current.map((candidate) => (candidate.path === path ? { ...candidate, text } : candidate)));
    setRevision((count) => count + 1);
    setDirty(true);
  }, []);

  const pack = useCallback(async (): Promise<Uint8Array> => {
    if (files.length > MAX_ARCHIVE_FILES) throw new ArchiveRefused(`A template built here holds at most ${MAX_ARCHIVE_FILES} files.`);
    const tar = await writeTemplateArchive(
      files.map((candidate) => ({
        path: candidate.path,
        mode: candidate.mode,
        data: candidate.text === undefined ? candidate.data : bytesOf(candidate.text),
      })),
    );
    if (tar.length > MAX_ARCHIVE_BYTES)
      throw new ArchiveRefused(`The files take more than the ${MAX_ARCHIVE_BYTES / 1024 / 1024} MiB a template built here may hold.`);
    return tar;
  }, [files]);

  const published = (name: string) => {
    // Nothing is left to lose: the navigation that follows must not ask.
    warning.current = false;
    setDirty(false);
    navigate(`/templates/${encodeURIComponent(loaded.template.name)}/versions/${encodeURIComponent(name)}`);
  };

  return (
    <>
      <div className="page-header">
        <div>
          <h1>Edit {loaded.template.display_name || loaded.template.name}</h1>
          <p className="muted">
            Starting from version {loaded.version.name}.{' '}
            {dirty ? <strong className="unpublished">Unpublished changes.</strong> : 'No changes yet.'}
          </p>
        </div>
      </div>
      {archive.skipped.length > 0 && (
        <p className="notice notice-warn">
          Left out, and not part of a new build (links and other entries that are not files): {archive.skipped.join(', ')}
        </p>
      )}
      <div className="template-editor">
        <aside className="template-editor-files">
          <FileTree paths={paths} selected={selected} onSelect={setSelected} />
          <FileActions
            key={selected ?? ''}
            paths={paths}
            selected={selected}
            onAdd={(path) => {
              setFiles((current) => [...current, { path, mode: 0o644, data: new Uint8Array(0), text: '' }]);
              setSelected(path);
              changed();
            }}
            onRename={(from, to) => {
              setFiles((current) => current.map((candidate) => (candidate.path === from ? { ...candidate, path: to } : candidate)));
              setSelected(to);
              changed();
            }}
            onDelete={(path) => {
              const rest = paths.filter((candidate) => candidate !== path);
              setFiles((current) => current.filter((candidate) => candidate.path !== path));
              setSelected(firstFile(rest));
              changed();
            }}
          />
        </aside>
        <div className="template-editor-main">
          {!file ? (
            <p className="muted">Add a file to start.</p>
          ) : (
            <>
              <h2 className="file-view-path">{file.path}</h2>
              {file.text === undefined ? (
                <p className="muted">
                  A binary file of {file.data.length.toLocaleString()} bytes: it is kept as it is and cannot be edited here.
                </p>
              ) : (
                <CodeEditor key={file.path} path={file.path} value={file.text} onChange={(text) => edit(file.path, text)} />
              )}
            </>
          )}
        </div>
      </div>
      <BuildPanel loaded={loaded} revision={revision} pack={pack} onPublished={published} />
    </>
  );
}

/** Adding, renaming and deleting files: each opens a small form in place. */
function FileActions({
  paths,
  selected,
  onAdd,
  onRename,
  onDelete,
}: {
  paths: readonly string[];
  selected: string | undefined;
  onAdd: (path: string) => void;
  onRename: (from: string, to: string) => void;
  onDelete: (path: string) => void;
}) {
  const [form, setForm] = useState<'add' | 'rename'>();
  const [path, setPath] = useState('');
  const [problem, setProblem] = useState<string>();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (form) input.current?.focus();
  }, [form]);

  const open = (kind: 'add' | 'rename') => {
    setForm(kind);
    setPath(kind === 'rename' ? (selected ?? '') : '');
    setProblem(undefined);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const others = form === 'rename' ? paths.filter((candidate) => candidate !== selected) : paths;
    const found =
      pathProblem(path, others) ??
      (form === 'add' && paths.length >= MAX_ARCHIVE_FILES
        ? `A template edited here holds at most ${MAX_ARCHIVE_FILES} files.`
        : undefined);
    if (found) {
      setProblem(found);
      return;
    }
    const normalized = normalizePath(path.trim());
    if (form === 'add') onAdd(normalized);
    else if (selected) onRename(selected, normalized);
    setForm(undefined);
  };

  return (
    <div className="file-actions">
      {form ? (
        <form onSubmit={submit} className="file-action-form" noValidate>
          <label htmlFor="file-action-path">{form === 'add' ? 'Path of the new file' : `New path of ${selected}`}</label>
          <input
            id="file-action-path"
            ref={input}
            value={path}
            onChange={(event) => setPath(event.target.value)}
            placeholder="scripts/start.sh"
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'file-action-problem' : undefined}
            onKeyDown={(event) => {
              if (event.key === 'Escape') setForm(undefined);
            }}
          />
          {problem && (
            <p id="file-action-problem" className="field-problem" role="alert">
              {problem}
            </p>
          )}
          <div className="file-action-buttons">
            <button type="submit" className="button button-primary">
              {form === 'add' ? 'Add file' : 'Rename'}
            </button>
            <button type="button" className="button" onClick={() => setForm(undefined)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div className="file-action-buttons">
          <button type="button" className="button" onClick={() => open('add')}>
            New file
          </button>
          {selected && (
            <>
              <button type="button" className="button" onClick={() => open('rename')}>
                Rename
              </button>
              <ConfirmButton
                label="Delete"
                question={`Delete ${selected}?`}
                confirmLabel="Delete"
                danger
                onConfirm={() => onDelete(selected)}
              />
            </>
          )}
        </div>
      )}
    </div>
  );
}
