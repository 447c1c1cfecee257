import type { TemplateExample } from './template-example.js';

const readme = `# VM through hook scripts

A workspace in a virtual machine that hook scripts create, start, stop and delete. The scripts
here use [Multipass](https://multipass.run); replace them to drive anything else (libvirt, a cloud
CLI, a remote host over SSH): Cove only runs them.

| hook | runs on | here it |
|---|---|---|
| \`hooks/create.sh\` | the first start | launches the VM |
| \`hooks/start.sh\` | every start | boots the VM and starts the agent in it |
| \`hooks/stop.sh\` | stop | shuts the VM down (its disk stays) |
| \`hooks/delete.sh\` | delete | deletes and purges the VM |

Each hook runs on the provisioner host with, in its environment, \`COVE_AGENT_URL\`,
\`COVE_AGENT_TOKEN\` and \`COVE_AGENT_INIT\` (a shell script that fetches and runs the agent),
\`COVE_WORKSPACE_ID\`, \`COVE_WORKSPACE_NAME\`, \`COVE_WORKSPACE_OWNER\`, \`COVE_TRANSITION\`, and the
resource's \`env\` (\`VM_NAME\`, \`VM_CPUS\`, \`VM_MEMORY\` and \`VM_DISK\` here). A hook that exits
non-zero fails the build.

## Parameters

| name | default | meaning |
|---|---|---|
| \`cpus\` | 2 | virtual CPUs, set when the VM is created |
| \`memory\` | 4 | memory in GiB, set when the VM is created |
| \`disk\` | 20 | disk size in GiB, set when the VM is created |
`;

const template = `description: A virtual machine driven by hook scripts (Multipass by default)
icon: /icon/vm.svg
parameters:
  - name: cpus
    display_name: CPUs
    type: number
    default: 2
    validation: { min: 1, max: 16 }
  - name: memory
    display_name: Memory (GiB)
    type: number
    default: 4
    validation: { min: 1, max: 64 }
  - name: disk
    display_name: Disk (GiB)
    type: number
    default: 20
    validation: { min: 5, max: 500 }
resources:
  - name: vm
    type: hook
    icon: /icon/vm.svg
    create: hooks/create.sh
    start: hooks/start.sh
    stop: hooks/stop.sh
    delete: hooks/delete.sh
    env:
      VM_NAME: cove-\${{ workspace.id }}
      VM_CPUS: "\${{ parameters.cpus }}"
      VM_MEMORY: "\${{ parameters.memory }}G"
      VM_DISK: "\${{ parameters.disk }}G"
    agents:
      - name: main
        os: linux
        dir: /home/ubuntu
        display_apps: [web_terminal, ssh_helper, port_forwarding_helper]
    metadata:
      - { key: cpus, value: "\${{ parameters.cpus }}" }
      - { key: memory, value: "\${{ parameters.memory }} GiB" }
      - { key: disk, value: "\${{ parameters.disk }} GiB" }
`;

const create = `#!/bin/sh
# Creates the VM once; later starts find it and do nothing.
set -eu
if multipass info "$VM_NAME" >/dev/null 2>&1; then
  echo "VM $VM_NAME exists"
  exit 0
fi
multipass launch --name "$VM_NAME" --cpus "$VM_CPUS" --memory "$VM_MEMORY" --disk "$VM_DISK" 24.04
`;

const start = `#!/bin/sh
# Boots the VM and starts the Cove agent in it with this build's token.
set -eu
multipass start "$VM_NAME"
printf 'COVE_AGENT_URL=%s\\nCOVE_AGENT_TOKEN=%s\\n' "$COVE_AGENT_URL" "$COVE_AGENT_TOKEN" |
  multipass exec "$VM_NAME" -- sh -c 'umask 077; cat > "$HOME/.cove-agent.env"'
printf '%s\\n' "$COVE_AGENT_INIT" | multipass exec "$VM_NAME" -- sh -c 'cat > "$HOME/.cove-agent-init.sh"'
multipass exec "$VM_NAME" -- sh -c 'set -a; . "$HOME/.cove-agent.env"; set +a; nohup sh "$HOME/.cove-agent-init.sh" >"$HOME/.cove-agent.log" 2>&1 &'
`;

const stop = `#!/bin/sh
# Shuts the VM down; its disk stays for the next start.
set -eu
if multipass info "$VM_NAME" >/dev/null 2>&1; then
  multipass stop "$VM_NAME"
fi
`;

const remove = `#!/bin/sh
# Deletes the VM and its disk.
set -eu
if multipass info "$VM_NAME" >/dev/null 2>&1; then
  multipass delete --purge "$VM_NAME"
fi
`;

/** A VM per workspace, made and run by four hook scripts. */
export const vmHooksExample: TemplateExample = {
  id: 'vm-hooks',
  name: 'VM through hook scripts',
  description: 'A virtual machine created, started, stopped and deleted by hook scripts (Multipass by default)',
  icon: '/icon/vm.svg',
  tags: ['vm', 'hooks', 'multipass'],
  markdown: readme,
  url: '',
  provisioner: 'native',
  files: {
    'README.md': readme,
    'template.yaml': template,
    'hooks/create.sh': { content: create, mode: 0o755 },
    'hooks/start.sh': { content: start, mode: 0o755 },
    'hooks/stop.sh': { content: stop, mode: 0o755 },
    'hooks/delete.sh': { content: remove, mode: 0o755 },
  },
};
