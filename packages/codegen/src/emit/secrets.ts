/**
 * Secrets never reach an export. The IR has no secret store: a flow either reads a credential
 * from its run input (`Bearer {{ input.token }}` — exported as that input read) or, wrongly,
 * holds it as a literal header value. Such a literal in a header whose name says it carries a
 * credential is written as a `process.env` read instead, named after the step (or tool) and
 * header, and listed at the top of the module. Which names carry a credential is the engine's
 * `isCredentialHeader`, the same rule the http step uses for redirects and run events.
 */
import { isCredentialHeader, isExpression, isTemplate } from '@weft/engine';

/** Environment variables an export reads, by name. */
export class SecretNames {
  readonly names = new Set<string>();

  /** `process.env.NAME` for a literal credential, else undefined (the value is written as is). */
  header(owner: string, header: string, value: unknown): string | undefined {
    const name = this.variable(owner, header, value);
    return name === undefined ? undefined : `process.env.${name} ?? ''`;
  }

  /** The environment variable a literal credential is read from instead, else undefined. */
  variable(owner: string, header: string, value: unknown): string | undefined {
    if (typeof value !== 'string' || value === '' || isExpression(value) || isTemplate(value)) return undefined;
    if (!isCredentialHeader(header)) return undefined;
    const name = `${owner}_${header}`.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
    this.names.add(name);
    return name;
  }
}
