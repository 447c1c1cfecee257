import type { TemplateExample } from './template-example.js';

const readme = `# Local shell

A workspace that is a directory on the Cove host, with an agent running there as the provisioner's
user. Nothing else is needed: no Docker, no cloud account.

- **home** (\`directory\`): \`<base_dir>/<owner>/<workspace>\`. It survives a stop and is removed
  when the workspace is deleted.
- **shell** (\`process\`): the agent, started in that directory on start and ended on stop.

## Variables

| name | default | meaning |
|---|---|---|
| \`base_dir\` | \`~/.cove/workspaces\` | where workspace directories are created (\`~\` is the provisioner user's home) |

Every workspace runs as the same user as the provisioner, so use this template on a machine you
trust its users with.
`;

const template = `description: A shell in a directory of its own on the Cove host
icon: /icon/terminal.svg
variables:
  - name: base_dir
    description: Where workspace directories are created on the provisioner host
    default: ~/.cove/workspaces
resources:
  - name: home
    type: directory
    icon: /icon/folder.svg
    path: \${{ variables.base_dir }}/\${{ workspace.owner }}/\${{ workspace.name }}
  - name: shell
    type: process
    icon: /icon/terminal.svg
    agents:
      - name: main
        dir: \${{ resources.home.path }}
        display_apps: [web_terminal, ssh_helper, port_forwarding_helper]
    metadata:
      - key: directory
        value: \${{ resources.home.path }}
`;

/** One process on the host, in a directory that persists until the workspace is deleted. */
export const localShellExample: TemplateExample = {
  id: 'local-shell',
  name: 'Local shell',
  description: 'A shell in a directory of its own on the Cove host; needs nothing else installed',
  icon: '/icon/terminal.svg',
  tags: ['local', 'native'],
  markdown: readme,
  url: '',
  provisioner: 'native',
  files: {
    'README.md': readme,
    'template.yaml': template,
  },
};
