// A CodeMirror 6 editor for one template file, editable or read-only, highlighted by the file's
// name. Only the lazily loaded template version pages import it, so CodeMirror stays out of the
// first page's JavaScript.
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { bracketMatching, indentOnInput, StreamLanguage, syntaxHighlighting, type StreamParser } from '@codemirror/language';
import { dockerFile } from '@codemirror/legacy-modes/mode/dockerfile';
import { go } from '@codemirror/legacy-modes/mode/go';
import { python } from '@codemirror/legacy-modes/mode/python';
import { shell } from '@codemirror/legacy-modes/mode/shell';
import { toml } from '@codemirror/legacy-modes/mode/toml';
import { yaml } from '@codemirror/legacy-modes/mode/yaml';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { EditorState, type Extension } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import { useEffect, useRef } from 'react';
import { adoptInlineStyles, withInertStyleElements } from '../adopt-inline-styles.js';

/** Terraform's configuration language, enough to colour it: comments, strings, numbers, block keywords and attribute names. */
const hcl: StreamParser<{ inBlockComment: boolean }> = {
  name: 'hcl',
  startState: () => ({ inBlockComment: false }),
  token(stream, state) {
    if (state.inBlockComment) {
      if (stream.skipTo('*/')) {
        stream.pos += 2;
        state.inBlockComment = false;
      } else stream.skipToEnd();
      return 'comment';
    }
    if (stream.eatSpace()) return null;
    if (stream.match('/*')) {
      state.inBlockComment = true;
      return 'comment';
    }
    if (stream.match('#') || stream.match('//')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return 'string';
    if (stream.match(/^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/)) return 'number';
    if (stream.match(/^(?:true|false|null)\b/)) return 'atom';
    if (stream.match(/^(?:resource|data|variable|output|locals|module|provider|terraform|dynamic|for|in|if)\b/)) return 'keyword';
    if (stream.match(/^[A-Za-z_][\w-]*(?=\s*=(?!=))/)) return 'propertyName';
    if (stream.match(/^[A-Za-z_][\w-]*/)) return 'variableName';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '#', block: { open: '/*', close: '*/' } } },
};

/** The highlighting for a file, chosen by its name; none for names it does not know. */
export function languageFor(path: string): Extension {
  const name = path.split('/').pop()!.toLowerCase();
  const extension = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : '';
  if (['tf', 'tfvars', 'hcl'].includes(extension)) return StreamLanguage.define(hcl);
  if (extension === 'json') return json();
  if (extension === 'yaml' || extension === 'yml') return StreamLanguage.define(yaml);
  if (['sh', 'bash', 'zsh'].includes(extension)) return StreamLanguage.define(shell);
  if (extension === 'toml') return StreamLanguage.define(toml);
  if (extension === 'py') return StreamLanguage.define(python);
  if (extension === 'go') return StreamLanguage.define(go);
  if (name === 'dockerfile' || extension === 'dockerfile') return StreamLanguage.define(dockerFile);
  return [];
}

/**
 * The editor. `path` names the file (for highlighting and the editor's accessible name); `value`
 * is read when the editor is made, so give the component a `key` per file. Tab moves focus out,
 * as elsewhere on the page, rather than indenting.
 */
export function CodeEditor({
  path,
  value,
  readOnly = false,
  onChange,
}: {
  path: string;
  value: string;
  readOnly?: boolean;
  onChange?: (value: string) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    // CodeMirror writes its base theme into a <style> in the head, which the page's CSP refuses;
    // the same rules are applied as adopted style sheets instead.
    const unadopt = adoptInlineStyles(document.head);
    const state = EditorState.create({
      doc: value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        syntaxHighlighting(classHighlighter),
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap]),
        languageFor(path),
        EditorState.readOnly.of(readOnly),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({
          'aria-label': `${readOnly ? 'Contents' : 'Edit the contents'} of ${path}`,
          ...(readOnly ? { 'aria-readonly': 'true' } : {}),
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) changed.current?.(update.state.doc.toString());
        }),
      ],
    });
    const view = withInertStyleElements(() => new EditorView({ state, parent: element }));
    return () => {
      view.destroy();
      unadopt();
    };
    // Made once per file: the parent keys the component by file, and later values come from the editor itself.
  }, []);

  return <div ref={host} className="code-editor" data-path={path} />;
}
