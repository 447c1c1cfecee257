import type { ExternalAuthProvider } from '../../domain/external-auth/external-auth-provider.js';
import { regexText } from '../../domain/external-auth/match-provider.js';
import type { ExternalAuthConfig } from '../../sdk/wire/index.js';

/**
 * A configured provider as the reference's deployment config shows it: every setting but the
 * client secret and the extra token keys, which its JSON leaves out. Cove has no MCP settings;
 * their fields are sent empty.
 */
export function toWireExternalAuthConfig(provider: ExternalAuthProvider): ExternalAuthConfig {
  return {
    type: provider.type,
    client_id: provider.clientId,
    id: provider.id,
    auth_url: provider.authUrl,
    token_url: provider.tokenUrl,
    validate_url: provider.validateUrl,
    revoke_url: provider.revokeUrl,
    app_install_url: provider.appInstallUrl,
    app_installations_url: provider.appInstallationsUrl,
    no_refresh: provider.noRefresh,
    scopes: [...provider.scopes],
    device_flow: provider.deviceFlow,
    device_code_url: provider.deviceCodeUrl,
    mcp_url: '',
    mcp_tool_allow_regex: '',
    mcp_tool_deny_regex: '',
    regex: regexText(provider),
    display_name: provider.displayName,
    display_icon: provider.displayIcon,
    code_challenge_methods_supported: [...provider.codeChallengeMethodsSupported],
  };
}
