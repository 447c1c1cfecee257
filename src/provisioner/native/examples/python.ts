import type { TemplateExample } from './template-example.js';

const readme = `# Python

A Python workspace on the Cove host: a directory of its own, a virtual environment made on first
start with the chosen Python version, and JupyterLab as an app.

## Parameters

| name | default | meaning |
|---|---|---|
| \`python\` | \`3.12\` | the Python version of the virtual environment (falls back to \`python3\` when that version is not installed) |
| \`cpus\` | \`2\` | threads numeric libraries may use (\`OMP_NUM_THREADS\`); may only grow |

The **Small** preset sets \`cpus\` to 1.

## Variables

| name | default | meaning |
|---|---|---|
| \`base_dir\` | \`~/.cove/workspaces\` | where workspace directories are created |

\`install.sh\` runs on every start, before login: it creates \`.venv\` when missing, installs
JupyterLab into it and starts it on port 8888.
`;

const template = `description: Python workspace on this host
icon: /icon/python.svg
variables:
  - name: base_dir
    description: Where workspace directories are created on the provisioner host
    default: ~/.cove/workspaces
parameters:
  - name: python
    display_name: Python version
    type: string
    default: "3.12"
    mutable: true
    options:
      - { name: "3.11", value: "3.11" }
      - { name: "3.12", value: "3.12" }
      - { name: "3.13", value: "3.13" }
  - name: cpus
    display_name: CPUs
    description: Threads numeric libraries may use
    type: number
    default: 2
    mutable: true
    validation: { min: 1, max: 8, monotonic: increasing }
presets:
  - { name: Small, default: true, parameters: { cpus: "1" } }
resources:
  - name: home
    type: directory
    icon: /icon/folder.svg
    path: \${{ variables.base_dir }}/\${{ workspace.owner }}/\${{ workspace.name }}
  - name: dev
    type: process
    icon: /icon/python.svg
    agents:
      - name: main
        dir: \${{ resources.home.path }}
        env:
          PYTHON_VERSION: "\${{ parameters.python }}"
          OMP_NUM_THREADS: "\${{ parameters.cpus }}"
        connection_timeout: 120
        display_apps: [web_terminal, ssh_helper, port_forwarding_helper]
        scripts:
          - display_name: Install tools
            script: ./install.sh
            run_on_start: true
            start_blocks_login: true
            timeout: 300
        apps:
          - slug: notebook
            display_name: Notebook
            icon: /icon/jupyter.svg
            # Jupyter serves under the path the deployment proxies it at (see install.sh).
            url: http://localhost:8888/@\${{ workspace.owner }}/\${{ workspace.name }}.main/apps/notebook
            share: owner
            healthcheck: { url: "http://localhost:8888/", interval: 5, threshold: 6 }
    metadata:
      - { key: python, value: "\${{ parameters.python }}" }
      - { key: cpus, value: "\${{ parameters.cpus }}" }
`;

const install = `#!/bin/sh
# Runs in the workspace directory on every start; login waits for it.
set -eu

if command -v "python$PYTHON_VERSION" >/dev/null 2>&1; then
  python="python$PYTHON_VERSION"
else
  echo "python$PYTHON_VERSION is not installed; using python3"
  python=python3
fi

if [ ! -d .venv ]; then
  "$python" -m venv .venv
fi
. .venv/bin/activate
pip install --quiet --upgrade pip jupyterlab

if ! curl -fsS -o /dev/null http://localhost:8888/ 2>&1; then
  # Served at /@owner/workspace.agent/apps/notebook/ through the deployment: Jupyter must know its path.
  base_url="/@$COVE_WORKSPACE_OWNER_NAME/$COVE_WORKSPACE_NAME.$COVE_WORKSPACE_AGENT_NAME/apps/notebook/"
  nohup jupyter lab --no-browser --port 8888 --ServerApp.token='' --ServerApp.base_url="$base_url" >.jupyter.log 2>&1 &
fi
`;

/** A directory with a Python virtual environment and JupyterLab, on the host. */
export const pythonExample: TemplateExample = {
  id: 'python',
  name: 'Python',
  description: 'Python with a virtual environment and JupyterLab, on the Cove host',
  icon: '/icon/python.svg',
  tags: ['local', 'native', 'python'],
  markdown: readme,
  url: '',
  provisioner: 'native',
  files: {
    'README.md': readme,
    'template.yaml': template,
    'install.sh': { content: install, mode: 0o755 },
  },
};
