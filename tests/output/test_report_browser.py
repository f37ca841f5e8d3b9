"""report.html in a real browser: Debian's headless chromium renders its tables and figures.

A copy of each report gets a small script that, once the page has loaded, counts the
tables, their rows and the images that decoded (``complete`` and a natural width), and
writes the counts into the page; ``--dump-dom`` prints them. A screenshot of the same page
must not be blank. The test skips, saying why, where chromium is not installed
(``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from matplotlib.image import imread
from typer.testing import CliRunner

from relplan.cli.app import app
from tests.conftest import CONFIGS, REPO

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason="chromium is not installed (apt-get install chromium; .ci/run installs it)",
    ),
    pytest.mark.slow,  # a simulation with figures, then a headless browser
]

PROBE = """<script>
window.addEventListener("load", () => {
  const images = Array.from(document.images);
  const result = {
    tables: document.querySelectorAll("table").length,
    rows: document.querySelectorAll("table tbody tr").length,
    images: images.length,
    decoded: images.filter(i => i.complete && i.naturalWidth > 0).length,
    widest_image: Math.max(0, ...images.map(i => i.getBoundingClientRect().width)),
    footer: (document.querySelector("footer#provenance") || {}).textContent || "",
    ci_cell_heights: Array.from(document.querySelectorAll("td.num"))
      .map(c => Math.round(c.getBoundingClientRect().height)),
    label_align: getComputedStyle(document.querySelector("tbody th")).textAlign,
  };
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>"""


def _chromium(profile: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=10000",
         *arguments],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    runner = CliRunner()
    base = tmp_path_factory.mktemp("reports")
    simulate = runner.invoke(app, ["simulate", str(CONFIGS / "seed-moe-10k.toml"), "--trials",
                                   "40", "--out", str(base / "simulate")])  # fmt: skip
    assert simulate.exit_code == 0, simulate.output
    sweep = runner.invoke(app, ["sweep", str(REPO / "studies" / "recovery-strategies.toml"),
                                "--trials", "30", "--out", str(base / "study")])  # fmt: skip
    assert sweep.exit_code == 0, sweep.output
    return {"simulate": base / "simulate" / "report.html", "study": base / "study" / "report.html"}


@pytest.mark.parametrize("kind", ["simulate", "study"])
def test_report_renders_its_tables_and_figures_in_chromium(
    kind: str, reports: dict[str, Path], tmp_path: Path
) -> None:
    page = reports[kind]
    text = page.read_text()
    probed = page.with_name("probed.html")
    probed.write_text(text.replace("</body>", PROBE + "</body>"))
    result = _chromium(tmp_path / "profile", "--dump-dom", probed.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    match = re.search(r'<pre id="probe">(.*?)</pre>', result.stdout, re.S)
    assert match, f"the page did not finish loading: {result.stdout[-500:]}"
    probe = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    expected_images = text.count("data:image/png;base64,")
    assert expected_images >= (5 if kind == "simulate" else 3)
    assert probe["images"] == expected_images
    assert probe["decoded"] == expected_images, "an embedded figure did not decode"
    assert probe["widest_image"] > 300
    assert probe["tables"] == text.count("<table")
    assert probe["tables"] >= 3 and probe["rows"] >= 10
    assert probe["label_align"] in ("left", "start")
    # every number cell is one line high: CIs never wrap
    heights = probe["ci_cell_heights"]
    assert heights and max(heights) <= 1.6 * min(heights)
    assert "config sha256" in probe["footer"] and "relplan" in probe["footer"]

    screenshot = tmp_path / "screenshot.png"
    shot = _chromium(tmp_path / "profile", f"--screenshot={screenshot}",
                     "--window-size=1200,2000", page.as_uri())  # fmt: skip
    assert shot.returncode == 0, shot.stderr[-2000:]
    pixels = imread(screenshot)[..., :3]
    assert pixels.shape[0] >= 1900 and pixels.shape[1] >= 1100
    ink = (pixels < 0.9).any(axis=2).mean()
    assert ink > 0.03, "the screenshot is (nearly) blank"
    colours = np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 200, "no figure was painted"
