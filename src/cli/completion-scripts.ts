import type { CommandNode, OptionNode } from './command-tree.js';

/** The shells `cove completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/**
 * One command of the tree, keyed by its path of canonical names (`cove templates versions`), the
 * way each script walks the words typed so far.
 */
interface PathEntry {
  readonly path: string;
  readonly node: CommandNode;
}

function entries(node: CommandNode, path = node.name): PathEntry[] {
  return [{ path, node }, ...node.subcommands.flatMap((sub) => entries(sub, `${path} ${sub.name}`))];
}

/** A word in single quotes for bash, zsh and fish alike. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Single quotes as fish reads them: only `\\'` and `\\\\` are escapes. */
function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

const flagsOf = (options: readonly OptionNode[]) => options.flatMap((option) => option.flags);
const valueFlagsOf = (options: readonly OptionNode[]) => options.filter((option) => option.takesValue).flatMap((option) => option.flags);

/** Name and alias of each subcommand, both leading to the name (`cove ls` → `list`). */
function nameMap(all: readonly PathEntry[]): [string, string][] {
  return all.flatMap(({ path, node }) =>
    node.subcommands.flatMap((sub) => [sub.name, ...sub.aliases].map((word): [string, string] => [`${path} ${word}`, sub.name])),
  );
}

function choiceMap(all: readonly PathEntry[]): [string, string][] {
  return all.flatMap(({ path, node }) =>
    node.options
      .filter((option) => option.choices.length > 0)
      .flatMap((option) => option.flags.map((flag): [string, string] => [`${path} ${flag}`, option.choices.join(' ')])),
  );
}

/** Lines of an associative array declaration, `[key]=value`. */
function assoc(name: string, pairs: readonly (readonly [string, string])[], declare: string): string {
  return [`${declare} ${name}=(`, ...pairs.map(([key, value]) => `  [${quote(key)}]=${quote(value)}`), ')'].join('\n');
}

/** The script for `shell`, made from the command tree. */
export function completionScript(shell: CompletionShell, tree: CommandNode): string {
  switch (shell) {
    case 'bash':
      return bashScript(tree);
    case 'zsh':
      return zshScript(tree);
    case 'fish':
      return fishScript(tree);
  }
}

function bashScript(tree: CommandNode): string {
  const all = entries(tree);
  return `# bash completion for cove, made by "cove completion bash" from its command table.
# Load it in ~/.bashrc:  source <(cove completion bash)
${assoc(
  '__cove_commands',
  all.map(({ path, node }) => [path, node.subcommands.map((sub) => sub.name).join(' ')]),
  'declare -gA',
)}
${assoc('__cove_names', nameMap(all), 'declare -gA')}
${assoc(
  '__cove_options',
  all.map(({ path, node }) => [path, flagsOf(node.options).join(' ')]),
  'declare -gA',
)}
${assoc(
  '__cove_value_options',
  all.map(({ path, node }) => [path, ` ${valueFlagsOf(node.options).join(' ')} `]),
  'declare -gA',
)}
${assoc('__cove_choices', choiceMap(all), 'declare -gA')}

_cove() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" cmdpath=${tree.name} word i
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for (( i = 1; i < COMP_CWORD; i++ )); do
    word="\${COMP_WORDS[i]}"
    if [[ "$word" == -* ]]; then
      # An option that takes a value takes the next word too, unless written --option=value.
      [[ "$word" != *=* && "\${__cove_value_options[$cmdpath]}" == *" $word "* ]] && (( i++ ))
      continue
    fi
    [[ -n "\${__cove_names[$cmdpath $word]}" ]] && cmdpath="$cmdpath \${__cove_names[$cmdpath $word]}"
  done
  if [[ "$prev" == -* && "\${__cove_value_options[$cmdpath]}" == *" $prev "* ]]; then
    local choices="\${__cove_choices[$cmdpath $prev]}"
    if [[ -n "$choices" ]]; then COMPREPLY=( $(compgen -W "$choices" -- "$cur") ); else COMPREPLY=(); compopt -o default 2>/dev/null; fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "\${__cove_options[$cmdpath]}" -- "$cur") )
  else
    COMPREPLY=( $(compgen -W "\${__cove_commands[$cmdpath]}" -- "$cur") )
  fi
  return 0
}
complete -o default -F _cove ${tree.name}
`;
}

