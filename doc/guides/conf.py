# SPDX-License-Identifier: BSD-3-Clause
# Sphinx configuration of the dma_mlx5 guides (devtools/build-doc.sh builds them with
# warnings as errors). Nothing is fetched from the network: no intersphinx, no remote
# images, the theme is one installed by Debian packages.
import configparser
import os
import re

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList

_here = os.path.dirname(os.path.abspath(__file__))
_top = os.path.normpath(os.path.join(_here, "..", ".."))


def _meson_version():
    """The version: field of the project() call in the top meson.build."""
    with open(os.path.join(_top, "meson.build"), encoding="utf-8") as f:
        m = re.search(r"\bversion\s*:\s*'([^']+)'", f.read())
    return m.group(1) if m else "unknown"


project = "dma_mlx5"
author = "The dma_mlx5 authors"
copyright = "2026, The dma_mlx5 authors"
version = release = _meson_version()

extensions = []
exclude_patterns = ["_build"]
templates_path = []
source_suffix = {".rst": "restructuredtext"}
root_doc = master_doc = "index"
language = "en"
pygments_style = "sphinx"
highlight_language = "none"
numfig = False
smartquotes = False

try:
    import sphinx_rtd_theme  # noqa: F401  (Debian: python3-sphinx-rtd-theme)
    html_theme = "sphinx_rtd_theme"
except ImportError:
    html_theme = "alabaster"
html_title = f"{project} {version}"
html_static_path = []
html_show_sourcelink = False
html_last_updated_fmt = None


def _features(path):
    """Ordered (feature, value) pairs of the [Features] section of a features .ini."""
    cp = configparser.ConfigParser(delimiters=("=",), comment_prefixes=(";",),
                                   interpolation=None)
    cp.optionxform = str  # keep the feature names as written
    with open(path, encoding="utf-8") as f:
        cp.read_file(f)
    return list(cp["Features"].items()) if cp.has_section("Features") else []


class FeaturesTable(Directive):
    """
    .. features-table:: features/mlx5.ini [features/other.ini ...]

    A table of the features listed in features/default.ini (which gives their order),
    one column per driver file: Y supported, P partially, empty not supported.
    """
    required_arguments = 1
    optional_arguments = 8
    has_content = False
    option_spec = {"caption": directives.unchanged}

    def run(self):
        env = self.state.document.settings.env
        srcdir = os.path.dirname(env.doc2path(env.docname))
        files = [os.path.join(srcdir, a) for a in self.arguments]
        default = os.path.join(os.path.dirname(files[0]), "default.ini")
        for f in files + [default]:
            env.note_dependency(f)
        order = [k for k, _ in _features(default)]
        drivers = []
        for f in files:
            vals = dict(_features(f))
            unknown = sorted(set(vals) - set(order))
            if unknown:
                raise self.error(f"{f}: features not in default.ini: {', '.join(unknown)}")
            drivers.append((os.path.splitext(os.path.basename(f))[0], vals))
        rows = [".. list-table:: " + self.options.get("caption", ""),
                "   :header-rows: 1", "",
                "   * - Feature"]
        rows += [f"     - {name}" for name, _ in drivers]
        for feat in order:
            rows.append(f"   * - {feat}")
            rows += [f"     - {vals.get(feat, '') or ' '}" for _, vals in drivers]
        node = nodes.container()
        self.state.nested_parse(StringList(rows, source=files[0]), self.content_offset, node)
        return node.children


def setup(app):
    app.add_directive("features-table", FeaturesTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
