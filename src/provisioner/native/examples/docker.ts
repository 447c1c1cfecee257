import type { TemplateExample } from './template-example.js';

const readme = `# Docker

A workspace in a Docker container on the Cove host, through the \`docker\` CLI. The agent binary is
mounted into the container; the image only needs a glibc-based Linux with \`/bin/sh\`.

- The container is created on start and removed on stop. It runs on the host network, with the
  workspace's name as its host name.
- \`/home/cove\` is a Docker volume named after the workspace: it survives stops and is removed
  when the workspace is deleted.

## Parameters

| name | default | meaning |
|---|---|---|
| \`image\` | \`ubuntu:24.04\` | the container image |
`;

const template = `description: A workspace in a Docker container on the Cove host
icon: /icon/docker.svg
parameters:
  - name: image
    display_name: Image
    description: The container image; it needs a glibc-based Linux with /bin/sh
    type: string
    default: ubuntu:24.04
    mutable: true
    options:
      - { name: Ubuntu 24.04, value: "ubuntu:24.04", icon: /icon/ubuntu.svg }
      - { name: Debian 12, value: "debian:12", icon: /icon/debian.svg }
      - { name: Fedora 41, value: "fedora:41", icon: /icon/fedora.svg }
resources:
  - name: dev
    type: docker
    icon: /icon/docker.svg
    image: \${{ parameters.image }}
    volumes:
      - cove-\${{ workspace.id }}-home:/home/cove
    env:
      HOME: /home/cove
    agents:
      - name: main
        dir: /home/cove
        os: linux
        display_apps: [web_terminal, ssh_helper, port_forwarding_helper]
    metadata:
      - { key: image, value: "\${{ parameters.image }}" }
`;

/** A container per workspace, with a volume for the home directory. */
export const dockerExample: TemplateExample = {
  id: 'docker',
  name: 'Docker',
  description: 'A workspace in a Docker container on the Cove host',
  icon: '/icon/docker.svg',
  tags: ['local', 'docker'],
  markdown: readme,
  url: '',
  provisioner: 'native',
  files: {
    'README.md': readme,
    'template.yaml': template,
  },
};
