/**
 * The name of the group every organization has, whose members are the organization's members and
 * whose id is the organization's id (as the reference's). It cannot be renamed, deleted or have
 * members added or removed.
 */
export const EVERYONE_GROUP_NAME = 'Everyone';
