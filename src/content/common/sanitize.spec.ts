import { sanitize } from './sanitize';

describe('sanitize', () => {
  it('keeps text markup and safe links, drops scripts, handlers, styles and javascript: URLs', () => {
    const out = sanitize(
      `<p onclick="steal()">Hi <strong>all</strong><script>alert(1)</script></p>` +
        `<a href="javascript:alert(1)">x</a><a href="https://ok.example/">ok</a>` +
        `<img src="http://insecure.example/a.png" onerror="x()"><img src="https://cdn.example/a.png">` +
        `<iframe src="https://evil.example"></iframe><style>body{}</style><svg><script>1</script></svg>`,
    );
    expect(out).not.toMatch(/script|onclick|onerror|javascript:|iframe|style|svg|insecure/i);
    expect(out).toContain('<p>Hi <strong>all</strong></p>');
    expect(out).toContain('<a href="https://ok.example/" rel="noopener nofollow ugc" target="_blank">ok</a>');
    expect(out).toContain('<img src="https://cdn.example/a.png" />');
  });
});
