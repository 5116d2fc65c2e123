# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration for `make docs` (HTML under build/docs/). Kept small on
# purpose: Debian's python3-sphinx and graphviz packages are all it needs, no
# theme or extension is fetched from the network.

project = "xehpg"
author = "xehpg developers"
copyright = "xehpg developers"

extensions = ["sphinx.ext.graphviz"]

# Every diagram becomes an SVG file beside the pages (the docs suite checks
# that each one did).
graphviz_output_format = "svg"

master_doc = "index"
source_suffix = {".rst": "restructuredtext"}
# The ABI files are kernel ABI text, not pages; sriov-map.svg is an image.
exclude_patterns = ["ABI", "conf.py"]

html_theme = "alabaster"
html_show_sourcelink = False
