/**
 * A validation detail from the API as a sentence: the server words a broken rule as its validator
 * does (`Validation failed for tag "username" with value: "bad_name": must be alphanumeric with
 * hyphens`), which tells a person little; other details are returned as they are.
 */
export function validationSentence(detail: string): string {
  const match = /^Validation failed for tag "([^"]+)" with value: "(.*?)"(?:: (.+))?$/s.exec(detail);
  if (!match) return detail;
  const [, tag = '', value = '', rule] = match;
  const what = tag.replace(/_/g, ' ');
  const subject = value === '' ? `An empty ${what}` : `"${value}"`;
  return `${subject} is not a valid ${what}${rule ? `: it ${rule}` : ''}.`;
}
