/**
 * The names of secrets: what `core.secret`, `config/secrets.json` and
 * `sausage secret` accept, one rule for all three.
 *
 * @module
 */

/** A secret's name: a letter or `_`, then up to 127 letters, digits or `_`. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The rule in words, for messages. */
export const SECRET_NAME_RULE = "[A-Za-z_][A-Za-z0-9_]{0,127}";

/** True when `name` is a secret's name ({@link SECRET_NAME}). */
export function isSecretName(name: unknown): name is string {
  return typeof name === "string" && SECRET_NAME.test(name);
}

/**
 * What is wrong with `name` as a secret's name, in one line that quotes it
 * (shortened past 40 characters); null when it is a good name.
 */
export function secretNameProblem(name: unknown): string | null {
  if (isSecretName(name)) return null;
  if (typeof name !== "string") return `a secret's name must be a string, not ${typeof name}`;
  const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  return `${
    JSON.stringify(shown)
  } is not a secret's name (${SECRET_NAME_RULE}, e.g. OPENAI_API_KEY)`;
}
