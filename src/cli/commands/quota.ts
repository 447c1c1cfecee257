import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { quotaStanding } from '../quota-summary.js';

/** `cove quota`: what a user's workspaces cost a day against the budget their groups allow. */
export const quotaCommand: CommandSpec = {
  name: 'quota',
  summary: "Show the credits a user's workspaces use a day and their budget",
  description:
    "A user's budget is the sum of the quota allowances of their groups in the organization; each " +
    'workspace uses what its latest build costs a day. A start that would go over budget is refused. ' +
    'With -o json, a budget of -1 means no group grants an allowance, so quotas are not in use.',
  arguments: [{ name: 'user', description: 'Username or id (default: you)' }],
  options: [
    {
      flags: '-O, --org <organization>',
      description: 'Organization name or id (default: the default organization)',
      env: 'COVE_ORGANIZATION',
    },
  ],
  examples: ['cove quota', 'cove quota alice --org research -o json'],
  async run(context, [user], options) {
    const client = await context.client();
    const who = user ?? 'me';
    const org = typeof options['org'] === 'string' ? options['org'] : undefined;
    const quota = await client.workspaceQuota(who, org);
    if (context.json) {
      printJson(context.io, quota);
      return 0;
    }
    const name = who === 'me' ? 'You' : who;
    const standing = quotaStanding(quota);
    context.say(
      standing === undefined
        ? `${name}: ${quota.credits_consumed} credits a day in use; no group has a quota allowance, so there is no budget.`
        : `${name}: ${standing}.`,
    );
    return 0;
  },
};