function zshScript(tree: CommandNode): string {
  const all = entries(tree);
  // `_describe` reads `name:description`; a colon in a name would need escaping, and names have none.
  const described = (nodes: readonly CommandNode[]) => nodes.map((sub) => `${sub.name}:${sub.summary.replace(/\n/g, ' ')}`).join('\n');
  return `#compdef ${tree.name}
# zsh completion for cove, made by "cove completion zsh" from its command table.
# Load it in ~/.zshrc (after compinit):  source <(cove completion zsh)
${assoc(
  '__cove_commands',
  all.map(({ path, node }) => [path, described(node.subcommands)]),
  'typeset -gA',
)}
${assoc('__cove_names', nameMap(all), 'typeset -gA')}
${assoc(
  '__cove_options',
  all.map(({ path, node }) => [path, flagsOf(node.options).join(' ')]),
  'typeset -gA',
)}
${assoc(
  '__cove_value_options',
  all.map(({ path, node }) => [path, ` ${valueFlagsOf(node.options).join(' ')} `]),
  'typeset -gA',
)}
${assoc('__cove_choices', choiceMap(all), 'typeset -gA')}

_cove() {
  # Not "path": zsh ties it to PATH.
  local cmdpath=${tree.name} word i
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}"
  for (( i = 2; i < CURRENT; i++ )); do
    word="\${words[i]}"
    if [[ "$word" == -* ]]; then
      [[ "$word" != *=* && "\${__cove_value_options[$cmdpath]}" == *" $word "* ]] && (( i++ ))
      continue
    fi
    [[ -n "\${__cove_names[$cmdpath $word]}" ]] && cmdpath="$cmdpath \${__cove_names[$cmdpath $word]}"
  done
  if [[ "$prev" == -* && "\${__cove_value_options[$cmdpath]}" == *" $prev "* ]]; then
    local choices="\${__cove_choices[$cmdpath $prev]}"
    if [[ -n "$choices" ]]; then compadd -- \${=choices}; else _files; fi
    return
  fi
  if [[ "$cur" == -* ]]; then
    compadd -- \${=__cove_options[$cmdpath]}
    return
  fi
  local -a described
  described=( "\${(@f)__cove_commands[$cmdpath]}" )
  if [[ -n "\${__cove_commands[$cmdpath]}" ]]; then _describe -t commands 'cove command' described; else _files; fi
}
compdef _cove ${tree.name}
`;
}

function fishScript(tree: CommandNode): string {
  const all = entries(tree);
  const cases = (pairs: readonly (readonly [string, string])[]) =>
    pairs.map(([key, value]) => `        case ${fishQuote(key)}\n            echo ${fishQuote(value)}`).join('\n');
  const lines: string[] = [];
  for (const { path, node } of all) {
    const at = `-n ${fishQuote(`__cove_at ${quote(path)}`)}`;
    for (const sub of node.subcommands)
      lines.push(`complete -c ${tree.name} -f ${at} -a ${fishQuote(sub.name)} -d ${fishQuote(sub.summary)}`);
    for (const option of node.options) {
      const names = option.flags.map((flag) =>
        flag.startsWith('--') ? `-l ${fishQuote(flag.slice(2))}` : `-s ${fishQuote(flag.slice(1))}`,
      );
      const value = option.takesValue ? (option.choices.length > 0 ? ` -x -a ${fishQuote(option.choices.join(' '))}` : ' -r') : '';
      lines.push(`complete -c ${tree.name} ${at} ${names.join(' ')}${value} -d ${fishQuote(option.description)}`);
    }
  }
  return `# fish completion for cove, made by "cove completion fish" from its command table.
# Load it:  cove completion fish > ~/.config/fish/completions/cove.fish
function __cove_name
    switch "$argv[1] $argv[2]"
${cases(nameMap(all))}
    end
end

function __cove_value_options
    switch "$argv[1]"
${cases(all.map(({ path, node }) => [path, valueFlagsOf(node.options).join(' ')]))}
    end
end

# The path of command names typed so far, e.g. "cove templates versions".
function __cove_path
    set -l words (commandline -opc)
    set -l cmdpath ${tree.name}
    set -l skip 0
    for word in $words[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $word
            if not string match -q -- '*=*' $word; and contains -- $word (string split -- ' ' (__cove_value_options $cmdpath))
                set skip 1
            end
            continue
        end
        set -l name (__cove_name $cmdpath $word)
        if test -n "$name"
            set cmdpath "$cmdpath $name"
        end
    end
    echo $cmdpath
end

function __cove_at
    test (__cove_path) = "$argv[1]"
end

complete -c ${tree.name} -e
${lines.join('\n')}
`;
}
