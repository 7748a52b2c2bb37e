/**
 * Test results as JUnit XML, the format CI systems (GitHub Actions reporters, GitLab, Jenkins)
 * read. Hand-written — no XML library is a dependency, and the format needs only a handful of
 * elements — with every attribute and text escaped, and the characters XML 1.0 cannot hold at
 * all (most control characters, lone surrogates) replaced: a model's output or an error message
 * may contain anything, and one bad character would make the whole report unreadable.
 */
import type { CaseResult } from './run-case.ts';

export function junitXml(results: readonly CaseResult[], suiteName = 'weft'): string {
  const failures = results.filter((result) => !result.passed && result.error === undefined).length;
  const errors = results.filter((result) => result.error !== undefined).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = results.reduce((sum, result) => sum + result.durationMs, 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attr(suiteName)}" tests="${results.length}" failures="${failures}" errors="${errors}" time="${seconds(total)}">`,
    `  <testsuite name="${attr(suiteName)}" tests="${results.length}" failures="${failures}" errors="${errors}" skipped="0" time="${seconds(total)}">`,
  ];
  for (const result of results) {
    const open = `    <testcase name="${attr(result.name)}" classname="${attr(result.flowId ?? suiteName)}" file="${attr(result.file)}" time="${seconds(result.durationMs)}"`;
    if (result.error !== undefined) {
      lines.push(
        `${open}>`,
        `      <error message="${attr(result.error)}">${text(result.error)}</error>`,
        '    </testcase>',
      );
    } else if (!result.passed) {
      const why = result.firstDifference ?? 'failed';
      lines.push(`${open}>`, `      <failure message="${attr(why)}">${text(why)}</failure>`, '    </testcase>');
    } else lines.push(`${open}/>`);
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}

// Allowed by XML 1.0: tab, newline, carriage return, U+0020–U+D7FF, U+E000–U+FFFD and the
// astral planes (as surrogate pairs). Everything else — including a lone surrogate — is not.
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

function clean(value: string): string {
  return value.replace(NOT_XML, '\ufffd');
}

function text(value: string): string {
  return clean(value).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** In an attribute, quotes and whitespace a parser would normalise away are escaped too. */
function attr(value: string): string {
  return text(value)
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
    .replaceAll('\n', '&#10;')
    .replaceAll('\r', '&#13;')
    .replaceAll('\t', '&#9;');
}
