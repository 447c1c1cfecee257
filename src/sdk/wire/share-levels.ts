/**
 * Who may reach a shared port or app, from narrowest to widest: a template's maximum caps what its
 * workspaces may share. The order is the rule; `ShareLevel` (provisioner-protocol.ts) is its type.
 * This file imports nothing, so every layer, the domain included, may load it.
 */
export const SHARE_LEVELS = ['owner', 'organization', 'authenticated', 'public'] as const;
