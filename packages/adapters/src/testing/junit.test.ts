import { describe, expect, it } from 'vitest';
import { junitXml } from './junit.ts';

describe('junitXml', () => {
  const results = [
    { name: 'passes', file: 'tests/a.json', flowId: 'a', passed: true, durationMs: 12 },
    {
      name: "quote \" & <tag> 'apos'",
      file: 'tests/b.json',
      flowId: 'b',
      passed: false,
      durationMs: 1500,
      firstDifference: 'output.text: expected "<b>&amp;</b>", got "\u0007bell\u0000nul\ud800lone"\nsecond line',
    },
    {
      name: 'broken',
      file: 'tests/c.json',
      passed: false,
      durationMs: 0,
      error: 'tests/c.json is not a valid test case',
    },
  ];
  const xml = junitXml(results);

  it('counts tests, failures and errors, with times in seconds', () => {
    expect(xml).toContain('<testsuite name="weft" tests="3" failures="1" errors="1" skipped="0" time="1.512">');
    expect(xml).toContain('<testcase name="passes" classname="a" file="tests/a.json" time="0.012"/>');
    expect(xml).toContain('<error message="tests/c.json is not a valid test case">');
  });

  it('escapes markup and quotes, and replaces what XML cannot hold', () => {
    expect(xml).toContain('name="quote &quot; &amp; &lt;tag&gt; &apos;apos&apos;"');
    expect(xml).toContain(
      '<failure message="output.text: expected &quot;&lt;b&gt;&amp;amp;&lt;/b&gt;&quot;, got &quot;\ufffdbell\ufffdnul\ufffdlone&quot;&#10;second line">',
    );
    // In text content quotes and newlines stay as they are; markup is still escaped.
    expect(xml).toContain('&gt;&amp;amp;&lt;/b&gt;", got "\ufffdbell\ufffdnul\ufffdlone"\nsecond line</failure>');
    // Nothing XML 1.0 forbids is left anywhere in the document.
    const forbidden = [...xml].filter((char) => {
      const code = char.codePointAt(0) ?? 0;
      return (code < 0x20 && code !== 0x9 && code !== 0xa && code !== 0xd) || (code >= 0xd800 && code <= 0xdfff);
    });
    expect(forbidden).toEqual([]);
  });

  it('keeps astral characters, which XML allows', () => {
    expect(junitXml([{ name: 'emoji 🎉', file: 'x', passed: true, durationMs: 0 }])).toContain('name="emoji 🎉"');
  });
});
