"""The README's Python examples run as written (the README must stay true)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 3
    namespace: dict = {}
    for block in blocks:  # later blocks reuse names of earlier ones, as a reader would
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["result"].best_point["alpha"] > 0


def test_readme_quick_start_commands():
    text = README.read_text()
    assert "make tour" in text and "make test" in text and "make test-all" in text
    makefile = (README.parent / "Makefile").read_text()
    assert "tour:" in makefile and "\ntest:" in makefile and "\ntest-all:" in makefile
    # the fast tier deselects the full one; CI runs everything
    assert re.search(r'^test:.*\n(\t.*\n)*\t.*pytest.*-m "not full"', makefile, flags=re.M)
    assert "make test-all" in (README.parent / ".ci" / "run").read_text()
