import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** How many of a user's latest start builds are looked through for their last parameter values. */
const BUILDS_LOOKED_AT = 100;

/** What a build's version declares of a parameter, as its JSON column holds it. */
interface DeclaredParameter {
  readonly name: string;
  readonly ephemeral?: boolean;
}

/**
 * The last value the user gave each parameter of the template in their start builds, newest
 * first. Ephemeral parameters are left out: they hold for one build only and are never offered again.
 */
export async function lastBuildParameters(
  db: Kysely<Database>,
  ownerId: string,
  templateId: string,
): Promise<{ name: string; value: string }[]> {
  const builds = await db
    .selectFrom('workspace_builds as b')
    .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
    .innerJoin('template_versions as v', 'v.id', 'b.template_version_id')
    .select(['b.rich_parameter_values', 'v.parameters'])
    .where('w.owner_id', '=', ownerId)
    .where('w.template_id', '=', templateId)
    .where('b.transition', '=', 'start')
    .orderBy('b.created_at', 'desc')
    .orderBy('b.build_number', 'desc')
    .limit(BUILDS_LOOKED_AT)
    .execute();
  const found = new Map<string, string>();
  for (const build of builds) {
    const declared = new Map((JSON.parse(build.parameters) as DeclaredParameter[]).map((p) => [p.name, p]));
    for (const given of JSON.parse(build.rich_parameter_values) as { name: string; value: string }[]) {
      const parameter = declared.get(given.name);
      if (!parameter || parameter.ephemeral || found.has(given.name)) continue;
      found.set(given.name, given.value);
    }
  }
  return [...found].map(([name, value]) => ({ name, value }));
}
