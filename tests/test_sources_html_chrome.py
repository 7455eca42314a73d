"""HTML extraction keeps the content and drops the interface around it."""

from __future__ import annotations

from thrift_fp.sources.documents import html_structure

_PAGE = """<html><body>
<header class="header"><h1>Node.js v20 documentation</h1><button>Toggle dark mode</button></header>
<nav><a href="/">Index</a></nav>
<div id="apicontent"><h2>File system</h2>
<p>To use the promise-based APIs:</p>
<pre><input type="checkbox" aria-label="Show modern ES modules syntax"><code class="mjs">import * as fs from 'node:fs/promises';
const data = await fs.readFile('a', 'utf8');</code><code class="cjs">const fs = require('node:fs/promises');</code><button class="copy-button">copy</button></pre>
</div>
<footer>Copyright OpenJS Foundation</footer>
<article><header><h1>An article's own title</h1></header><p>Body.</p></article>
</body></html>"""


def test_buttons_headers_footers_and_navigation_are_not_text() -> None:
    text = html_structure(_PAGE).unwrap().text
    for chrome in ("copy", "Toggle", "Node.js v20 documentation", "Index", "Copyright"):
        assert chrome not in text, chrome
    assert "An article's own title" in text and "To use the promise-based APIs:" in text


def test_neighbouring_code_blocks_stay_apart() -> None:
    text = html_structure(_PAGE).unwrap().text
    assert "'utf8');\n\nconst fs = require" in text
    assert "utf8');const" not in text
